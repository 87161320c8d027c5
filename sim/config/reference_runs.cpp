#include "sim/config/reference_runs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <map>

#include "sim/config/catalog_entries.hpp"
#include "sim/config/framework_profile.hpp"
#include "sim/config/json_file.hpp"
#include "sim/config/object_reader.hpp"
#include "sim/config/pipeline_layout.hpp"
#include "sim/config/provenance.hpp"
#include "sim/config/reference_record.hpp"
#include "sim/core/diagnostics.hpp"
#include "sim/core/unit_parse.hpp"

namespace clustersim::config {
namespace {

using nlohmann::json;

// The product of positive factors when it stays within `limit` (a record's device count), else nullopt:
// each stated count may be as large as 2^31 - 1, so a product of three would overflow 64 bits.
std::optional<std::int64_t> product_within(std::initializer_list<std::int64_t> factors, std::int64_t limit) {
  std::int64_t p = 1;
  for (const std::int64_t f : factors) {
    if (f <= 0 || p > limit / f) return std::nullopt;
    p *= f;
  }
  return p;
}

// The record builder peeks at a few keys of catalog node and device entries (run reads them with the
// declared-field reader). A key of the wrong type is a skip reason naming the file and key, never a
// json exception (which would end validate with an internal error).
std::string wrong_type(const std::filesystem::path& file, const char* key, const char* want) {
  return fmt::format("catalog entry {}: /{} must be {}", file.string(), key, want);
}

std::optional<std::string> peek_string(const json& j, const char* key, std::string& out) {
  out.clear();
  if (!j.is_object() || !j.contains(key)) return std::nullopt;
  if (!j[key].is_string()) return std::string("a string");
  out = j[key].get<std::string>();
  return std::nullopt;
}

std::optional<std::string> peek_int(const json& j, const char* key, int& out) {
  out = 0;
  if (!j.is_object() || !j.contains(key)) return std::nullopt;
  const json& v = j[key];
  if (!v.is_number_integer() || v.get<std::int64_t>() < 0 || v.get<std::int64_t>() > 1'000'000'000) {
    return std::string("a non-negative integer");
  }
  out = static_cast<int>(v.get<std::int64_t>());
  return std::nullopt;
}

namespace fs = std::filesystem;

struct AcceleratorEntry {
  std::string node;       // node catalog entry; "" = none yet
  std::string note;       // printed as an assumption when the node differs from the part named
  std::string missing;    // what would make records on this accelerator expressible
  std::string power_cap;  // the part's stated power limit ("500 W"), below the node device's TDP
};

constexpr Field kAcceleratorEntryFields[] = {
    {.key = "node",
     .kind = FieldKind::string,
     .doc = "configs/nodes entry of this accelerator",
     .also = also_null},
    {.key = "note", .kind = FieldKind::string, .doc = "what the mapping assumes"},
    {.key = "missing", .kind = FieldKind::string, .doc = "what is needed to predict it (when node is null)"},
    {.key = "power_cap",
     .kind = FieldKind::quantity,
     .doc = "the power limit the name states, applied as energy.power_cap (docs/energy.md, power caps)",
     .dimension = Dimension::power},
    {.key = "source", .kind = FieldKind::text, .doc = "citation"},
};
constexpr Section kAcceleratorEntrySection{"accelerator", "/accelerators/*", "one accelerator name",
                                           kAcceleratorEntryFields};
constexpr Section kClusterEntrySection{"cluster", "/clusters/*", "one cluster name", kAcceleratorEntryFields};
constexpr Field kAcceleratorsFields[] = {
    {.key = "description", .kind = FieldKind::text, .doc = "free text"},
    {.key = "accelerators",
     .kind = FieldKind::object_map,
     .doc = "accelerator name as records write it -> entry",
     .fallback = "required",
     .section = &kAcceleratorEntrySection},
    {.key = "clusters",
     .kind = FieldKind::object_map,
     .doc = "hardware.cluster exactly as records write it -> the node entry of that machine (used instead of "
            "the accelerator's generic node when its device is the same)",
     .section = &kClusterEntrySection},
};
constexpr Section kAcceleratorsSection{"accelerators", "", "configs/reference/accelerators.json",
                                       kAcceleratorsFields};

// One entry per name of an "accelerators" or "clusters" object (the same entry fields).
void read_entries(const json& raw, const char* where, const Section& section, ReadContext& ctx,
                  std::map<std::string, AcceleratorEntry>& out) {
  for (auto it = raw.begin(); it != raw.end(); ++it) {
    ObjectReader e(it.value(), child_pointer(where, it.key()), section, ctx);
    AcceleratorEntry a;
    if (const auto* n = e.find("node"); n != nullptr && !n->is_null()) a.node = e.string("node", "");
    a.note = e.string("note", "");
    a.missing = e.string("missing", "");
    if (e.has("power_cap") && e.get_quantity("power_cap"))
      a.power_cap = e.find("power_cap")->get<std::string>();
    e.accept("source");
    if (a.node.empty() && a.missing.empty() && e.valid())
      e.error("missing", "required when node is null");
    e.finish();
    out.emplace(it.key(), a);
  }
}

// reference/accelerators.json: accelerator name exactly as records write it -> node catalog entry; and
// (optional "clusters") a named machine exactly as records write hardware.cluster -> its own node entry.
std::map<std::string, AcceleratorEntry> read_accelerators(const CatalogPaths& paths,
                                                          std::map<std::string, AcceleratorEntry>& clusters) {
  std::map<std::string, AcceleratorEntry> out;
  for (const fs::path& root : paths.roots) {
    const fs::path file = root / "reference" / "accelerators.json";
    std::error_code ec;
    if (!fs::exists(file, ec)) continue;
    const json doc = read_json_file(file);
    const Provenance origin(file.string(), file.parent_path());
    Diagnostics diagnostics;
    ReadContext ctx(origin, diagnostics);
    ObjectReader top(doc, "", kAcceleratorsSection, ctx);
    top.accept("description");
    const json* raw = top.find("accelerators");
    if (raw == nullptr) {
      top.error("accelerators", "missing required key");
    } else if (!raw->is_object()) {
      top.error("accelerators",
                fmt::format("expected an object (accelerator name -> entry), got {}", describe(*raw)));
    } else {
      read_entries(*raw, "/accelerators", kAcceleratorEntrySection, ctx, out);
    }
    if (const json* cl = top.find("clusters"); cl != nullptr) {
      if (!cl->is_object()) {
        top.error("clusters", fmt::format("expected an object (cluster name -> entry), got {}", describe(*cl)));
      } else {
        read_entries(*cl, "/clusters", kClusterEntrySection, ctx, clusters);
      }
    }
    top.finish();
    diagnostics.throw_if_any();
    return out;
  }
  return out;
}

struct Inputs {
  const std::vector<FrameworkProfile>& profiles;
  const std::map<std::string, AcceleratorEntry>& accelerators;
  const std::map<std::string, AcceleratorEntry>& clusters;
  Catalog catalog;
};

class Builder {
 public:
  Builder(const ReferenceRecord& rec, Inputs& in, ReferenceCase& c) : rec_(rec), in_(in), c_(c) {}

  // Returns the reason when the record cannot be expressed.
  std::optional<std::string> build() {
    profile_ = select_profile(in_.profiles, rec_.framework, rec_.framework_date);
    if (profile_ != nullptr) c_.profile = profile_->name;
    if (auto why = metrics()) return why;
    if (auto why = unexpressible_schedule()) return why;
    if (auto why = hardware()) return why;
    if (auto why = model()) return why;
    if (auto why = parallelism()) return why;
    if (auto why = training()) return why;
    c_.experiment = {{"schema_version", 1}, {"name", rec_.id},     {"cluster", cluster_},
                     {"model", model_},     {"parallelism", par_}, {"training", train_}};
    if (!power_cap_.empty()) c_.experiment["energy"] = {{"power_cap", power_cap_}};
    return std::nullopt;
  }

 private:
  void assume(std::string what) { c_.assumptions.push_back(std::move(what)); }

  std::string profile_label() const {
    return profile_ ? fmt::format("profile {}", profile_->name) : std::string("no profile");
  }
  std::string no_profile_reason(std::string_view field) const {
    if (profile_ != nullptr) {
      return fmt::format("{} not stated and profile {} declares no default for it", field, profile_->name);
    }
    if (rec_.framework_date.empty()) {
      return fmt::format("{} not stated, and framework.date is not stated, so no framework profile applies",
                         field);
    }
    return fmt::format("{} not stated, and no profile in configs/profiles covers framework \"{}\" at {}",
                       field, rec_.framework, rec_.framework_date);
  }

  std::optional<std::string> metrics() {
    for (const auto& [name, value] : rec_.measured) {
      if (name == "tflops_per_gpu_unknown") continue;
      MeasuredMetric m{name, value, std::nullopt};
      if ((name == "mfu" || name == "hfu") && rec_.peak_tflops_used) m.peak_tflops = *rec_.peak_tflops_used;
      if ((name == "mfu" || name == "hfu") && !rec_.peak_tflops_used && c_.metrics.empty()) {
        assume(fmt::format("{} peak = the device catalog's dense peak at the compute precision (peak_tflops_used "
                           "not stated)",
                           name));
      }
      c_.metrics.push_back(m);
    }
    if (c_.metrics.empty()) {
      return std::string(
          "no comparable measurement (TFLOP/s with an unknown FLOP basis only): state tflops_basis");
    }
    return std::nullopt;
  }

