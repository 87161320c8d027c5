// Parsing of price strings that sim/core/unit_parse.hpp has no dimension for: money per energy
// ("0.12 USD/kWh", "$0.08/kWh", "120 USD/MWh") and money per time ("2.5 USD/h", "$2.50/hour").
//
// The amount before the last '/' is parsed as Dimension::money, the unit after it as an energy or a
// duration of one unit. Errors throw std::invalid_argument with a user-facing message, like
// parse_quantity. (To be folded into sim/core/unit_parse as Dimension::energy_price / time_price.)
#pragma once

#include <string_view>

#include "models/energy/energy_units.hpp"

namespace clustersim {

UsdPerJoule parse_energy_price(std::string_view text);
UsdPerSecond parse_time_price(std::string_view text);

}  // namespace clustersim
