#include "sim/config/energy_section.hpp"

#include <fmt/format.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <map>
#include <memory>
#include <tuple>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "models/energy/network_power.hpp"
#include "models/energy/price_parse.hpp"
#include "sim/config/catalog.hpp"
#include "sim/config/field_pointer.hpp"
#include "sim/config/json_file.hpp"
#include "sim/config/object_reader.hpp"
#include "sim/config/sections.hpp"
#include "sim/core/unit_parse.hpp"

namespace clustersim::config {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr std::string_view kSection = "/energy";
constexpr std::string_view kCatalogDefault = "derived: the energy catalogs (docs/energy.md)";

constexpr Field power_field(std::string_view key, std::string_view doc) {
  return {.key = key,
          .kind = FieldKind::quantity,
          .doc = doc,
          .fallback = kCatalogDefault,
          .dimension = Dimension::power,
          .rule = QuantityRule::non_negative};
}

constexpr Field fraction_field(std::string_view key, std::string_view doc) {
  return {.key = key, .kind = FieldKind::number, .doc = doc, .fallback = kCatalogDefault};
}

constexpr Field kStateFractionFields[] = {
    fraction_field("idle", "idle"),       fraction_field("compute", "compute"),
    fraction_field("memory", "memory"),   fraction_field("communication", "communication"),
    fraction_field("waiting", "waiting"),
};
const Section kStateFractionSection{"energy_state_fractions", "/energy/device/dvfs/clock_power_fraction",
                                    "one number per device state", kStateFractionFields};

constexpr Field kDvfsFields[] = {
    fraction_field("exponent", "power ~ clock^exponent"),
    fraction_field("min_clock_ratio", "lowest clock a power cap may set, as a fraction of nominal (0.01 to 1)"),
    {.key = "clock_power_fraction",
     .kind = FieldKind::object,
     .doc = "share of each state's power that scales with clock",
     .fallback = kCatalogDefault,
     .section = &kStateFractionSection},
    {.key = "clock_time_fraction",
     .kind = FieldKind::object,
     .doc = "share of each state's time that scales with clock",
     .fallback = kCatalogDefault,
     .section = &kStateFractionSection},
};
const Section kDvfsSection{"energy_dvfs", "/energy/device/dvfs", "clock scaling under a power cap",
                           kDvfsFields};

constexpr Field kEnergyDeviceFields[] = {
    power_field("tdp", "thermal design power"),
    power_field("idle", "power while idle"),
    power_field("compute", "power while computing"),
    power_field("memory", "power in memory-bound kernels"),
    power_field("communication", "power while communicating"),
    power_field("waiting", "power while waiting (pipeline bubbles)"),
    {.key = "dvfs",
     .kind = FieldKind::object,
     .doc = "clock scaling under a power cap",
     .fallback = kCatalogDefault,
     .section = &kDvfsSection},
    kDescriptionField,
    kSourcesField,
};
const Section kEnergyDeviceSection{"energy_device", "/energy/device", "device power per state",
                                   kEnergyDeviceFields};

constexpr Field kEnergyNodeFields[] = {
    power_field("host", "host power per node"),
    power_field("nic", "power per NIC"),
    {.key = "nics",
     .kind = FieldKind::integer,
     .doc = "NICs per node",
     .fallback = "derived: the cluster's node",
     .ints = {.min = 0}},
};
const Section kEnergyNodeSection{"energy_node", "/energy/node", "host and NIC power", kEnergyNodeFields};

constexpr Field kEnergyNetworkFields[] = {
    power_field("switch_port", "power per switch port"),
    power_field("optics_port", "optics power per port"),
    {.key = "ports_per_nic",
     .kind = FieldKind::number,
     .doc = "switch ports per NIC",
     .fallback = "derived: the fat-tree of the cluster",
     .numbers = {.min = 0.0}},
};
const Section kEnergyNetworkSection{"energy_network", "/energy/network", "switch power",
                                    kEnergyNetworkFields};

constexpr Field kEnergyStorageFields[] = {
    {.key = "checkpoint_io",
     .kind = FieldKind::quantity,
     .doc = "storage power during checkpoint I/O",
     .fallback = "derived: the named storage entry, else 0 W",
     .dimension = Dimension::power,
     .rule = QuantityRule::non_negative},
};
const Section kEnergyStorageSection{"energy_storage", "/energy/storage", "storage power",
                                    kEnergyStorageFields};

constexpr Field kCapexFields[] = {
    {.key = "per_device",
     .kind = FieldKind::quantity,
     .doc = "purchase price per device",
     .fallback = "required",
     .dimension = Dimension::money,
     .rule = QuantityRule::non_negative},
    {.key = "amortisation",
     .kind = FieldKind::quantity,
     .doc = "amortisation period",
     .fallback = "required",
     .dimension = Dimension::time},
};
const Section kCapexSection{"energy_capex", "/energy/price/capex", "capital cost", kCapexFields};

constexpr Field kPriceFields[] = {
    {.key = "electricity",
     .kind = FieldKind::string,
     .doc = "a price such as \"0.08 USD/kWh\", or a prices.json entry",
     .fallback = "\"0 USD/kWh\""},
    {.key = "device_hour",
     .kind = FieldKind::string,
     .doc = "rental price such as \"2.5 USD/h\", or a prices.json entry"},
    {.key = "capex",
     .kind = FieldKind::reference,
     .doc = "capital cost: a prices.json entry or an object",
     .section = &kCapexSection},
};
const Section kPriceSection{"energy_price", "/energy/price", "prices", kPriceFields};

constexpr Field kEnergyFields[] = {
    {.key = "device",
     .kind = FieldKind::reference,
     .doc = "device power: a device_power.json entry or an object",
     .fallback = "derived: the entry of the cluster's device, else its TDP-scaled reference entry",
     .section = &kEnergyDeviceSection},
    {.key = "node",
     .kind = FieldKind::reference,
     .doc = "host and NIC power: an infrastructure_power.json entry or an object",
     .fallback = "derived: the entry of the cluster's node, else its host_power",
     .section = &kEnergyNodeSection},
    {.key = "network",
     .kind = FieldKind::reference,
     .doc = "switch power: an infrastructure_power.json entry or an object",
     .fallback = "derived: a fat-tree sized for the cluster",
     .section = &kEnergyNetworkSection},
    {.key = "storage",
     .kind = FieldKind::reference,
     .doc = "storage power: an infrastructure_power.json entry or an object",
     .section = &kEnergyStorageSection},
    {.key = "pue",
     .kind = FieldKind::number,
     .doc = "power usage effectiveness, or a pue.json entry",
     .fallback = "1",
     .also = also_name},
    {.key = "carbon_intensity",
     .kind = FieldKind::quantity,
     .doc = "grid carbon intensity, or a carbon_intensity.json entry",
     .fallback = "\"0 gCO2e/kWh\"",
     .dimension = Dimension::carbon_intensity,
     .rule = QuantityRule::non_negative,
     .also = also_name},
    {.key = "price", .kind = FieldKind::object, .doc = "prices", .section = &kPriceSection},
    {.key = "power_cap",
     .kind = FieldKind::quantity,
     .doc = "device power cap",
     .dimension = Dimension::power},
    {.key = "power_cap_sweep",
     .kind = FieldKind::array,
     .doc = "device power caps to compare",
     .dimension = Dimension::power,
     .items = FieldKind::quantity},
    kDescriptionField,
    kSourceField,
    kSourcesField,
};

std::string fmt_w(Watts w) {
  return format_quantity(w.value(), Dimension::power);
}

// Memoised per thread: sweeps build thousands of scenarios from the same few directories.
bool has_energy_catalog(const fs::path& dir) {
  if (dir.empty()) return false;
  thread_local std::map<std::string, bool, std::less<>> known;
  const std::string key = dir.native();
  if (auto it = known.find(key); it != known.end()) return it->second;
  std::error_code ec;
  return known.emplace(key, fs::exists(dir / "device_power.json", ec)).first->second;
}

// A catalog entry found by name (or alias): its JSON, file and pointer for diagnostics.
struct Entry {
  const json* value = nullptr;
  std::string name;
  std::string file;
  std::string pointer;
  const Section* section = nullptr;  // declared keys (energy_catalog_fields.cpp)
};

// The JSON files of configs/energy/, loaded on demand; problems are diagnostics against the file.
class EnergyCatalog {
 public:
  // `cache`, when given, is the loader's catalog: its parsed-file cache makes repeated builds (sweeps,
  // plans) parse each energy file once instead of once per point.
  EnergyCatalog(std::optional<fs::path> dir, Diagnostics& diags, Catalog* cache = nullptr)
      : dir_(std::move(dir)), diags_(diags), cache_(cache) {}

