// The region of configurations the held-out (test-split) published runs validate, and whether a plan
// strategy lies inside it (docs/validation.md, "Trusted region").
//
// A validated point is a test-split record the simulator predicted within `max_error` of its measurement.
// A strategy is trusted when some validated point ran on the same device at the same precision (FP16 and
// BF16 count as one: the same tensor-core rate) and used
// every parallelism kind the strategy uses (TP, PP, CP, interleaving, ZeRO-3/FSDP), and the strategy's
// device count lies within the device counts of those points. Otherwise the note names the first
// dimension no point covers. The region says where the model has been checked, not that it is right
// there: a point's error is the record's, within `max_error`.
#pragma once

#include <string>
#include <vector>

#include "sim/plan/strategy.hpp"
#include "sim/report/validation.hpp"
#include "sim/scenario/scenario.hpp"

namespace clustersim::plan {

/// Parallelism kinds as bits: which ones a configuration uses.
enum ParallelismKind : unsigned {
  kind_tp = 1,           // tp > 1
  kind_pp = 2,           // pp > 1
  kind_cp = 4,           // cp > 1
  kind_interleaved = 8,  // vp > 1
  kind_sharded = 16,     // ZeRO-3 / FSDP full sharding
  kind_ep = 32,          // expert parallelism (MoE)
};

/// The kinds `p` uses.
unsigned parallelism_kinds(const ParallelismSpec& p);
/// "TP+PP+CP", "none" for pure data parallelism.
std::string kinds_text(unsigned kinds);

struct ValidatedPoint {
  std::string id;
  std::string device;
  std::string precision;  // precision class: "fp16/bf16", "fp8", ...
  unsigned kinds = 0;
  int devices = 0;
  double rel_error = 0;
};

struct TrustRegion {
  double max_error = 0.25;
  std::vector<ValidatedPoint> points;
};

/// The test-split rows of `r` whose |rel_error| <= max_error.
TrustRegion trust_region(const ValidationResult& r, double max_error);

struct TrustVerdict {
  bool trusted = false;
  std::string note;  // which records cover it, or what no record covers
};

/// Whether `st` on `base` (its device and precision) with `devices` devices lies inside `region`.
TrustVerdict classify(const TrustRegion& region, const Scenario& base, const Strategy& st, int devices);

}  // namespace clustersim::plan
