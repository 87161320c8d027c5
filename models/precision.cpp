#include "models/precision.hpp"

namespace clustersim {

std::string_view to_string(Precision p) {
  switch (p) {
    case Precision::fp32: return "fp32";
    case Precision::tf32: return "tf32";
    case Precision::fp16: return "fp16";
    case Precision::bf16: return "bf16";
    case Precision::fp8: return "fp8";
    case Precision::fp4: return "fp4";
  }
  return "fp32";
}

std::optional<Precision> precision_from_string(std::string_view s) {
  for (Precision p : {Precision::fp32, Precision::tf32, Precision::fp16, Precision::bf16, Precision::fp8,
                      Precision::fp4}) {
    if (s == to_string(p)) return p;
  }
  return std::nullopt;
}

}  // namespace clustersim