  // Entry `name` of `group` in `<stem>.json`; with `aliases`, also an entry listing `name` in "aliases".
  std::optional<Entry> find(std::string_view stem, std::string_view group, std::string_view name,
                            bool aliases = false) {
    const json* doc = load(stem);
    if (doc == nullptr) return std::nullopt;
    const auto at = doc->find(group);
    if (at == doc->end() || !at->is_object()) return std::nullopt;
    const json& g = *at;
    // Names and aliases compared in place (no string copied per catalog entry); the file name is built
    // for the entry found only.
    for (auto it = g.begin(); it != g.end(); ++it) {
      const std::string& key = it.key();
      const json& value = it.value();
      bool match = key == name;
      if (!match && aliases && value.is_object()) {
        const auto al = value.find("aliases");
        if (al != value.end() && al->is_array()) {
          for (const auto& a : *al) match = match || (a.is_string() && a.get_ref<const std::string&>() == name);
        }
      }
      if (match) {
        const std::string file = (*dir_ / (std::string(stem) + ".json")).string();
        Entry e{&value, key, file, fmt::format("/{}/{}", group, key), energy_catalog_section(stem, group)};
        check_keys(e);
        return e;
      }
    }
    return std::nullopt;
  }

  // The object `group` of `<stem>.json` itself (e.g. infrastructure_power's "defaults"); the file must
  // have been loaded and hold it.
  Entry group(std::string_view stem, std::string_view group) {
    const json* doc = load(stem);
    CS_ASSERT(doc != nullptr && doc->contains(group), "energy catalog group read before it was found");
    Entry e{&(*doc)[std::string(group)], std::string(group), (*dir_ / (std::string(stem) + ".json")).string(),
            fmt::format("/{}", group), energy_catalog_section(stem, group)};
    check_keys(e);
    return e;
  }

