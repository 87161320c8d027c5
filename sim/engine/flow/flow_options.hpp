// Knobs of the flow engine (sim/engine/flow): fidelity, symmetry reduction, fabric shape, stragglers.
//
// Every field has a default that reproduces the analytic engine on a contention-free fabric. Units are SI.
#pragma once

#include <string>
#include <vector>

namespace clustersim::flow {

/// How a collective is expanded into flows.
///  - phase: one flow per rank per algorithm phase (intra reduce-scatter, inter ring, intra all-gather);
///    the phase's remaining (steps−1)·α of ring latency is added as a timed wait. Default.
///  - exact: every ring step is its own set of flows (k−1 steps per ring phase); slow, for small runs.
enum class Fidelity { phase, exact };

/// A device computing at `speed` × its nominal rate (0 < speed ≤ 1; 0.8 = "a device at 80 % speed").
struct DeviceStraggler {
  int device = 0;  // global device index (node-major: node · devices_per_node + local)
  double speed = 1.0;
};

/// A link running at `factor` × its nominal bandwidth (0 < factor; 0.5 = "a link at half bandwidth").
/// `link` is a link name as reported in the contention figures, without direction, e.g. "n3.nic2",
/// "n0.nvl5" or "leaf1.up".
struct LinkStraggler {
  std::string link;
  double factor = 1.0;
  /// Where the experiment gave it, as sim/config recorded it (passed through untouched), for the
  /// "no such link" error: names exist only once the fabric is built, so this check cannot run earlier.
  std::string file, pointer;
};

struct FlowOptions {
  Fidelity fidelity = Fidelity::phase;
  /// Simulate compute for one representative DP replica and TP rank per stage (flows that cross shared
  /// links are kept for every rank). false = every replica and TP rank simulated (slow; for checks).
  bool symmetry_reduction = true;
  /// With the symmetry reduction in topology mode: simulate each send's flows as classes of equal flows
  /// (equal bytes and solo share: the least link bandwidth / the send's flows on it along the route) on
  /// the flow engine's own max-min solver (fluid_net.hpp), each class once with its multiplicity charged
  /// to the links it crosses, instead of one SimGrid flow per flow.
  /// false = one SimGrid flow per flow (the reference the classes are checked against).
  bool flow_classes = true;
  /// Nodes under one leaf switch group of the two-level fat-tree (a DGX SuperPOD scalable unit is 32
  /// nodes: NVIDIA DGX SuperPOD reference architecture, H100 edition, "Scalable Unit").
  int leaf_nodes = 32;
  /// Busiest links listed per link class in the contention figures.
  int busiest_links = 3;
  std::vector<DeviceStraggler> slow_devices;
  std::vector<LinkStraggler> slow_links;
};

[[nodiscard]] std::string fidelity_name(Fidelity f);

}  // namespace clustersim::flow
