// Numeric precisions of training and their storage sizes.
#pragma once

#include <optional>
#include <string_view>

namespace clustersim {

enum class Precision { fp32, tf32, fp16, bf16, fp8 };

/// Bytes per element of a tensor stored in this precision (tf32 is stored as fp32).
constexpr double bytes_per_element(Precision p) {
  switch (p) {
    case Precision::fp32:
    case Precision::tf32: return 4.0;
    case Precision::fp16:
    case Precision::bf16: return 2.0;
    case Precision::fp8: return 1.0;
  }
  return 4.0;
}

std::string_view to_string(Precision p);
std::optional<Precision> precision_from_string(std::string_view s);

}  // namespace clustersim
