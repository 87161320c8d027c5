#include "sim/core/unit_parse.hpp"

#include <fmt/format.h>

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <stdexcept>
#include <utility>

namespace clustersim {
namespace {

struct UnitSpelling {
  std::string_view spelling;
  double factor;  // multiply the number by this to get SI
};

// Every accepted unit spelling per dimension. Matching is exact after whitespace trimming, except that
// prefixes are expanded below for the families that take them.
struct Prefix {
  std::string_view symbol;
  double factor;
};
constexpr std::array<Prefix, 8> kDecimal{{{"", 1.0}, {"k", 1e3}, {"K", 1e3}, {"M", 1e6}, {"G", 1e9},
                                          {"T", 1e12}, {"P", 1e15}, {"E", 1e18}}};
constexpr std::array<Prefix, 6> kBinary{
    {{"Ki", 1024.0}, {"Mi", 1048576.0}, {"Gi", 1073741824.0}, {"Ti", 1099511627776.0},
     {"Pi", 1125899906842624.0}, {"Ei", 1152921504606846976.0}}};
constexpr std::array<Prefix, 4> kSmall{{{"m", 1e-3}, {"u", 1e-6}, {"µ", 1e-6}, {"n", 1e-9}}};

bool match_prefixed(std::string_view unit, std::string_view base, bool binary_too, double& factor) {
  if (unit.size() < base.size() || unit.substr(unit.size() - base.size()) != base) return false;
  std::string_view prefix = unit.substr(0, unit.size() - base.size());
  for (const auto& p : kDecimal) {
    if (prefix == p.symbol) { factor = p.factor; return true; }
  }
  if (binary_too) {
    for (const auto& p : kBinary) {
      if (prefix == p.symbol) { factor = p.factor; return true; }
    }
  }
  return false;
}

bool match_unit(std::string_view unit, Dimension d, double& factor) {
  switch (d) {
    case Dimension::time: {
      static constexpr std::array<UnitSpelling, 16> kTime{{{"s", 1}, {"sec", 1}, {"ms", 1e-3}, {"us", 1e-6},
                                                           {"µs", 1e-6}, {"ns", 1e-9}, {"min", 60},
                                                           {"h", 3600}, {"hr", 3600}, {"hours", 3600},
                                                           {"d", 86400}, {"day", 86400}, {"days", 86400},
                                                           {"w", 604800}, {"weeks", 604800},
                                                           {"y", 31536000}}};
      for (const auto& u : kTime) {
        if (unit == u.spelling) { factor = u.factor; return true; }
      }
      return false;
    }
    case Dimension::bytes:
      if (match_prefixed(unit, "B", true, factor)) return true;
      if (match_prefixed(unit, "bit", true, factor) || match_prefixed(unit, "b", true, factor)) {
        factor /= 8.0;
        return true;
      }
      return false;
    case Dimension::bandwidth:
      if (match_prefixed(unit, "B/s", true, factor) || match_prefixed(unit, "Bps", true, factor)) return true;
      if (match_prefixed(unit, "b/s", true, factor) || match_prefixed(unit, "bps", true, factor) ||
          match_prefixed(unit, "bit/s", true, factor)) {
        factor /= 8.0;
        return true;
      }
      return false;
    case Dimension::flops:
      return match_prefixed(unit, "FLOP", false, factor) || match_prefixed(unit, "FLOPs", false, factor);
    case Dimension::flops_rate:
      return match_prefixed(unit, "FLOPS", false, factor) || match_prefixed(unit, "FLOP/s", false, factor) ||
             match_prefixed(unit, "OPS", false, factor) || match_prefixed(unit, "OP/s", false, factor);
    case Dimension::power:
      return match_prefixed(unit, "W", false, factor);
    case Dimension::energy:
      if (match_prefixed(unit, "J", false, factor)) return true;
      if (match_prefixed(unit, "Wh", false, factor)) {
        factor *= 3600.0;
        return true;
      }
      return false;
    case Dimension::count:
      if (unit.empty()) { factor = 1; return true; }
      for (const auto& p : kDecimal) {
        if (unit == p.symbol) { factor = p.factor; return true; }
      }
      if (unit == "B") { factor = 1e9; return true; }  // "7B" parameters
      return false;
    case Dimension::frequency:
      return match_prefixed(unit, "Hz", false, factor);
    case Dimension::money:
      if (unit == "USD" || unit == "$") { factor = 1; return true; }
      return false;
    case Dimension::carbon_intensity: {
      // SI-ish internal unit: kg CO2e per J.
      static constexpr double kPerKwh = 1.0 / 3.6e6;
      static constexpr std::array<UnitSpelling, 4> kCarbon{{{"gCO2e/kWh", 1e-3 * kPerKwh},
                                                            {"kgCO2e/kWh", kPerKwh},
                                                            {"tCO2e/MWh", kPerKwh},
                                                            {"gCO2/kWh", 1e-3 * kPerKwh}}};
      for (const auto& u : kCarbon) {
        if (unit == u.spelling) { factor = u.factor; return true; }
      }
      return false;
    }
  }
  return false;
}

std::string_view dimension_name(Dimension d) {
  switch (d) {
    case Dimension::time: return "a duration";
    case Dimension::bytes: return "a size in bytes";
    case Dimension::bandwidth: return "a bandwidth";
    case Dimension::flops: return "a FLOP count";
    case Dimension::flops_rate: return "a FLOP rate";
    case Dimension::power: return "a power";
    case Dimension::energy: return "an energy";
    case Dimension::count: return "a count";
    case Dimension::frequency: return "a frequency";
    case Dimension::money: return "an amount of money";
    case Dimension::carbon_intensity: return "a carbon intensity";
  }
  return "a quantity";
}

// Largest magnitude accepted in SI units: far above any physical input (1e30 B/s, FLOP, J, s, ...), and
// small enough that products of a few such values stay finite in double arithmetic.
constexpr double kMaxMagnitude = 1e30;
// Smallest non-zero magnitude accepted: quotients by such a value (a bandwidth of 1e-40 B/s, a duration of
// 1e-35 s) would overflow to infinity.
constexpr double kMinMagnitude = 1e-30;

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

}  // namespace

std::string_view si_unit(Dimension d) {
  switch (d) {
    case Dimension::time: return "s";
    case Dimension::bytes: return "B";
    case Dimension::bandwidth: return "B/s";
    case Dimension::flops: return "FLOP";
    case Dimension::flops_rate: return "FLOP/s";
    case Dimension::power: return "W";
    case Dimension::energy: return "J";
    case Dimension::count: return "";
    case Dimension::frequency: return "Hz";
    case Dimension::money: return "USD";
    case Dimension::carbon_intensity: return "kgCO2e/J";
  }
  return "";
}

std::string_view unit_examples(Dimension d) {
  switch (d) {
    case Dimension::time: return R"("1.5 us", "20 ms", "3 h", "60 d")";
    case Dimension::bytes: return R"("80 GiB", "40 GB", "512 MiB")";
    case Dimension::bandwidth: return R"("2039 GB/s", "200 Gb/s", "400 Gbps")";
    case Dimension::flops: return R"("3.1e23 FLOP", "12 PFLOP")";
    case Dimension::flops_rate: return R"("312 TFLOPS", "989 TFLOP/s")";
    case Dimension::power: return R"("700 W", "10.2 kW")";
    case Dimension::energy: return R"("1.2 MWh", "3.6 MJ")";
    case Dimension::count: return R"("15T", "2.5k", 1024)";
    case Dimension::frequency: return R"("1.98 GHz", "1410 MHz")";
    case Dimension::money: return R"("2.50 USD", "$2.50")";
    case Dimension::carbon_intensity: return R"("429 gCO2e/kWh")";
  }
  return "";
}

double parse_quantity(std::string_view text, Dimension d) {
  std::string_view s = trim(text);
  const auto fail = [&](std::string_view why) -> double {
    throw std::invalid_argument(fmt::format("\"{}\" is not {}{} (expected e.g. {})", text, dimension_name(d),
                                            why, unit_examples(d)));
  };
  if (s.empty()) return fail(": empty string");
  bool dollar = false;
  if (d == Dimension::money && s.front() == '$') {
    dollar = true;
    s.remove_prefix(1);
  }
  double number = 0.0;
  const char* begin = s.data();
  const char* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(begin, end, number);
  if (ec == std::errc::result_out_of_range) return fail(": the number is out of range");
  if (ec != std::errc() || ptr == begin) return fail(": no leading number");
  if (!std::isfinite(number)) return fail(": not a finite number");
  std::string_view unit = trim(std::string_view(ptr, static_cast<std::size_t>(end - ptr)));
  if (dollar) {
    if (!unit.empty()) return fail(": unexpected text after the amount");
    if (std::fabs(number) > kMaxMagnitude) return fail(": out of the range this tool models");
    return number;
  }
  if (unit.empty() && d != Dimension::count) return fail(": the unit is missing");
  double factor = 1.0;
  if (!match_unit(unit, d, factor)) return fail(fmt::format(": unknown unit \"{}\"", unit));
  const double si = number * factor;
  if (!std::isfinite(si) || std::fabs(si) > kMaxMagnitude) {
    return fail(fmt::format(": {:g} {} is out of the range this tool models (at most {:g} {})", si,
                            si_unit(d), kMaxMagnitude, si_unit(d)));
  }
  if (si != 0 && std::fabs(si) < kMinMagnitude) {
    return fail(fmt::format(": {:g} {} is below the smallest magnitude this tool models ({:g} {}; write 0 "
                            "for none)",
                            si, si_unit(d), kMinMagnitude, si_unit(d)));
  }
  return si;
}

std::string format_quantity(double si_value, Dimension d, int significant_digits) {
  std::string_view unit = si_unit(d);
  if (d == Dimension::time) {
    const double a = std::fabs(si_value);
    if (a != 0 && a < 1e-6) return fmt::format("{:.{}g} ns", si_value * 1e9, significant_digits);
    if (a != 0 && a < 1e-3) return fmt::format("{:.{}g} us", si_value * 1e6, significant_digits);
    if (a != 0 && a < 1.0) return fmt::format("{:.{}g} ms", si_value * 1e3, significant_digits);
    if (a < 3600 * 48) return fmt::format("{:.{}g} s", si_value, significant_digits);
    return fmt::format("{:.{}g} d", si_value / 86400.0, significant_digits);
  }
  static constexpr std::array<std::pair<double, std::string_view>, 7> kPrefixes{
      {{1e18, "E"}, {1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}, {1.0, ""}}};
  const double a = std::fabs(si_value);
  for (const auto& [f, p] : kPrefixes) {
    if (a >= f) return fmt::format("{:.{}g} {}{}", si_value / f, significant_digits, p, unit);
  }
  return fmt::format("{:.{}g} {}", si_value, significant_digits, unit);
}

}  // namespace clustersim
