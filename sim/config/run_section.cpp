#include "sim/config/run_section.hpp"

#include <array>
#include <cstdint>
#include <limits>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "models/energy/price_parse.hpp"
#include "sim/config/field_pointer.hpp"
#include "sim/config/section_readers.hpp"
#include "sim/config/sections.hpp"
#include "sim/scenario/default_catalog.hpp"
#include "sim/scenario/run_spec.hpp"

namespace clustersim::config {
namespace {

using run::BlastRadius;
using run::CheckpointMode;
using run::CheckpointTier;
using run::RecoveryPolicy;
using run::UnitKind;

constexpr std::array<EnumName<UnitKind>, 5> kUnitNames{{{"device", UnitKind::device},
                                                        {"node", UnitKind::node},
                                                        {"nic", UnitKind::nic},
                                                        {"leaf_switch", UnitKind::leaf_switch},
                                                        {"job", UnitKind::job}}};
constexpr std::array<EnumName<BlastRadius>, 3> kBlastNames{
    {{"none", BlastRadius::none}, {"node", BlastRadius::node}, {"leaf_switch", BlastRadius::leaf_switch}}};
constexpr std::array<EnumName<CheckpointMode>, 2> kModeNames{
    {{"sync", CheckpointMode::sync}, {"async", CheckpointMode::async}}};
constexpr std::array<EnumName<CheckpointTier>, 2> kTierNames{
    {{"storage", CheckpointTier::storage}, {"peer_memory", CheckpointTier::peer_memory}}};
constexpr std::array<EnumName<RecoveryPolicy>, 3> kPolicyNames{
    {{"hot_spare", RecoveryPolicy::hot_spare},
     {"wait_for_repair", RecoveryPolicy::wait_for_repair},
     {"elastic", RecoveryPolicy::elastic}}};

constexpr auto kUnitChoices = choices_of(kUnitNames);
constexpr auto kBlastChoices = choices_of(kBlastNames);
constexpr auto kModeChoices = choices_of(kModeNames);
constexpr auto kTierChoices = choices_of(kTierNames);
constexpr auto kPolicyChoices = choices_of(kPolicyNames);
constexpr auto kAuto = std::to_array<std::string_view>({"auto"});
constexpr auto kUnlimited = std::to_array<std::string_view>({"unlimited"});

constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();
constexpr std::string_view kRunDefault = "derived: the run defaults (docs/reliability.md)";

constexpr Field kFailureClassFields[] = {
    {.key = "mtbf",
     .kind = FieldKind::quantity,
     .doc = "MTBF of one unit (or per_1000_unit_days)",
     .fallback = kRunDefault,
     .dimension = Dimension::time},
    {.key = "per_1000_unit_days",
     .kind = FieldKind::number,
     .doc = "failures per 1,000 unit-days (or mtbf)",
     .fallback = kRunDefault,
     .numbers = {.min = 0.0}},
    {.key = "unit",
     .kind = FieldKind::choice,
     .doc = "what the rate is counted per",
     .fallback = kRunDefault,
     .choices = kUnitChoices},
    {.key = "weibull_shape",
     .kind = FieldKind::number,
     .doc = "Weibull shape of the time between failures",
     .fallback = kRunDefault},
    {.key = "blast_radius",
     .kind = FieldKind::choice,
     .doc = "what else a failure takes down",
     .fallback = kRunDefault,
     .choices = kBlastChoices},
    {.key = "detection",
     .kind = FieldKind::quantity,
     .doc = "time to detect a failure",
     .fallback = kRunDefault,
     .dimension = Dimension::time,
     .rule = QuantityRule::any},
    {.key = "repair",
     .kind = FieldKind::quantity,
     .doc = "time to repair the unit",
     .fallback = kRunDefault,
     .dimension = Dimension::time,
     .rule = QuantityRule::any},
    {.key = "planned",
     .kind = FieldKind::boolean,
     .doc = "planned maintenance (not a failure)",
     .fallback = kRunDefault},
    kSourceField,
    kDescriptionField,
};
const Section kFailureClassSection{"failure_class", "/run/failures/accelerator",
                                   "the failure model of one component class", kFailureClassFields};

constexpr Field kFailuresFields[] = {
    {.key = "accelerator",
     .kind = FieldKind::object,
     .doc = "GPUs / accelerators",
     .section = &kFailureClassSection},
    {.key = "memory",
     .kind = FieldKind::object,
     .doc = "device memory (HBM)",
     .section = &kFailureClassSection},
    {.key = "nic",
     .kind = FieldKind::object,
     .doc = "NICs and their links",
     .section = &kFailureClassSection},
    {.key = "node_fabric",
     .kind = FieldKind::object,
     .doc = "NVLink / NVSwitch",
     .section = &kFailureClassSection},
    {.key = "host",
     .kind = FieldKind::object,
     .doc = "host CPU, DRAM, PSU",
     .section = &kFailureClassSection},
    {.key = "network_switch",
     .kind = FieldKind::object,
     .doc = "network switches",
     .section = &kFailureClassSection},
    {.key = "cable", .kind = FieldKind::object, .doc = "cables and optics", .section = &kFailureClassSection},
    {.key = "storage", .kind = FieldKind::object, .doc = "storage", .section = &kFailureClassSection},
    {.key = "software",
     .kind = FieldKind::object,
     .doc = "software faults",
     .section = &kFailureClassSection},
    {.key = "maintenance",
     .kind = FieldKind::object,
     .doc = "planned maintenance",
     .section = &kFailureClassSection},
    kDescriptionField,
};
const Section kFailuresSection{"failures", "/run/failures", "failure rates per component class",
                               kFailuresFields};

constexpr Field bandwidth_field(std::string_view key, std::string_view doc) {
  return {.key = key,
          .kind = FieldKind::quantity,
          .doc = doc,
          .fallback = kRunDefault,
          .dimension = Dimension::bandwidth,
          .also = also_null};
}

constexpr Field kCheckpointFields[] = {
    {.key = "interval",
     .kind = FieldKind::quantity,
     .doc = "time between checkpoints, or \"auto\" (Young/Daly)",
     .fallback = kRunDefault,
     .dimension = Dimension::time,
     .choices = kAuto},
    {.key = "mode",
     .kind = FieldKind::choice,
     .doc = "blocking or asynchronous writes",
     .fallback = kRunDefault,
     .choices = kModeChoices},
    {.key = "tier",
     .kind = FieldKind::choice,
     .doc = "where checkpoints go",
     .fallback = kRunDefault,
     .choices = kTierChoices},
    bandwidth_field("write_bandwidth_per_node", "checkpoint write rate of one node (null: none)"),
    bandwidth_field("aggregate_write_bandwidth", "file-system write cap (null: none)"),
    bandwidth_field("read_bandwidth_per_node", "restore read rate of one node (null: none)"),
    bandwidth_field("aggregate_read_bandwidth", "file-system read cap (null: none)"),
    bandwidth_field("host_copy_bandwidth", "device-to-host copy rate of async checkpoints (null: none)"),
    bandwidth_field("peer_bandwidth_per_node", "peer-memory checkpoint rate of one node (null: none)"),
    kSourceField,
    kSourcesField,
};
const Section kCheckpointSection{"checkpoint", "/run/checkpoint", "checkpointing", kCheckpointFields};

constexpr Field kRecoveryFields[] = {
    {.key = "policy",
     .kind = FieldKind::choice,
     .doc = "what happens after a failure",
     .fallback = kRunDefault,
     .choices = kPolicyChoices},
    {.key = "spare_nodes",
     .kind = FieldKind::integer,
     .doc = "hot spares, or \"unlimited\"",
     .fallback = kRunDefault,
     .choices = kUnlimited},
    {.key = "spare_swap",
     .kind = FieldKind::quantity,
     .doc = "time to swap in a spare",
     .fallback = kRunDefault,
     .dimension = Dimension::time,
     .rule = QuantityRule::any},
    {.key = "restart_base",
     .kind = FieldKind::quantity,
     .doc = "fixed restart time",
     .fallback = kRunDefault,
     .dimension = Dimension::time,
     .rule = QuantityRule::any},
    {.key = "restart_per_device",
     .kind = FieldKind::quantity,
     .doc = "restart time per device",
     .fallback = kRunDefault,
     .dimension = Dimension::time,
     .rule = QuantityRule::any},
    kSourceField,
    kSourcesField,
};
const Section kRecoverySection{"recovery", "/run/recovery", "recovery after failures", kRecoveryFields};

constexpr Field kRunStragglerFields[] = {
    {.key = "slow_fraction",
     .kind = FieldKind::number,
     .doc = "share of steps slowed",
     .fallback = kRunDefault},
    {.key = "slow_speed",
     .kind = FieldKind::number,
     .doc = "speed of a slowed step",
     .fallback = kRunDefault},
    {.key = "lognormal_sigma",
     .kind = FieldKind::number,
     .doc = "per-step lognormal jitter",
     .fallback = kRunDefault},
    kSourceField,
    kSourcesField,
};
const Section kRunStragglersSection{"run_stragglers", "/run/stragglers",
                                    "statistical per-step slowdown over a run", kRunStragglerFields};

constexpr Field kSpotGroupFields[] = {
    {.key = "name", .kind = FieldKind::string, .doc = "label in the report", .fallback = "derived: group<i>"},
    {.key = "nodes",
     .kind = FieldKind::integer,
     .doc = "spot nodes of the group (groups take the job's nodes in order)",
     .fallback = "required",
     .ints = {.min = 1}},
    {.key = "mean_time_to_preemption",
     .kind = FieldKind::quantity,
     .doc = "mean time until one node is preempted (exponential)",
     .fallback = "required",
     .dimension = Dimension::time},
    {.key = "notice",
     .kind = FieldKind::quantity,
     .doc = "warning before a preemption (AWS: 2 min, GCP: 30 s)",
     .fallback = "\"0 s\"",
     .dimension = Dimension::time,
     .rule = QuantityRule::non_negative},
    {.key = "capacity_return",
     .kind = FieldKind::quantity,
     .doc = "mean time until a preempted node's capacity is back (exponential; 0: at once)",
     .fallback = "\"0 s\"",
     .dimension = Dimension::time,
     .rule = QuantityRule::non_negative},
    {.key = "price",
     .kind = FieldKind::string,
     .doc = "spot price per device-hour (\"0.9 USD/h\")",
     .fallback = "\"0 USD/h\""},
    kDescriptionField,
    kSourceField,
};
const Section kSpotGroupSection{"spot_group", "/run/spot/groups/*", "one group of spot nodes", kSpotGroupFields};

constexpr Field kSpotFields[] = {
    {.key = "groups",
     .kind = FieldKind::array,
     .doc = "groups of spot nodes (a non-empty array)",
     .fallback = "required",
     .section = &kSpotGroupSection},
    {.key = "on_demand_price",
     .kind = FieldKind::string,
     .doc = "on-demand price per device-hour (\"2.5 USD/h\") of the other nodes and of the comparison",
     .fallback = "\"0 USD/h\""},
    {.key = "checkpoint_on_notice",
     .kind = FieldKind::boolean,
     .doc = "save a checkpoint in the notice window when the write fits",
     .fallback = "true"},
    kDescriptionField,
    kSourceField,
    kSourcesField,
};
const Section kSpotSection{"spot", "/run/spot", "spot / preemptible capacity (docs/reliability.md)", kSpotFields};

constexpr Field kRunFields[] = {
    {.key = "tokens",
     .kind = FieldKind::quantity,
     .doc = "tokens to train (or steps)",
     .fallback = kRunDefault},
    {.key = "steps",
     .kind = FieldKind::integer,
     .doc = "optimizer steps (or tokens)",
     .fallback = kRunDefault,
     .ints = {.min = 1, .max = kInt64Max}},
    {.key = "seed",
     .kind = FieldKind::integer,
     .doc = "seed of the failure draws",
     .fallback = kRunDefault,
     .ints = {.min = 0, .max = kInt64Max}},
    {.key = "trials", .kind = FieldKind::integer, .doc = "Monte-Carlo trials", .fallback = kRunDefault},
    {.key = "what_if_trials",
     .kind = FieldKind::integer,
     .doc = "trials per what-if variant",
     .fallback = kRunDefault},
    {.key = "failures", .kind = FieldKind::object, .doc = "failure model", .section = &kFailuresSection},
    {.key = "checkpoint", .kind = FieldKind::object, .doc = "checkpointing", .section = &kCheckpointSection},
    {.key = "recovery", .kind = FieldKind::object, .doc = "recovery", .section = &kRecoverySection},
    {.key = "stragglers",
     .kind = FieldKind::object,
     .doc = "per-step slowdown model",
     .section = &kRunStragglersSection},
    {.key = "spot", .kind = FieldKind::object, .doc = "spot / preemptible capacity", .section = &kSpotSection},
    kDescriptionField,
    kSourceField,
    kSourcesField,
};

/// A time key that keeps `current` when absent.
Seconds time_or(ObjectReader& r, std::string_view key, Seconds current) {
  return r.quantity<Seconds>(key, current);
}

/// An optional bandwidth: absent keeps `current`, null removes it, a string with a unit replaces it.
void nullable_bandwidth(ObjectReader& r, std::string_view key, std::optional<BytesPerSecond>& current) {
  const nlohmann::json* v = r.find(key);
  if (v == nullptr) return;
  if (v->is_null()) {
    current.reset();
    return;
  }
  if (auto bw = r.get_quantity(key)) current = BytesPerSecond(*bw);
}

void read_failure_class(ObjectReader& r, run::FailureClassSpec& f) {
  const bool has_mtbf = r.has("mtbf");
  const bool has_rate = r.has("per_1000_unit_days");
  if (has_mtbf && has_rate) {
    r.error("per_1000_unit_days", "give either \"mtbf\" or \"per_1000_unit_days\", not both");
  } else if (has_mtbf) {
    if (auto m = r.get_quantity("mtbf")) f.unit_mtbf = Seconds(*m);
  } else if (has_rate) {
    if (auto rate = r.get_number("per_1000_unit_days")) {
      f.unit_mtbf = run::unit_mtbf_from_rate_per_1000_unit_days(*rate);
    }
  }
  f.unit = r.enumeration<UnitKind>("unit", kUnitNames, f.unit);
  f.weibull_shape = r.number("weibull_shape", f.weibull_shape);
  f.blast_radius = r.enumeration<BlastRadius>("blast_radius", kBlastNames, f.blast_radius);
  f.detection = time_or(r, "detection", f.detection);
  f.repair = time_or(r, "repair", f.repair);
  f.planned = r.boolean("planned", f.planned);
  if (auto source = r.get_string("source")) f.source = *source;
  r.accept("description");
}

void read_failures(ObjectReader& r, run::FailureModelSpec& model) {
  for (const run::ComponentClass cls : run::kAllComponentClasses) {
    if (auto c = r.child(run::to_string(cls))) {
      read_failure_class(*c, model[run::index_of(cls)]);
      c->finish();
    }
  }
  r.accept("description");
}

void read_checkpoint(ObjectReader& r, run::CheckpointSpec& k) {
  if (const nlohmann::json* v = r.find("interval"); v != nullptr) {
    if (v->is_string() && v->get_ref<const std::string&>() == "auto") {
      k.interval.reset();
    } else if (auto t = r.get_quantity("interval")) {
      k.interval = Seconds(*t);
    }
  }
  k.mode = r.enumeration<CheckpointMode>("mode", kModeNames, k.mode);
  k.tier = r.enumeration<CheckpointTier>("tier", kTierNames, k.tier);
  nullable_bandwidth(r, "write_bandwidth_per_node", k.write_bandwidth_per_node);
  nullable_bandwidth(r, "aggregate_write_bandwidth", k.aggregate_write_bandwidth);
  nullable_bandwidth(r, "read_bandwidth_per_node", k.read_bandwidth_per_node);
  nullable_bandwidth(r, "aggregate_read_bandwidth", k.aggregate_read_bandwidth);
  nullable_bandwidth(r, "host_copy_bandwidth", k.host_copy_bandwidth);
  nullable_bandwidth(r, "peer_bandwidth_per_node", k.peer_bandwidth_per_node);
  accept_sources(r);
}

void read_recovery(ObjectReader& r, run::RecoverySpec& rec) {
  rec.policy = r.enumeration<RecoveryPolicy>("policy", kPolicyNames, rec.policy);
  if (const nlohmann::json* v = r.find("spare_nodes"); v != nullptr) {
    if (v->is_string() && v->get_ref<const std::string&>() == "unlimited") {
      rec.spare_nodes.reset();
    } else if (auto n = r.get_integer("spare_nodes")) {
      rec.spare_nodes = static_cast<int>(*n);
    }
  }
  rec.spare_swap = time_or(r, "spare_swap", rec.spare_swap);
  rec.restart_base = time_or(r, "restart_base", rec.restart_base);
  rec.restart_per_device = time_or(r, "restart_per_device", rec.restart_per_device);
  accept_sources(r);
}

void read_stragglers(ObjectReader& r, run::StragglerSpec& s) {
  s.slow_fraction = r.number("slow_fraction", s.slow_fraction);
  s.slow_speed = r.number("slow_speed", s.slow_speed);
  s.lognormal_sigma = r.number("lognormal_sigma", s.lognormal_sigma);
  accept_sources(r);
}

// A price per device-hour ("2.5 USD/h") as USD per device-hour.
double device_hour_price(ObjectReader& r, std::string_view key) {
  const nlohmann::json* v = r.find(key);
  if (v == nullptr) return 0.0;
  if (!v->is_string()) {
    r.error(key, fmt::format("expected a price per device-hour such as \"2.5 USD/h\", got {}", describe(*v)));
    return 0.0;
  }
  try {
    const double usd_per_s = parse_time_price(v->get<std::string>()).value();
    if (!std::isfinite(usd_per_s) || usd_per_s < 0.0) {
      r.error(key, fmt::format("price must be a finite amount >= 0, got \"{}\"", v->get<std::string>()));
      return 0.0;
    }
    return usd_per_s * 3600.0;
  } catch (const std::invalid_argument& ex) {
    r.error(key, ex.what());
    return 0.0;
  }
}

run::SpotSpec read_spot(ObjectReader& r) {
  run::SpotSpec spot;
  spot.on_demand_price = device_hour_price(r, "on_demand_price");
  spot.checkpoint_on_notice = r.boolean("checkpoint_on_notice");
  const nlohmann::json* groups = r.find("groups");
  const std::string at = r.pointer_of("groups");
  if (groups == nullptr) {
    if (r.valid()) r.error("groups", "missing required key (a non-empty array of spot node groups)");
  } else if (!groups->is_array() || groups->empty()) {
    r.error("groups", fmt::format("expected a non-empty array of spot node groups, got {}", describe(*groups)));
  } else {
    for (std::size_t i = 0; i < groups->size(); ++i) {
      ObjectReader g((*groups)[i], child_pointer(at, std::to_string(i)), kSpotGroupSection, r.context());
      run::SpotGroupSpec spec;
      spec.name = g.string("name", fmt::format("group{}", i));
      spec.nodes = static_cast<int>(g.require_integer("nodes"));
      spec.mean_time_to_preemption = g.require_quantity<Seconds>("mean_time_to_preemption");
      spec.notice = g.quantity<Seconds>("notice");
      spec.capacity_return = g.quantity<Seconds>("capacity_return");
      spec.price = device_hour_price(g, "price");
      g.accept("description");
      g.accept("source");
      g.finish();
      spot.groups.push_back(spec);
    }
  }
  r.accept("description");
  accept_sources(r);
  return spot;
}

run::RunSpec read_run(ObjectReader& r) {
  run::RunSpec spec = run::default_run_spec();
  if (auto tokens = r.get_quantity("tokens")) spec.tokens = *tokens;
  if (auto steps = r.get_integer("steps")) spec.steps = *steps;
  if (auto seed = r.get_integer("seed")) spec.seed = static_cast<std::uint64_t>(*seed);
  spec.trials = r.integer("trials", spec.trials);
  spec.what_if_trials = r.integer("what_if_trials", spec.what_if_trials);
  if (auto f = r.child("failures")) {
    read_failures(*f, spec.failures);
    f->finish();
  }
  if (auto c = r.child("checkpoint")) {
    read_checkpoint(*c, spec.checkpoint);
    c->finish();
  }
  if (auto rec = r.child("recovery")) {
    read_recovery(*rec, spec.recovery);
    rec->finish();
  }
  if (auto s = r.child("stragglers")) {
    read_stragglers(*s, spec.stragglers);
    s->finish();
  }
  if (auto sp = r.child("spot")) {
    spec.spot = read_spot(*sp);
    sp->finish();
  }
  r.accept("description");
  accept_sources(r);

  // Field and cross-field rules of the run model itself; values that already failed to read are not
  // reported twice.
  ReadContext& ctx = r.context();
  for (FieldProblem& p : spec.validate()) {
    std::string pointer = r.pointer() + run_field_pointer(p.field);
    if (!ctx.failed(pointer)) ctx.error(pointer, std::move(p.message));
  }
  return spec;
}

}  // namespace

const Section kRunSection{
    "run", "/run", "a whole training run: failures, checkpoints, recovery (docs/reliability.md)", kRunFields};
const Field kRunKey{.key = "run",
                    .kind = FieldKind::object,
                    .doc = "a whole run with failures and checkpoints (docs/reliability.md)",
                    .section = &kRunSection};

SectionSpec run_section() {
  return {"run", false, [](ObjectReader& in, Scenario& out) { out.run = read_run(in); }, {}, {}, &kRunKey};
}

}  // namespace clustersim::config
