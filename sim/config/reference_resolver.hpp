// Replaces catalog references inside an experiment by the objects they name.
//
// Reference slots: /cluster (clusters), /model (models); inside a cluster `node` (nodes); inside a node
// `device` (devices). A slot holding a string is a catalog name or a file path (see catalog.hpp); the
// loaded object is spliced in and mounted in the Provenance, and its own slots are resolved in turn,
// relative to its file. Problems are recorded against the location of the reference string.
#pragma once

#include <string>

#include "sim/config/catalog.hpp"
#include "sim/config/resolved_document.hpp"

namespace clustersim::config {

class ReferenceResolver {
 public:
  explicit ReferenceResolver(Catalog& catalog) : catalog_(catalog) {}

  /// Resolves every slot of the experiment document in `doc`.
  void resolve_experiment(ResolvedDocument& doc);

  /// Resolves the references inside a catalog entry of `kind` held at the root of `doc` (a node's
  /// device, a cluster's node and its device).
  void resolve_entry(ResolvedDocument& doc, CatalogKind kind);

  /// Resolves the slot at `pointer` (one of the experiment slots, or any slot below them) and the slots
  /// inside it. Pointers that are not slots and contain none are left alone.
  void resolve_at(ResolvedDocument& doc, const std::string& pointer);

 private:
  void resolve_slot(ResolvedDocument& doc, nlohmann::json& value, const std::string& pointer,
                    CatalogKind kind);
  Catalog& catalog_;
};

}  // namespace clustersim::config