  // Reports the keys of an entry its section does not declare, once per entry.
  void check_keys(const Entry& e) {
    if (e.section == nullptr || std::find(checked_.begin(), checked_.end(), e.value) != checked_.end())
      return;
    checked_.push_back(e.value);
    with_reader(e, [](ObjectReader& r) {
      for (const Field& f : r.section().fields) (void)r.find(f.key);
      r.finish();
      return 0.0;
    });
  }

  // A required key of an entry, read against the entry's declared section (energy_catalog_fields.cpp): a
  // quantity in SI, or a number. A missing or malformed value is a diagnostic against the catalog file.
  double quantity(const Entry& e, std::string_view key) {
    return with_reader(e, [&](ObjectReader& r) { return r.require_quantity<double>(key); });
  }
  double number(const Entry& e, std::string_view key) {
    return with_reader(e, [&](ObjectReader& r) {
      return r.field(key).kind == FieldKind::integer ? r.require_integer(key) : r.require_number(key);
    });
  }
  // Reads `dvfs` of a device entry over `d`.
  void dvfs(const Entry& e, DvfsSpec& d) {
    with_reader(e, [&](ObjectReader& r) {
      if (auto dv = r.child("dvfs")) {
        d.exponent = dv->get_number("exponent").value_or(d.exponent);
        d.min_clock_ratio = dv->get_number("min_clock_ratio").value_or(d.min_clock_ratio);
        dv->finish();
      }
      return 0.0;
    });
  }

  const json* load(std::string_view stem) {
    if (!dir_) return nullptr;
    auto it = files_.find(stem);
    if (it != files_.end()) return it->second.is_null() ? nullptr : &it->second;
    const fs::path path = *dir_ / (std::string(stem) + ".json");
    if (cache_ != nullptr) {  // parsed by an earlier build: no file system access
      if (const json* j = cache_->loaded(path)) return j;
    }
    std::error_code ec;
    if (cache_ != nullptr && fs::exists(path, ec)) {
      try {
        return &cache_->load(path);
      } catch (const ConfigError& e) {
        for (const Diagnostic& d : e.diagnostics()) diags_.add(d);
        files_.emplace(std::string(stem), nullptr);
        return nullptr;
      }
    }
    json doc;
    if (fs::exists(path, ec)) {
      try {
        doc = read_json_file(path);
      } catch (const ConfigError& e) {
        for (const Diagnostic& d : e.diagnostics()) diags_.add(d);
        doc = nullptr;
      }
    }
    const json& stored = files_.emplace(std::string(stem), std::move(doc)).first->second;
    return stored.is_null() ? nullptr : &stored;
  }

 private:
  std::optional<fs::path> dir_;
  Diagnostics& diags_;
  Catalog* cache_ = nullptr;
  std::map<std::string, json, std::less<>> files_;
  std::vector<const json*> checked_;

