// Sweep points built by patching typed fields instead of re-reading the whole JSON document.
//
// A sweep point differs from the experiment only at its axis pointers. When every axis pointer names one
// typed field whose reader only copies the value (checked against the field's declaration: range, type),
// the point's Scenario is the experiment's Scenario *before* the cross-field stage (read_sections) with
// those fields overwritten, followed by the same cross-field checks, derivations and finish hooks as a full
// read (finish_sections: dp, seq_len, energy defaults, topology checks...). The sections' own keys are not
// re-read per point.
//
// Patchable pointers (each with the reader code it mirrors, all in sim/config):
//   /cluster/network/oversubscription  a number (topology_reader.cpp read_oversubscription; the implied
//                                      fabric is re-validated as read_cluster does)
//   /parallelism/tp, /parallelism/dp   integers (parallelism_training_readers.cpp read_parallelism)
//   /training/global_batch             an integer, unless the experiment has a batch_rampup (whose checks
//                                      read global_batch)
//   /energy/pue                        a number, when the experiment gives pue as a number (energy_section.cpp;
//                                      EnergySpec::validate() re-run)
// Anything else — another pointer, a value the experiment states as a string, array or catalog name, an
// experiment with jobs or pools, a cluster pointer when the experiment has an energy section (whose reader
// reads the cluster), an experiment that names a framework profile (filled after each point's overrides),
// a document with problems — takes the JSON path (ExperimentLoader::build_in_place).
// So does every point whose patched value or cross-field checks report a problem: its error message is the
// JSON path's, word for word. tests/config/typed_patch_test.cpp and tests/plan/sweep_test.cpp compare the
// two paths.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sim/config/experiment_loader.hpp"

namespace clustersim::config {

struct TypedField;

class TypedPointBuilder {
 public:
  /// Reads `doc` once (the snapshot). `pointers` are the points' override pointers, in the order the
  /// overrides will come. `loader` must outlive the builder.
  TypedPointBuilder(ExperimentLoader& loader, const ResolvedDocument& doc, std::span<const std::string> pointers);
  ~TypedPointBuilder();

  /// True when every pointer can be patched typed in this document.
  [[nodiscard]] bool enabled() const { return enabled_; }
  /// Why not (empty when enabled).
  [[nodiscard]] const std::string& reason() const { return reason_; }

  /// The Scenario of the document with `overrides` applied (same pointers, same order as at
  /// construction), or nullopt when this point must take the JSON path.
  std::optional<Scenario> build(std::span<const Override> overrides);

 private:
  ExperimentLoader& loader_;
  Provenance origin_;  // the document's; the finish hooks read it (catalog directories)
  std::vector<const TypedField*> fields_;
  Scenario snapshot_;  // read_sections() of the document, before finish_sections()
  bool enabled_ = false;
  std::string reason_;
};

/// True when `pointer` names a field TypedPointBuilder can patch (in some document).
bool typed_patchable(std::string_view pointer);

}  // namespace clustersim::config
