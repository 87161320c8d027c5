// Derived defaults and cross-field checks of the built-in sections, run after every section was read.
//
// Derives: parallelism.dp = devices / (tp·pp·cp) when absent; training.seq_len = model.seq_len when absent.
// Checks, each reported at the JSON pointer of the key a user would change:
//   - nodes × devices_per_node <= kMaxDevices (2^24): /cluster/nodes (products of counts stay in range);
//   - tp·pp·dp·cp == devices (nodes × devices_per_node): /parallelism/dp, or /parallelism when dp is derived;
//   - heads % tp == 0 and ffn_hidden % tp == 0: /parallelism/tp;
//   - kv_heads % tp == 0 or tp % kv_heads == 0 (GQA groups split or replicated): /parallelism/tp;
//   - layers % (pp·vp) == 0: /parallelism/pp, or /parallelism/vp when vp > 1;
//   - global_batch % (micro_batch·dp) == 0: /training/global_batch;
//   - vp > 1 needs schedule interleaved-1f1b, whose micro-batch count must be a multiple of pp
//     (Megatron-LM's interleaved schedule, Narayanan et al. 2021 S2.2): /parallelism/vp;
//   - interleaved-1f1b with vp = 1 is accepted (Megatron-Core's one-chunk interleaving, docs/schedules.md);
//   - sequence_parallel needs tp > 1 (Korthikanti et al. 2022 S4.2.2): /parallelism/sequence_parallel;
//   - seq_len % cp == 0: /parallelism/cp;
//   - the device has a peak for training.precision: /training/precision;
//   - on an otherwise valid scenario, the pipeline schedule can be built (schedules/pipeline_schedule.hpp,
//     check()): /parallelism/schedule.
//   - MoE: ep > 1 or etp > 1 needs a moe model; ep divides num_experts, etp divides moe_ffn_hidden,
//     ep·etp divides tp·cp·dp; tp > 1 needs sequence_parallel: /parallelism/ep, /parallelism/etp,
//     /parallelism/sequence_parallel;
//   - gradient compression needs zero_stage 0 (it is modeled on the DP all-reduce): /compression/scheme.
//   - ALiBi positions with flash attention need a kernel with a bias input (not flash-1):
//     /training/attention_kernel.
// A check is skipped when one of its inputs already failed on its own (ReadContext::failed).
#pragma once

#include <cstdint>

#include "sim/config/read_context.hpp"
#include "sim/scenario/scenario.hpp"

namespace clustersim::config {

/// Largest cluster (devices) the model accepts: 2^24. Larger counts are refused before any product of
/// counts is formed, so no count derived from them overflows an int.
inline constexpr std::int64_t kMaxDevices = std::int64_t{1} << 24;

void finalize_scenario(Scenario& s, ReadContext& ctx);

}  // namespace clustersim::config
