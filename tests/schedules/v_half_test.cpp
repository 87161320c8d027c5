// V-Half (Qi et al., "Pipeline Parallelism with Controllable Memory", arXiv:2405.15362, 2024), as the
// authors' branch v-half-vocab runs it (sail-sg/zero-bubble-pipeline-parallelism 92895b9a, zbv_greedy.py:
// stable_pattern_v_half, put_w(split_w=True), do_reorder=False): op order, V placement, dependencies,
// activation peak and the bubble measured with the test-only list scheduler.
#include "tests/catch.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "schedules/pipeline_deps.hpp"
#include "schedules/pipeline_schedule.hpp"
#include "schedules/stage_op_cursor.hpp"
#include "tests/schedules/list_scheduler.hpp"

using namespace clustersim;
using test::OpTimes;
using test::run_list_schedule;
using test::Timeline;

namespace {

ScheduleSpec v_half(int p, int m, int vocab_slots = 0) {
  return schedule_spec(ScheduleKind::v_half, p, m, 1, vocab_slots);
}

std::vector<ScheduleSpec> grid() {
  std::vector<ScheduleSpec> specs;
  for (int vocab : {0, 6, 12}) {
    for (int p = 1; p <= 9; ++p) {
      for (int m = 1; m <= 3 * p + 2; ++m) specs.push_back(v_half(p, m, vocab));
    }
  }
  return specs;
}

}  // namespace

TEST_CASE("v-half is a schedule name, its spec holds two chunks per stage and splits the backward") {
  CHECK(schedule_from_string("v-half") == ScheduleKind::v_half);
  CHECK(to_string(ScheduleKind::v_half) == "v-half");
  const ScheduleSpec spec = v_half(4, 8);
  CHECK(spec.chunks == 2);
  CHECK(spec.vocab_slots == 0);
  CHECK(splits_backward(ScheduleKind::v_half));
  CHECK(chunk_microbatches(spec) == 8);  // every microbatch runs through both chunks
  CHECK(ops_per_stage(spec) == 48);      // F, B, W per microbatch per chunk
  CHECK(v_half(4, 8, 6).vocab_slots == 6);
}

TEST_CASE("v-half places chunk 0 on stages 0..p-1 and chunk 1 on p-1..0: 2p virtual stages") {
  const ScheduleSpec spec = v_half(4, 8);
  CHECK(virtual_stage_count(spec) == 8);
  for (int s = 0; s < 4; ++s) {
    CHECK(virtual_stage(spec, s, 0) == s);
    CHECK(virtual_stage(spec, s, 1) == 7 - s);
  }
}

