#include "tests/catch.hpp"

#include <algorithm>
#include <stdexcept>

#include "schedules/pipeline_deps.hpp"
#include "schedules/stage_op_cursor.hpp"

using namespace clustersim;

TEST_CASE("a forward needs the forward of the previous virtual stage, virtual stage 0 needs nothing") {
  const ScheduleSpec spec{ScheduleKind::interleaved_1f1b, 4, 8, 2};
  CHECK_FALSE(data_dependency(spec, 0, {OpKind::forward, 3, 0}).has_value());
  // chunk 0 on stage 2 is virtual stage 2, fed by stage 1
  CHECK(data_dependency(spec, 2, {OpKind::forward, 3, 0}) == OpRef{1, {OpKind::forward, 3, 0}});
  // chunk 1 on stage 0 is virtual stage 4, fed by chunk 0 on the last stage (wrap-around)
  const auto dep = data_dependency(spec, 0, {OpKind::forward, 5, 1});
  REQUIRE(dep.has_value());
  CHECK(*dep == OpRef{3, {OpKind::forward, 5, 0}});
  CHECK(crosses_stage(0, *dep));
}

TEST_CASE(
    "a backward needs the backward of the next virtual stage, the last virtual stage needs its own forward") {
  const ScheduleSpec spec{ScheduleKind::interleaved_1f1b, 4, 8, 2};
  const auto last = data_dependency(spec, 3, {OpKind::backward, 2, 1});
  REQUIRE(last.has_value());
  CHECK(*last == OpRef{3, {OpKind::forward, 2, 1}});
  CHECK_FALSE(crosses_stage(3, *last));
  // chunk 0 on the last stage (virtual stage 3) gets its gradient from chunk 1 on stage 0
  CHECK(data_dependency(spec, 3, {OpKind::backward, 2, 0}) == OpRef{0, {OpKind::backward, 2, 1}});
  CHECK(data_dependency(spec, 1, {OpKind::backward, 2, 0}) == OpRef{2, {OpKind::backward, 2, 0}});
}

TEST_CASE("a split backward's B needs the next stage's B, and its W needs its own B on the same stage") {
  const ScheduleSpec spec{ScheduleKind::zero_bubble_h1, 4, 8, 1};
  CHECK(data_dependency(spec, 1, {OpKind::backward_input, 5, 0}) == OpRef{2, {OpKind::backward_input, 5, 0}});
  CHECK(data_dependency(spec, 3, {OpKind::backward_input, 5, 0}) == OpRef{3, {OpKind::forward, 5, 0}});
  const auto w = data_dependency(spec, 1, {OpKind::backward_weight, 5, 0});
  REQUIRE(w.has_value());
  CHECK(*w == OpRef{1, {OpKind::backward_input, 5, 0}});
  CHECK_FALSE(crosses_stage(1, *w));
}

TEST_CASE("with one stage and several chunks, chunk-to-chunk dependencies stay on the device") {
  const ScheduleSpec spec{ScheduleKind::interleaved_1f1b, 1, 2, 3};
  const auto dep = data_dependency(spec, 0, {OpKind::forward, 1, 2});
  REQUIRE(dep.has_value());
  CHECK(*dep == OpRef{0, {OpKind::forward, 1, 1}});
  CHECK_FALSE(crosses_stage(0, *dep));
}

TEST_CASE("data_dependency rejects ops the schedule cannot contain") {
  const ScheduleSpec one_f_one_b{ScheduleKind::one_f_one_b, 4, 8, 1};
  CHECK_THROWS_AS(data_dependency(one_f_one_b, 4, {OpKind::forward, 0, 0}), std::invalid_argument);
  CHECK_THROWS_AS(data_dependency(one_f_one_b, 0, {OpKind::forward, 8, 0}), std::invalid_argument);
  CHECK_THROWS_AS(data_dependency(one_f_one_b, 0, {OpKind::forward, 0, 1}), std::invalid_argument);
  CHECK_THROWS_AS(data_dependency(one_f_one_b, 0, {OpKind::backward_weight, 0, 0}), std::invalid_argument);
  CHECK_THROWS_AS(data_dependency({ScheduleKind::zero_bubble_h1, 4, 8, 1}, 0, {OpKind::backward, 0, 0}),
                  std::invalid_argument);
  CHECK_THROWS_AS(data_dependency({ScheduleKind::one_f_one_b, 0, 8, 1}, 0, {OpKind::forward, 0, 0}),
                  std::invalid_argument);
}

TEST_CASE("1f1b stage s holds min(p - s, m) microbatches' activations at peak, stage 0 holds min(p, m)") {
  for (int p : {1, 2, 4, 8}) {
    for (int m : {1, 3, 4, 8, 16}) {
      for (int s = 0; s < p; ++s) {
        CHECK(peak_inflight_activations({ScheduleKind::one_f_one_b, p, m, 1}, s) == std::min(p - s, m));
      }
    }
  }
  CHECK(peak_inflight_activations({ScheduleKind::one_f_one_b, 8, 32, 1}, 0) == 8);
}