  std::optional<std::string> hardware() {
    const auto it = in_.accelerators.find(rec_.accelerator);
    if (it == in_.accelerators.end()) {
      return fmt::format("accelerator \"{}\" is not listed in reference/accelerators.json", rec_.accelerator);
    }
    if (it->second.node.empty()) {
      return fmt::format("accelerator \"{}\" has no node catalog entry: needs {}", rec_.accelerator,
                         it->second.missing);
    }
    const auto file_of = [&](const std::string& name) { return in_.catalog.find(CatalogKind::nodes, name); };
    const AcceleratorEntry* entry = &it->second;
    // The named machine's own node entry, when the record names one listed in "clusters" and it holds the
    // same device as the accelerator's node (exact names only).
    if (rec_.cluster) {
      if (const auto cl = in_.clusters.find(*rec_.cluster); cl != in_.clusters.end() && !cl->second.node.empty()) {
        const auto generic = file_of(it->second.node);
        const auto named = file_of(cl->second.node);
        if (!named) return fmt::format("node entry \"{}\" is not in configs/nodes", cl->second.node);
        std::string generic_device, named_device;
        if (generic) {
          if (auto want = peek_string(read_json_file(*generic), "device", generic_device))
            return wrong_type(*generic, "device", want->c_str());
        }
        if (auto want = peek_string(read_json_file(*named), "device", named_device))
          return wrong_type(*named, "device", want->c_str());
        if (generic && generic_device == named_device) {
          entry = &cl->second;
          assume(fmt::format("node = {} (hardware.cluster \"{}\"{})", cl->second.node, *rec_.cluster,
                             cl->second.note.empty() ? std::string() : "; " + cl->second.note));
        }
      }
    }
    if (entry == &it->second) {
      assume(it->second.note.empty()
                 ? fmt::format("node = {} (the catalog's node for accelerator \"{}\", configs/reference/"
                               "accelerators.json)",
                               it->second.node, rec_.accelerator)
                 : fmt::format("node = {} ({})", it->second.node, it->second.note));
    }
    const auto file = file_of(entry->node);
    if (!file) return fmt::format("node entry \"{}\" is not in configs/nodes", entry->node);
    const json node = read_json_file(*file);
    if (!node.is_object()) return fmt::format("catalog entry {}: must be a JSON object", file->string());
    if (auto want = peek_string(node, "device", device_)) return wrong_type(*file, "device", want->c_str());
    int catalog_per_node = 0, domain = 0;
    if (auto want = peek_int(node, "devices_per_node", catalog_per_node))
      return wrong_type(*file, "devices_per_node", want->c_str());
    if (auto want = peek_int(node, "nvlink_domain_devices", domain))
      return wrong_type(*file, "nvlink_domain_devices", want->c_str());
    int per_node = catalog_per_node;
    if (rec_.gpus_per_node) {
      per_node = static_cast<int>(*rec_.gpus_per_node);
    } else {
      assume(fmt::format("gpus_per_node = {} (not stated; node entry {})", per_node, entry->node));
    }
    if (per_node <= 0) return fmt::format("node entry {} has no devices_per_node", entry->node);
    const int count = static_cast<int>(rec_.count);
    if (count > per_node && count % per_node != 0) {
      return fmt::format("{} devices are not whole nodes of {} (partial nodes are not modelled)", count,
                         per_node);
    }
    if (count < per_node) {
      c_.devices_per_node_override = count;
    } else if (per_node != catalog_per_node) {
      c_.devices_per_node_override = per_node;
      assume(fmt::format("node {} with {} devices per node (as the record states; the entry has {})",
                         entry->node, per_node, catalog_per_node));
    }
    c_.devices = count;
    cluster_ = {{"name", rec_.id}, {"node", entry->node}, {"nodes", std::max(1, count / per_node)}};
    if (count / per_node > 1) {
      assume("network = the experiment defaults for the node's NICs: a non-blocking fat tree (a torus for a "
             "torus-ici node), ECMP routing, no SHARP (not stated)");
    }
    if (auto why = slices(node, *file, entry->node, std::max(1, count / per_node))) return why;
    if (domain > per_node) place_in_domains(count, std::min(per_node, count), domain, entry->node);
    if (!it->second.power_cap.empty()) {
      power_cap_ = it->second.power_cap;
      assume(
          fmt::format("power cap {} per device (stated by the accelerator name; the node's device slowed by "
                      "the DVFS model of docs/energy.md)",
                      power_cap_));
    }
    return std::nullopt;
  }

  // A TPU multi-slice job (hardware.slices): the cluster's network.slices, its DCN bandwidth per host
  // derived from the node's NICs (printed as an assumption; docs/collectives.md "Multi-slice").
  std::optional<std::string> slices(const json& node, const std::filesystem::path& file, const std::string& entry,
                                    int nodes) {
    std::string fabric;
    if (auto want = peek_string(node, "fabric", fabric)) return wrong_type(file, "fabric", want->c_str());
    const bool tpu = fabric == "torus-ici";
    if (!rec_.slices) {
      if (tpu) assume("slices = 1 (not stated; the job is one ICI torus)");
      return std::nullopt;
    }
    const auto n = *rec_.slices;
    if (n <= 1) return std::nullopt;
    if (!tpu) return fmt::format("hardware.slices = {} on node {}: multi-slice jobs are modelled for TPU (torus-ici) hosts only", n, entry);
    if (nodes % n != 0) return fmt::format("hardware.slices = {} does not divide the {} hosts into equal slices", n, nodes);
    cluster_["network"] = {{"slices", n}};
    if (node.contains("nic") && !node["nic"].is_object()) return wrong_type(file, "nic", "an object");
    const json nic = node.value("nic", json::object());
    int nics = 0;
    if (auto want = peek_int(node, "nics", nics)) return wrong_type(file, "nics", want->c_str());
    std::string nic_bandwidth;
    if (auto want = peek_string(nic, "bandwidth", nic_bandwidth)) return wrong_type(file, "nic/bandwidth", want->c_str());
    if (nic_bandwidth.empty()) nic_bandwidth = "?";
    assume(fmt::format("DCN between the {} slices = the host's {} data-centre NICs of {} x efficiency {} per host "
                       "(node {}), non-blocking; data parallelism across slices, FSDP within a slice (MaxText "
                       "dcn_data_parallelism)",
                       n, nics, nic_bandwidth,
                       nic.contains("efficiency") ? nic["efficiency"].dump() : std::string("1"), entry));
    return std::nullopt;
  }

  // A node whose NVLink domain spans several nodes (GB200/GB300 NVL72: trays of 4 GPUs, 72 per domain):
  // a job that does not fill whole domains is placed as equal domains of whole nodes, the largest that
  // divide the job (128 GPUs -> 2 domains of 64). Printed as an assumption: records do not state placement.
  void place_in_domains(int count, int per_node, int domain, const std::string& node) {
    int used = per_node;
    for (int d = per_node; d <= std::min(domain, count); d += per_node) {
      if (count % d == 0) used = d;
    }
    if (used == domain) return;
    c_.domain_devices_override = used;
    assume(
        fmt::format("placement = {} NVLink domain(s) of {} devices (not stated; node {} allows up to {} per "
                    "domain in nodes of {})",
                    count / used, used, node, domain, per_node));
  }