  template <class Read>
  double with_reader(const Entry& e, Read read) {
    CS_ASSERT(e.section != nullptr, "an energy catalog entry without a declared section");
    const Provenance where(e.file);
    ReadContext ctx(where, diags_);
    ObjectReader r(*e.value, e.pointer, *e.section, ctx);
    return read(r);
  }
};

// Reads the section (or, with a null reader, builds the default one) against one scenario.
// The energy catalogs of the catalog roots (the same for a catalog device and the same device written
// inline in an experiment saved anywhere); the directories the document came from only without roots.
std::optional<fs::path> energy_dir(const ReadContext& ctx) {
  if (ctx.catalog() != nullptr) {
    if (auto dir = energy_catalog_dir(ctx.catalog()->paths())) return dir;
  }
  return energy_catalog_dir(ctx.origin());
}

// The catalog-derived shape of the default fat tree (network_default): with the cluster's
// oversubscription it gives the switch ports per NIC and the network assumption line.
struct FatTreeShape {
  int tiers = 1;
  double radix = 0.0;
  long long endpoints = 0;
  std::string name;
  std::string switch_port;  // fmt_w of the catalog's switch and optics power per port
  std::string optics_port;
};

std::string fat_tree_note(const FatTreeShape& f, double ports_per_nic) {
  return fmt::format(
      "network: {}-tier fat tree of radix-{} switches for {} NICs, {:.3g} ports per NIC at {} + {} "
      "optics (energy catalog {})",
      f.tiers, f.radix, f.endpoints, ports_per_nic, f.switch_port, f.optics_port, f.name);
}

// The problems EnergySpec::validate() finds, one diagnostic per field not already reported.
void report_problems(const EnergySpec& spec, ReadContext& ctx) {
  for (const FieldProblem& p : spec.validate()) {
    const std::string pointer = std::string(kSection) + energy_field_pointer(p.field);
    if (!ctx.failed(pointer)) ctx.error(pointer, p.message);
  }
}

class EnergyReader {
 public:
  EnergyReader(const Scenario& s, ReadContext& ctx)
      : s_(s), ctx_(ctx), catalog_(energy_dir(ctx), ctx.diagnostics(), ctx.catalog()) {}

  bool device_has_entry() {
    return catalog_.find("device_power", "devices", s_.cluster.node.device.name, true).has_value();
  }

  EnergySpec read(ObjectReader* r) {
    r_ = r;
    spec_ = EnergySpec{};
    if (r_ == nullptr)
      spec_.defaults_used.push_back("no energy section: every energy input below is a default");
    spec_.device = device();
    spec_.node = node();
    spec_.network = network();
    spec_.storage = storage();
    spec_.pue = pue();
    spec_.carbon_intensity = carbon();
    spec_.pricing = pricing();
    caps();
    if (r_ != nullptr) {
      r_->accept("description");
      r_->accept("source");
      r_->accept("sources");
    }
    report_problems(spec_, ctx_);
    return spec_;
  }

  // After read(): the default fat tree's shape when network_default() built one, and the index of its
  // line in defaults_used.
  [[nodiscard]] const std::optional<FatTreeShape>& fat_tree() const { return fat_tree_; }
  [[nodiscard]] std::size_t fat_tree_note_index() const { return fat_tree_note_; }

 private:
  const json* find(std::string_view key) { return r_ == nullptr ? nullptr : r_->find(key); }
  void note(std::string text) { spec_.defaults_used.push_back(std::move(text)); }

  // The object at `key` when it is one; reports a value that is neither a catalog name nor an object.
  std::optional<ObjectReader> object_or_name(const json* v, std::string_view key) {
    if (v == nullptr || v->is_string()) return std::nullopt;
    if (!v->is_object()) {
      r_->error(key, fmt::format("expected a catalog name (string) or an object, got {}", describe(*v)));
      return std::nullopt;
    }
    return r_->child(key);
  }

  void unknown_name(std::string_view key, std::string_view what, const std::string& name) {
    r_->error(key,
              fmt::format("unknown {} \"{}\" (see configs/energy/ for the catalog entries)", what, name));
  }

  DevicePower device_from_entry(const Entry& e) {
    DevicePower d;
    d.device = e.name;
    d.tdp = Watts(catalog_.quantity(e, "tdp"));
    for (DeviceState st : kAllDeviceStates) d.power[st] = Watts(catalog_.quantity(e, to_string(st)));
    catalog_.dvfs(e, d.dvfs);
    return d;
  }

  // No catalog entry: the reference entry's state powers scaled by TDP ratio (tdp_scaling in the catalog).
  DevicePower device_scaled_by_tdp() {
    const DeviceSpec& dev = s_.cluster.node.device;
    const json* doc = catalog_.load("device_power");
    const std::string ref = doc != nullptr && doc->contains("tdp_scaling")
                                ? (*doc)["tdp_scaling"].value("reference", std::string())
                                : std::string();
    const auto e = catalog_.find("device_power", "devices", ref);
    if (!e || dev.tdp.value() <= 0.0) {
      r_->error("device",
                fmt::format("no power entry for device \"{}\" in configs/energy/device_power.json and no "
                            "TDP to scale one from: give /energy/device as an object with tdp, idle, "
                            "compute, memory, communication and waiting",
                            dev.name));
      return DevicePower{};
    }
    DevicePower d = device_from_entry(*e);
    const double k = dev.tdp.value() / d.tdp.value();
    d.device = dev.name;
    d.tdp = dev.tdp;
    for (DeviceState st : kAllDeviceStates) d.power[st] = d.power[st] * k;
    if (dev.idle_power.value() > 0.0) d.power[DeviceState::idle] = dev.idle_power;
    note(fmt::format("device power: no entry for {}; the {} entry scaled by TDP ratio {:.3g} (estimate)",
                     dev.name, ref, k));
    return d;
  }

