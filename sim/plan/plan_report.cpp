#include "sim/plan/plan_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "sim/core/diagnostics.hpp"

namespace clustersim::plan {
namespace {

constexpr double kGiB = 1073741824.0;

struct Component {
  const char* name;
  double seconds;
};

// Step time split into the parts a strategy trades against each other.
std::array<Component, 4> components(const PlanCandidate& c) {
  const double bubble = c.bubble_fraction * c.step_time.value();
  const double comm = c.comm_exposed.value();
  const double recompute = c.recompute.value();
  const double rest = c.step_time.value() - bubble - comm - recompute;
  return {{{"pipeline bubble", bubble},
           {"exposed communication", comm},
           {"recomputation", recompute},
           {"compute and optimizer", rest}}};
}

std::string headroom_text(const PlanCandidate& c) {
  if (c.headroom.value() < 0) {
    return fmt::format("{:.1f} GiB over the device's memory in the memory model, within --memory-limit",
                       -c.headroom.value() / kGiB);
  }
  return fmt::format("fits with {:.1f} GiB headroom", c.headroom.value() / kGiB);
}

std::size_t over_capacity(const PlanResult& r) {
  return static_cast<std::size_t>(std::count_if(
      r.ranked.begin(), r.ranked.end(), [](const PlanCandidate& c) { return c.headroom.value() < 0; }));
}

double relative(double a, double b) {
  return b != 0 ? 100.0 * (a - b) / b : 0.0;
}

nlohmann::json candidate_json(const PlanResult& r, const PlanCandidate& c, std::size_t rank) {
  const Strategy& st = c.strategy;
  nlohmann::json j;
  j["rank"] = rank;
  j["strategy"] = {{"nodes", st.nodes},
                   {"devices", c.devices},
                   {"tp", st.tp},
                   {"pp", st.pp},
                   {"dp", st.dp},
                   {"cp", st.cp},
                   {"vp", st.vp},
                   {"ep", st.ep},
                   {"etp", st.etp},
                   {"micro_batch", st.micro_batch},
                   {"schedule", std::string(to_string(st.schedule))},
                   {"recompute", recompute_name(st.recompute)},
                   {"zero_stage", st.zero_stage},
                   {"sequence_parallel", st.sequence_parallel}};
  j["step_time_s"] = c.step_time.value();
  j["tokens_per_s"] = c.tokens_per_s;
  j["mfu"] = c.mfu;
  j["bubble_fraction"] = c.bubble_fraction;
  j["memory_total_bytes"] = c.memory.value();
  j["memory_headroom_bytes"] = c.headroom.value();
  j["comm_exposed_s"] = c.comm_exposed.value();
  j["recompute_s"] = c.recompute.value();
  if (c.run_time) j["run_time_s"] = c.run_time->value();
  j["device_hours"] = c.device_hours;
  if (c.cost_usd) j["cost_usd"] = *c.cost_usd;
  if (c.energy_j) j["energy_j"] = *c.energy_j;
  j["objective"] = c.objective;
  if (c.trust) j["trusted"] = {{"inside", c.trust->trusted}, {"note", c.trust->note}};
  (void)r;
  return j;
}

std::string duration_text(double s) {
  if (s >= 86400) return fmt::format("{:.1f} d", s / 86400);
  if (s >= 3600) return fmt::format("{:.1f} h", s / 3600);
  return fmt::format("{:.3f} s", s);
}

// Why strategies were invalid: one line per pointer the config checks refused them at (most first), with
// the first such strategy and its message; at most kShown lines.
std::string invalid_text(const PlanResult& r) {
  if (r.invalid_reasons.empty()) return "";
  constexpr std::size_t kShown = 8;
  std::string out = "invalid strategies, by where the checks refused them first:\n";
  for (std::size_t i = 0; i < std::min(kShown, r.invalid_reasons.size()); ++i) {
    const InvalidReason& why = r.invalid_reasons[i];
    const std::string where = why.pointer.empty() ? std::string("the step model") : printable(why.pointer);
    out += fmt::format("  {:>7} at {}: e.g. {}: {}\n", why.count, where, describe(why.example_strategy, true),
                       printable(why.example));
  }
  if (r.invalid_reasons.size() > kShown) {
    std::size_t rest = 0;
    for (std::size_t i = kShown; i < r.invalid_reasons.size(); ++i) rest += r.invalid_reasons[i].count;
    const std::size_t places = r.invalid_reasons.size() - kShown;
    out += fmt::format("  {:>7} at {} other place{} (plan --format json lists them all)\n", rest, places,
                       places == 1 ? "" : "s");
  }
  return out + "\n";
}

}  // namespace

std::string why_it_ranks(const PlanResult& r, std::size_t i) {
  const PlanCandidate& c = r.ranked.at(i);
  if (r.ranked.size() == 1) return "the only feasible strategy; " + headroom_text(c);
  const PlanCandidate& ref = i == 0 ? r.ranked[1] : r.ranked[0];
  const auto mine = components(c);
  const auto theirs = components(ref);
  // The component with the largest difference in this candidate's favour (winner) or against it.
  std::size_t best = 0;
  for (std::size_t k = 1; k < mine.size(); ++k) {
    const double d = i == 0 ? theirs[k].seconds - mine[k].seconds : mine[k].seconds - theirs[k].seconds;
    const double d_best =
        i == 0 ? theirs[best].seconds - mine[best].seconds : mine[best].seconds - theirs[best].seconds;
    if (d > d_best) best = k;
  }
  const double obj_delta = relative(c.objective, ref.objective);
  const bool ref_trusted = ref.trust && ref.trust->trusted;
  if (r.trusted_first && c.trust && c.trust->trusted != ref_trusted && (i == 0) == (obj_delta > 0)) {
    // Ranked by trust, not by the objective: say so instead of explaining a component.
    return fmt::format("{:.1f}% {} {} than #{}, ranked {} because it {} the validated region; {}",
                       std::fabs(obj_delta), obj_delta > 0 ? "worse" : "better", to_string(r.objective),
                       i == 0 ? 2 : 1, i == 0 ? "first" : "below it",
                       c.trust->trusted ? "lies inside" : "lies outside", headroom_text(c));
  }
  if (std::fabs(obj_delta) < 0.05) {
    // A tie (e.g. selective recomputation with flash attention recomputes nothing): no component explains it.
    return fmt::format("ties with #{} on {} (within 0.05%; the order among ties is the search order); {}",
                       i == 0 ? 2 : 1, to_string(r.objective), headroom_text(c));
  }
  if (i == 0) {
    return fmt::format("{:.1f}% better {} than #2; less {} ({} vs {}); {}", -obj_delta,
                       to_string(r.objective), mine[best].name, duration_text(mine[best].seconds),
                       duration_text(theirs[best].seconds), headroom_text(c));
  }
  std::string upside;
  if (c.headroom > ref.headroom) {
    // Over the device's memory (--memory-limit above 100 %) there is no headroom to have more of.
    const bool over = c.headroom.value() < 0 || ref.headroom.value() < 0;
    upside = fmt::format("; {:.1f} GiB {} than #1", (c.headroom - ref.headroom).value() / kGiB,
                         over ? "less memory" : "more headroom");
  } else if (c.devices < ref.devices) {
    upside = fmt::format("; {} fewer devices than #1", ref.devices - c.devices);
  } else if (c.mfu > ref.mfu) {
    upside = fmt::format("; higher MFU than #1 ({:.1f}% vs {:.1f}%)", 100 * c.mfu, 100 * ref.mfu);
  }
  return fmt::format("{:.1f}% worse {} than #1, mostly more {} ({} vs {}){}; {}", obj_delta,
                     to_string(r.objective), mine[best].name, duration_text(mine[best].seconds),
                     duration_text(theirs[best].seconds), upside, headroom_text(c));
}

nlohmann::json plan_json(const PlanResult& r, std::size_t top_k, bool pareto) {
  nlohmann::json j;
  j["objective"] = to_string(r.objective);
  j["objective_unit"] = r.objective_unit;
  j["strategies_enumerated"] = r.enumerated;
  j["pruned_by_memory"] = r.pruned_memory;
  j["simulated"] = r.simulated;
  j["over_memory_after_simulation"] = r.over_memory;
  j["invalid"] = r.invalid;
  nlohmann::json reasons = nlohmann::json::array();
  for (const InvalidReason& why : r.invalid_reasons) {
    reasons.push_back({{"pointer", why.pointer},
                       {"count", why.count},
                       {"example", {{"strategy", describe(why.example_strategy, true)}, {"message", why.example}}}});
  }
  j["invalid_reasons"] = std::move(reasons);
  j["past_deadline"] = r.past_deadline;
  j["feasible"] = r.ranked.size();
  // Only when --memory-limit is given (other plans' JSON is unchanged).
  if (r.memory_limit != 1.0) {
    j["memory_limit"] = {{"share_of_device_memory", r.memory_limit},
                         {"feasible_over_device_memory", over_capacity(r)}};
  }
  if (!r.notes.empty()) j["notes"] = r.notes;
  if (r.trust_error) {
    j["trust"] = {{"max_error", *r.trust_error},
                  {"trusted_first", r.trusted_first},
                  {"trusted", std::count_if(r.ranked.begin(), r.ranked.end(), [](const PlanCandidate& c) {
                     return c.trust && c.trust->trusted;
                   })}};
  }
  nlohmann::json top = nlohmann::json::array();
  for (std::size_t i = 0; i < std::min(top_k, r.ranked.size()); ++i) {
    nlohmann::json c = candidate_json(r, r.ranked[i], i + 1);
    c["why"] = why_it_ranks(r, i);
    top.push_back(std::move(c));
  }
  j["top"] = std::move(top);
  if (pareto) {
    nlohmann::json front = nlohmann::json::array();
    for (const PlanCandidate& c : pareto_front(r)) front.push_back(candidate_json(r, c, 0));
    j["pareto"] = std::move(front);
  }
  return j;
}

std::string plan_text(const PlanResult& r, std::size_t top_k, bool pareto) {
  std::string out = fmt::format(
      "searched {} strategies: {} pruned by the memory estimate, {} simulated ({} over memory, {} invalid), "
      "{} past the deadline, {} feasible\nobjective: {} ({})\n\n",
      r.enumerated, r.pruned_memory, r.simulated, r.over_memory, r.invalid, r.past_deadline, r.ranked.size(),
      to_string(r.objective), r.objective_unit);
  out += invalid_text(r);
  if (r.memory_limit != 1.0) {
    out += fmt::format(
        "memory limit: {:g} % of the device's memory (--memory-limit){}\n\n", 100 * r.memory_limit,
        r.memory_limit > 1
            ? fmt::format("; {} feasible strategies are over the device's memory in the memory "
                          "model (negative headroom), which over-predicts some published runs "
                          "that ran (docs/validation.md): check them before relying on them",
                          over_capacity(r))
            : fmt::format("; a reserve of {:g} % kept free", 100 * (1 - r.memory_limit)));
  }
  for (const std::string& note : r.notes) out += "note: " + note + "\n";
  if (!r.notes.empty()) out += "\n";
  if (r.ranked.empty()) return out + "no strategy fits in memory\n";
  if (r.trust_error) {
    out += fmt::format(
        "trusted region: device, precision, parallelism kinds and device count covered by test-split records "
        "predicted within {:.0f}%; {}\n\n",
        100 * *r.trust_error,
        r.trusted_first ? "trusted strategies are ranked first (--explore ranks by the objective alone)"
                        : "ranked by the objective alone (--explore)");
  }
  out += fmt::format("{:>3}  {:<62} {:>10} {:>6} {:>7} {:>9} {:>10}\n", "#", "strategy", "step", "MFU",
                     "bubble", "headroom", "run/cost");
  for (std::size_t i = 0; i < std::min(top_k, r.ranked.size()); ++i) {
    const PlanCandidate& c = r.ranked[i];
    std::string extra = c.run_time ? duration_text(c.run_time->value()) : "-";
    if (r.objective == Objective::cost)
      extra = c.cost_usd ? fmt::format("${:.0f}", *c.cost_usd) : fmt::format("{:.0f} dev-h", c.device_hours);
    const bool multi_nodes = r.ranked.front().strategy.nodes != r.ranked.back().strategy.nodes;
    out += fmt::format("{:>3}  {:<62} {:>10} {:>5.1f}% {:>6.1f}% {:>5.1f} GiB {:>10}\n", i + 1,
                       describe(c.strategy, multi_nodes), fmt::format("{:.3f} s", c.step_time.value()),
                       100 * c.mfu, 100 * c.bubble_fraction, c.headroom.value() / kGiB, extra);
    out += fmt::format("     why: {}\n", why_it_ranks(r, i));
    if (c.trust)
      out += fmt::format("     {}: {}\n", c.trust->trusted ? "trusted" : "UNTRUSTED", c.trust->note);
  }
  if (pareto) {
    const bool energy = r.objective == Objective::energy;
    out += fmt::format("\nPareto front (time vs {}):\n", energy ? "energy" : "cost");
    for (const PlanCandidate& c : pareto_front(r)) {
      const double t = (c.run_time ? *c.run_time : c.step_time).value();
      const std::string other = energy ? fmt::format("{:.3g} J", c.energy_j.value_or(NAN))
                                       : (c.cost_usd ? fmt::format("${:.0f}", *c.cost_usd)
                                                     : fmt::format("{:.4g} device-hours", c.device_hours));
      out += fmt::format("  {:>10}  {:>18}  {} ({} devices)\n", duration_text(t), other, describe(c.strategy),
                         c.devices);
    }
  }
  return out;
}

}  // namespace clustersim::plan