TEST_CASE("v-half op orders equal the authors' zbv_greedy.py output (v-half-vocab 92895b9a)") {
  // Printed by running the reference's PipelineGraph(p, m, 'half', 1000, 1000, 1000, 1).create_schedule
  // (as runtime.py calls it) outside this repository; "B0.c1" is its chunk-1 B ('B' in its names),
  // "B0" its chunk-0 B ('b').
  SECTION("p = 4, m = 8 (even p: interval 3)") {
    const auto s = build_schedule(v_half(4, 8));
    CHECK(test::op_listing(s[0]) ==
          "F0 F1 F0.c1 F2 B0.c1 W0.c1 F1.c1 F3 B1.c1 W1.c1 F2.c1 F4 B0 B2.c1 W2.c1 F3.c1 W0 F5 B1 B3.c1 W3.c1 "
          "F4.c1 W1 F6 B2 B4.c1 W4.c1 F5.c1 W2 F7 B3 B5.c1 W5.c1 F6.c1 W3 B4 B6.c1 W6.c1 F7.c1 W4 B5 B7.c1 "
          "W7.c1 W5 B6 W6 B7 W7");
    CHECK(test::op_listing(s[1]) ==
          "F0 F1 F0.c1 F2 F1.c1 B0.c1 W0.c1 F3 F2.c1 B1.c1 W1.c1 B0 W0 F4 F3.c1 B2.c1 W2.c1 B1 W1 F5 F4.c1 "
          "B3.c1 W3.c1 B2 W2 F6 F5.c1 B4.c1 W4.c1 B3 W3 F7 F6.c1 B5.c1 W5.c1 B4 W4 F7.c1 B6.c1 W6.c1 B5 W5 "
          "B7.c1 W7.c1 B6 W6 B7 W7");
    CHECK(test::op_listing(s[2]) ==
          "F0 F0.c1 F1 F1.c1 F2 B0.c1 W0.c1 F2.c1 F3 B0 B1.c1 W1.c1 F3.c1 W0 F4 B1 B2.c1 W2.c1 F4.c1 W1 F5 B2 "
          "B3.c1 W3.c1 F5.c1 W2 F6 B3 B4.c1 W4.c1 F6.c1 W3 F7 B4 B5.c1 W5.c1 F7.c1 W4 B5 B6.c1 W6.c1 W5 B6 "
          "B7.c1 W7.c1 W6 B7 W7");
    CHECK(test::op_listing(s[3]) ==
          "F0 F0.c1 F1 F1.c1 F2 F2.c1 B0.c1 W0.c1 B0 W0 F3 F3.c1 B1.c1 W1.c1 B1 W1 F4 F4.c1 B2.c1 W2.c1 B2 W2 "
          "F5 F5.c1 B3.c1 W3.c1 B3 W3 F6 F6.c1 B4.c1 W4.c1 B4 W4 F7 F7.c1 B5.c1 W5.c1 B5 W5 B6.c1 W6.c1 B6 "
          "W6 B7.c1 W7.c1 B7 W7");
  }
  SECTION("p = 3, m = 4 (odd p: interval 0)") {
    const auto s = build_schedule(v_half(3, 4));
    CHECK(test::op_listing(s[0]) ==
          "F0 F1 F0.c1 B0.c1 W0.c1 F2 F1.c1 B1.c1 W1.c1 B0 W0 F3 F2.c1 B2.c1 W2.c1 B1 W1 F3.c1 B3.c1 W3.c1 B2 "
          "W2 B3 W3");
    CHECK(test::op_listing(s[1]) ==
          "F0 F0.c1 F1 B0.c1 W0.c1 F1.c1 F2 B0 B1.c1 W1.c1 F2.c1 W0 F3 B1 B2.c1 W2.c1 F3.c1 W1 B2 B3.c1 W3.c1 "
          "W2 B3 W3");
    CHECK(test::op_listing(s[2]) ==
          "F0 F0.c1 F1 F1.c1 B0.c1 W0.c1 B0 W0 F2 F2.c1 B1.c1 W1.c1 B1 W1 F3 F3.c1 B2.c1 W2.c1 B2 W2 B3.c1 "
          "W3.c1 B3 W3");
  }
  SECTION("p = 2, m = 3 with vocabulary parallelism (6 more slots: --enable-vocab-parallel)") {
    const auto s = build_schedule(v_half(2, 3, 6));
    CHECK(test::op_listing(s[0]) == "F0 F0.c1 F1 F1.c1 F2 B0.c1 W0.c1 F2.c1 B0 B1.c1 W1.c1 W0 B1 B2.c1 W2.c1 W1 B2 W2");
    CHECK(test::op_listing(s[1]) == "F0 F0.c1 F1 F1.c1 F2 F2.c1 B0.c1 W0.c1 B0 W0 B1.c1 W1.c1 B1 W1 B2.c1 W2.c1 B2 W2");
  }
}

TEST_CASE("v-half runs each microbatch once per stage per chunk: F, then B, then W") {
  for (const ScheduleSpec& spec : grid()) {
    INFO("p " << spec.stages << " m " << spec.microbatches << " vocab_slots " << spec.vocab_slots);
    const auto sched = build_schedule(spec);
    for (int s = 0; s < spec.stages; ++s) {
      const auto& ops = sched[static_cast<std::size_t>(s)];
      REQUIRE(static_cast<int>(ops.size()) == 6 * spec.microbatches);
      std::map<std::tuple<int, int, int>, int> position;  // (kind, microbatch, chunk) -> index
      for (int i = 0; i < static_cast<int>(ops.size()); ++i) {
        const PipelineOp& op = ops[static_cast<std::size_t>(i)];
        CHECK(op.kind != OpKind::backward);
        CHECK((op.chunk == 0 || op.chunk == 1));
        const auto key = std::make_tuple(static_cast<int>(op.kind), op.microbatch, op.chunk);
        CHECK(position.count(key) == 0);
        position[key] = i;
      }
      REQUIRE(position.size() == ops.size());
      for (int mb = 0; mb < spec.microbatches; ++mb) {
        for (int c = 0; c < 2; ++c) {
          const int f = position.at({static_cast<int>(OpKind::forward), mb, c});
          const int b = position.at({static_cast<int>(OpKind::backward_input), mb, c});
          const int w = position.at({static_cast<int>(OpKind::backward_weight), mb, c});
          CHECK(f < b);
          CHECK(b < w);
        }
      }
    }
  }
}

