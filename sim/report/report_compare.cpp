#include "sim/report/report_compare.hpp"

#include <cmath>

#include <fmt/format.h>

#include "sim/config/provenance.hpp"

namespace clustersim {

namespace {

std::string kind(const nlohmann::json& j) {
  return j.type_name();
}

class Comparer {
 public:
  Comparer(const CompareOptions& o, std::vector<ReportMismatch>& out) : o_(o), out_(out) {}

  void compare(const nlohmann::json& e, const nlohmann::json& a, const std::string& at) {
    if (full()) return;
    if (e.is_number() && a.is_number()) {
      number(e.get<double>(), a.get<double>(), at);
      return;
    }
    if (e.type() != a.type()) {
      add(at, fmt::format("expected {} {}, got {} {}", kind(e), e.dump(), kind(a), a.dump()));
      return;
    }
    if (e.is_object()) {
      for (auto it = e.begin(); it != e.end(); ++it) {
        const std::string child = config::child_pointer(at, it.key());
        const auto found = a.find(it.key());
        if (found == a.end()) {
          add(child, "missing in the actual report");
        } else {
          compare(it.value(), *found, child);
        }
      }
      if (o_.strict) {
        for (auto it = a.begin(); it != a.end(); ++it) {
          if (!e.contains(it.key())) add(config::child_pointer(at, it.key()), "not in the expected report");
        }
      }
      return;
    }
    if (e.is_array()) {
      if (e.size() != a.size()) {
        add(at, fmt::format("expected {} elements, got {}", e.size(), a.size()));
        return;
      }
      for (std::size_t i = 0; i < e.size(); ++i) compare(e[i], a[i], fmt::format("{}/{}", at, i));
      return;
    }
    if (e != a) add(at, fmt::format("expected {}, got {}", e.dump(), a.dump()));
  }

 private:
  void number(double e, double a, const std::string& at) {
    if (std::isnan(e) && std::isnan(a)) return;
    if (std::fabs(a - e) <= o_.atol + o_.rtol * std::fabs(e)) return;
    const std::string rel =
        e != 0.0 ? fmt::format(" ({:+.4g} %)", 100.0 * (a - e) / std::fabs(e)) : std::string();
    add(at, fmt::format("expected {:.10g}, got {:.10g}{}", e, a, rel));
  }
  void add(const std::string& at, std::string message) {
    if (!full()) out_.push_back({at.empty() ? "/" : at, std::move(message)});
  }
  [[nodiscard]] bool full() const { return out_.size() >= o_.max_mismatches; }

  const CompareOptions& o_;
  std::vector<ReportMismatch>& out_;
};

}  // namespace

std::vector<ReportMismatch> compare_reports(const nlohmann::json& expected, const nlohmann::json& actual,
                                            const CompareOptions& options) {
  std::vector<ReportMismatch> out;
  Comparer(options, out).compare(expected, actual, "");
  return out;
}

}  // namespace clustersim
