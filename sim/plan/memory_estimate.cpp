#include "sim/plan/memory_estimate.hpp"

#include <algorithm>

#include "schedules/pipeline_deps.hpp"

namespace clustersim::plan {
namespace {

MemoryInputs inputs_for_stage(const Scenario& s, const ScheduleSpec& spec, int stage) {
  const ParallelismSpec& par = s.parallelism;
  const TrainingSpec& tr = s.training;
  MemoryInputs in;
  in.shape.micro_batch = tr.micro_batch;
  in.shape.seq_len = tr.seq_len;
  in.shape.tp = par.tp;
  in.shape.cp = par.cp;
  in.shape.sequence_parallel = par.sequence_parallel;
  in.shape.flash_attention = tr.flash_attention;
  in.shape.precision = tr.precision;
  in.layers_on_stage = s.model.layers / par.pp;
  in.chunks = par.vp;
  in.inflight_chunk_microbatches = peak_inflight_activations(spec, stage);
  in.first_stage = stage == 0;
  in.last_stage = stage == par.pp - 1;
  in.pp = par.pp;
  in.dp = par.dp * par.cp;
  in.zero_stage = par.zero_stage;
  in.recompute = tr.recompute;
  in.optimizer = tr.optimizer;
  in.master_weights_fp32 = tr.master_weights_fp32;
  in.gradient_precision = tr.gradient_precision;
  return in;
}

}  // namespace

Bytes estimated_peak_memory(const Scenario& s) {
  const ParallelismSpec& par = s.parallelism;
  const ScheduleSpec spec{par.schedule, par.pp, s.training.microbatches(par.dp), par.vp};
  Bytes peak = memory_per_device(s.model, inputs_for_stage(s, spec, 0)).total();
  if (par.pp > 1) peak = max(peak, memory_per_device(s.model, inputs_for_stage(s, spec, par.pp - 1)).total());
  return peak;
}

}  // namespace clustersim::plan
