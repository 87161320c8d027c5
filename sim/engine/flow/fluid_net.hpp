// The flow engine's own discrete-event, fluid max-min simulator on flow classes (used instead of SimGrid
// in topology mode when FlowOptions::flow_classes is on; docs/flow_engine.md "Flow classes").
//
// A send of many flows (one pipeline transfer of every replica, one gradient-collective phase of every
// rank, one MoE exchange) becomes a FlowGroup: its flows are split into classes of flows with equal bytes
// and equal *solo share* (the smallest bandwidth / number of the group's flows on a link of the route: the
// max-min rate the flow would get if the group ran alone).
// A class of m flows is simulated as one variable: every flow of it moves at the same rate r, and on each
// link it charges (number of the class's flows routed over that link) · r — its multiplicity on shared links.
// Rates are max-min fair per flow (progressive filling), as SimGrid's CM02 model without cross-traffic
// shares links among individual flows.
//
// Links whose constraint rows (capacity and (class, flows) entries) are identical are one constraint (a
// bucket): identical rows are redundant in max-min, so the solver's cost follows the number of *distinct*
// rows — all NICs of a symmetric job carry the same classes and collapse to one row — not the number of
// links. A class joining or leaving moves each of its links from one bucket to another; links that were in
// the same bucket move together, so that costs O(1) per link and O(row) per distinct transition.
//
// Exact when every flow of a class gets the same max-min rate as an individual flow, which holds when the
// group's flows are symmetric (each sees the same bottleneck): symmetric placements on symmetric routes.
// With hashed ECMP the flows of one class may meet different foreign traffic on their routes; the class then
// moves at its slowest member's share (an approximation, documented; the unreduced SimGrid run is the check).
#pragma once

#include <cstdint>
#include <functional>
#include <queue>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim/engine/flow/collective_phases.hpp"
#include "sim/engine/flow/fabric_layout.hpp"

namespace clustersim::flow {

/// The classes of one send, built once per distinct flow list and reused for every send of it.
struct FlowGroup {
  struct Class {
    double bytes = 0;                                // per flow, B
    int flows = 0;                                   // multiplicity
    std::vector<std::pair<int, int>> rows;           // (constraint, flows of the class on it)
    std::vector<int> members;                        // indices into `flows` of the group
  };
  std::vector<Class> classes;
  std::vector<FlowSpec> flows;                       // the real flows (src != dst, >= 1 B)
  std::vector<std::pair<DirectedLink, double>> link_bytes;  // bytes per directed link, B
};

/// Builds the classes of `flows` (scaled by `scale`) on `fabric`. Constraint ids: a directed link, or
/// both directions of a half-duplex link as one (2·link).
FlowGroup make_flow_group(const std::vector<FlowSpec>& flows, double scale, const FabricLayout& fabric);

class FluidNet {
 public:
  using Done = std::function<void()>;
  /// Constraint capacities (B/s) indexed like make_flow_group's constraint ids (2 per link).
  explicit FluidNet(const FabricLayout& fabric);

  [[nodiscard]] double now() const { return now_; }
  /// Calls `fn` at time now + delay.
  void after(double delay, Done fn);
  /// Starts the flows of `group`; `class_done(k)` is called when class k of it completed.
  void start(const FlowGroup& group, std::function<void(int)> class_done);
  /// Runs until no timer and no flow is left.
  void run();

 private:
  struct Slot {
    const FlowGroup::Class* cls = nullptr;
    double remaining = 0;  // B per flow
    double rate = 0;       // B/s per flow
    int k = 0;
    std::shared_ptr<std::function<void(int)>> done;
    bool active = false;
  };
  struct Bucket {
    double cap = 0;
    std::vector<std::pair<int, int>> row;  // (slot, flows)
    std::uint64_t hash = 0;
    int refs = 0;
  };
  struct Timer {
    double t;
    std::uint64_t seq;
    bool operator>(const Timer& o) const { return t != o.t ? t > o.t : seq > o.seq; }
  };

  // Moves every constraint of `rows` from its bucket to the bucket of its row with (slot, n) added
  // (add) or slot removed; constraints that start in the same bucket end in the same one, so each distinct
  // transition is computed once.
  void move_rows(const std::vector<std::pair<int, int>>& rows, int slot, bool add);
  int find_or_create(double cap, std::vector<std::pair<int, int>> row);
  void solve();

  double now_ = 0;
  std::vector<double> cap_;
  std::vector<int> bucket_of_;  // per constraint: the bucket holding its row (-1: no class on it)
  std::vector<Bucket> buckets_;
  std::vector<int> free_buckets_;
  std::unordered_map<std::uint64_t, std::vector<int>> by_hash_;
  std::vector<Slot> slots_;
  std::vector<int> free_slots_;
  int active_ = 0;
  bool dirty_ = false;
  std::priority_queue<Timer, std::vector<Timer>, std::greater<>> timers_;
  std::unordered_map<std::uint64_t, Done> timer_fn_;
  std::uint64_t seq_ = 0;
};

}  // namespace clustersim::flow