TEST_CASE("v-half dependencies run down chunk 0, turn on stage p-1, run up chunk 1, and back") {
  const ScheduleSpec spec = v_half(4, 8);
  const auto dep = [&](int stage, OpKind kind, int mb, int chunk) {
    return data_dependency(spec, stage, PipelineOp{kind, mb, chunk});
  };
  CHECK(!dep(0, OpKind::forward, 3, 0).has_value());  // virtual stage 0 reads the batch
  CHECK(*dep(2, OpKind::forward, 3, 0) == OpRef{1, {OpKind::forward, 3, 0}});
  CHECK(*dep(3, OpKind::forward, 3, 1) == OpRef{3, {OpKind::forward, 3, 0}});  // the turn: same device
  CHECK(!crosses_stage(3, *dep(3, OpKind::forward, 3, 1)));
  CHECK(*dep(1, OpKind::forward, 3, 1) == OpRef{2, {OpKind::forward, 3, 1}});
  // The loss is on stage 0 (virtual stage 2p-1): chunk 1's B there reads its own forward.
  CHECK(*dep(0, OpKind::backward_input, 3, 1) == OpRef{0, {OpKind::forward, 3, 1}});
  CHECK(*dep(2, OpKind::backward_input, 3, 1) == OpRef{1, {OpKind::backward_input, 3, 1}});
  CHECK(*dep(3, OpKind::backward_input, 3, 0) == OpRef{3, {OpKind::backward_input, 3, 1}});
  CHECK(*dep(1, OpKind::backward_input, 3, 0) == OpRef{2, {OpKind::backward_input, 3, 0}});
  CHECK(*dep(1, OpKind::backward_weight, 3, 0) == OpRef{1, {OpKind::backward_input, 3, 0}});
  CHECK_THROWS_AS(dep(1, OpKind::backward, 3, 0), std::invalid_argument);  // v-half splits the backward
  CHECK_THROWS_AS(dep(1, OpKind::forward, 3, 2), std::invalid_argument);
}

TEST_CASE("v-half never deadlocks, with equal and unequal op times and p2p latency") {
  for (const ScheduleSpec& spec : grid()) {
    INFO("p " << spec.stages << " m " << spec.microbatches << " vocab_slots " << spec.vocab_slots);
    const auto sched = build_schedule(spec);
    for (const OpTimes& t : {OpTimes{1, 2, 1, 1, 0}, OpTimes{3, 6, 2, 1, 1}, OpTimes{1, 2, 2, 3, 2}}) {
      const Timeline tl = run_list_schedule(spec, sched, t);
      CHECK(!tl.deadlock);
    }
  }
}

