#include "sim/report/prediction.hpp"

#include "models/energy/power_cap.hpp"
#include "sim/energy/capped_scenario.hpp"
#include "sim/engine/analytic_engine.hpp"
#include "sim/engine/flow/flow_engine.hpp"
#include "sim/engine/hetero.hpp"
#include "sim/engine/flow/scenario_options.hpp"
#include "sim/report/collective_report.hpp"
#include "sim/report/energy_section.hpp"
#include "sim/report/hetero_report.hpp"
#include "sim/report/run_section.hpp"
#include "sim/report/step_report.hpp"

namespace clustersim {

namespace {

// A power cap (energy.power_cap) slows the device (sim/energy/capped_scenario.hpp), so the engine runs the
// capped scenario. Its peak FLOP/s is the capped one; MFU and HFU stay relative to the nominal peak.
void run_engine(const Scenario& s, const PredictOptions& options, Prediction& p) {
  std::optional<Scenario> capped;
  double compute_slowdown = 1.0;
  if (s.energy && s.energy->power_cap) {
    const PowerCapEffect effect = apply_power_cap(s.energy->device, *s.energy->power_cap);
    if (effect.binding) {
      capped = capped_scenario(s, effect);
      compute_slowdown = effect.slowdown[DeviceState::compute];
    }
  }
  if (!s.cluster.pools.empty()) {  // sim/config: analytic engine, no energy section
    p.step = run_hetero(s);
    return;
  }
  const Scenario& x = capped ? *capped : s;
  const auto nominal = [compute_slowdown](StepResult r) {
    r.mfu /= compute_slowdown;
    r.hfu /= compute_slowdown;
    return r;
  };
  if (x.engine == "flow") {
    flow::FlowOptions base;
    base.fidelity = options.fidelity;
    p.flow = flow::run_flow(x, flow::flow_options_for(x, base));
    p.step = nominal(p.flow->steps.front());
    p.analytic = nominal(run_analytic(x));
  } else {
    p.step = nominal(run_analytic(x));
  }
}

}  // namespace

Prediction predict(const Scenario& s, PredictOptions options) {
  Prediction p;
  run_engine(s, options, p);
  // The batch ramp's smaller batches (training.batch_rampup): the same engine and power cap at each.
  const StepAtBatch step_at = [&s, &options](std::int64_t batch) {
    Scenario at = s;
    at.training.global_batch = static_cast<int>(batch);
    at.run.reset();
    Prediction q;
    run_engine(at, options, q);
    return q.step;
  };
  add_run_section(s, p, step_at, options.on_trials, options.trials);
  add_energy_section(s, p, options.text, options.json);
  return p;
}

nlohmann::json prediction_json(const Scenario& s, const Prediction& p, bool include_inputs, bool include_stages) {
  nlohmann::json j = step_report_json(s, p.step, include_inputs, include_stages);
  if (!p.run_json.is_null()) j["run"] = p.run_json;
  if (!p.energy_json.is_null()) j["energy"] = p.energy_json;
  if (s.training.compression.scheme != CompressionScheme::none) j["compression"] = compression_json(s);
  if (p.step.hetero) j["heterogeneous"] = hetero_json(s, *p.step.hetero);
  return j;
}

std::string prediction_text(const Scenario& s, const Prediction& p) {
  return step_report_text(s, p.step) + (p.step.hetero ? hetero_text(s, p.step) : std::string()) + p.run_text +
         p.energy_text;
}

std::string prediction_csv(const Scenario& s, const Prediction& p) {
  nlohmann::json j = prediction_json(s, p, false);
  j.erase("stages");
  j["name"] = s.name;
  std::string header, values;
  for (const auto& [k, v] : flatten_scalars(j)) {
    header += (header.empty() ? "" : ",") + k;
    values += (values.empty() ? "" : ",") + (v.find(',') != std::string::npos ? "\"" + v + "\"" : v);
  }
  return header + "\n" + values + "\n";
}

}  // namespace clustersim