  std::optional<std::string> model() {
    std::string entry;
    if (rec_.catalog) {
      entry = *rec_.catalog;
      if (!in_.catalog.find(CatalogKind::models, entry)) {
        return fmt::format("model.catalog \"{}\" is not in configs/models", entry);
      }
    } else if (rec_.catalog_hint && in_.catalog.find(CatalogKind::models, *rec_.catalog_hint)) {
      entry = *rec_.catalog_hint;
    }
    json base = json::object();
    if (!entry.empty()) {
      // Read once with the declared-field model reader, as run would: a catalog entry of the wrong shape
      // is one located error (file and pointer, exit 2), not a json exception below.
      (void)load_model(in_.catalog, entry);
      base = read_json_file(*in_.catalog.find(CatalogKind::models, entry));
    }
    model_ = json::object();
    model_["name"] = rec_.model_name;
    auto field = [&](const char* key, const json& stated) {
      if (!stated.is_null()) {
        model_[key] = stated;
      } else if (base.contains(key)) {
        model_[key] = base[key];
        assume(fmt::format("model.{} = {} (not stated; catalog model {})", key, base[key].dump(), entry));
      } else if (profile_ != nullptr && profile_->model.contains(key)) {
        model_[key] = profile_->model[key];
        assume(fmt::format("model.{} = {} (not stated; {} default)", key, profile_->model[key].dump(),
                           profile_->name));
      }
    };
    auto opt = [](const auto& o) { return o ? json(*o) : json(); };
    for (auto [key, v] : {std::pair{"layers", &rec_.layers}, std::pair{"hidden", &rec_.hidden},
                          std::pair{"heads", &rec_.heads}, std::pair{"vocab", &rec_.vocab},
                          std::pair{"seq_len", &rec_.seq_len}, std::pair{"ffn_hidden", &rec_.ffn_hidden},
                          std::pair{"kv_heads", &rec_.kv_heads}}) {
      field(key, opt(*v));
    }
    // Multi-token prediction: the record's model.moe.mtp_depth; else a stated pipeline_layout's m count
    // (stated_layout); else the named catalog model's depth, said.
    if (rec_.mtp_depth) {
      model_["mtp_depth"] = *rec_.mtp_depth;
    } else if (!rec_.pipeline_layout && base.contains("mtp_depth")) {
      model_["mtp_depth"] = base["mtp_depth"];
      assume(fmt::format("model.mtp_depth = {} (not stated; catalog model {})", base["mtp_depth"].dump(), entry));
    }
    json position = opt(rec_.position);
    if (position == "rope") position = "rotary";
    for (auto [key, v] : {std::pair{"mlp", opt(rec_.mlp)}, std::pair{"norm", opt(rec_.norm)},
                          std::pair{"position", position}, std::pair{"linear_bias", opt(rec_.linear_bias)},
                          std::pair{"tied_embeddings", opt(rec_.tied_embeddings)},
                          std::pair{"parallel_block", opt(rec_.parallel_block)}}) {
      field(key, v);
    }
    if (model_.contains("position") && model_["position"] == "rope") model_["position"] = "rotary";
    for (const char* key : {"layers", "hidden", "heads", "vocab", "seq_len", "mlp", "norm", "position",
                            "linear_bias", "tied_embeddings"}) {
      if (!model_.contains(key)) {
        return fmt::format("model.{} not stated, no catalog model named (model.catalog), and {}", key,
                           profile_ ? fmt::format("profile {} has no model default", profile_->name)
                                    : std::string("no framework profile applies"));
      }
    }
    assume(fmt::format("model.vocab = {} used unpadded (frameworks that pad it, e.g. Megatron's "
                       "--make-vocab-size-divisible-by 128 x tp, run a slightly larger output layer: under 0.03 % "
                       "of a step)",
                       model_["vocab"].dump()));
    if (!model_.contains("parallel_block")) {
      assume("model.parallel_block = false (not stated: attention and MLP in sequence, the model reader's "
             "default)");
    }
    std::string mlp = model_["mlp"].get<std::string>();
    if (mlp == "relu" || mlp == "squared_relu") {
      // A non-gated two-matrix MLP: FC1, an element-wise activation, FC2. Its GEMMs are the GELU MLP's and
      // its activation kernel reads and writes the same bytes, so it is costed with the GELU kernels.
      assume(fmt::format("model.mlp = {}: costed as a two-matrix MLP with the GELU kernels (same GEMMs; "
                         "the element-wise activation moves the same bytes)",
                         mlp));
      model_["mlp"] = mlp = "gelu";
    }
    if (mlp != "gelu" && mlp != "swiglu") {
      return fmt::format("mlp \"{}\" is not modelled (the simulator has gelu and swiglu)", mlp);
    }
    if (!model_.contains("ffn_hidden") && mlp == "gelu") {
      assume("model.ffn_hidden = 4 x hidden (not stated; GPT convention for a GELU MLP)");
    }
    if (!model_.contains("kv_heads")) {
      model_["kv_heads"] = model_["heads"];
      assume("model.kv_heads = heads (not stated; multi-head attention)");
    }
    if (base.contains("mla") && rec_.moe) {
      // Multi-head latent attention is part of the named architecture (DeepSeek-V2/V3, Kimi K2); records
      // state only its head count.
      model_["mla"] = base["mla"];
      assume(fmt::format("model.mla = {} (not stated; catalog model {})", base["mla"].dump(), entry));
    } else if (rec_.head_dim &&
               *rec_.head_dim * model_["heads"].get<std::int64_t>() != model_["hidden"].get<std::int64_t>()) {
      model_["head_dim"] = *rec_.head_dim;
    }
    if (rec_.moe) {
      if (auto why = moe(base, entry)) return why;
    }
    return std::nullopt;
  }

  // The record's MoE block as model.moe: stated values, else the named catalog model's, else stated
  // defaults (no shared experts, no leading dense layers, dropless routing).
  std::optional<std::string> moe(const json& base, const std::string& entry) {
    const json cat = base.contains("moe") ? base["moe"] : json::object();
    json m = json::object();
    auto take = [&](const char* key, const std::optional<std::int64_t>& stated, const char* catalog_key) {
      if (stated) {
        m[key] = *stated;
      } else if (cat.contains(catalog_key)) {
        m[key] = cat[catalog_key];
        assume(fmt::format("model.moe.{} = {} (not stated; catalog model {})", key, cat[catalog_key].dump(), entry));
      }
    };
    take("num_experts", rec_.num_experts, "num_experts");
    take("top_k", rec_.top_k, "top_k");
    take("moe_ffn_hidden", rec_.moe_ffn_hidden, "moe_ffn_hidden");
    take("shared_experts", rec_.shared_experts, "shared_experts");
    take("first_k_dense", rec_.first_k_dense, "first_k_dense");
    take("layer_freq", rec_.moe_layer_freq, "layer_freq");
    take("max_nodes_per_token", rec_.max_nodes_per_token, "max_nodes_per_token");
    for (const char* key : {"num_experts", "top_k", "moe_ffn_hidden"}) {
      if (!m.contains(key)) return fmt::format("model.moe.{} not stated and no catalog model gives it", key);
    }
    if (cat.contains("shared_ffn_hidden") && m.value("shared_experts", 0) == cat.value("shared_experts", 0)) {
      m["shared_ffn_hidden"] = cat["shared_ffn_hidden"];
      assume(fmt::format("model.moe.shared_ffn_hidden = {} (not stated; catalog model {})",
                         cat["shared_ffn_hidden"].dump(), entry));
    } else if (m.value("shared_experts", 0) > 0) {
      assume(fmt::format("model.moe.shared_ffn_hidden = {} x moe_ffn_hidden (not stated: each shared expert the "
                         "size of a routed one)",
                         m.value("shared_experts", 0)));
    }
    if (!m.contains("shared_experts")) assume("model.moe.shared_experts = 0 (not stated)");
    if (!m.contains("first_k_dense")) assume("model.moe.first_k_dense = 0 (not stated: every layer MoE)");
    if (!m.contains("layer_freq")) assume("model.moe.layer_freq = 1 (not stated: every layer past first_k_dense MoE)");
    if (rec_.capacity_factor) {
      m["capacity_factor"] = *rec_.capacity_factor;
    } else {
      assume("dropless routing (capacity factor not stated)");
    }
    assume("expert load balanced (load_imbalance 1; no router statistics stated)");
    model_["moe"] = m;
    if (!model_.contains("ffn_hidden")) model_["ffn_hidden"] = m["moe_ffn_hidden"];
    return std::nullopt;
  }

  std::optional<int> int_default(const std::optional<std::int64_t>& stated, const std::optional<int>& dflt,
                                 const char* key) {
    if (stated) return static_cast<int>(*stated);
    if (dflt) {
      assume(fmt::format("{} = {} (not stated; {} default)", key, *dflt, profile_->name));
      return *dflt;
    }
    return std::nullopt;
  }