  DevicePower device() {
    const json* v = find("device");
    const bool named = v != nullptr && v->is_string();
    const std::string name = named ? v->get<std::string>() : s_.cluster.node.device.name;
    DevicePower d;
    if (auto e = catalog_.find("device_power", "devices", name, true)) {
      d = device_from_entry(*e);
      if (!named) note(fmt::format("device power per state: energy catalog entry {}", e->name));
    } else if (named) {
      unknown_name("device", "device power entry", name);
    } else {
      d = device_scaled_by_tdp();
    }
    if (auto o = object_or_name(v, "device")) {
      d.tdp = o->quantity<Watts>("tdp", d.tdp);
      for (DeviceState st : kAllDeviceStates) d.power[st] = o->quantity<Watts>(to_string(st), d.power[st]);
      if (auto dv = o->child("dvfs")) {
        d.dvfs.exponent = dv->number("exponent", d.dvfs.exponent);
        d.dvfs.min_clock_ratio = dv->number("min_clock_ratio", d.dvfs.min_clock_ratio);
        read_fractions(*dv, "clock_power_fraction", d.dvfs.clock_power_fraction);
        read_fractions(*dv, "clock_time_fraction", d.dvfs.clock_time_fraction);
        dv->finish();
      }
      o->accept("description");
      o->accept("sources");
      o->finish();
    }
    return d;
  }

  static void read_fractions(ObjectReader& dv, std::string_view key, PerState<double>& out) {
    if (auto f = dv.child(key)) {
      for (DeviceState st : kAllDeviceStates) out[st] = f->number(to_string(st), out[st]);
      f->finish();
    }
  }

  NodePower node() {
    const json* v = find("node");
    const bool named = v != nullptr && v->is_string();
    const NodeSpec& ns = s_.cluster.node;
    const std::string name = named ? v->get<std::string>() : ns.name;
    NodePower n;
    n.nics = ns.nics;
    if (auto e = catalog_.find("infrastructure_power", "nodes", name, true)) {
      n.host = Watts(catalog_.quantity(*e, "host"));
      n.nic = Watts(catalog_.quantity(*e, "nic"));
      if (named) n.nics = static_cast<int>(catalog_.number(*e, "nics"));
      if (!named)
        note(fmt::format("node host {} and NIC {} each: energy catalog entry {}", fmt_w(n.host), fmt_w(n.nic),
                         e->name));
    } else if (named) {
      unknown_name("node", "node power entry", name);
    } else {
      n.host = ns.host_power;
      if (const json* doc = catalog_.load("infrastructure_power");
          doc != nullptr && doc->contains("defaults")) {
        n.nic = Watts(catalog_.quantity(catalog_.group("infrastructure_power", "defaults"), "nic"));
      }
      note(fmt::format(
          "node host {}: host_power of node {} (derived from maximum system power: an upper bound); "
          "NIC {} each: energy catalog default",
          fmt_w(n.host), ns.name, fmt_w(n.nic)));
    }
    if (auto o = object_or_name(v, "node")) {
      n.host = o->quantity<Watts>("host", n.host);
      n.nic = o->quantity<Watts>("nic", n.nic);
      n.nics = o->integer("nics", n.nics);
      o->finish();
    }
    return n;
  }

  NetworkPower network_default() {
    NetworkPower n;
    const ClusterSpec& c = s_.cluster;
    const long long endpoints = static_cast<long long>(c.nodes) * c.node.nics;
    const json* doc = catalog_.load("infrastructure_power");
    if (c.network.topology != "fat-tree" || endpoints <= 1 || doc == nullptr || !doc->contains("defaults")) {
      note(fmt::format("network: no switch power (topology {}, {} scale-out NICs)", c.network.topology,
                       endpoints));
      return n;
    }
    const Entry defaults = catalog_.group("infrastructure_power", "defaults");
    const std::string name = (*doc)["defaults"].value("fat_tree_network", std::string());
    const auto e = catalog_.find("infrastructure_power", "networks", name);
    const double radix = catalog_.number(defaults, "switch_radix");
    if (!e || radix < 2) return n;
    n.switch_port = Watts(catalog_.quantity(*e, "switch_port"));
    n.optics_port = Watts(catalog_.quantity(*e, "optics_port"));
    int tiers = 1;
    while (tiers < 8 && 2.0 * std::pow(radix / 2.0, tiers) < static_cast<double>(endpoints)) ++tiers;
    n.ports_per_nic = fat_tree_ports_per_endpoint(tiers, c.network.oversubscription);
    fat_tree_ = FatTreeShape{tiers, radix, endpoints, name, fmt_w(n.switch_port), fmt_w(n.optics_port)};
    fat_tree_note_ = spec_.defaults_used.size();
    note(fat_tree_note(*fat_tree_, n.ports_per_nic));
    return n;
  }

