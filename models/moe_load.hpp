// Expert-load imbalance: how much more work the busiest expert-parallel rank does than the mean.
//
// A MoE layer finishes when its slowest EP rank does (its grouped GEMMs and the all-to-all bytes it
// receives), so the layer time scales with the busiest rank's token load L = max / mean (>= 1):
//   - `load_imbalance` states L directly (e.g. measured from router statistics);
//   - `zipf_skew` s > 0 derives it from a Zipf popularity of the experts, p_i ∝ i^(−s), i = 1..E: the
//     busiest rank holds the most popular expert plus E/ep − 1 experts of average remaining popularity
//     (experts are placed without regard to popularity), L = ep · (p_1 + (E/ep − 1)(1 − p_1)/(E − 1));
//   - a capacity factor c > 0 drops the tokens beyond c x an expert's mean load, so L <= c.
// With ep = 1 every expert is on one rank and L = 1.
#pragma once

#include "models/transformer.hpp"

namespace clustersim {

/// Token load of the busiest of `ep` expert-parallel ranks over the mean, >= 1.
double moe_rank_load(const MoeSpec& m, int ep);

}  // namespace clustersim