  std::optional<std::string> parallelism() {
    // One of tp/pp unstated while the other (with cp) already spans every device: it can only be 1.
    std::optional<std::int64_t> stated_tp = rec_.tp, stated_pp = rec_.pp;
    const std::int64_t cp_known = rec_.cp.value_or(1);
    if (!stated_tp && stated_pp && *stated_pp * cp_known == c_.devices) {
      stated_tp = 1;
      assume("tp = 1 (derived: pp·cp already spans every device)");
    }
    if (!stated_pp && stated_tp && *stated_tp * cp_known == c_.devices) {
      stated_pp = 1;
      assume("pp = 1 (derived: tp·cp already spans every device)");
    }
    // A stated tp and dp with pp unstated: pp is what is left of the devices, the mirror of deriving dp
    // from tp·pp·cp (a paper that says "8-way tensor parallelism and data parallelism" and prints the DP
    // size and the GPU count). EP and ETP are no factors: the expert grid (etp·ep·expert-dp) is laid over
    // the tp·cp·dp ranks of each pipeline stage, so devices = tp·pp·cp·dp whatever ep is. cp is the stated
    // one, else the profile's, else 1 - the value parallelism() uses below.
    if (!stated_pp && rec_.tp && rec_.dp) {
      const std::int64_t cp_used = rec_.cp ? *rec_.cp : (profile_ && profile_->cp ? *profile_->cp : 1);
      const std::optional<std::int64_t> rest = product_within({*rec_.tp, cp_used, *rec_.dp}, c_.devices);
      if (!rest) {
        return fmt::format(
            "parallelism.pp not stated, and stated tp {} · cp {} · stated dp {} is more than the {} devices, so pp "
            "cannot be derived",
            *rec_.tp, cp_used, *rec_.dp, c_.devices);
      }
      if (c_.devices % *rest != 0) {
        return fmt::format(
            "parallelism.pp not stated, and devices {} are not a multiple of stated tp {} · cp {} · stated dp {} "
            "= {}, so pp cannot be derived",
            c_.devices, *rec_.tp, cp_used, *rec_.dp, *rest);
      }
      const std::int64_t derived = c_.devices / *rest;
      // An FSDP-style record (stated fsdp, or a ZeRO-3 profile) of a framework whose profile declares a pp:
      // its table may print the shard degree as "dp", which need not be the whole data-parallel degree, so a
      // derived pp that contradicts the profile's is not a fact.
      const bool fsdp_style = (rec_.fsdp && *rec_.fsdp != "false") ||
                              (!rec_.fsdp && profile_ && profile_->zero_stage && *profile_->zero_stage >= 3);
      if (fsdp_style && profile_ && profile_->pp && *profile_->pp != derived) {
        return fmt::format(
            "parallelism.pp not stated: devices {} / (stated tp {} · cp {} · stated dp {}) = {} contradicts the {} "
            "default pp {} (the stated dp may be a shard degree): state parallelism.pp",
            c_.devices, *rec_.tp, cp_used, *rec_.dp, derived, profile_->name, *profile_->pp);
      }
      stated_pp = derived;
      assume(fmt::format("pp = {} (derived: devices {} / (stated tp {} · cp {} · stated dp {}))", *stated_pp,
                         c_.devices, *rec_.tp, cp_used, *rec_.dp));
    }
    // A stated dp with tp unstated: tp is what is left of the devices once pp (stated or the profile's),
    // cp and dp are placed, when that divides (FSDP tables often print only the FSDP degree).
    if (!stated_tp && rec_.dp) {
      const std::optional<std::int64_t> pp_known =
          stated_pp ? stated_pp : (profile_ && profile_->pp ? std::optional<std::int64_t>(*profile_->pp) : std::nullopt);
      const std::optional<std::int64_t> rest =
          pp_known ? product_within({*pp_known, cp_known, *rec_.dp}, c_.devices) : std::nullopt;
      if (rest && c_.devices % *rest == 0 && c_.devices / *rest > 1) {
        stated_tp = c_.devices / *rest;
        assume(fmt::format("tp = {} (derived: devices {} / (pp {} · cp {} · stated dp {}){})", *stated_tp,
                           c_.devices, *pp_known, cp_known, *rec_.dp,
                           stated_pp ? "" : fmt::format("; pp {} is the {} default", *pp_known, profile_->name)));
      }
    }
    const auto tp = int_default(stated_tp, profile_ ? profile_->tp : std::nullopt, "tp");
    const auto pp = int_default(stated_pp, profile_ ? profile_->pp : std::nullopt, "pp");
    if (!tp) return no_profile_reason("parallelism.tp");
    if (!pp) return no_profile_reason("parallelism.pp");
    int cp = 1;
    if (rec_.cp) {
      cp = static_cast<int>(*rec_.cp);
    } else if (profile_ && profile_->cp) {
      cp = *profile_->cp;
      assume(fmt::format("cp = {} (not stated; {} default)", cp, profile_->name));
    } else {
      assume("cp = 1 (not stated; no context parallelism)");
    }
    if (rec_.ep && *rec_.ep > 1 && !rec_.moe) return std::string("ep > 1 on a dense model");
    const std::optional<std::int64_t> model_parallel = product_within({*tp, *pp, cp}, c_.devices);
    if (!model_parallel) {
      return fmt::format("tp {} · pp {} · cp {} is more than the {} devices", *tp, *pp, cp, c_.devices);
    }
    if (c_.devices % *model_parallel != 0) {
      return fmt::format("{} devices are not a multiple of tp·pp·cp = {}", c_.devices, *model_parallel);
    }
    const int dp = static_cast<int>(c_.devices / *model_parallel);
    if (rec_.dp && *rec_.dp != dp) {
      return fmt::format("stated dp {} != devices / (tp·pp·cp) = {}", *rec_.dp, dp);
    }
    if (!rec_.dp)
      assume(fmt::format("dp = {} (derived: devices {} / (tp {} · pp {} · cp {}))", dp, c_.devices, *tp, *pp,
                         cp));
    dp_ = dp;
    tp_ = *tp;
    pp_ = *pp;
    par_ = {{"tp", *tp}, {"pp", *pp}, {"dp", dp}, {"cp", cp}};
    if (rec_.moe) {
      const int ep = static_cast<int>(rec_.ep.value_or(1));
      if (!rec_.ep) assume("ep = 1 (not stated)");
      // Megatron-Core's expert tensor parallelism defaults to the dense tp.
      int etp = *tp;
      if (rec_.etp) {
        etp = static_cast<int>(*rec_.etp);
      } else if (*tp > 1) {
        assume(fmt::format("etp = tp = {} (not stated; Megatron-Core's default expert tensor parallel size)", *tp));
      }
      if ((static_cast<std::int64_t>(*tp) * cp * dp) % (static_cast<std::int64_t>(ep) * etp) != 0) {
        return fmt::format("ep·etp = {}·{} does not divide the tp·cp·dp = {} ranks of a pipeline stage", ep, etp,
                           *tp * cp * dp);
      }
      par_["ep"] = ep;
      par_["etp"] = etp;
      if (rec_.moe_overlap) {
        par_["moe_overlap"] = *rec_.moe_overlap;
      } else if (ep > 1 && rec_.schedule != std::optional<std::string>("dualpipe")) {
        assume("moe_overlap = none (not stated: the all-to-alls are exposed, not overlapped with compute)");
      }
    }

    int zero = 0;
    if (rec_.fsdp && *rec_.fsdp != "false") {
      zero = *rec_.fsdp == "shard_grad_op" ? 2 : 3;
      if (*rec_.fsdp == "hybrid_shard") {
        assume("fsdp hybrid_shard modelled as full sharding over all data-parallel ranks");
      }
      if (rec_.zero_stage && *rec_.zero_stage != zero) {
        return fmt::format("fsdp {} contradicts zero_stage {}", *rec_.fsdp, *rec_.zero_stage);
      }
    } else if (rec_.zero_stage) {
      zero = static_cast<int>(*rec_.zero_stage);
    } else if (rec_.fsdp) {
      // `fsdp: false` rules out full sharding only: Megatron-Bridge's tables print "FSDP 0" for runs on
      // the distributed optimizer (ZeRO-1), so a profile's ZeRO-1/2 default still applies; a profile whose
      // default is full sharding (torchtitan, FSDP) falls back to plain data parallelism.
      if (profile_ && profile_->zero_stage && *profile_->zero_stage < 3) {
        zero = *profile_->zero_stage;
        if (dp > 1)
          assume(fmt::format("zero_stage = {} (not stated; fsdp false rules out full sharding only; {} default)",
                             zero, profile_->name));
      } else {
        zero = 0;
        if (dp > 1) assume("zero_stage = 0 (not stated; fsdp false: no sharding)");
      }
    } else if (profile_ && profile_->zero_stage) {
      zero = *profile_->zero_stage;
      if (dp > 1) assume(fmt::format("zero_stage = {} (not stated; {} default)", zero, profile_->name));
    } else {
      return no_profile_reason("parallelism.zero_stage / fsdp");
    }
    if (dp > 1 || zero == 0) par_["zero_stage"] = dp > 1 ? zero : 0;
    zero_ = zero;

    auto tp_rule = [&](const std::optional<bool>& stated, const std::optional<WithTp>& rule,
                       const char* key) -> std::optional<bool> {
      if (stated) return *stated;
      if (*tp == 1) return false;  // both act on the tensor-parallel group: nothing to decide at tp 1
      if (!rule) return std::nullopt;
      const bool on = *rule == WithTp::on || (*rule == WithTp::with_tp && *tp > 1);
      assume(fmt::format("{} = {} (not stated; {} default{})", key, on ? "on" : "off", profile_->name,
                         *rule == WithTp::with_tp ? ": on when tp > 1" : ""));
      return on;
    };
    const auto sp = tp_rule(rec_.sequence_parallel, profile_ ? profile_->sequence_parallel : std::nullopt,
                            "sequence_parallel");
    if (!sp) return no_profile_reason("parallelism.sequence_parallel");
    par_["sequence_parallel"] = *sp && *tp > 1;
    if (rec_.moe && *tp > 1 && !*sp) {
      par_["sequence_parallel"] = true;
      assume("sequence_parallel = on (Megatron-Core requires it for MoE with tp > 1)");
    }
    const auto overlap =
        tp_rule(rec_.tp_comm_overlap, profile_ ? profile_->tp_comm_overlap : std::nullopt, "tp_comm_overlap");
    if (!overlap) return no_profile_reason("parallelism.tp_comm_overlap");
    par_["tp_comm_overlap"] = *overlap && *tp > 1;
    if (*overlap && *tp > 1 && profile_ && profile_->tp_comm_overlap_scope) {
      par_["tp_comm_overlap_scope"] = *profile_->tp_comm_overlap_scope;
      assume(fmt::format("tp_comm_overlap_scope = {} ({} default)", *profile_->tp_comm_overlap_scope,
                         profile_->name));
    } else if (*overlap && *tp > 1) {
      assume("tp_comm_overlap_scope = forward-backward (not stated; experiment default: the overlap covers the "
             "forward and the backward passes)");
    }

    std::optional<std::string> collective;
    if (profile_)
      collective = zero == 3 && profile_->dp_collective_zero3 ? profile_->dp_collective_zero3
                                                              : profile_->dp_collective;
    if (collective) {
      par_["dp_collective"] = *collective;
      if (dp > 1)
        assume(fmt::format("dp_collective = {} ({} default{})", *collective, profile_->name,
                           zero == 3 && profile_->dp_collective_zero3 ? " with ZeRO-3" : ""));
    }
    if (profile_ && profile_->pipeline_p2p && *tp > 0 && *pp > 1) {
      par_["pipeline_p2p"] = *profile_->pipeline_p2p;
      assume(fmt::format("pipeline_p2p = {} ({} default)", *profile_->pipeline_p2p, profile_->name));
    } else if (*pp > 1) {
      assume("pipeline_p2p = megatron (not stated; experiment default: Megatron's send/receive pairs between "
             "adjacent stages)");
    }
    return schedule();
  }