  NetworkPower network() {
    const json* v = find("network");
    NetworkPower n;
    if (v != nullptr && v->is_string()) {
      if (auto e = catalog_.find("infrastructure_power", "networks", v->get<std::string>())) {
        n.switch_port = Watts(catalog_.quantity(*e, "switch_port"));
        n.optics_port = Watts(catalog_.quantity(*e, "optics_port"));
        n.ports_per_nic = catalog_.number(*e, "ports_per_nic");
      } else {
        unknown_name("network", "network power entry", v->get<std::string>());
      }
    } else {
      n = network_default();
    }
    if (auto o = object_or_name(v, "network")) {
      n.switch_port = o->quantity<Watts>("switch_port", n.switch_port);
      n.optics_port = o->quantity<Watts>("optics_port", n.optics_port);
      n.ports_per_nic = o->number("ports_per_nic", n.ports_per_nic);
      o->finish();
    }
    return n;
  }

  StoragePower storage() {
    const json* v = find("storage");
    StoragePower st;
    if (v != nullptr && v->is_string()) {
      if (auto e = catalog_.find("infrastructure_power", "storage", v->get<std::string>())) {
        st.checkpoint_io = Watts(catalog_.quantity(*e, "checkpoint_io"));
      } else {
        unknown_name("storage", "storage power entry", v->get<std::string>());
      }
    } else if (v == nullptr) {
      note("storage: 0 W during checkpoint I/O (not given)");
    }
    if (auto o = object_or_name(v, "storage")) {
      st.checkpoint_io = o->quantity<Watts>("checkpoint_io", st.checkpoint_io);
      o->finish();
    }
    return st;
  }

  double pue() {
    const json* v = find("pue");
    if (v == nullptr) {
      note("pue: 1.0 (not given: facility overhead such as cooling is not counted)");
      return 1.0;
    }
    if (v->is_string()) {
      if (auto e = catalog_.find("pue", "entries", v->get<std::string>())) return catalog_.number(*e, "pue");
      unknown_name("pue", "PUE entry", v->get<std::string>());
      return 1.0;
    }
    return r_->number("pue");
  }

  CarbonIntensity carbon() {
    const json* v = find("carbon_intensity");
    if (v == nullptr) {
      note("carbon_intensity: 0 (not given: co2e is reported as 0)");
      return CarbonIntensity(0);
    }
    if (v->is_string()) {
      if (auto e = catalog_.find("carbon_intensity", "entries", v->get<std::string>())) {
        return CarbonIntensity(catalog_.quantity(*e, "gross"));
      }
    }
    return CarbonIntensity(r_->get_quantity("carbon_intensity").value_or(0.0));
  }

  // A price string or the name of a prices.json entry of `group` (its "price" field).
  template <class Q>
  std::optional<Q> price(ObjectReader& o, std::string_view key, std::string_view group,
                         Q (*parse)(std::string_view)) {
    const json* v = o.find(key);
    if (v == nullptr) return std::nullopt;
    if (!v->is_string()) {
      o.error(key,
              fmt::format(
                  "expected a price string (e.g. \"0.08 USD/kWh\", \"2.5 USD/h\") or a catalog name, got {}",
                  describe(*v)));
      return std::nullopt;
    }
    std::string text = v->get<std::string>();
    if (auto e = catalog_.find("prices", group, text); e && (*e->value).contains("price")) {
      text = (*e->value)["price"].get<std::string>();
    }
    try {
      const Q q = parse(text);
      if (!std::isfinite(q.value()) || q.value() < 0.0)
        o.error(key, fmt::format("price must not be negative, got \"{}\"", text));
      return q;
    } catch (const std::invalid_argument& ex) {
      o.error(key, ex.what());
      return std::nullopt;
    }
  }

  Pricing pricing() {
    Pricing p;
    const json* v = find("price");
    if (v == nullptr) {
      note("price: none given (electricity 0 USD/kWh, no device cost)");
      return p;
    }
    auto o = r_->child("price");
    if (!o) return p;
    p.electricity =
        price<UsdPerJoule>(*o, "electricity", "electricity", parse_energy_price).value_or(UsdPerJoule(0));
    p.device_rental = price<UsdPerSecond>(*o, "device_hour", "device_hour", parse_time_price);
    if (const json* c = o->find("capex"); c != nullptr && c->is_string()) {
      if (auto e = catalog_.find("prices", "capex", c->get<std::string>())) {
        p.capital = CapitalAmortisation{Usd(catalog_.quantity(*e, "per_device")),
                                        Seconds(catalog_.quantity(*e, "amortisation"))};
      } else {
        unknown_name_in(*o, "capex", c->get<std::string>());
      }
    } else if (auto cr = o->child("capex")) {
      CapitalAmortisation cap;
      cap.per_device = cr->require_quantity<Usd>("per_device");
      cap.period = cr->require_quantity<Seconds>("amortisation");
      cr->finish();
      p.capital = cap;
    }
    o->finish();
    return p;
  }

