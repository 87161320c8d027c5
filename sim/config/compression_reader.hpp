// The optional top-level `compression` section of an experiment: gradient compression of the
// data-parallel gradient synchronisation (models/compression.hpp; keys in docs/compression.md).
//
//   "compression": { "scheme": "1bit", "bucket_elements": 2048, "top_k_fraction": 0.01,
//                    "power_sgd_rank": 4, "error_feedback": true }
// scheme: none | bf16 | fp8 | int8 | int4 | 1bit | topk | powersgd. Fills Scenario::training.compression.
#pragma once

#include "sim/config/section_registry.hpp"

namespace clustersim::config {

SectionSpec compression_section();

}  // namespace clustersim::config