  std::optional<std::string> schedule() {
    if (rec_.vocab_parallel && *rec_.vocab_parallel != "none") {
      if (pp_ == 1) return std::string("parallelism.vocab_parallel needs pp > 1");
      par_["vocab_parallel"] = *rec_.vocab_parallel;
    }
    if (pp_ == 1) {
      par_["schedule"] = "1f1b";
      return std::nullopt;
    }
    // A stated pipeline_layout fixes vp as Megatron-Core derives it: stages / pp.
    std::optional<std::int64_t> stated_vp = rec_.vp;
    if (!stated_vp && rec_.pipeline_layout) {
      const auto n = static_cast<std::int64_t>(parse_pipeline_layout(*rec_.pipeline_layout).layout->stages.size());
      if (n % pp_ != 0) {
        return fmt::format("pipeline_layout has {} stages, which do not divide over pp = {}", n, pp_);
      }
      stated_vp = n / pp_;
      if (*stated_vp > 1) assume(fmt::format("vp = {} (pipeline_layout stages / pp)", *stated_vp));
    }
    std::string sched;
    if (rec_.schedule) {
      sched = *rec_.schedule;
    } else if (stated_vp && *stated_vp > 1) {
      sched = "interleaved";
      assume(fmt::format("schedule = interleaved (not stated; derived from vp = {})", *stated_vp));
    } else if (profile_ && profile_->schedule) {
      sched = *profile_->schedule;
      assume(fmt::format("schedule = {} (not stated; {} default)", sched, profile_->name));
    } else {
      return no_profile_reason("parallelism.schedule");
    }
    if (sched == "zb" || sched == "zb-h1") {
      // ZB-H1 holds one chunk per rank, like 1f1b: a stated vp > 1 is a contradiction, not a detail to drop.
      if (stated_vp && *stated_vp > 1) {
        return fmt::format("schedule {} holds one chunk per rank, but vp = {}", sched, *stated_vp);
      }
      if (sched == "zb") assume("schedule zb read as ZB-H1 (the variant is not stated; ZB-H1 is the paper's handcrafted one)");
      par_["schedule"] = "zb-h1";
      return std::nullopt;
    }
    if (sched == "v-half") {
      // Two chunks per rank in V placement by construction (schedules/pipeline_schedule.hpp): vp stays 1.
      if (stated_vp && *stated_vp > 1) {
        return fmt::format("schedule v-half holds its two chunks per rank by itself, but vp = {}", *stated_vp);
      }
      if (rec_.vocab_parallel && *rec_.vocab_parallel == "interlaced") {
        return std::string("schedule v-half with vocab_parallel interlaced: the authors' V-Half branch runs "
                           "vocabulary parallelism as vocab-1 or vocab-2 only");
      }
      par_["schedule"] = "v-half";
      return std::nullopt;
    }
    if (sched != "interleaved") {
      if (stated_vp && *stated_vp > 1) {
        return fmt::format("schedule {} holds one chunk per rank, but vp = {}", sched, *stated_vp);
      }
      par_["schedule"] = sched;
      return std::nullopt;
    }
    par_["schedule"] = "interleaved-1f1b";
    vp_from_profile_ = !stated_vp;
    if (stated_vp) par_["vp"] = *stated_vp;
    return std::nullopt;
  }

  // Zero-bubble variants the schedules library does not build (docs/schedules.md, "Not modelled"). Checked
  // before the model so that the reason names the schedule, whatever else the record leaves unstated.
  // ZB-V is the two-chunk V schedule of Qi et al., "Zero Bubble Pipeline Parallelism", ICLR 2024
  // (sail-sg/zero-bubble-pipeline-parallelism f68d3879, v_schedule.py). Reading it as ZB-H1 would charge
  // ZB-H1's bubble (p-1)(T_F + T_B - T_W) instead. ZB-1p / ZB-2p (the automatic scheduler, auto_schedule.py)
  // are built (schedules/zb_auto_schedule.hpp) and pass as stated.
  std::optional<std::string> unexpressible_schedule() const {
    if (!rec_.schedule) return std::nullopt;
    const std::string& s = *rec_.schedule;
    if (s == "zb-v") {
      return std::string(
          "schedule zb-v (Qi et al.'s two-chunk V-shape zero-bubble schedule) is not expressible: the "
          "simulator builds ZB-H1, ZB-1p and ZB-2p, not ZB-V (v_schedule.py)");
    }
    // V-Min: the smallest-memory V-shape schedule of Qi et al., "Pipeline Parallelism with Controllable
    // Memory", arXiv:2405.15362 (2024): two model chunks per rank in V placement, split backward, about 1/3
    // of 1F1B's activation memory (sail-sg/zero-bubble-pipeline-parallelism 92895b9a, zbv_greedy.py
    // stable_pattern_v_min, --zero-bubble-v-schedule-mem-setup min). The schedules library builds V-Half
    // (v-half), not V-Min; reading it as either would charge another schedule's bubble and memory.
    if (s == "v-min") {
      return std::string(
          "schedule v-min (Qi et al. 2024's V-shape schedule with about 1/3 of 1F1B's activation memory) is "
          "not expressible: the simulator builds V-Half, ZB-H1 and DualPipe; V-Min's building block "
          "(zbv_greedy.py stable_pattern_v_min) as a schedule kind would make it expressible");
    }
    return std::nullopt;
  }