  static void unknown_name_in(ObjectReader& o, std::string_view key, const std::string& name) {
    o.error(key, fmt::format("unknown {} entry \"{}\" (see configs/energy/prices.json)", key, name));
  }

  void caps() {
    if (r_ == nullptr) return;
    if (auto cap = r_->get_quantity("power_cap")) spec_.power_cap = Watts(*cap);
    const json* v = r_->find("power_cap_sweep");
    if (v == nullptr) return;
    if (!v->is_array()) {
      r_->error(
          "power_cap_sweep",
          fmt::format("expected an array of powers (e.g. [\"700 W\", \"500 W\"]), got {}", describe(*v)));
      return;
    }
    for (std::size_t i = 0; i < v->size(); ++i) {
      const std::string ptr = fmt::format("{}/power_cap_sweep/{}", kSection, i);
      const json& item = (*v)[i];
      try {
        if (!item.is_string())
          throw std::invalid_argument(
              fmt::format("expected a power such as \"500 W\", got {}", describe(item)));
        spec_.power_cap_sweep.push_back(Watts(parse_quantity(item.get<std::string>(), Dimension::power)));
      } catch (const std::invalid_argument& ex) {
        ctx_.error(ptr, ex.what());
      }
    }
  }

  const Scenario& s_;
  ReadContext& ctx_;
  EnergyCatalog catalog_;
  ObjectReader* r_ = nullptr;
  EnergySpec spec_;
  std::optional<FatTreeShape> fat_tree_;
  std::size_t fat_tree_note_ = 0;
};

// The default energy section of a scenario without one, memoised per catalog (memoisation: Michie,
// "Memo functions and machine learning", Nature 218, 1968; docs/energy.md). Without an /energy
// section, EnergyReader::read(nullptr) consults exactly: the energy catalog directory, the device name
// (device_has_entry() guarantees a catalog entry, so neither its TDP nor its idle power), the node's name,
// NIC count and host power, the cluster's node count and topology, and (network_default) the
// oversubscription. All but the oversubscription form the key; the oversubscription only sets the fat
// tree's ports per NIC and its assumption line, re-derived per point with the same code (fat_tree_note).
// A derivation that reported anything (a malformed catalog file, a spec that fails validate()) is not
// stored, so every such point is read afresh and reports the same diagnostics. Sweeps build thousands
// of points that differ only in patched fields (typed_patch.hpp); they now read the catalog once.
struct DefaultsKey {
  bool has_dir = false;
  std::string dir;
  std::string device;
  std::string node;
  int nics = 0;
  std::uint64_t host_power_bits = 0;
  int nodes = 0;
  std::string topology;
  auto operator<=>(const DefaultsKey&) const = default;
};
struct DefaultsMemo {
  std::optional<EnergySpec> spec;  // none: the device has no catalog entry (no default energy section)
  std::optional<FatTreeShape> fat_tree;
  std::size_t fat_tree_note = 0;
};
struct EnergyDefaultsCache {
  std::map<DefaultsKey, DefaultsMemo> entries;
  // energy_catalog_dir of the catalog's roots (fixed for a catalog), found once.
  std::optional<std::optional<fs::path>> roots_dir;
};

std::optional<EnergySpec> default_energy(const Scenario& s, ReadContext& ctx) {
  const auto fresh = [&](DefaultsMemo& m) {
    EnergyReader reader(s, ctx);
    if (!reader.device_has_entry()) return;
    m.spec = reader.read(nullptr);
    m.fat_tree = reader.fat_tree();
    m.fat_tree_note = reader.fat_tree_note_index();
  };
  Catalog* catalog = ctx.catalog();
  if (catalog == nullptr) {  // no parse cache to tie the memo to
    DefaultsMemo m;
    fresh(m);
    return std::move(m.spec);
  }
  std::shared_ptr<void>& slot = catalog->derived("energy_defaults");
  if (!slot) slot = std::make_shared<EnergyDefaultsCache>();
  auto& cache = *static_cast<EnergyDefaultsCache*>(slot.get());
  if (!cache.roots_dir) cache.roots_dir = energy_catalog_dir(catalog->paths());
  // energy_dir(ctx): the roots' directory, else the one next to the document.
  const std::optional<fs::path> origin_dir =
      *cache.roots_dir ? std::nullopt : energy_catalog_dir(ctx.origin());
  const std::optional<fs::path>& dir = *cache.roots_dir ? *cache.roots_dir : origin_dir;
  const ClusterSpec& c = s.cluster;
  DefaultsKey key{dir.has_value(),
                  dir ? dir->native() : std::string(),
                  c.node.device.name,
                  c.node.name,
                  c.node.nics,
                  std::bit_cast<std::uint64_t>(c.node.host_power.value()),
                  c.nodes,
                  c.network.topology};
  if (auto it = cache.entries.find(key); it != cache.entries.end()) {
    const DefaultsMemo& m = it->second;
    if (!m.spec) return std::nullopt;
    EnergySpec spec = *m.spec;
    if (m.fat_tree) {
      spec.network.ports_per_nic = fat_tree_ports_per_endpoint(m.fat_tree->tiers, c.network.oversubscription);
      spec.defaults_used[m.fat_tree_note] = fat_tree_note(*m.fat_tree, spec.network.ports_per_nic);
    }
    report_problems(spec, ctx);
    return spec;
  }
  const std::size_t before = ctx.diagnostics().size();
  DefaultsMemo m;
  fresh(m);
  std::optional<EnergySpec> out = m.spec;
  if (ctx.diagnostics().size() == before) {
    // Bounded: a sweep over node counts (or host powers) makes a new key per point; the memo keeps at most
    // kMaxDefaultsMemo entries (≈ 1.5 KB each) and starts again when full, so memory stays flat.
    constexpr std::size_t kMaxDefaultsMemo = 64;
    if (cache.entries.size() >= kMaxDefaultsMemo) cache.entries.clear();
    cache.entries.emplace(std::move(key), std::move(m));
  }
  return out;
}

}  // namespace

