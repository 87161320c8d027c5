#include "sim/energy/graph_timeline.hpp"

#include <fmt/format.h>

#include "sim/core/diagnostics.hpp"

namespace clustersim {
namespace {

// Splits [start, end] into consecutive intervals of the given states in proportion to `parts`.
void split_op(DeviceTimeline& out, const NodeTiming& t, const OpCost& c) {
  const Seconds memory_bound = c.compute - c.compute_bound;
  const Seconds comm = c.tp_comm + c.cp_comm + c.dp_comm;
  const Seconds parts[] = {c.compute_bound, memory_bound, comm};
  const DeviceState states[] = {DeviceState::compute, DeviceState::memory, DeviceState::communication};
  const Seconds total = c.compute_bound + memory_bound + comm;
  const Seconds length = t.end - t.start;
  if (total.value() <= 0.0) {
    out.intervals.push_back({t.start, t.end, DeviceState::compute});
    return;
  }
  Seconds cursor = t.start;
  for (int i = 0; i < 3; ++i) {
    const Seconds next = i == 2 ? t.end : cursor + length * (parts[i] / total);
    if (next > cursor) out.intervals.push_back({cursor, next, states[i]});
    cursor = next;
  }
}

}  // namespace

StepTimeline step_timeline_of(const StepGraph& g, const std::vector<NodeTiming>& timing, Seconds step_time,
                              int devices_per_stage) {
  CS_ASSERT(timing.size() == g.nodes.size(), "timeline does not match the graph");
  CS_ASSERT(step_time.value() > 0.0 && devices_per_stage > 0, "step time and stage size must be positive");
  StepTimeline out;
  out.step_time = step_time;
  for (std::size_t st = 0; st < g.order.size(); ++st) {
    DeviceTimeline dev;
    dev.name = fmt::format("pp-stage-{}", st);
    dev.multiplicity = devices_per_stage;
    Seconds prev_end(0);
    for (int id : g.order[st][static_cast<std::size_t>(Resource::compute)]) {
      const StepNode& node = g.nodes[static_cast<std::size_t>(id)];
      const NodeTiming& t = timing[static_cast<std::size_t>(id)];
      if (node.kind == NodeKind::optimizer) {
        dev.intervals.push_back({t.start, t.end, DeviceState::memory});
        continue;
      }
      const Seconds pp = min(max(Seconds(0), t.start - prev_end), node.dep_delay);
      if (pp.value() > 0.0) dev.intervals.push_back({t.start - pp, t.start, DeviceState::communication});
      if (node.cost >= 0) {
        split_op(dev, t, g.costs[static_cast<std::size_t>(node.cost)]);
      } else {
        dev.intervals.push_back({t.start, t.end, DeviceState::compute});
      }
      prev_end = t.end;
    }
    for (int id : g.order[st][static_cast<std::size_t>(Resource::dp_channel)]) {
      const NodeTiming& t = timing[static_cast<std::size_t>(id)];
      dev.intervals.push_back({t.start, t.end, DeviceState::communication});
    }
    out.devices.push_back(std::move(dev));
  }
  return out;
}

}  // namespace clustersim
