#include "sim/plan/planner.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

#include "sim/config/cross_checks.hpp"
#include "sim/config/provenance.hpp"
#include "sim/core/diagnostics.hpp"
#include "sim/engine/analytic_engine.hpp"
#include "sim/plan/memory_estimate.hpp"
#include "sim/plan/output_file.hpp"
#include "sim/report/prediction.hpp"
#include "sim/scenario/work_bounds.hpp"

namespace clustersim::plan {
namespace {

enum class Outcome : std::uint8_t { pruned, over_memory, invalid, feasible };

struct Slot {
  Outcome outcome = Outcome::pruned;
  PlanCandidate candidate;
  // An invalid strategy's first refusal: the JSON pointer the config checks name ("" when the step model
  // refused it) and the message.
  std::string refused_at;
  std::string refusal;
};

void refuse(Slot& slot, std::string at, std::string message) {
  std::replace(message.begin(), message.end(), '\n', ' ');
  slot.outcome = Outcome::invalid;
  slot.refused_at = std::move(at);
  slot.refusal = std::move(message);
}
void refuse(Slot& slot, const Diagnostic& first) { refuse(slot, first.pointer, first.message); }

std::optional<double> number_at(const nlohmann::json& j, const char* ptr) {
  if (!j.is_object()) return std::nullopt;
  const nlohmann::json::json_pointer p(ptr);
  if (!j.contains(p) || !j.at(p).is_number()) return std::nullopt;
  return j.at(p).get<double>();
}

std::optional<double> run_tokens(const Scenario& s) {
  if (!s.run) return std::nullopt;
  if (s.run->tokens) return *s.run->tokens;
  if (s.run->steps) return static_cast<double>(*s.run->steps) * s.training.global_batch * s.training.seq_len;
  return std::nullopt;
}

class Evaluator {
 public:
  Evaluator(const Scenario& base, const PlanOptions& o)
      : base_(base), opt_(o), tokens_(run_tokens(base)), origin_(base.source_file) {
    use_predict_ = o.objective != Objective::time && base.energy.has_value();
  }

  Slot evaluate(const Strategy& st, std::size_t order) const {
    Slot slot;
    Scenario s = base_;
    apply(st, s);
    // The experiment's cross-field checks (sim/config/cross_checks.hpp) on the strategy: what a run of it
    // would refuse (a parameter-server dp_mode with TP > 1, ZeRO under local SGD, PP across TPU slices...)
    // is invalid here too, not ranked.
    {
      Diagnostics problems;
      config::ReadContext ctx(origin_, problems);
      config::finalize_scenario(s, ctx);
      if (!problems.empty()) {
        refuse(slot, problems.items().front());
        return slot;
      }
    }
    // The planner ranks on the analytic engine (docs/planning.md), whatever engine the experiment names:
    // the cost and energy objectives ran a flow-engine experiment's every strategy on the flow engine
    // (two-jobs-halves: minutes, outside the search's cost bound).
    s.engine = "analytic";
    // The pre-filter counts device-resident states; weight streaming keeps them in MemoryX, so wafer
    // strategies go straight to the step model, which checks the SRAM and MemoryX.
    if (!s.cluster.node.weight_streaming &&
        estimated_peak_memory(s) > s.cluster.node.device.memory_capacity * opt_.memory_limit) {
      return slot;
    }
    try {
      Prediction p;
      if (use_predict_) {
        p = predict(s, {.text = false});
      } else {
        p.step = run_analytic(s);
      }
      // --memory-limit: the peak against that share of the device's memory (weight streaming: the step
      // model's own SRAM and MemoryX checks).
      const bool fits = s.cluster.node.weight_streaming
                            ? p.step.fits
                            : p.step.memory.total() <= p.step.memory_capacity * opt_.memory_limit;
      slot.outcome = fits ? Outcome::feasible : Outcome::over_memory;
      fill(s, st, order, p, slot.candidate);
    } catch (const ConfigError& e) {
      if (e.diagnostics().empty()) {
        refuse(slot, "", e.what());
      } else {
        refuse(slot, e.diagnostics().front());
      }
    } catch (const std::invalid_argument& e) {
      refuse(slot, "", e.what());
    }
    return slot;
  }

