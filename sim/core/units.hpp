// Strong SI quantities used everywhere inside clustersim.
//
// Every dimensioned value is carried in SI base units (s, B, FLOP, W, J) by a small strong type, so a
// bandwidth can never be passed where a capacity is expected. Construction is explicit; `.value()` gives
// the SI number. Cross-type arithmetic is defined only where it has a physical meaning
// (Bytes / BytesPerSecond = Seconds, Flops / FlopsPerSecond = Seconds, Watts * Seconds = Joules).
#pragma once

#include <compare>

namespace clustersim {

template <class Tag>
class Quantity {
 public:
  constexpr Quantity() = default;
  constexpr explicit Quantity(double si_value) : value_(si_value) {}
  [[nodiscard]] constexpr double value() const { return value_; }

  constexpr Quantity& operator+=(Quantity o) { value_ += o.value_; return *this; }
  constexpr Quantity& operator-=(Quantity o) { value_ -= o.value_; return *this; }
  constexpr Quantity& operator*=(double k) { value_ *= k; return *this; }
  constexpr Quantity& operator/=(double k) { value_ /= k; return *this; }
  friend constexpr Quantity operator+(Quantity a, Quantity b) { return Quantity(a.value_ + b.value_); }
  friend constexpr Quantity operator-(Quantity a, Quantity b) { return Quantity(a.value_ - b.value_); }
  friend constexpr Quantity operator-(Quantity a) { return Quantity(-a.value_); }
  friend constexpr Quantity operator*(Quantity a, double k) { return Quantity(a.value_ * k); }
  friend constexpr Quantity operator*(double k, Quantity a) { return Quantity(a.value_ * k); }
  friend constexpr Quantity operator/(Quantity a, double k) { return Quantity(a.value_ / k); }
  friend constexpr double operator/(Quantity a, Quantity b) { return a.value_ / b.value_; }
  friend constexpr auto operator<=>(Quantity a, Quantity b) = default;
  // The four orderings spelled out (same IEEE results as the rewritten `(a <=> b) < 0`, NaN included):
  // through <=> GCC first tests equality and then order, a compare and two branches where one compare
  // does, and max()/min() below cannot become a single maxsd/minsd.
  friend constexpr bool operator<(Quantity a, Quantity b) { return a.value_ < b.value_; }
  friend constexpr bool operator>(Quantity a, Quantity b) { return a.value_ > b.value_; }
  friend constexpr bool operator<=(Quantity a, Quantity b) { return a.value_ <= b.value_; }
  friend constexpr bool operator>=(Quantity a, Quantity b) { return a.value_ >= b.value_; }

 private:
  double value_ = 0.0;
};

using Seconds = Quantity<struct SecondsTag>;
using Bytes = Quantity<struct BytesTag>;
using BytesPerSecond = Quantity<struct BytesPerSecondTag>;
using Flops = Quantity<struct FlopsTag>;                    // floating-point operations (a count)
using FlopsPerSecond = Quantity<struct FlopsPerSecondTag>;  // FLOP/s
using Watts = Quantity<struct WattsTag>;
using Joules = Quantity<struct JoulesTag>;

constexpr Seconds operator/(Bytes b, BytesPerSecond r) { return Seconds(b.value() / r.value()); }
constexpr Seconds operator/(Flops f, FlopsPerSecond r) { return Seconds(f.value() / r.value()); }
constexpr Bytes operator*(BytesPerSecond r, Seconds t) { return Bytes(r.value() * t.value()); }
constexpr Flops operator*(FlopsPerSecond r, Seconds t) { return Flops(r.value() * t.value()); }
constexpr Joules operator*(Watts p, Seconds t) { return Joules(p.value() * t.value()); }
constexpr Joules operator*(Seconds t, Watts p) { return Joules(p.value() * t.value()); }
constexpr Watts operator/(Joules e, Seconds t) { return Watts(e.value() / t.value()); }

template <class Tag>
constexpr Quantity<Tag> max(Quantity<Tag> a, Quantity<Tag> b) { return a < b ? b : a; }
template <class Tag>
constexpr Quantity<Tag> min(Quantity<Tag> a, Quantity<Tag> b) { return a < b ? a : b; }

}  // namespace clustersim
