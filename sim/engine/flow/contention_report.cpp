#include "sim/engine/flow/contention_report.hpp"

#include <fmt/format.h>

namespace clustersim::flow {

namespace {

struct Delta {
  double step = 0, fraction = 0, tp = 0, pp = 0, dp = 0, cp = 0, ep = 0;
};

Delta delta(const StepResult& f, const StepResult& a) {
  Delta d;
  d.step = (f.step_time - a.step_time).value();
  d.fraction = d.step / a.step_time.value();
  d.tp = (f.comm_exposed.tp - a.comm_exposed.tp).value();
  d.pp = (f.comm_exposed.pp - a.comm_exposed.pp).value();
  d.dp = (f.comm_exposed.dp - a.comm_exposed.dp).value();
  d.cp = (f.comm_exposed.cp - a.comm_exposed.cp).value();
  d.ep = (f.comm_exposed.ep - a.comm_exposed.ep).value();
  return d;
}

const LinkUse* busiest_overall(const FlowRun& run) {
  const LinkUse* best = nullptr;
  for (const LinkUse& l : run.busiest) {
    if (best == nullptr || l.utilisation > best->utilisation) best = &l;
  }
  return best;
}

std::string explanation(const FlowRun& run, const StepResult& f, const StepResult& a) {
  const Delta d = delta(f, a);
  // The MoE all-to-alls' share, for jobs that have any.
  const bool moe = f.comm_exposed.ep.value() > 0.0 || a.comm_exposed.ep.value() > 0.0;
  const LinkUse* top = busiest_overall(run);
  const std::string link = top == nullptr
                               ? std::string("no inter-device flows")
                               : fmt::format("busiest link {} ({}) at {:.1f} % utilisation", top->link,
                                             link_class_name(top->cls), 100.0 * top->utilisation);
  if (std::abs(d.fraction) < 0.01) {
    return fmt::format(
        "flow and analytic step times agree within 1 % ({:+.2f} %): no significant contention; {}",
        100.0 * d.fraction, link);
  }
  // TP / CP: only where their collectives ran as flows (a torus) and so could differ.
  std::string op_level;
  if (d.tp != 0.0) op_level += fmt::format("TP {:+.4g} s, ", d.tp);
  if (d.cp != 0.0) op_level += fmt::format("CP {:+.4g} s, ", d.cp);
  return fmt::format(
      "flow step {:+.4g} s ({:+.2f} %) vs analytic, from exposed communication on the critical stage: "
      "{}DP {:+.4g} s, PP {:+.4g} s{} (pipeline waits also show as bubble); {}",
      d.step, 100.0 * d.fraction, op_level, d.dp, d.pp,
      moe ? fmt::format(", EP {:+.4g} s", d.ep) : std::string(), link);
}

}  // namespace

nlohmann::json contention_json(const FlowRun& run, const StepResult& analytic, std::size_t job) {
  const StepResult& f = run.steps.at(job);
  const Delta d = delta(f, analytic);
  // The two-level classes are always listed; a TopologyGraph's other classes when they carried bytes.
  nlohmann::json links = nlohmann::json::object();
  for (const char* c : {"nvlink", "nic", "leaf_uplink"}) links[c] = nlohmann::json::array();
  for (const LinkUse& l : run.busiest) {
    links[link_class_name(l.cls)].push_back(
        {{"link", l.link}, {"utilisation", l.utilisation}, {"bytes", l.bytes}});
  }
  return {
      {"fabric", run.fabric},
      {"fidelity", fidelity_name(run.options.fidelity)},
      {"symmetry_reduction", run.options.symmetry_reduction},
      {"flow_classes", run.options.flow_classes && run.options.symmetry_reduction &&
                           run.fabric.rfind("topology", 0) == 0},
      // Leaf groups belong to the two-level fabric; a TopologyGraph has its own leaves.
      {"leaf_nodes", run.fabric.rfind("topology", 0) == 0 ? nlohmann::json(nullptr)
                                                          : nlohmann::json(run.options.leaf_nodes)},
      {"flows", run.flows},
      {"simulated_time_s", run.simulated_time},
      {"analytic_step_time_s", analytic.step_time.value()},
      {"flow_step_time_s", f.step_time.value()},
      {"difference_s", d.step},
      {"difference_fraction", d.fraction},
      {"exposed_difference_s", {{"tp", d.tp}, {"pp", d.pp}, {"dp", d.dp}, {"cp", d.cp}, {"ep", d.ep}}},
      {"bubble_fraction_difference", f.bubble_fraction - analytic.bubble_fraction},
      {"busiest_links", std::move(links)},
      {"explanation", explanation(run, f, analytic)},
  };
}

std::string contention_text(const FlowRun& run, const StepResult& analytic, std::size_t job) {
  const StepResult& f = run.steps.at(job);
  std::string out = fmt::format("\nContention (flow engine on {}, fidelity {}, {} flows{})\n", run.fabric,
                                fidelity_name(run.options.fidelity), run.flows,
                                run.options.symmetry_reduction ? ", symmetry-reduced" : "");
  out += "  " + explanation(run, f, analytic) + "\n";
  for (const LinkUse& l : run.busiest) {
    out += fmt::format("  {:<16} {:<28} {:6.1f} %  {:.3g} GB\n", link_class_name(l.cls), l.link,
                       100.0 * l.utilisation, l.bytes / 1e9);
  }
  return out;
}

}  // namespace clustersim::flow
