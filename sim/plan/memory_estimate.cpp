#include "sim/plan/memory_estimate.hpp"

#include <algorithm>

#include "schedules/pipeline_deps.hpp"
#include "sim/engine/analytic_engine.hpp"

namespace clustersim::plan {

Bytes estimated_peak_memory(const Scenario& s) {
  const ParallelismSpec& par = s.parallelism;
  const ScheduleSpec spec =
      schedule_spec(par.schedule, par.pp, s.training.microbatches(par.dp), par.vp, v_half_vocab_slots(par));
  Bytes peak = memory_per_device(s.model, memory_inputs(s, spec, 0)).total();
  if (par.pp > 1) peak = max(peak, memory_per_device(s.model, memory_inputs(s, spec, par.pp - 1)).total());
  return peak;
}

}  // namespace clustersim::plan
