#include "models/energy/price_parse.hpp"

#include <fmt/format.h>

#include <stdexcept>
#include <string>

#include "sim/core/unit_parse.hpp"

namespace clustersim {
namespace {

struct Split {
  std::string amount;
  std::string per;
};

Split split_rate(std::string_view text, std::string_view examples) {
  const auto slash = text.rfind('/');
  if (slash == std::string_view::npos || slash + 1 >= text.size()) {
    throw std::invalid_argument(
        fmt::format("\"{}\" is not a price rate: missing \"/unit\" (expected e.g. {})", text, examples));
  }
  return {std::string(text.substr(0, slash)), std::string(text.substr(slash + 1))};
}

double parse_per_unit(const Split& s, Dimension d, std::string_view text, std::string_view examples) {
  std::string_view unit = s.per;
  if (d == Dimension::time && (unit == "hour" || unit == "device-hour" || unit == "GPU-hour")) {
    unit = std::string_view("h");
  }
  try {
    return parse_quantity(fmt::format("1 {}", unit), d);
  } catch (const std::invalid_argument&) {
    throw std::invalid_argument(fmt::format(
        "\"{}\" is not a price rate: unknown unit \"/{}\" (expected e.g. {})", text, s.per, examples));
  }
}

}  // namespace

UsdPerJoule parse_energy_price(std::string_view text) {
  constexpr std::string_view kExamples = R"("0.12 USD/kWh", "$0.08/kWh", "120 USD/MWh")";
  const Split s = split_rate(text, kExamples);
  const double usd = parse_quantity(s.amount, Dimension::money);
  const double joules = parse_per_unit(s, Dimension::energy, text, kExamples);
  return UsdPerJoule(usd / joules);
}

UsdPerSecond parse_time_price(std::string_view text) {
  constexpr std::string_view kExamples = R"("2.5 USD/h", "$2.50/hour", "60 USD/d")";
  const Split s = split_rate(text, kExamples);
  const double usd = parse_quantity(s.amount, Dimension::money);
  const double seconds = parse_per_unit(s, Dimension::time, text, kExamples);
  return UsdPerSecond(usd / seconds);
}

}  // namespace clustersim
