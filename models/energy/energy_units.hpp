// Strong quantities of the energy, carbon and cost model that sim/core/units.hpp does not (yet) define.
//
// Same conventions as sim/core/units.hpp: SI-style base values carried by clustersim::Quantity, explicit
// construction, `.value()` for the number. Money is in US dollars; carbon mass in kilograms of CO2
// equivalent; a carbon intensity is kg CO2e per joule (the SI value sim/core/unit_parse.hpp returns for
// Dimension::carbon_intensity, e.g. "429 gCO2e/kWh" -> 1.19e-7 kg/J).
#pragma once

#include "sim/core/units.hpp"

namespace clustersim {

using Usd = Quantity<struct UsdTag>;                          // US dollars
using UsdPerJoule = Quantity<struct UsdPerJouleTag>;          // electricity price
using UsdPerSecond = Quantity<struct UsdPerSecondTag>;        // device rental or amortised capital rate
using KgCo2e = Quantity<struct KgCo2eTag>;                    // mass of CO2 equivalent, kg
using CarbonIntensity = Quantity<struct CarbonIntensityTag>;  // kg CO2e per J of electricity

inline constexpr double kJoulesPerKwh = 3.6e6;
inline constexpr double kJoulesPerMwh = 3.6e9;

constexpr Usd operator*(UsdPerJoule p, Joules e) {
  return Usd(p.value() * e.value());
}
constexpr Usd operator*(Joules e, UsdPerJoule p) {
  return p * e;
}
constexpr Usd operator*(UsdPerSecond r, Seconds t) {
  return Usd(r.value() * t.value());
}
constexpr Usd operator*(Seconds t, UsdPerSecond r) {
  return r * t;
}
constexpr UsdPerSecond operator/(Usd m, Seconds t) {
  return UsdPerSecond(m.value() / t.value());
}
constexpr KgCo2e operator*(CarbonIntensity c, Joules e) {
  return KgCo2e(c.value() * e.value());
}
constexpr KgCo2e operator*(Joules e, CarbonIntensity c) {
  return c * e;
}

/// Energy in megawatt-hours (1 MWh = 3.6e9 J), for reports.
constexpr double to_mwh(Joules e) {
  return e.value() / kJoulesPerMwh;
}
/// Carbon mass in metric tonnes (1 t = 1000 kg), for reports.
constexpr double to_tonnes(KgCo2e m) {
  return m.value() / 1000.0;
}

}  // namespace clustersim