TEST_CASE("gpipe holds all m microbatches' activations on every stage") {
  for (int s = 0; s < 4; ++s) CHECK(peak_inflight_activations({ScheduleKind::gpipe, 4, 12, 1}, s) == 12);
}

TEST_CASE(
    "interleaved-1f1b stage 0 holds v p + p - 1 chunk activations, Korthikanti's p (1 + (p-1)/(p v)) "
    "stages") {
  for (int p : {2, 4, 8}) {
    for (int v : {2, 3, 4}) {
      const int m = 4 * p;
      CHECK(peak_inflight_activations({ScheduleKind::interleaved_1f1b, p, m, v}, 0) == v * p + p - 1);
      for (int s = 0; s < p; ++s) {
        CHECK(peak_inflight_activations({ScheduleKind::interleaved_1f1b, p, m, v}, s) ==
              2 * (p - s - 1) + (v - 1) * p + 1);
      }
    }
  }
  // When m = p the first stage runs every forward before any backward.
  CHECK(peak_inflight_activations({ScheduleKind::interleaved_1f1b, 4, 4, 2}, 0) == 8);
}

TEST_CASE(
    "zb-h1 keeps 1f1b's peak: at most p microbatches between forward and weight gradient on any stage") {
  for (int p : {2, 4, 8}) {
    for (int m : {1, 2, 4, 8, 16}) {
      int zb_max = 0, one_f_one_b_max = 0;
      for (int s = 0; s < p; ++s) {
        zb_max = std::max(zb_max, peak_inflight_activations({ScheduleKind::zero_bubble_h1, p, m, 1}, s));
        one_f_one_b_max =
            std::max(one_f_one_b_max, peak_inflight_activations({ScheduleKind::one_f_one_b, p, m, 1}, s));
      }
      CHECK(zb_max == std::min(p, m));
      CHECK(zb_max == one_f_one_b_max);
    }
  }
}

TEST_CASE("zb-h1's peak in O(1) equals the op-by-op walk of its stage") {
  for (int p : {1, 2, 3, 4, 8, 12}) {
    for (int m = 1; m <= 40; ++m) {
      for (int s = 0; s < p; ++s) {
        const ScheduleSpec spec{ScheduleKind::zero_bubble_h1, p, m, 1};
        StageOpCursor cursor(spec, s);
        int held = 0, peak = 0;
        while (!cursor.done()) {
          const OpKind k = cursor.next_kind();
          if (k == OpKind::forward) peak = std::max(peak, ++held);
          if (k == OpKind::backward_weight) --held;
        }
        CHECK(peak_inflight_activations(spec, s) == peak);
      }
    }
  }
  // 10^8 microbatches: no walk (it took ~1 s per call before).
  CHECK(peak_inflight_activations({ScheduleKind::zero_bubble_h1, 8, 100000000, 1}, 3) == 8);
}

TEST_CASE("peak activation memory weighs B-to-W leftovers by M_W (Qi et al. 2024 Sec. 2.3)") {
  const ScheduleSpec zb{ScheduleKind::zero_bubble_h1, 4, 8, 1};
  const Bytes mb(100), mw(40);
  // Equal sizes reproduce the in-flight count.
  for (int s = 0; s < 4; ++s) {
    CHECK(peak_activation_memory(zb, s, mb, mb).value() == Approx(100.0 * peak_inflight_activations(zb, s)));
  }
  // Last stage: F0 B0 F1 B1 F2 B2 F3 B3 W0 F4 ...: right after F3 (and after every later F) it holds
  // one microbatch's M_B and three microbatches' M_W.
  CHECK(peak_activation_memory(zb, 3, mb, mw).value() == Approx(100.0 + 3 * 40.0));
  // Stage 0 runs W right after B, so its peak is 1F1B's: p M_B.
  CHECK(peak_activation_memory(zb, 0, mb, mw).value() == Approx(400.0));
  // Fused backwards ignore M_W.
  const ScheduleSpec f1b{ScheduleKind::one_f_one_b, 4, 8, 1};
  CHECK(peak_activation_memory(f1b, 1, mb, mw).value() == Approx(300.0));
  CHECK_THROWS_AS(peak_activation_memory(f1b, 1, Bytes(-1), mw), std::invalid_argument);
}

TEST_CASE(
    "zb-h1 stage s peaks at (p - s) M_B + s M_W, and stage 0's p M_B is 1f1b's peak (Qi et al. 2024 Sec. "
    "2.3)") {
  const Bytes mb(34.0), mw(32.0);  // Table 1 per-layer ratio with a = s = 0: M_B = 34 sbh, M_W = 32 sbh
  for (int p : {2, 4, 8}) {
    for (int m : {p, 2 * p, 3 * p + 1}) {
      const ScheduleSpec zb{ScheduleKind::zero_bubble_h1, p, m, 1};
      for (int s = 0; s < p; ++s) {
        CHECK(peak_activation_memory(zb, s, mb, mw).value() == Approx((p - s) * 34.0 + s * 32.0));
      }
      CHECK(peak_activation_memory(zb, 0, mb, mw) ==
            peak_activation_memory({ScheduleKind::one_f_one_b, p, m, 1}, 0, mb, mw));
    }
  }
}
