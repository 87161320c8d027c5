// Asynchronous and stale-synchronous SGD through parameter servers: a discrete-event simulation of the
// workers' update cycles, for throughput and the staleness distribution (dp_mode async, ssp).
//
// Each worker loops: compute one step on the weights it holds (its compute time drawn lognormal with
// mean `compute` and coefficient of variation `cv`), then push the gradient and pull the new weights.
// The server shards work on one update at a time, FIFO in arrival order, each taking
// `server_per_update` (a synchronous round's push/pull time over the N updates it carries, so a
// saturated server absorbs N updates per round); the worker's own NIC needs `worker_comm`, in parallel.
// An update is applied (committed) at max(server end, arrival + worker_comm).
//   async (Dean et al. 2012 Downpour; Li et al. OSDI'14 with no consistency bound): nobody waits.
//   ssp   (Ho et al., "More Effective Distributed ML via a Stale Synchronous Parallel Parameter Server",
//          NIPS 2013): a worker at clock c (c committed updates) starts its next step only when the slowest
//          worker reached clock c − s.
// Without spread (cv = 0) async reaches min(N / (compute + max(worker_comm, server_per_update)),
// 1 / server_per_update) updates per second (tests/engine/dp_mode_test.cpp).
//
// Staleness, two ways (both in steps):
//   clock lag   the worker's clock minus the slowest worker's when it starts a step (Ho et al.'s s;
//               at most s under ssp),
//   update lag  updates other workers committed between a worker's read of the weights and the commit
//               of its own gradient (the delay τ of asynchronous SGD analyses; N − 1 for N identical
//               async workers).
// Statistics are taken after a warm-up of the first 10 % of commits; deterministic for a seed.
#pragma once

#include <cstdint>

#include "sim/core/units.hpp"

namespace clustersim {

struct AsyncInputs {
  int workers = 1;
  Seconds compute{0};            // mean compute per step (> 0)
  double cv = 0;                 // coefficient of variation of the compute time
  Seconds worker_comm{0};        // the worker's own push + pull time
  Seconds server_per_update{0};  // server time per update
  int staleness_bound = -1;      // ssp bound s; < 0: async (no bound)
  std::uint64_t seed = 1;
};

struct LagSummary {
  double mean = 0, p50 = 0, p99 = 0, max = 0;  // steps
};

struct AsyncResult {
  double updates_per_s = 0;
  Seconds worker_cycle{0};     // mean time between one worker's commits
  double server_busy = 0;      // fraction of time the server shards are busy
  double waiting = 0;          // ssp: fraction of worker time blocked on the slowest worker
  LagSummary clock_lag, update_lag;
  int updates = 0;             // updates simulated
};

/// Simulates about 200,000 updates (at least 20 and at most 200 per worker).
AsyncResult simulate_async(const AsyncInputs& in);

}  // namespace clustersim