TEST_CASE("v-half holds 2 floor((p+2)/2) chunk activation sets: about half of 1F1B's p stage-sized sets") {
  // Qi et al. 2024 (arXiv:2405.15362; the authors' summary table in huggingface.co/spaces/sail/
  // pipeline-parallelism-with-controllable-memory, description1.md): activation memory in microbatches
  // 1F1B p, V-Half (p+2)//2. A chunk holds half a stage's layers, so (p+2)//2 microbatches are
  // 2 floor((p+2)/2) chunk sets. Each 6 vocabulary slots keep one more microbatch (2 sets) in flight.
  for (const ScheduleSpec& spec : grid()) {
    const int p = spec.stages, m = spec.microbatches;
    const int want = 2 * ((p + 2) / 2) + spec.vocab_slots / 3;
    INFO("p " << p << " m " << m << " vocab_slots " << spec.vocab_slots);
    for (int s = 0; s < p; ++s) {
      const int peak = peak_inflight_activations(spec, s);
      CHECK(peak <= want);
      if (m >= p + 1 + spec.vocab_slots / 6) CHECK(peak == want);
    }
  }
  // p = 16, m = 128 (the Vocabulary Parallelism paper's 16-GPU V-Half runs): 18 half-stage sets = 9
  // stage-sized sets against 1F1B's 16 on stage 0.
  CHECK(peak_inflight_activations(v_half(16, 128), 0) == 18);
  CHECK(peak_inflight_activations({ScheduleKind::one_f_one_b, 16, 128, 1}, 0) == 16);
  // In bytes: M_W = M_B gives the set count times M_B; with M_W < M_B only the W's inputs stay after B,
  // never more.
  const ScheduleSpec spec = v_half(8, 32);
  for (int s = 0; s < 8; ++s) {
    CHECK(peak_activation_memory(spec, s, Bytes(4), Bytes(4)) == Bytes(40));
    CHECK(peak_activation_memory(spec, s, Bytes(4), Bytes(1)) <= Bytes(40));
  }
}

TEST_CASE("v-half bubble with unit chunk ops: (7p-4)/2 idle per stage for even p, 7(p-1)/2 for odd p") {
  // Measured with the list scheduler (F = B = W = 1 per chunk op, i.e. 2 per whole stage; no p2p
  // latency) for m >= p: between ZB-H1's (p-1)(F+B-W) = 2(p-1) and 1F1B's (p-1)(F+B+W) = 6(p-1) in the
  // same units (about 7/12 of 1F1B's for large p). The branch the records ran does not reorder warm-up
  // and cool-down (do_reorder=False); the authors' table gives the reordered V-Half about p/(2m), half of
  // 1F1B's p/m.
  for (int p = 1; p <= 10; ++p) {
    for (int m : {p, p + 1, 2 * p, 4 * p + 3}) {
      const ScheduleSpec spec = v_half(p, m);
      const Timeline tl = run_list_schedule(spec, build_schedule(spec), OpTimes{1, 2, 1, 1, 0});
      REQUIRE(!tl.deadlock);
      const std::int64_t want = p % 2 == 0 ? (7 * p - 4) / 2 : 7 * (p - 1) / 2;
      INFO("p " << p << " m " << m);
      for (int s = 0; s < p; ++s) CHECK(tl.idle(s) == want);
      const ScheduleSpec zb{ScheduleKind::zero_bubble_h1, p, m, 1};
      const Timeline z = run_list_schedule(zb, build_schedule(zb), OpTimes{2, 4, 2, 2, 0});
      const ScheduleSpec one{ScheduleKind::one_f_one_b, p, m, 1};
      const Timeline o = run_list_schedule(one, build_schedule(one), OpTimes{2, 4, 2, 2, 0});
      if (p > 1) {
        CHECK(tl.idle(0) > z.idle(0));
        CHECK(tl.idle(0) < o.idle(0));
      }
    }
  }
}

TEST_CASE("check() names each bad v-half input") {
  ScheduleSpec spec = v_half(4, 8);
  spec.chunks = 3;
  REQUIRE(check(spec).size() == 1);
  CHECK(check(spec).front().find("v-half holds exactly 2 chunks per stage") != std::string::npos);
  spec = v_half(4, 8, 7);
  REQUIRE(check(spec).size() == 1);
  CHECK(check(spec).front().find("v-half reserves 0, 6 or 12 vocabulary slots (got 7)") != std::string::npos);
  spec = schedule_spec(ScheduleKind::one_f_one_b, 4, 8, 1, 6);
  REQUIRE(check(spec).size() == 1);
  CHECK(check(spec).front().find("vocab_slots is a v-half setting") != std::string::npos);
  CHECK_THROWS_AS(build_schedule(v_half(4, 8, 7)), std::invalid_argument);
  CHECK(is_valid(v_half(1, 1)));  // one stage and one microbatch are fine (nothing the reference asserts)
  CHECK(is_valid(v_half(5, 3, 12)));
}