 private:
  void fill(const Scenario& s, const Strategy& st, std::size_t order, const Prediction& p,
            PlanCandidate& c) const {
    const StepResult& r = p.step;
    c.strategy = st;
    c.order = order;
    c.devices = r.devices;
    c.step_time = r.step_time;
    c.tokens_per_s = r.tokens_per_s;
    c.mfu = r.mfu;
    c.bubble_fraction = r.bubble_fraction;
    c.memory = r.memory.total();
    c.headroom = r.memory_capacity - r.memory.total();
    c.comm_exposed = r.comm_exposed.tp + r.comm_exposed.pp + r.comm_exposed.dp + r.comm_exposed.cp;
    c.recompute = r.stages[static_cast<std::size_t>(r.critical_stage)].recompute;
    if (tokens_) c.run_time = Seconds(*tokens_ / r.tokens_per_s);
    c.device_hours = r.devices * (c.run_time ? *c.run_time : r.step_time).value() / 3600.0;
    // Energy and cost: the run totals when the run section reports them (run_json), else the energy
    // section's per-step figures scaled to the run's steps (or per step without a run length).
    const double steps = tokens_ ? *tokens_ / r.tokens_per_step : 1.0;
    c.cost_usd = number_at(p.run_json, "/cost_usd");
    if (!c.cost_usd) {
      if (auto per_step = number_at(p.energy_json, "/cost_usd_per_step")) c.cost_usd = *per_step * steps;
    }
    if (auto mwh = number_at(p.run_json, "/energy_mwh")) {
      c.energy_j = *mwh * 3.6e9;
    } else if (auto per_step = number_at(p.energy_json, "/joules_per_step")) {
      c.energy_j = *per_step * steps;
    }
    (void)s;
    switch (opt_.objective) {
      case Objective::time:
        c.objective = (c.run_time ? *c.run_time : c.step_time).value();
        break;
      case Objective::cost:
        c.objective = c.cost_usd ? *c.cost_usd : c.device_hours;
        break;
      case Objective::energy:
        c.objective = c.energy_j ? *c.energy_j : INFINITY;
        break;
    }
  }

