#include "sim/config/reference_resolver.hpp"

#include <stdexcept>

#include "sim/config/hf_model_splice.hpp"

namespace clustersim::config {
namespace {

struct ChildSlot {
  CatalogKind parent;
  std::string_view key;
  CatalogKind kind;
};
constexpr ChildSlot kChildSlots[] = {{CatalogKind::clusters, "node", CatalogKind::nodes},
                                     {CatalogKind::nodes, "device", CatalogKind::devices}};
struct TopSlot {
  std::string_view pointer;
  CatalogKind kind;
};
constexpr TopSlot kTopSlots[] = {{"/cluster", CatalogKind::clusters},
                                 {"/cluster/node", CatalogKind::nodes},
                                 {"/cluster/node/device", CatalogKind::devices},
                                 {"/model", CatalogKind::models}};

void add_problem(ResolvedDocument& doc, const std::string& pointer, std::string message) {
  auto where = doc.origin.locate(pointer);
  doc.problems.push_back({pointer, {std::move(where.file), std::move(where.pointer), std::move(message)}});
}

}  // namespace

void ReferenceResolver::resolve_slot(ResolvedDocument& doc, nlohmann::json& value, const std::string& pointer,
                                     CatalogKind kind) {
  if (value.is_string()) {
    std::filesystem::path file;
    try {
      file = catalog_.resolve(kind, value.get_ref<const std::string&>(), doc.origin.directory_of(pointer));
      value = catalog_.load(file);
    } catch (const std::invalid_argument& e) {
      add_problem(doc, pointer, e.what());
      return;
    } catch (const ConfigError& e) {
      for (const auto& d : e.diagnostics()) doc.problems.push_back({pointer, d});
      add_problem(doc, pointer, "the referenced file could not be read (see above)");
      return;
    }
    doc.origin.mount(pointer, file.string(), "", file.parent_path());
  }
  if (kind == CatalogKind::models) splice_hf_model(doc, value, pointer);
  if (!value.is_object()) return;  // the section reader reports the type error
  for (const auto& child : kChildSlots) {
    if (child.parent != kind) continue;
    if (auto it = value.find(child.key); it != value.end()) {
      resolve_slot(doc, *it, child_pointer(pointer, child.key), child.kind);
    }
  }
  // A heterogeneous cluster's pools each name a node.
  if (kind == CatalogKind::clusters) {
    if (auto pools = value.find("pools"); pools != value.end() && pools->is_array()) {
      for (std::size_t i = 0; i < pools->size(); ++i) {
        auto& pool = (*pools)[i];
        if (!pool.is_object()) continue;
        if (auto it = pool.find("node"); it != pool.end()) {
          resolve_slot(doc, *it, child_pointer(child_pointer(child_pointer(pointer, "pools"), std::to_string(i)), "node"),
                       CatalogKind::nodes);
        }
      }
    }
  }
}

void ReferenceResolver::resolve_experiment(ResolvedDocument& doc) {
  resolve_at(doc, "");
  // Inline job models may name a Hugging Face config too (a job's model name is read by load_model).
  if (auto jobs = doc.document.find("jobs");
      doc.document.is_object() && jobs != doc.document.end() && jobs->is_array()) {
    for (std::size_t i = 0; i < jobs->size(); ++i) {
      auto& job = (*jobs)[i];
      if (job.is_object() && job.contains("model")) {
        splice_hf_model(doc, job["model"], child_pointer(child_pointer("/jobs", std::to_string(i)), "model"));
      }
    }
  }
}

void ReferenceResolver::resolve_entry(ResolvedDocument& doc, CatalogKind kind) {
  resolve_slot(doc, doc.document, "", kind);
}

void ReferenceResolver::resolve_at(ResolvedDocument& doc, const std::string& pointer) {
  if (!doc.document.is_object()) return;
  if (is_hf_config_pointer(pointer)) {
    add_problem(doc, pointer,
                "hf_config cannot be replaced alone once converted: set the whole model instead "
                "(--set '/model={\"hf_config\": \"path/to/config.json\"}')");
    return;
  }
  // Below /cluster: a pool's node named by --set (/cluster/pools, /cluster/pools/i, /cluster/pools/i/node).
  if (pointer.starts_with("/cluster/pools")) {
    const nlohmann::json::json_pointer jp{"/cluster/pools"};
    if (doc.document.contains(jp) && doc.document.at(jp).is_array()) {
      nlohmann::json& pools = doc.document.at(jp);
      for (std::size_t i = 0; i < pools.size(); ++i) {
        const std::string slot = "/cluster/pools/" + std::to_string(i) + "/node";
        if (!pools[i].is_object() || !pools[i].contains("node") || !pools[i]["node"].is_string()) continue;
        if (!pointer_within(slot, pointer) && !pointer_within(pointer, slot)) continue;
        resolve_slot(doc, pools[i]["node"], slot, CatalogKind::nodes);
      }
    }
    return;
  }
  std::string_view done = "\x01";  // no slot resolved yet; never a prefix of a pointer
  for (const auto& slot : kTopSlots) {
    // Resolve the slots at or below `pointer`; resolve_slot descends into nested slots itself.
    if (!pointer_within(slot.pointer, pointer) || pointer_within(slot.pointer, done)) continue;
    const nlohmann::json::json_pointer jp{std::string(slot.pointer)};
    if (!doc.document.contains(jp)) continue;
    resolve_slot(doc, doc.document.at(jp), std::string(slot.pointer), slot.kind);
    done = slot.pointer;
  }
}

}  // namespace clustersim::config
