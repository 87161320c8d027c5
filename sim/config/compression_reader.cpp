#include "sim/config/compression_reader.hpp"

#include <array>

#include "sim/config/section_readers.hpp"

namespace clustersim::config {
namespace {

constexpr std::array<EnumName<CompressionScheme>, 8> kSchemes{{{"none", CompressionScheme::none},
                                                                {"bf16", CompressionScheme::cast_bf16},
                                                                {"fp8", CompressionScheme::cast_fp8},
                                                                {"int8", CompressionScheme::int8},
                                                                {"int4", CompressionScheme::int4},
                                                                {"1bit", CompressionScheme::one_bit},
                                                                {"topk", CompressionScheme::top_k},
                                                                {"powersgd", CompressionScheme::power_sgd}}};

void read_compression(ObjectReader& r, Scenario& out) {
  GradientCompression& c = out.training.compression;
  c.scheme = r.require_enum("scheme", std::span<const EnumName<CompressionScheme>>(kSchemes), c.scheme);
  c.bucket_elements = r.integer("bucket_elements", c.bucket_elements, {.min = 1});
  c.top_k_fraction = r.number("top_k_fraction", c.top_k_fraction, {.min = 0.0, .max = 1.0, .min_exclusive = true});
  c.power_sgd_rank = r.integer("power_sgd_rank", c.power_sgd_rank, {.min = 1});
  c.error_feedback = r.boolean("error_feedback", c.error_feedback);
}

}  // namespace

SectionSpec compression_section() { return {"compression", false, read_compression, {}}; }

}  // namespace clustersim::config
