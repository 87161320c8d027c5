#include "sim/report/prediction_row.hpp"

#include <algorithm>
#include <numeric>
#include <string_view>

#include "sim/report/collective_report.hpp"
#include "sim/report/energy_section.hpp"
#include "sim/report/hetero_report.hpp"
#include "sim/report/step_report.hpp"

namespace clustersim {
namespace {

// Collects the pairs in emission order into `out` (reusing its strings), building each dotted key as
// base.section.name and flattening an object value under it as flatten does (arrays dropped).
class FlatSink final : public ReportSink {
 public:
  explicit FlatSink(FlatMetrics& out) : out_(out) {}

  void set_base(std::string_view base) { base_ = base; }

  void put(std::string_view section, std::string_view name, const nlohmann::json& value) override {
    key_.clear();
    for (std::string_view part : {base_, section, name}) {
      if (part.empty()) continue;
      if (!key_.empty()) key_ += '.';
      key_ += part;
    }
    if (value.is_object()) {
      walk(value);
    } else if (value.is_primitive()) {
      leaf(value);
    }
  }

  /// Every pair had the key the previous point had at its position.
  [[nodiscard]] bool same_keys() const { return same_; }
  [[nodiscard]] std::size_t count() const { return n_; }

 private:
  void leaf(const nlohmann::json& value) {
    if (n_ < out_.size()) {
      auto& [k, v] = out_[n_];
      if (k != key_) {
        k.assign(key_);
        same_ = false;
      }
      v = value;
    } else {
      out_.emplace_back(key_, value);
      same_ = false;
    }
    ++n_;
  }

  void walk(const nlohmann::json& node) {
    const std::size_t prefix = key_.size();
    for (auto it = node.begin(); it != node.end(); ++it) {
      key_.resize(prefix);
      key_ += '.';
      key_ += it.key();
      if (it->is_object()) {
        walk(*it);
      } else if (it->is_primitive()) {
        leaf(*it);
      }
    }
    key_.resize(prefix);
  }

  FlatMetrics& out_;
  std::string_view base_;
  std::string key_;
  std::size_t n_ = 0;
  bool same_ = true;
};

}  // namespace

void PredictionRowWriter::write(const Scenario& s, const Prediction& p, FlatMetrics& out) {
  FlatSink sink(emitted_);
  // The keys of prediction_json(s, p, false, false), from the same sources.
  step_report_fields(s, p.step, sink);
  if (!p.run_json.is_null()) sink.put("", "run", p.run_json);
  if (p.energy_step && s.energy) {
    sink.set_base("energy");
    energy_step_fields(*s.energy, *p.energy_step, p.energy_cost_per_step, s.cluster.devices(), sink);
    sink.put("", "timeline_engine", p.energy_timeline_engine);
    sink.set_base("");
  } else if (!p.energy_json.is_null()) {
    sink.put("", "energy", p.energy_json);
  }
  if (s.training.compression.scheme != CompressionScheme::none) sink.put("", "compression", compression_json(s));
  if (p.step.hetero) sink.put("", "heterogeneous", hetero_json(s, *p.step.hetero));
  const std::size_t n = sink.count();
  emitted_.resize(n);
  // The sort order of the previous point holds when every key is the same (the usual case in a sweep).
  if (!sink.same_keys() || order_.size() != n) {
    order_.resize(n);
    std::iota(order_.begin(), order_.end(), 0U);
    std::sort(order_.begin(), order_.end(),
              [this](std::uint32_t a, std::uint32_t b) { return emitted_[a].first < emitted_[b].first; });
  }
  out.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto& [k, v] = emitted_[order_[i]];
    auto& [ok, ov] = out[i];
    if (ok != k) ok.assign(k);
    ov = v;
  }
}

}  // namespace clustersim