  std::optional<std::string> training() {
    const std::int64_t seq = model_["seq_len"].get<std::int64_t>();
    std::int64_t gb = 0;
    // A global batch built from stated counts stays within what a stated global_batch may be (2^31 - 1).
    constexpr std::int64_t kMaxGlobalBatch = 2147483647;
    const auto too_large = [&](std::string_view what) {
      return fmt::format("global batch {} is more than {} sequences", what, kMaxGlobalBatch);
    };
    if (rec_.global_batch) {
      gb = *rec_.global_batch;
      if (rec_.local_batch && gb != *rec_.local_batch * std::int64_t{dp_}) {
        return fmt::format("stated global_batch {} != local_batch {} x dp {} (local_batch is the per-rank batch "
                           "of one step)",
                           gb, *rec_.local_batch, dp_);
      }
      if (rec_.global_batch_tokens && *rec_.global_batch_tokens != gb * seq) {
        assume(fmt::format("global_batch = {} sequences as stated; the stated global_batch_tokens {} is not {} x "
                           "seq_len {} and is not used",
                           gb, *rec_.global_batch_tokens, gb, seq));
      }
    } else if (rec_.global_batch_tokens) {
      if (*rec_.global_batch_tokens % seq != 0) {
        return fmt::format("global_batch_tokens {} is not a multiple of seq_len {}", *rec_.global_batch_tokens, seq);
      }
      gb = *rec_.global_batch_tokens / seq;
      assume(fmt::format("global_batch = {} sequences (global_batch_tokens / seq_len)", gb));
    } else if (rec_.local_batch) {
      const auto p = product_within({*rec_.local_batch, dp_}, kMaxGlobalBatch);
      if (!p) return too_large(fmt::format("local_batch {} x dp {}", *rec_.local_batch, dp_));
      gb = *p;
      assume(fmt::format("global_batch = local_batch {} x dp {} = {} sequences (the stated per-rank batch of one "
                         "step, no gradient accumulation; context-parallel ranks share one)",
                         *rec_.local_batch, dp_, gb));
    } else if (rec_.micro_batch && profile_ && profile_->global_batch_rule && pp_ > 1 &&
               profile_->micro_batch_rule == std::optional<std::string>("pp-micro-batches")) {
      // The same framework splits each replica's batch into pp pipeline micro-batches.
      const auto p = product_within({*rec_.micro_batch, pp_, dp_}, kMaxGlobalBatch);
      if (!p) return too_large(fmt::format("micro_batch {} x pp {} x dp {}", *rec_.micro_batch, pp_, dp_));
      gb = *p;
      assume(fmt::format("global_batch = micro_batch x pp x dp = {} (not stated; {}: pp pipeline micro-batches per "
                         "replica, no gradient accumulation)",
                         gb, profile_->name));
    } else if (rec_.micro_batch && profile_ && profile_->global_batch_rule) {
      if (pp_ > 1) {
        // micro_batch x dp is one micro-batch per replica: with a pipeline the replica runs several, and
        // this profile has no rule for how many.
        return fmt::format("global batch not stated, and with pp {} > 1 the micro-batches per replica are not "
                           "known ({} has no pipeline micro-batch rule): state global_batch or local_batch",
                           pp_, profile_->name);
      }
      const auto p = product_within({*rec_.micro_batch, dp_}, kMaxGlobalBatch);
      if (!p) return too_large(fmt::format("micro_batch {} x dp {}", *rec_.micro_batch, dp_));
      gb = *p;
      assume(fmt::format("global_batch = micro_batch x dp = {} (not stated; {}: no gradient accumulation)",
                         gb, profile_->name));
    } else {
      return std::string("global batch not stated (global_batch, global_batch_tokens or local_batch)");
    }
    int mb = 0;
    if (rec_.micro_batch) {
      mb = static_cast<int>(*rec_.micro_batch);
    } else if (profile_ && profile_->micro_batch_rule) {
      if (*profile_->micro_batch_rule == "one") {
        mb = 1;
        assume(fmt::format("micro_batch = 1 (not stated; {} default)", profile_->name));
      } else if (*profile_->micro_batch_rule == "pp-micro-batches") {
        // The per-replica batch (global_batch / dp) split into pp pipeline micro-batches (torchtitan 2024:
        // n_microbatches defaults to the pipeline degree, whatever the stages per rank). A batch that does not
        // split into whole micro-batches is a skip, not rounded.
        const std::int64_t per = std::int64_t{dp_} * pp_;
        if (gb % per != 0) {
          return fmt::format(
              "parallelism.micro_batch not stated, and {}'s rule (the per-replica batch global_batch / dp split "
              "into pp micro-batches) needs global_batch {} to be a multiple of dp·pp = {}·{}",
              profile_->name, gb, dp_, pp_);
        }
        mb = static_cast<int>(gb / per);
        assume(fmt::format("micro_batch = global_batch / (dp · pp) = {} / ({} · {}) = {} (not stated; {}: the "
                           "per-replica batch split into pp pipeline micro-batches)",
                           gb, dp_, pp_, mb, profile_->name));
      } else {
        mb = static_cast<int>(std::max<std::int64_t>(1, gb / dp_));
        assume(fmt::format("micro_batch = global_batch / dp = {} (not stated; {}: no gradient accumulation)",
                           mb, profile_->name));
      }
    } else {
      return no_profile_reason("parallelism.micro_batch");
    }
    if (vp_from_profile_) {
      const int max_vp = profile_ && profile_->interleave_max_vp ? *profile_->interleave_max_vp : 0;
      if (max_vp == 0) return no_profile_reason("parallelism.vp (interleaved schedule)");
      const std::int64_t layers = model_["layers"].get<std::int64_t>();
      const std::int64_t microbatches = gb / std::max<std::int64_t>(1, std::int64_t{mb} * dp_);
      // A framework whose split rule spreads any layer count (torchtitan) needs no divisibility.
      const bool any_split = profile_->pipeline_split && *profile_->pipeline_split == "remainder-to-middle";
      int vp = 1;
      for (int v = max_vp; v >= 2; --v) {
        if ((any_split ? layers >= pp_ * v : layers % (pp_ * v) == 0) && microbatches % pp_ == 0) {
          vp = v;
          break;
        }
      }
      par_["vp"] = vp;
      if (vp == 1) par_["schedule"] = "1f1b";
      assume(fmt::format(
          "vp = {} (interleaved, chunk count not stated: deepest v <= {} with {} and micro-batches % pp = 0; "
          "{})",
          vp, max_vp, any_split ? "layers >= pp·v" : "layers % (pp·v) = 0", profile_->name));
    }
    if (auto why = pipeline_split()) return why;
    std::string precision;
    if (rec_.compute) {
      precision = *rec_.compute;
    } else if (profile_ && profile_->precision) {
      precision = *profile_->precision;
      assume(fmt::format("precision = {} (not stated; {} default)", precision, profile_->name));
    } else {
      return no_profile_reason("precision.compute");
    }
    if (precision == "fp4") {
      // NVFP4 is the only FP4 training recipe modelled (Transformer Engine NVFP4BlockScaling; docs/model.md).
      if (rec_.fp8_recipe && *rec_.fp8_recipe != "nvfp4") {
        return fmt::format("FP4 recipe \"{}\" is not modelled (only NVFP4: precision.fp8_recipe \"nvfp4\")",
                           *rec_.fp8_recipe);
      }
      if (!rec_.fp8_recipe) assume("fp4 recipe = nvfp4 (not stated; the only FP4 training recipe modelled)");
      assume("fp4 GEMMs at the device's dense FP4 peak with its GEMM efficiency constants (uncalibrated: no "
             "calibration-split record trains in FP4)");
    }
    if (precision == "16-bit") {
      if (auto why = sixteen_bit_as_bf16()) return why;
      precision = "bf16";
    }
    std::string recompute;
    if (rec_.recompute) {
      recompute = *rec_.recompute;
    } else if (profile_ && profile_->recompute) {
      recompute = *profile_->recompute;
      assume(fmt::format("recompute = {} (not stated; {} default)", recompute, profile_->name));
    } else {
      return no_profile_reason("parallelism.recompute");
    }
    bool flash = false;
    if (rec_.flash_attention) {
      flash = *rec_.flash_attention;
    } else if (profile_ && profile_->flash_attention) {
      flash = *profile_->flash_attention;
      assume(
          fmt::format("flash_attention = {} (not stated; {} default)", flash ? "on" : "off", profile_->name));
    } else {
      return no_profile_reason("flash_attention");
    }
    std::string kernel;
    if (flash) {
      if (rec_.attention_kernel) {
        kernel = *rec_.attention_kernel;
      } else if (profile_ && profile_->attention_kernel) {
        kernel = *profile_->attention_kernel;
        assume(fmt::format("attention_kernel = {} (not stated; {} default)", kernel, profile_->name));
      } else {
        assume("attention_kernel = native (not stated; experiment default: the fused kernel the device's "
               "attention efficiency describes)");
      }
    } else if (rec_.attention_kernel) {
      return std::string("attention_kernel is stated but flash_attention is off");
    }
    std::string gradient = "fp32";
    if (rec_.gradient_reduce) {
      gradient = *rec_.gradient_reduce;
    } else if (profile_ && profile_->gradient_precision.contains(precision)) {
      gradient = profile_->gradient_precision[precision].get<std::string>();
      if (dp_ > 1) {
        const auto note = profile_->gradient_precision_note.find(precision);
        assume(fmt::format("gradient reduce in {} ({} default for {}{})", gradient, profile_->name, precision,
                           note == profile_->gradient_precision_note.end() ? "" : ": " + note->second));
      }
    } else if (dp_ > 1) {
      assume("gradient reduce in fp32 (no profile default)");
    }
    train_ = {{"micro_batch", mb},      {"global_batch", gb},       {"precision", precision},
              {"recompute", recompute}, {"flash_attention", flash}, {"gradient_precision", gradient}};
    recipe_options(recompute, precision);
    if (!kernel.empty()) train_["attention_kernel"] = kernel;
    // The optimizer: Adam (fp32 master weights and two fp32 states per parameter) unless stated otherwise;
    // optimizers the simulator has no cost for are charged as Adam, said.
    const std::string optimizer = rec_.optimizer.value_or("");
    if (optimizer == "sgd") {
      train_["optimizer"] = "sgd";
    } else if (optimizer == "lamb") {
      assume("optimizer lamb costed as adam (LAMB keeps Adam's two fp32 states; its per-layer trust-ratio norms "
             "are not modelled)");
    } else if (optimizer == "muon") {
      assume("optimizer muon costed as adam (fp32 states; Muon's Newton-Schulz orthogonalisation and its "
             "gathers of whole matrices are not modelled)");
    } else if (optimizer == "adam-8bit") {
      assume("optimizer adam-8bit costed as adam (its 8-bit states are charged as fp32: optimizer memory and the "
             "update's bytes are overstated)");
    } else if (optimizer.empty()) {
      assume("optimizer = adam with fp32 master weights and states (not stated; experiment default)");
    }
    // Whether the data-parallel reduction overlaps the backward: stated, else the profile's rule, else the
    // experiment default (on); nothing to say without data parallelism.
    if (rec_.dp_overlap) {
      train_["overlap_grad_reduce"] = *rec_.dp_overlap;
    } else if (dp_ > 1 && profile_ && profile_->overlap_grad_reduce) {
      const bool on = profile_->overlaps_grad_reduce(zero_ == 3, pp_);
      train_["overlap_grad_reduce"] = on;
      assume(fmt::format("overlap_grad_reduce = {} (not stated; {} default{})", on ? "on" : "off", profile_->name,
                         *profile_->overlap_grad_reduce == "with-zero3" ? ": on only with ZeRO-3 and no pipeline"
                                                                        : ""));
    } else if (dp_ > 1) {
      assume("overlap_grad_reduce = on (not stated; experiment default: gradient buckets reduced during the "
             "backward)");
    }
    c_.samples_per_step = static_cast<double>(gb);
    c_.tokens_per_step = static_cast<double>(gb * seq);
    return std::nullopt;
  }

