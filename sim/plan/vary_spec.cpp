#include "sim/plan/vary_spec.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <optional>

#include "sim/core/diagnostics.hpp"

namespace clustersim::plan {
namespace {

[[noreturn]] void fail(const std::string& pointer, std::string message) {
  throw ConfigError(std::string(kVaryLabel), pointer, std::move(message));
}

std::optional<double> parse_number(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  if (text.empty()) return std::nullopt;
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::string number_text(double v) {
  if (std::abs(v) < 9.0e15 && v == std::round(v)) return fmt::format("{}", static_cast<long long>(v));
  return fmt::format("{}", v);
}

std::vector<std::string> split_list(const std::string& pointer, std::string_view text) {
  std::vector<std::string> items;
  std::string current;
  bool quoted = false, was_quoted = false;
  const auto push = [&] {
    if (current.empty() && !was_quoted) fail(pointer, fmt::format("empty value in list \"{}\"", text));
    items.push_back(std::move(current));
    current.clear();
    was_quoted = false;
  };
  for (char c : text) {
    if (c == '"') {
      quoted = !quoted;
      was_quoted = true;
    } else if (c == ',' && !quoted) {
      push();
    } else {
      current += c;
    }
  }
  if (quoted) fail(pointer, fmt::format("unterminated quote in \"{}\"", text));
  push();
  return items;
}

std::vector<std::string> expand_range(const std::string& pointer, std::string_view text, std::size_t dots) {
  std::string unit;
  if (const auto space = text.find(' '); space != std::string_view::npos && space > dots) {
    std::string_view u = text.substr(space + 1);
    while (!u.empty() && u.front() == ' ') u.remove_prefix(1);
    unit.assign(1, ' ');
    unit.append(u);
    text = text.substr(0, space);
  }
  const std::string_view lo_text = text.substr(0, dots);
  std::string_view rest = text.substr(dots + 2);
  std::string_view step_text;
  if (const auto colon = rest.find(':'); colon != std::string_view::npos) {
    step_text = rest.substr(colon + 1);
    rest = rest.substr(0, colon);
  }
  const auto lo = parse_number(lo_text);
  const auto hi = parse_number(rest);
  if (!lo || !hi) {
    fail(pointer, fmt::format("range \"{}\": bounds must be numbers (e.g. 64..1024:x2 or 1..8:+1)", text));
  }
  if (*lo > *hi) fail(pointer, fmt::format("range \"{}\" is empty: {} > {}", text, lo_text, rest));
  bool geometric = false;
  double step = 1;
  if (!step_text.empty()) {
    geometric = step_text.front() == 'x' || step_text.front() == '*';
    const bool additive = step_text.front() == '+';
    const auto s = parse_number((geometric || additive) ? step_text.substr(1) : step_text);
    if (!s) {
      fail(pointer, fmt::format("range \"{}\": step \"{}\" is not a number (use :xF for a factor or :+D for an increment)",
                                text, step_text));
    }
    step = *s;
  }
  if (geometric && (step <= 1 || *lo <= 0)) {
    fail(pointer, fmt::format("range \"{}\": a geometric range needs a factor > 1 and a start > 0", text));
  }
  if (!geometric && step <= 0) fail(pointer, fmt::format("range \"{}\": the increment must be > 0", text));
  // The number of values in closed form, so that a range of 10^9 values is refused before any is made,
  // and a step lost in rounding (1e308..1e308:+1) cannot repeat one value until the bound.
  const double span = geometric ? std::log(*hi / *lo) / std::log(step) : (*hi - *lo) / step;
  if (!(span < static_cast<double>(kMaxAxisValues))) {
    fail(pointer, fmt::format("range \"{}\" has more than {} values", text, kMaxAxisValues));
  }
  const auto last = static_cast<std::size_t>(std::floor(span)) + 1;  // one more: the 1e-12 tolerance below
  std::vector<std::string> out;
  // Values are computed from the index (not accumulated) so that 0.1 steps do not drift.
  for (std::size_t i = 0; i <= last; ++i) {
    const double v = geometric ? *lo * std::pow(step, static_cast<double>(i)) : *lo + step * static_cast<double>(i);
    if (v > *hi * (1 + 1e-12)) break;
    if (out.size() >= kMaxAxisValues) fail(pointer, fmt::format("range \"{}\" has more than {} values", text, kMaxAxisValues));
    std::string value = number_text(v);
    if (unit.size() > 1) value.append(unit);
    if (!out.empty() && value == out.back()) continue;  // an increment below the value's precision
    out.push_back(std::move(value));
  }
  return out;
}

}  // namespace

VarySpec parse_vary(std::string_view text) {
  const auto eq = text.find('=');
  if (eq == std::string_view::npos) {
    fail("", fmt::format("\"{}\" is not POINTER=VALUES (e.g. /parallelism/tp=1,2,4,8)", text));
  }
  VarySpec spec{std::string(text.substr(0, eq)), {}};
  if (!spec.pointer.starts_with('/')) {
    fail(spec.pointer, fmt::format("\"{}\" is not a JSON pointer: it must start with '/' (e.g. /parallelism/tp)",
                                   spec.pointer));
  }
  const std::string_view values = text.substr(eq + 1);
  if (values.empty()) fail(spec.pointer, "no values after '=' (e.g. 1,2,4,8 or 64..1024:x2)");
  const auto dots = values.find("..");
  const bool is_range = dots != std::string_view::npos && values.find(',') == std::string_view::npos &&
                        values.find('"') == std::string_view::npos;
  spec.values = is_range ? expand_range(spec.pointer, values, dots) : split_list(spec.pointer, values);
  return spec;
}

}  // namespace clustersim::plan
