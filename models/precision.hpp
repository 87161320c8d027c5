// Numeric precisions of training and their storage sizes.
#pragma once

#include <optional>
#include <string_view>

namespace clustersim {

// fp4 is NVFP4 (E2M1 values in 16-element blocks with E4M3 scales and an FP32 tensor scale; Transformer
// Engine recipe NVFP4BlockScaling): only the linear layers' GEMMs run in it (docs/model.md, "NVFP4").
enum class Precision { fp32, tf32, fp16, bf16, fp8, fp4 };

/// Bytes per element of a tensor stored in this precision (tf32 is stored as fp32).
constexpr double bytes_per_element(Precision p) {
  switch (p) {
    case Precision::fp32:
    case Precision::tf32: return 4.0;
    case Precision::fp16:
    case Precision::bf16: return 2.0;
    case Precision::fp8: return 1.0;
    case Precision::fp4: return 0.5;  // two E2M1 values per byte (block scales counted apart)
  }
  return 4.0;
}

/// Precisions whose linear-layer GEMMs read quantised inputs made by a cast kernel (FP8, NVFP4).
constexpr bool is_quantised(Precision p) { return p == Precision::fp8 || p == Precision::fp4; }

std::string_view to_string(Precision p);
std::optional<Precision> precision_from_string(std::string_view s);

}  // namespace clustersim
