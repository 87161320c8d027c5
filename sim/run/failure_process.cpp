#include "sim/run/failure_process.hpp"

#include <cmath>
#include <limits>

namespace clustersim::run {
namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
}

std::int64_t units_in_job(UnitKind unit, const JobShape& job) {
  switch (unit) {
    case UnitKind::device: return job.devices;
    case UnitKind::node: return job.nodes();
    case UnitKind::nic: return static_cast<std::int64_t>(job.nodes()) * job.nics_per_node;
    case UnitKind::leaf_switch: return (job.nodes() + job.nodes_per_leaf_switch - 1) / job.nodes_per_leaf_switch;
    case UnitKind::job: return 1;
  }
  return 1;
}

FailureProcess::FailureProcess(const FailureModelSpec& model, const JobShape& job) {
  double cumulative = 0.0;
  for (const auto c : kAllComponentClasses) {
    const auto i = index_of(c);
    const FailureClassSpec& f = model[i];
    units_[i] = units_in_job(f.unit, job);
    rate_[i] = f.enabled() && units_[i] > 0 ? static_cast<double>(units_[i]) / f.unit_mtbf.value() : 0.0;
    shape_[i] = f.weibull_shape;
    planned_[i] = f.planned;
    weibull_[i] = rate_[i] > 0.0 && f.weibull_shape != 1.0;
    if (weibull_[i]) {
      eta_[i] = f.unit_mtbf.value() / std::tgamma(1.0 + 1.0 / f.weibull_shape);
    } else {
      cumulative += rate_[i];
    }
    exp_cumulative_[i] = cumulative;
  }
  exp_total_ = cumulative;
}

FailureProcess::Event FailureProcess::next_after(double t_s, RngStream& rng) const {
  Event best{kInf, ComponentClass::accelerator};
  if (exp_total_ > 0.0) {
    best.time_s = t_s + rng.exponential(exp_total_);
    const double pick = rng.uniform() * exp_total_;
    for (const auto c : kAllComponentClasses) {
      const auto i = index_of(c);
      if (!weibull_[i] && rate_[i] > 0.0 && pick < exp_cumulative_[i]) {
        best.cause = c;
        break;
      }
    }
  }
  for (const auto c : kAllComponentClasses) {
    const auto i = index_of(c);
    if (!weibull_[i]) continue;
    const double k = shape_[i];
    const double eta = eta_[i];
    const double n = static_cast<double>(units_[i]);
    const double e = rng.exponential(1.0);
    const double t = eta * std::pow(std::pow(t_s / eta, k) + e / n, 1.0 / k);
    if (t < best.time_s) best = {t, c};
  }
  return best;
}

Seconds FailureProcess::job_mtbf() const {
  double sum = 0.0;
  for (std::size_t i = 0; i < kComponentClassCount; ++i) {
    if (!planned_[i]) sum += rate_[i];
  }
  return Seconds(sum > 0.0 ? 1.0 / sum : kInf);
}

Seconds FailureProcess::mean_time_between_interruptions() const {
  double sum = 0.0;
  for (const double r : rate_) sum += r;
  return Seconds(sum > 0.0 ? 1.0 / sum : kInf);
}

}  // namespace clustersim::run
