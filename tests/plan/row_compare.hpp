// Two sweep evaluators over one space must format every point to the same bytes (typed patch against the
// JSON re-read, direct rows against rows flattened from the report JSON).
#pragma once

#include <cstdint>
#include <string>

#include "tests/catch.hpp"
#include "sim/plan/point_evaluator.hpp"
#include "sim/plan/row_format.hpp"

namespace clustersim::plan::testing {

inline void check_same_rows(PointEvaluator& a, PointEvaluator& b, const SweepSpace& space, const RowSchema& schema,
                            RowFormat f, const std::string& label) {
  const RowFormatter format(f, schema, space);
  SweepRow ra, rb;
  for (std::uint64_t i = 0; i < space.size(); ++i) {
    a.evaluate(i, ra);
    b.evaluate(i, rb);
    std::string ta, tb;
    format.append(ra, ta);
    format.append(rb, tb);
    INFO(label << " point " << i << ": " << tb);
    CHECK(ta == tb);
  }
}

}  // namespace clustersim::plan::testing
