#include "sim/engine/flow/collective_probe.hpp"

#include <cstring>
#include <unordered_map>

#include <simgrid/s4u.hpp>

#include "sim/core/diagnostics.hpp"
#include "sim/engine/flow/child_process.hpp"
#include "sim/engine/flow/collective_phases.hpp"
#include "sim/engine/flow/fabric_layout.hpp"
#include "sim/engine/flow/simgrid_engine.hpp"
#include "sim/engine/flow/simgrid_platform.hpp"

namespace clustersim::flow {

namespace sg4 = simgrid::s4u;

Seconds simulate_collective(const ClusterSpec& cluster, const ParallelismSpec& par, CollectiveOp op,
                            Bytes bytes, const FlowOptions& options) {
  const std::string out = run_in_child([&](const ChildWriter& w) {
    SimgridEngine engine;
    const FabricLayout layout = FabricLayout::of(cluster, options.leaf_nodes, par.tp);
    const RankLayout ranks(par);
    const std::vector<FlowPhase> phases =
        layout.topology() != nullptr
            ? topology_phases(op, bytes, ranks, 0, layout, options.fidelity)
            : collective_phases(op, bytes, ranks, 0, two_level_ring(cluster, par), options.fidelity);
    std::vector<std::pair<int, int>> pairs;
    for (const FlowPhase& ph : phases) {
      for (const FlowSpec& f : ph.flows) pairs.emplace_back(f.src, f.dst);
    }
    const SimgridPlatform platform(layout, {}, pairs);
    // Phases run one after the other; each ends when its last flow completes, plus its extra latency.
    std::size_t next = 0;
    int left = 0;
    double extra_total = 0;
    std::vector<sg4::ActivityPtr> keep;
    auto launch = [&]() {
      while (next < phases.size() && left == 0) {
        for (const FlowSpec& f : phases[next].flows) {
          const FabricRoute r = layout.route(f.src, f.dst);
          const auto [from, to] = platform.endpoints(f.src, f.dst, r.intra_node);
          sg4::CommPtr c = sg4::Comm::sendto_init(from, to);
          c->set_payload_size(static_cast<std::uint64_t>(f.bytes.value()));
          c->start();
          keep.push_back(c);
          ++left;
        }
        extra_total += phases[next].extra_latency.value();
        ++next;
      }
    };
    sg4::Activity::on_completion_cb([&](const sg4::Activity&) {
      if (--left == 0) launch();
    });
    launch();
    sg4::Engine::get_instance()->run();
    const double t = sg4::Engine::get_clock() + extra_total;
    w(&t, sizeof t);
  });
  CS_ASSERT(out.size() == sizeof(double), "collective probe returns one time");
  double t;
  std::memcpy(&t, out.data(), sizeof t);
  return Seconds(t);
}

}  // namespace clustersim::flow