  // A record stating only "16-bit" (its source implies a 16-bit tensor-core format, e.g. by an MFU whose peak
  // is the FP16/BF16 one, without naming FP16 or BF16) is read as bf16 where the device's catalog entry gives
  // both formats one dense peak (A100: 312 TFLOP/s each, NVIDIA A100 datasheet), so its GEMMs cost the same
  // either way. What still differs is the gradient reduce width the profile gives each format; bf16's is
  // taken and printed below with the profile's name. On a device whose FP16 and BF16 peaks differ (V100: no
  // BF16) the record is skipped and the reason says to state which.
  std::optional<std::string> sixteen_bit_as_bf16() {
    if (device_.empty()) return std::string("precision.compute \"16-bit\": the node entry names no device");
    const auto file = in_.catalog.find(CatalogKind::devices, device_);
    if (!file) return fmt::format("precision.compute \"16-bit\": device entry \"{}\" not found", device_);
    const json dev = read_json_file(*file);
    if (!dev.is_object()) return fmt::format("catalog entry {}: must be a JSON object", file->string());
    if (dev.contains("peak") && !dev["peak"].is_object()) return wrong_type(*file, "peak", "an object");
    // A missing peak is 0 (the device does not run that format); a present one must be a positive rate.
    std::optional<std::string> bad;
    const auto peak = [&](const char* key) {
      if (!dev.contains("peak") || !dev["peak"].contains(key)) return 0.0;
      const json& v = dev["peak"][key];
      const std::string where = fmt::format("peak/{}", key);
      if (!v.is_string()) {
        bad = wrong_type(*file, where.c_str(), "a rate such as \"312 TFLOP/s\"");
        return 0.0;
      }
      try {
        const double r = parse_quantity(v.get<std::string>(), Dimension::flops_rate);
        if (std::isfinite(r) && r > 0.0) return r;
      } catch (const std::invalid_argument&) {
      }
      bad = wrong_type(*file, where.c_str(), "a positive rate such as \"312 TFLOP/s\"");
      return 0.0;
    };
    const double fp16 = peak("fp16");
    const double bf16 = peak("bf16");
    if (bad) return bad;
    if (fp16 <= 0.0 || bf16 <= 0.0 || fp16 != bf16) {
      return fmt::format(
          "precision.compute \"16-bit\" does not say FP16 or BF16, and device {} does not run both at one "
          "dense peak: state which",
          device_);
    }
    assume(fmt::format("precision = bf16 (stated: a 16-bit format, FP16 or BF16 not said; {} runs both at {} "
                       "dense, so the GEMMs cost the same; bf16's gradient reduce width is taken)",
                       device_, format_quantity(bf16, Dimension::flops_rate)));
    return std::nullopt;
  }

  // What "selective" recomputes and the FP8 scaling recipe: the record's statement, else the profile's
  // default (printed as an assumption), else the experiment defaults (attention core; delayed scaling).
  void recipe_options(const std::string& recompute, const std::string& precision) {
    if (recompute == "selective") {
      std::string policy = "attention";
      if (rec_.selective_recompute) {
        policy = *rec_.selective_recompute;
      } else if (profile_ && profile_->selective_recompute) {
        policy = *profile_->selective_recompute;
        assume(fmt::format("selective_recompute = {} (not stated; {} default)", policy, profile_->name));
      } else {
        assume("selective_recompute = attention (not stated, no profile default: the attention core, "
               "Korthikanti et al. 2022 §5)");
      }
      train_["selective_recompute"] = policy;
      if (policy == "layer") {
        int k = 2;
        if (rec_.selective_layer_interval) {
          k = static_cast<int>(*rec_.selective_layer_interval);
        } else if (profile_ && profile_->selective_layer_interval) {
          k = *profile_->selective_layer_interval;
          assume(fmt::format("selective_layer_interval = {} (not stated; {} default)", k, profile_->name));
        } else {
          assume("selective_layer_interval = 2 (not stated; experiment default)");
        }
        train_["selective_layer_interval"] = k;
      }
    }
    // Activation offloading as stated; null chooses nothing (the experiment default: no offloading), so
    // no assumption is printed. Refusals (pp > 1, recompute, no host link) skip the record with the reason.
    if (rec_.activation_offload_layers && *rec_.activation_offload_layers > 0) {
      train_["activation_offload_layers"] = *rec_.activation_offload_layers;
    }
    if (rec_.torch_compile) {
      if (!*rec_.torch_compile) train_["eager_elementwise"] = true;
    } else if (profile_ && profile_->eager_elementwise) {
      train_["eager_elementwise"] = *profile_->eager_elementwise;
      assume(fmt::format("eager_elementwise = {} (torch_compile not stated; {} default)",
                         *profile_->eager_elementwise ? "true" : "false", profile_->name));
    }
    if (profile_ && profile_->separate_projections) {
      train_["separate_projections"] = *profile_->separate_projections;
      assume(fmt::format("separate_projections = {} ({} default)",
                         *profile_->separate_projections ? "true" : "false", profile_->name));
    }
    if (precision == "fp8") {
      // What the FP8 linear layers keep for the backward: no record states it, so the profile's value or the
      // experiment default (Transformer Engine's FP8 copies) is printed.
      if (profile_ && profile_->fp8_saved_inputs) {
        train_["fp8_saved_inputs"] = *profile_->fp8_saved_inputs;
        assume(fmt::format("fp8_saved_inputs = {} (not stated; {} default: what FP8 linear layers keep of their "
                           "inputs for the backward: memory and offloaded bytes)",
                           *profile_->fp8_saved_inputs, profile_->name));
      } else {
        assume("fp8_saved_inputs = fp8 (not stated; experiment default: FP8 linear layers keep the FP8 copies of "
               "their inputs for the backward, as Transformer Engine: memory and offloaded bytes)");
      }
      if (rec_.fp8_attention) {
        train_["fp8_attention"] = *rec_.fp8_attention;
      } else {
        assume("fp8_attention = off (not stated: attention kernels in BF16, the experiment default)");
      }
      // The recipe's leading word ("blockwise (per DeepSeek-V3 ...)" is blockwise).
      std::string stated_recipe = rec_.fp8_recipe.value_or("");
      stated_recipe = stated_recipe.substr(0, stated_recipe.find_first_of(" (;,"));
      if (stated_recipe == "tensorwise" || stated_recipe == "rowwise" || stated_recipe == "mxfp8" ||
          stated_recipe == "delayed" || stated_recipe == "blockwise") {
        train_["fp8_scaling"] = stated_recipe;
      } else if (stated_recipe == "current") {
        // Per-tensor current scaling (Transformer Engine Float8CurrentScaling): NeMo and Megatron-Bridge
        // name it "tensorwise" (bf16_with_fp8_current_scaling_mixed sets fp8_recipe = "tensorwise").
        train_["fp8_scaling"] = "tensorwise";
        assume("fp8_scaling = tensorwise (recipe stated as per-tensor current scaling, which NeMo and "
               "Megatron-Bridge run as fp8_recipe \"tensorwise\")");
      } else if (profile_ && profile_->fp8_scaling) {
        train_["fp8_scaling"] = *profile_->fp8_scaling;
        assume(fmt::format("fp8_scaling = {} (recipe not stated as tensorwise/rowwise/mxfp8/blockwise/delayed/"
                           "current; {} default)",
                           *profile_->fp8_scaling, profile_->name));
      } else {
        assume("fp8_scaling = delayed (recipe not stated as tensorwise/rowwise/mxfp8/blockwise/delayed/current; "
               "experiment default: "
               "Transformer Engine delayed scaling)");
      }
      // MXFP8 scale swizzles: separate kernels or fused into the quantisers, by the Transformer Engine
      // the profile's framework era ships (docs/model.md, "MXFP8").
      if (train_.value("fp8_scaling", std::string()) == "mxfp8") {
        if (profile_ && profile_->mxfp8_separate_swizzle) {
          train_["mxfp8_separate_swizzle"] = *profile_->mxfp8_separate_swizzle;
          assume(fmt::format("mxfp8_separate_swizzle = {} (not stated; {} default)",
                             *profile_->mxfp8_separate_swizzle ? "true" : "false", profile_->name));
        } else {
          assume("mxfp8_separate_swizzle = false (not stated; experiment default)");
        }
      }
    } else if (rec_.fp8_attention && *rec_.fp8_attention) {
      assume(fmt::format("fp8_attention = true not applied: precision is {}, not fp8", precision));
    }
  }