  const Scenario& base_;
  const PlanOptions& opt_;
  std::optional<double> tokens_;
  config::Provenance origin_;  // where the strategies' cross-check messages would point (never printed)
  bool use_predict_ = false;
};

std::string objective_unit(const Scenario& s, Objective o) {
  const bool run = run_tokens(s).has_value();
  switch (o) {
    case Objective::time:
      return run ? "s" : "s/step";
    case Objective::cost:
      return run ? "device-hours" : "device-hours/step";
    case Objective::energy:
      return run ? "J" : "J/step";
  }
  return "";
}

void check_options(const Scenario& base, const PlanOptions& o) {
  if (o.objective == Objective::energy && !base.energy) {
    throw ConfigError("<command line>", "--objective",
                      "objective \"energy\" needs an `energy` section in the experiment (docs/energy.md)");
  }
  if (o.deadline && !run_tokens(base)) {
    throw ConfigError("<command line>", "--deadline",
                      "a deadline needs the run length: set /run/tokens or /run/steps in the experiment");
  }
  if (o.threads < 1) throw ConfigError("<command line>", "--threads", "must be >= 1");
  if (o.memory_limit != 1.0 && base.cluster.node.weight_streaming) {
    throw ConfigError(
        "<command line>", "--memory-limit",
        "does not apply on a weight-streaming node: its SRAM and MemoryX are checked as the step model "
        "gives them");
  }
  if (!(o.memory_limit >= 0.1 && o.memory_limit <= 2.0)) {
    throw ConfigError(
        "<command line>", "--memory-limit",
        fmt::format("{:g} % is outside 10 % … 200 % of the device's memory", 100 * o.memory_limit));
  }
}

// The planner's search bound, in step-graph operations of the strategies it would simulate (measured
// ~30-50 ns of CPU each in the planner: llama3-405b-h100-16k's default search, 1.1e8 operations, 5.8 s).
constexpr double kMaxPlanOperations = 2e9;
// A full prediction (cost or energy objective: energy timeline, prices) costs about 10x the engine alone
// per operation (llama2-70b-h100-512-energy: > 26 s of CPU for the energy objective vs 3.4 s for time).
constexpr double kPredictionWeight = 10;

// The search's work bound (docs/limits.md): the weighted step-graph operations of every strategy that
// passes the memory estimate (what the evaluator simulates), plus, when each prediction runs the run-level
// Monte Carlo (cost or energy objective with a `run` section), its trials counted as one operation each
// (a lower bound). Refused up front, with the estimate and the --max-cost that admits it.
double check_search_cost(const Scenario& base, const PlanOptions& o, const std::vector<Strategy>& space) {
  const bool predict_all = o.objective != Objective::time && base.energy.has_value();
  const bool monte_carlo = predict_all && base.run.has_value();
  const double per_prediction =
      monte_carlo ? static_cast<double>(base.run->trials) + 12.0 * base.run->what_if_trials : 0.0;
  const double weight = predict_all ? kPredictionWeight : 1.0;
  double cost = 0;
  std::size_t simulated = 0;
  Scenario s = base;  // apply() sets every field a strategy chooses: one scratch copy serves them all
  for (const Strategy& st : space) {
    apply(st, s);
    // As the evaluator: a weight-streaming node's strategies all go to the step model.
    if (!s.cluster.node.weight_streaming &&
        estimated_peak_memory(s) > s.cluster.node.device.memory_capacity * o.memory_limit) {
      continue;
    }
    cost += weight * estimate_work(s, false).graph_operations + per_prediction;
    ++simulated;
  }
  const double bound = kMaxPlanOperations * o.max_cost;
  if (cost > bound) {
    const double f = cost / kMaxPlanOperations;
    const double magnitude = std::pow(10.0, std::floor(std::log10(f)) - 1.0);
    throw ConfigError(
        "<command line>", "--max-cost",
        fmt::format("the search would simulate {} of its {} strategies, {:.3g} operations in all (about {:.3g} "
                    "s of CPU), over the bound of {:.3g}: raise it with --max-cost {:g}, or narrow the search "
                    "(--devices, --max-cp)",
                    simulated, space.size(), cost, cost * 50e-9, bound, std::ceil(f / magnitude) * magnitude));
  }
  return cost;
}

// ------------------------------------------------------------------------------------------ checkpoint
// One line per evaluated strategy: "INDEX OUTCOME" and, for a simulated one, its figures in hexadecimal
// floating point (exact round trip, so a resumed search ranks and prints the same bits).
std::string hex(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%a", v);
  return b;
}

std::string slot_line(std::size_t i, const Slot& slot) {
  std::string l = std::to_string(i) + " " + std::to_string(static_cast<int>(slot.outcome));
  if (slot.outcome == Outcome::feasible || slot.outcome == Outcome::over_memory) {
    const PlanCandidate& c = slot.candidate;
    l += " " + std::to_string(c.devices);
    for (double v : {c.step_time.value(), c.tokens_per_s, c.mfu, c.bubble_fraction, c.memory.value(),
                     c.headroom.value(), c.comm_exposed.value(), c.recompute.value(), c.device_hours, c.objective}) {
      l += " " + hex(v);
    }
    l += " " + (c.run_time ? hex(c.run_time->value()) : std::string("-"));
    l += " " + (c.cost_usd ? hex(*c.cost_usd) : std::string("-"));
    l += " " + (c.energy_j ? hex(*c.energy_j) : std::string("-"));
  } else if (slot.outcome == Outcome::invalid) {
    // Version 2: the refusal as a one-line JSON array [pointer, message] (non-ASCII escaped).
    l += " " + nlohmann::json::array({slot.refused_at, slot.refusal})
                   .dump(-1, ' ', true, nlohmann::json::error_handler_t::replace);
  }
  return l + "\n";
}

std::optional<double> parse_hex(const std::string& t) {
  if (t.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(t.c_str(), &end);
  if (end != t.c_str() + t.size()) return std::nullopt;
  return v;
}

// Parses one checkpoint line into slots[index]; false when it is not a complete line of this search.
bool read_slot_line(const std::string& line, const std::vector<Strategy>& space, std::vector<Slot>& slots,
                    std::vector<char>& done, bool version1) {
  // An invalid strategy's refusal (version 2) is the JSON array after "INDEX 2 ".
  std::string refusal_json;
  if (const auto sp = line.find(' '); sp != std::string::npos && line.compare(sp, 3, " 2 ") == 0) {
    refusal_json = line.substr(sp + 3);
  }
  std::istringstream in(refusal_json.empty() ? line : line.substr(0, line.size() - refusal_json.size()));
  std::vector<std::string> f;
  for (std::string t; in >> t;) f.push_back(t);
  if (f.size() < 2) return false;
  char* end = nullptr;
  const unsigned long long i = std::strtoull(f[0].c_str(), &end, 10);
  if (*end != '\0' || i >= space.size() || f[1].size() != 1 || f[1][0] < '0' || f[1][0] > '3') return false;
  Slot slot;
  slot.outcome = static_cast<Outcome>(f[1][0] - '0');
  if (slot.outcome == Outcome::feasible || slot.outcome == Outcome::over_memory) {
    if (f.size() != 16) return false;
    std::vector<double> v;
    for (std::size_t k = 3; k < 13; ++k) {
      const auto x = parse_hex(f[k]);
      if (!x) return false;
      v.push_back(*x);
    }
    PlanCandidate& c = slot.candidate;
    c.strategy = space[i];
    c.order = i;
    c.devices = std::atoi(f[2].c_str());
    c.step_time = Seconds(v[0]);
    c.tokens_per_s = v[1];
    c.mfu = v[2];
    c.bubble_fraction = v[3];
    c.memory = Bytes(v[4]);
    c.headroom = Bytes(v[5]);
    c.comm_exposed = Seconds(v[6]);
    c.recompute = Seconds(v[7]);
    c.device_hours = v[8];
    c.objective = v[9];
    const auto optional = [](const std::string& t, std::optional<double>& out) {
      if (t == "-") return true;
      out = parse_hex(t);
      return out.has_value();
    };
    std::optional<double> run_time;
    if (!optional(f[13], run_time) || !optional(f[14], c.cost_usd) || !optional(f[15], c.energy_j)) return false;
    if (run_time) c.run_time = Seconds(*run_time);
  } else if (f.size() != 2) {
    return false;
  } else if (slot.outcome == Outcome::invalid) {
    // A version-1 line has no refusal: not read, so the strategy is evaluated again (cheap: it is refused
    // before the engine) and its reason is the real one, in this search and in the rewritten file.
    if (version1) return false;
    const nlohmann::json j = nlohmann::json::parse(refusal_json, nullptr, /*allow_exceptions=*/false);
    if (!j.is_array() || j.size() != 2 || !j[0].is_string() || !j[1].is_string()) return false;
    slot.refused_at = j[0].get<std::string>();
    slot.refusal = j[1].get<std::string>();
  }
  slots[i] = std::move(slot);
  done[i] = 1;
  return true;
}

std::string checkpoint_header(const PlanOptions& o, std::size_t strategies, int version = 2) {
  return "# clustersim plan checkpoint " + std::to_string(version) + " strategies=" + std::to_string(strategies) +
         " fingerprint=" + std::to_string(o.fingerprint) + "\n";
}

// --resume: the complete lines of an earlier checkpoint of the same search; the file is rewritten with
// them (an incomplete last line, cut by the signal, is dropped) so that appending continues cleanly.
std::size_t resume_checkpoint(const PlanOptions& o, const std::vector<Strategy>& space, std::vector<Slot>& slots,
                              std::vector<char>& done) {
  std::ifstream in(o.checkpoint, std::ios::binary);
  if (!in) return 0;
  std::stringstream all;
  all << in.rdbuf();
  const std::string text = all.str();
  if (text.empty()) return 0;
  // Version 1 (before invalid strategies carried their refusal) is read too, except its invalid strategies,
  // which are evaluated again; the file is rewritten as 2.
  std::string header = checkpoint_header(o, space.size());
  const std::string header1 = checkpoint_header(o, space.size(), 1);
  const bool version1 = text.rfind(header1, 0) == 0;
  if (version1) header = header1;
  if (!version1 && text.rfind(header, 0) != 0) {
    const std::string prefix = "# clustersim plan checkpoint ";
    // A version this build writes or reads (1, 2) with another fingerprint is another search, below.
    if (text.rfind(prefix, 0) == 0 && text.compare(prefix.size(), 2, "1 ") != 0 &&
        text.compare(prefix.size(), 2, "2 ") != 0) {
      throw ConfigError("<command line>", "--resume",
                        fmt::format("{} is a plan checkpoint of a format this clustersim does not read (its first "
                                    "line: \"{}\"; this one writes version 2 and reads 1 and 2); remove it or drop "
                                    "--resume",
                                    o.checkpoint,
                                    printable(text.substr(0, std::min(text.find('\n'), std::size_t{80})))));
    }
    throw ConfigError("<command line>", "--resume",
                      fmt::format("{} is not a checkpoint of this search (its first line is not \"{}\": another "
                                  "experiment, --set or search option); remove it or drop --resume",
                                  o.checkpoint, header.substr(0, header.size() - 1)));
  }
  std::size_t n = 0;
  std::size_t pos = header.size();
  while (pos < text.size()) {
    const auto eol = text.find('\n', pos);
    if (eol == std::string::npos) break;  // cut by the signal
    const std::string line = text.substr(pos, eol - pos);
    pos = eol + 1;
    if (read_slot_line(line, space, slots, done, version1)) ++n;
  }
  return n;
}

// What differs between a strategy's line evaluated here and in the file: the outcome, the refusal, or the
// first figure (in decimal).
std::string difference(const Slot& here, const Slot& file) {
  const auto outcome = [](const Slot& s) -> std::string {
    switch (s.outcome) {
      case Outcome::feasible:
        return "feasible";
      case Outcome::over_memory:
        return "over memory";
      case Outcome::invalid:
        return "invalid";
      case Outcome::pruned:
        break;
    }
    return "pruned by the memory estimate";
  };
  if (here.outcome != file.outcome) {
    return fmt::format("it is {} here and {} in the file", outcome(here), outcome(file));
  }
  if (here.outcome == Outcome::invalid) {
    return fmt::format("its refusal is \"{}: {}\" here and \"{}: {}\" in the file",
                       printable(here.refused_at), printable(here.refusal.substr(0, 160)),
                       printable(file.refused_at), printable(file.refusal.substr(0, 160)));
  }
  const PlanCandidate& a = here.candidate;
  const PlanCandidate& b = file.candidate;
  const std::pair<const char*, std::pair<std::optional<double>, std::optional<double>>> figures[] = {
      {"devices", {a.devices, b.devices}},
      {"step time (s)", {a.step_time.value(), b.step_time.value()}},
      {"tokens/s", {a.tokens_per_s, b.tokens_per_s}},
      {"MFU", {a.mfu, b.mfu}},
      {"bubble fraction", {a.bubble_fraction, b.bubble_fraction}},
      {"memory (bytes)", {a.memory.value(), b.memory.value()}},
      {"headroom (bytes)", {a.headroom.value(), b.headroom.value()}},
      {"exposed communication (s)", {a.comm_exposed.value(), b.comm_exposed.value()}},
      {"recomputation (s)", {a.recompute.value(), b.recompute.value()}},
      {"device-hours", {a.device_hours, b.device_hours}},
      {"objective", {a.objective, b.objective}},
      {"run time (s)",
       {a.run_time ? std::optional<double>(a.run_time->value()) : std::nullopt,
        b.run_time ? std::optional<double>(b.run_time->value()) : std::nullopt}},
      {"cost (USD)", {a.cost_usd, b.cost_usd}},
      {"energy (J)", {a.energy_j, b.energy_j}},
  };
  const auto text = [](const std::optional<double>& v) {
    return v ? fmt::format("{}", *v) : std::string("none");
  };
  for (const auto& [name, v] : figures) {
    if (v.first.has_value() != v.second.has_value() ||
        (v.first && std::memcmp(&*v.first, &*v.second, sizeof(double)) != 0)) {
      return fmt::format("its {} is {} here and {} in the file", name, text(v.first), text(v.second));
    }
  }
  return "its line differs";
}

// The fingerprint names the search, not the model that evaluated it: a checkpoint written by a clustersim
// whose model gives other figures would resume them. So some restored strategies are evaluated again (the
// first and the last restored of each outcome, at most eight) and their lines must be the file's, bit for bit
// (an evaluation is deterministic); otherwise the file is refused.
void check_resumed(const PlanOptions& o, const std::vector<Strategy>& space, const std::vector<Slot>& slots,
                   const std::vector<char>& done, const Evaluator& evaluator) {
  std::vector<std::size_t> picks;
  for (int k = 0; k < 4; ++k) {
    const auto is = [&](std::size_t i) { return done[i] != 0 && static_cast<int>(slots[i].outcome) == k; };
    std::size_t i = 0;
    while (i < space.size() && !is(i)) ++i;
    if (i == space.size()) continue;
    picks.push_back(i);
    std::size_t j = space.size() - 1;
    while (!is(j)) --j;
    if (j != i) picks.push_back(j);
  }
  std::sort(picks.begin(), picks.end());
  for (const std::size_t i : picks) {
    const Slot fresh = evaluator.evaluate(space[i], i);
    if (slot_line(i, fresh) == slot_line(i, slots[i])) continue;
    throw ConfigError(
        "<command line>", "--resume",
        fmt::format("{} was written by a clustersim whose model gives other figures: strategy {} "
                    "({}) was evaluated again and {}; remove it or drop --resume",
                    o.checkpoint, i, describe(space[i]), difference(fresh, slots[i])));
  }
}

class CheckpointWriter {
 public:
  CheckpointWriter(const PlanOptions& o, const std::vector<Slot>& slots, const std::vector<char>& done)
      : file_(o.checkpoint, true) {
    std::string text = checkpoint_header(o, slots.size());
    for (std::size_t i = 0; i < slots.size(); ++i) {
      if (done[i] != 0) text += slot_line(i, slots[i]);
    }
    file_.append(text);
    last_ = std::chrono::steady_clock::now();
  }
  void add(std::size_t i, const Slot& slot) {
    std::lock_guard lock(mu_);
    buffer_ += slot_line(i, slot);
    const auto now = std::chrono::steady_clock::now();
    if (buffer_.size() > 65536 || now - last_ > std::chrono::milliseconds(200)) flush_locked(now);
  }
  void finish() {
    std::lock_guard lock(mu_);
    flush_locked(std::chrono::steady_clock::now());
    file_.close();
  }

 private:
  void flush_locked(std::chrono::steady_clock::time_point now) {
    if (!buffer_.empty()) file_.append(buffer_);
    buffer_.clear();
    last_ = now;
  }
  OutputFile file_;
  std::mutex mu_;
  std::string buffer_;
  std::chrono::steady_clock::time_point last_;
};

// Groups a refusal by the pointer it names; the first strategy (in search order) refused there is the
// example. Slots are walked in search order, so the grouping does not depend on the threads.
void add_refusal(std::vector<InvalidReason>& reasons, const Slot& s, const Strategy& st) {
  auto it = std::find_if(reasons.begin(), reasons.end(),
                         [&](const InvalidReason& r) { return r.pointer == s.refused_at; });
  if (it == reasons.end()) {
    reasons.push_back({.pointer = s.refused_at, .count = 0, .example = s.refusal, .example_strategy = st});
    it = reasons.end() - 1;
  }
  ++it->count;
}

}  // namespace

Objective parse_objective(std::string_view text) {
  if (text == "time") return Objective::time;
  if (text == "cost") return Objective::cost;
  if (text == "energy") return Objective::energy;
  throw ConfigError("<command line>", "--objective", fmt::format("\"{}\" is not time, cost or energy", text));
}

const char* to_string(Objective o) {
  switch (o) {
    case Objective::time:
      return "time";
    case Objective::cost:
      return "cost";
    case Objective::energy:
      return "energy";
  }
  return "time";
}

PlanResult plan_strategies(const Scenario& base, const PlanOptions& options) {
  check_options(base, options);
  const auto start = std::chrono::steady_clock::now();
  const std::vector<Strategy> space = enumerate_strategies(base, options.bounds);
  if (space.empty()) {
    throw ConfigError("<command line>", "",
                      "no strategy satisfies the divisibility rules for this model, batch "
                      "and device count");
  }
  const double estimated = check_search_cost(base, options, space);
  const Evaluator evaluator(base, options);
  std::vector<Slot> slots(space.size());
  std::vector<char> done(space.size(), 0);
  const std::size_t resumed = options.resume ? resume_checkpoint(options, space, slots, done) : 0;
  if (resumed > 0) {
    check_resumed(options, space, slots, done, evaluator);
  }
  std::optional<CheckpointWriter> checkpoint;
  if (!options.checkpoint.empty()) checkpoint.emplace(options, slots, done);
  std::atomic<std::size_t> next{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  std::atomic<std::size_t> finished{resumed};
  const auto work = [&](bool reports) {
    try {
      for (std::size_t i; (i = next.fetch_add(1)) < space.size();) {
        if (done[i] != 0) continue;
        slots[i] = evaluator.evaluate(space[i], i);
        if (checkpoint) checkpoint->add(i, slots[i]);
        const std::size_t f = finished.fetch_add(1) + 1;
        if (reports && options.on_progress) options.on_progress(std::min(f, space.size() - 1), space.size());
      }
    } catch (...) {
      std::lock_guard lock(error_mutex);
      if (!error) error = std::current_exception();
      next = space.size();
    }
  };
  {
    std::vector<std::jthread> threads;
    for (int t = 1; t < options.threads; ++t) threads.emplace_back(work, false);
    work(true);
  }
  if (error) std::rethrow_exception(error);
  if (checkpoint) checkpoint->finish();
  if (options.on_progress) options.on_progress(space.size(), space.size());

  PlanResult r;
  // strategy.cpp's apply() clears the split: a stated one must not vanish without a word.
  if (!base.parallelism.pipeline_split.empty()) {
    r.notes.push_back(fmt::format("the experiment's pipeline_split \"{}\" splits every strategy's pp·vp stages; "
                                  "depths it cannot split are not searched",
                                  base.parallelism.pipeline_split));
  } else if (!base.parallelism.pipeline_layers.empty()) {
    r.notes.push_back(fmt::format(
        "the experiment's pipeline split ({}) is not searched: every strategy splits the layers evenly over "
        "its pp·vp stages",
        base.parallelism.pipeline_layout.empty()
            ? std::string("pipeline_layers")
            : "pipeline_layout \"" +
                  (base.parallelism.pipeline_layout.size() > 60 ? base.parallelism.pipeline_layout.substr(0, 57) + "..."
                                                                 : base.parallelism.pipeline_layout) +
                  "\""));
  }
  // The searched schedules replace the experiment's: a stated one outside them (dualpipe, v-half, gpipe)
  // is said, as the split above is.
  const auto& kinds = options.bounds.schedules;
  if (std::find(kinds.begin(), kinds.end(), base.parallelism.schedule) == kinds.end()) {
    std::string searched;
    for (ScheduleKind k : kinds) searched += (searched.empty() ? "" : ", ") + std::string(to_string(k));
    r.notes.push_back(fmt::format("the experiment's schedule {} is not searched: every strategy uses one of {}",
                                  to_string(base.parallelism.schedule), searched));
    // What came with that schedule goes with it (strategy.cpp apply()).
    if (base.parallelism.moe_overlap_defaulted && base.parallelism.moe_overlap == MoeOverlap::compute) {
      r.notes.push_back(fmt::format(
          "the MoE all-to-all overlap that comes with the {} schedule is not part of the searched ones{}",
          to_string(base.parallelism.schedule),
          base.parallelism.ep_comm_sms_reserved ? ", nor the SM partition for the all-to-all that needs it" : ""));
    }
  }
  r.objective = options.objective;
  r.objective_unit = objective_unit(base, options.objective);
  if (options.objective == Objective::cost && base.energy) {
    r.objective_unit = run_tokens(base) ? "USD" : "USD/step";
  }
  r.enumerated = space.size();
  r.estimated_operations = estimated;
  r.resumed = resumed;
  r.memory_limit = options.memory_limit;
  for (std::size_t i = 0; i < slots.size(); ++i) {
    Slot& s = slots[i];
    switch (s.outcome) {
      case Outcome::pruned:
        ++r.pruned_memory;
        continue;
      case Outcome::invalid:
        ++r.invalid;
        ++r.simulated;
        add_refusal(r.invalid_reasons, s, space[i]);
        continue;
      case Outcome::over_memory:
        ++r.over_memory;
        ++r.simulated;
        continue;
      case Outcome::feasible:
        ++r.simulated;
        break;
    }
    if (options.deadline && s.candidate.run_time && *s.candidate.run_time > *options.deadline) {
      ++r.past_deadline;
      continue;
    }
    r.ranked.push_back(std::move(s.candidate));
  }
  std::stable_sort(r.invalid_reasons.begin(), r.invalid_reasons.end(),
                   [](const InvalidReason& a, const InvalidReason& b) { return a.count > b.count; });
  std::sort(r.ranked.begin(), r.ranked.end(), [](const PlanCandidate& a, const PlanCandidate& b) {
    if (a.objective != b.objective) return a.objective < b.objective;
    if (a.step_time != b.step_time) return a.step_time < b.step_time;
    if (a.headroom != b.headroom) return a.headroom > b.headroom;
    return a.order < b.order;
  });
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

std::vector<PlanCandidate> pareto_front(const PlanResult& r) {
  std::vector<const PlanCandidate*> by_time;
  for (const PlanCandidate& c : r.ranked) by_time.push_back(&c);
  const auto time_of = [](const PlanCandidate* c) {
    return (c->run_time ? *c->run_time : c->step_time).value();
  };
  const auto other_of = [&r](const PlanCandidate* c) {
    if (r.objective == Objective::energy) return c->energy_j.value_or(INFINITY);
    return c->cost_usd ? *c->cost_usd : c->device_hours;
  };
  std::stable_sort(by_time.begin(), by_time.end(), [&](const PlanCandidate* a, const PlanCandidate* b) {
    if (time_of(a) != time_of(b)) return time_of(a) < time_of(b);
    return other_of(a) < other_of(b);
  });
  std::vector<PlanCandidate> front;
  double best_other = INFINITY;
  for (const PlanCandidate* c : by_time) {
    if (other_of(c) < best_other) {
      front.push_back(*c);
      best_other = other_of(c);
    }
  }
  return front;
}

void mark_trusted(PlanResult& r, const Scenario& base, const TrustRegion& region, bool trusted_first) {
  for (PlanCandidate& c : r.ranked) c.trust = classify(region, base, c.strategy, c.devices);
  r.trust_error = region.max_error;
  r.trusted_first = trusted_first;
  if (trusted_first) {
    std::stable_partition(r.ranked.begin(), r.ranked.end(),
                          [](const PlanCandidate& c) { return c.trust && c.trust->trusted; });
  }
}

}  // namespace clustersim::plan