std::optional<fs::path> energy_catalog_dir(const Provenance& origin) {
  for (const char* pointer : {"/cluster/node/device", "/cluster/node", "/cluster", ""}) {
    const fs::path& dir = origin.directory_of(pointer);
    if (dir.empty()) continue;
    if (has_energy_catalog(dir.parent_path() / "energy")) return dir.parent_path() / "energy";
    if (has_energy_catalog(dir / "energy")) return dir / "energy";
  }
  return std::nullopt;
}

std::optional<fs::path> energy_catalog_dir(const CatalogPaths& paths) {
  for (const fs::path& root : paths.roots) {
    if (has_energy_catalog(root / "energy")) return root / "energy";
  }
  return std::nullopt;
}

const Section kEnergySection{"energy", "/energy", "power, PUE, carbon and prices (docs/energy.md)",
                             kEnergyFields};
const Field kEnergyKey{.key = "energy",
                       .kind = FieldKind::object,
                       .doc = "power, PUE, carbon and prices (docs/energy.md)",
                       .section = &kEnergySection};

SectionSpec energy_section() {
  SectionSpec spec;
  spec.key = "energy";
  spec.field = &kEnergyKey;
  spec.parse = [](ObjectReader& r, Scenario& s) {
    EnergyReader reader(s, r.context());
    s.energy = reader.read(&r);
  };
  spec.finish = [](Scenario& s, ReadContext& ctx) {
    // Pools: each pool's energy comes with the heterogeneous section (docs/heterogeneous.md).
    if (s.energy || !s.cluster.pools.empty()) return;
    s.energy = default_energy(s, ctx);
  };
  return spec;
}

std::optional<CarbonIntensityEntry> carbon_intensity_for_datacenter(const fs::path& energy_dir,
                                                                    const Datacenter& where) {
  Diagnostics diags;
  EnergyCatalog catalog(energy_dir, diags);
  const json* doc = catalog.load("carbon_intensity");
  std::optional<CarbonIntensityEntry> out;
  const std::string file = (energy_dir / "carbon_intensity.json").string();
  if (doc != nullptr && doc->contains("entries")) {
    for (const auto& [name, value] : (*doc)["entries"].items()) {
      if (value.value("operator", std::string()) != where.operator_name ||
          value.value("site", std::string()) != where.site ||
          value.value("date", std::string()) != where.date) {
        continue;
      }
      if (out) {
        diags.add(file, "/entries/" + name,
                  fmt::format("\"{}\" and \"{}\" both state {}, {}, {}", out->name, name, where.operator_name,
                              where.site, where.date));
        continue;
      }
      const Entry e{&value, name, file, "/entries/" + name,
                    energy_catalog_section("carbon_intensity", "entries")};
      out = CarbonIntensityEntry{name, CarbonIntensity(catalog.quantity(e, "gross")),
                                 CarbonIntensity(catalog.quantity(e, "net")),
                                 value.value("source", std::string())};
    }
  }
  diags.throw_if_any();
  return out;
}

}  // namespace clustersim::config
