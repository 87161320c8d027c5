// The batch sizes of a training run with Megatron-LM's batch-size ramp, step by step in closed form.
//
// Megatron-LM (megatron/core/num_microbatches_calculator.py, RampupBatchsizeNumMicroBatchesCalculator,
// NVIDIA/Megatron-LM 0b9bc2088b6d, the last commit before the class was replaced by step schedules):
//   n = (global - start) / increment increments, per = samples / n (a float),
//   batch(consumed) = global                                   if consumed > samples
//                   = start + int(consumed / per) · increment  otherwise,
// evaluated before every optimizer step with the sequences consumed so far (megatron/training/training.py
// calls update_num_microbatches(args.consumed_train_samples) at the top of each iteration and adds the
// step's batch to consumed_train_samples after it). The ramp therefore has at most n + 1 distinct batches;
// batch_schedule() walks them level by level (O(n), not O(steps)), jumping to the first step whose consumed
// count leaves the level, with the same double arithmetic as Python (int(float(c) / per)).
//
// Run length: a run of `tokens` stops after the first step at which the tokens trained reach `tokens`
// (as clustersim's runs without a ramp, ceil(tokens / tokens per step); Megatron instead drops the partial
// last batch of a sample-based run); a run of `steps` stops after that many steps.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "sim/scenario/scenario.hpp"

namespace clustersim::run {

/// Consecutive optimizer steps at one global batch.
struct BatchSegment {
  std::int64_t batch = 0;  // sequences per step
  std::int64_t steps = 0;  // > 0
};

/// The batch Megatron-LM's rule gives after `consumed` sequences. Preconditions (asserted): 0 < start <=
/// global, increment > 0 dividing global - start, samples > 0, consumed >= 0.
std::int64_t rampup_batch(const BatchRampup& ramp, std::int64_t global, std::int64_t consumed);

/// The run's steps as segments of equal batch, in order (the final segment at `global` when the run
/// outlasts the ramp; no segment is empty). Exactly one of tokens / steps is given (> 0); seq_len > 0.
/// Without a ramp (or start == global) the run is one segment of ceil(tokens / (global · seq_len)) steps.
std::vector<BatchSegment> batch_schedule(const std::optional<BatchRampup>& ramp, std::int64_t global, int seq_len,
                                         std::optional<double> tokens, std::optional<std::int64_t> steps);

}  // namespace clustersim::run