  // Layers that do not divide evenly over the pp·vp chunks: the record's pipeline_split, else the
  // profile's rule for uneven splits (Megatron-Core recipes set account_for_embedding/loss; torchtitan's
  // default split points), as parallelism.pipeline_layers.
  std::optional<std::string> pipeline_split() {
    if (rec_.pipeline_layout) return stated_layout();
    if (pp_ == 1) return std::nullopt;
    const int layers = model_["layers"].get<int>();
    const int vp = par_.contains("vp") ? par_["vp"].get<int>() : 1;
    if (par_.value("schedule", std::string()) == "dualpipe") {
      if (rec_.pipeline_split) {
        return fmt::format("pipeline_split \"{}\" with schedule dualpipe: DualPipe places its two model chunks per "
                           "rank itself",
                           *rec_.pipeline_split);
      }
      return std::nullopt;
    }
    if (par_.value("schedule", std::string()) == "v-half") {
      // The authors' code sets the layers per chunk itself: layers / (2·pp), and asserts an even number
      // of layers per stage (zbpp_utils.py); an uneven split is not what it runs.
      if (rec_.pipeline_split) {
        return fmt::format("pipeline_split \"{}\" with schedule v-half: V-Half splits the layers evenly over its "
                           "2·pp chunks",
                           *rec_.pipeline_split);
      }
      if (layers % (2 * pp_) != 0) {
        return fmt::format("{} layers do not divide over the 2·pp = {} chunks of schedule v-half", layers, 2 * pp_);
      }
      return std::nullopt;
    }
    const int chunks = pp_ * vp;
    std::string rule;
    if (rec_.pipeline_split) {
      rule = *rec_.pipeline_split;
    } else if (layers % chunks == 0) {
      return std::nullopt;
    } else if (profile_ != nullptr && profile_->pipeline_split) {
      rule = *profile_->pipeline_split;
    } else {
      return fmt::format("{} layers do not divide over pp·vp = {} pipeline chunks and {}: state "
                         "parallelism.pipeline_split",
                         layers, chunks,
                         profile_ ? fmt::format("profile {} declares no pipeline_split", profile_->name)
                                  : std::string("no framework profile applies"));
    }
    if (rule == "balanced") return balanced_split(layers, chunks);
    const auto split = pipeline_split_layers(rule, layers, chunks);
    if (!split) {
      return fmt::format("pipeline_split \"{}\" cannot spread {} layers over pp·vp = {} chunks ({})", rule, layers,
                         chunks, pipeline_split_refusal(rule, layers, chunks));
    }
    if (std::adjacent_find(split->begin(), split->end(), std::not_equal_to<>()) == split->end()) {
      return std::nullopt;  // even after all
    }
    par_["pipeline_layers"] = *split;
    std::string shape;
    for (std::size_t i = 0; i < split->size(); ++i) shape += fmt::format("{}{}", i ? "," : "", (*split)[i]);
    if (!rec_.pipeline_split) {
      assume(fmt::format("pipeline_layers = [{}] ({} layers over pp·vp = {} chunks, not stated; {} rule {})",
                         shape, layers, chunks, profile_->name, rule));
    } else {
      assume(fmt::format("pipeline_layers = [{}] (stated rule {})", shape, rule));
    }
    return std::nullopt;
  }

  // parallelism.pipeline_layout: Megatron-Core's explicit layout (sim/config/pipeline_layout.hpp). Its t
  // counts per virtual stage are the engine's pipeline_layers (both chunk-major); the engine puts the
  // embedding on the first and the output layer on the last virtual stage whichever stage E and L are
  // written in (Megatron's checks do not tie them to one either; empty end stages run no layers); its m layers are the model's multi-token-prediction
  // modules, which the engine runs on the last virtual stage.
  std::optional<std::string> stated_layout() {
    const auto layout = *parse_pipeline_layout(*rec_.pipeline_layout).layout;
    if (par_.value("schedule", std::string()) == "dualpipe") {
      return std::string("pipeline_layout with schedule dualpipe: DualPipe places its own chunks");
    }
    if (par_.value("schedule", std::string()) == "v-half") {
      return std::string("pipeline_layout with schedule v-half: V-Half places its own chunks");
    }
    const int vp = par_.contains("vp") ? par_["vp"].get<int>() : 1;
    const int layout_mtp = layout.mtp_layers();
    const int mtp = rec_.mtp_depth ? static_cast<int>(*rec_.mtp_depth) : layout_mtp;
    const auto problems = pipeline_layout_problems(layout, pp_, vp, model_["layers"].get<long long>(), mtp);
    if (!problems.empty()) return fmt::format("pipeline_layout {}: {}", quoted_layout(*rec_.pipeline_layout), problems.front());
    if (auto why = pipeline_layout_unsupported(layout)) return why;
    if (layout_mtp > 0) {
      model_["mtp_depth"] = layout_mtp;
      if (!rec_.mtp_depth) {
        assume(fmt::format("model.mtp_depth = {} (the m layers of the stated pipeline_layout; Megatron-Core "
                           "requires their count to equal mtp_num_layers)",
                           layout_mtp));
      }
    }
    const std::vector<int> split = layout.decoder_per_stage();
    if (pp_ > 1) par_["pipeline_layers"] = split;
    std::string shape;
    for (std::size_t i = 0; i < split.size(); ++i) shape += fmt::format("{}{}", i ? "," : "", split[i]);
    assume(fmt::format("pipeline_layers = [{}] (stated pipeline_layout {}{})", shape, quoted_layout(*rec_.pipeline_layout),
                       layout_mtp > 0 ? "; MTP on the last virtual stage" : ""));
    return std::nullopt;
  }

  // pipeline_split "balanced": layers redistributed so that every chunk's forward FLOPs, the embedding's
  // and the output layer's included, are as even as layer granularity allows (the REDIS baseline of Yeung
  // et al. 2025 §6). FLOPs per token, Megatron's count (Narayanan et al. 2021 App.; Yeung et al. 2025
  // Table 4): a layer 2·h·(q + 2·kv) + 2·q·h + 4·s·q (projections and the full score matrix) plus 2·h·f
  // per MLP matrix (3 for swiglu); the output layer 2·h·V; the embedding a lookup (0).
  std::optional<std::string> balanced_split(int layers, int chunks) {
    const double h = model_["hidden"].get<double>();
    const double heads = model_["heads"].get<double>();
    const double head_dim = model_.contains("head_dim") ? model_["head_dim"].get<double>() : h / heads;
    const double q = heads * head_dim;
    const double kv = model_["kv_heads"].get<double>() * head_dim;
    const bool swiglu = model_["mlp"] == "swiglu";
    const double f = model_.contains("ffn_hidden") ? model_["ffn_hidden"].get<double>()
                                                   : (swiglu ? 8.0 / 3.0 : 4.0) * h;
    const double s = model_["seq_len"].get<double>();
    const double layer = 2.0 * h * (q + 2.0 * kv) + 2.0 * q * h + 4.0 * s * q + (swiglu ? 3.0 : 2.0) * 2.0 * h * f;
    const double head = 2.0 * h * model_["vocab"].get<double>();
    const std::vector<int> split = balanced_pipeline_split(layers, chunks, 0.0, head / layer);
    // A chunk may be left with no transformer layer (only the output layer): Megatron-Core allows it too
    // (ends-one-fewer with one layer per chunk).
    par_["pipeline_layers"] = split;
    std::string shape;
    for (std::size_t i = 0; i < split.size(); ++i) shape += fmt::format("{}{}", i ? "," : "", split[i]);
    assume(fmt::format("pipeline_layers = [{}] (stated rule balanced: output layer ≈ {:.2f} layers of FLOPs)",
                       shape, head / layer));
    return std::nullopt;
  }

  const ReferenceRecord& rec_;
  Inputs& in_;
  ReferenceCase& c_;
  const FrameworkProfile* profile_ = nullptr;
  json cluster_, model_, par_, train_;
  std::string power_cap_;
  std::string device_;  // the node's device catalog entry
  int dp_ = 1, tp_ = 1, pp_ = 1, zero_ = 0;
  bool vp_from_profile_ = false;
};

}  // namespace

ReferenceSet reference_runs_from_json(const json& records, const std::string& label,
                                      const CatalogPaths& paths) {
  if (!records.is_array()) throw ConfigError(label, "", "expected a JSON array of run records");
  const Provenance origin(label, fs::path(label).parent_path());
  Diagnostics diagnostics;
  ReadContext ctx(origin, diagnostics);
  std::vector<ReferenceRecord> parsed(records.size());
  std::map<std::string, std::size_t> ids;
  for (std::size_t i = 0; i < records.size(); ++i) {
    read_reference_record(records[i], i, ctx, parsed[i]);
    if (!parsed[i].id.empty() && !ids.emplace(parsed[i].id, i).second) {
      ctx.error(fmt::format("/{}/id", i),
                fmt::format("duplicate id \"{}\" (first at /{})", parsed[i].id, ids[parsed[i].id]));
    }
  }
  diagnostics.throw_if_any();

  const std::vector<FrameworkProfile> profiles = read_framework_profiles(paths);
  std::map<std::string, AcceleratorEntry> clusters;
  const auto accelerators = read_accelerators(paths, clusters);
  Inputs in{profiles, accelerators, clusters, Catalog(paths)};
  ReferenceSet out;
  out.records = parsed.size();
  for (std::size_t i = 0; i < parsed.size(); ++i) {
    const ReferenceRecord& rec = parsed[i];
    ReferenceCase c;
    c.id = rec.id;
    c.group = rec.source_group;
    c.split = rec.split;
    c.citation = rec.citation;
    c.file = label;
    c.pointer = fmt::format("/{}", i);
    if (auto reason = Builder(rec, in, c).build()) {
      out.skipped.push_back({rec.id, rec.source_group, rec.split, *reason, label, c.pointer});
    } else {
      out.cases.push_back(std::move(c));
    }
  }
  return out;
}

ReferenceSet read_reference_runs(const fs::path& file, const CatalogPaths& paths) {
  return reference_runs_from_json(read_json_file(file), file.string(), paths);
}

}  // namespace clustersim::config
