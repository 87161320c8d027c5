// DualPipe (DeepSeek-AI, "DeepSeek-V3 Technical Report", arXiv:2412.19437, Section 3.2.1, Fig. 5,
// Table 2; op order of deepseek-ai/DualPipe dualpipe.py): op order, directions, dependencies,
// activation peak and the bubble measured with the test-only list scheduler.
#include "tests/catch.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <stdexcept>
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

ScheduleSpec dualpipe(int p, int m) {
  return schedule_spec(ScheduleKind::dualpipe, p, m);
}

std::vector<ScheduleSpec> grid() {
  std::vector<ScheduleSpec> specs;
  for (int p : {2, 4, 6, 8, 16}) {
    for (int m : {2 * p, 2 * p + 2, 3 * p, 4 * p, 4 * p + 6}) {
      if (is_valid(dualpipe(p, m))) specs.push_back(dualpipe(p, m));
    }
  }
  return specs;
}

Timeline run(const ScheduleSpec& spec, const OpTimes& times) {
  return run_list_schedule(spec, build_schedule(spec), times);
}

}  // namespace

TEST_CASE("dualpipe is a schedule name and its spec holds two chunks per stage") {
  CHECK(schedule_from_string("dualpipe") == ScheduleKind::dualpipe);
  CHECK(to_string(ScheduleKind::dualpipe) == "dualpipe");
  const ScheduleSpec spec = dualpipe(4, 8);
  CHECK(spec.chunks == 2);
  CHECK(schedule_spec(ScheduleKind::one_f_one_b, 4, 8).chunks == 1);
  CHECK(schedule_spec(ScheduleKind::interleaved_1f1b, 4, 8, 3).chunks == 3);
  CHECK(splits_backward(ScheduleKind::dualpipe));
  CHECK(ops_per_stage(spec) == 24);
}

TEST_CASE("chunk 0 of stage s is model stage s and chunk 1 is model stage p-1-s, the model has p stages") {
  const ScheduleSpec spec = dualpipe(8, 16);
  CHECK(virtual_stage_count(spec) == 8);
  for (int s = 0; s < 8; ++s) {
    CHECK(virtual_stage(spec, s, 0) == s);
    CHECK(virtual_stage(spec, s, 1) == 7 - s);
  }
  // The other schedules keep the round-robin numbering.
  const ScheduleSpec interleaved{ScheduleKind::interleaved_1f1b, 4, 8, 3};
  CHECK(virtual_stage_count(interleaved) == 12);
  CHECK(virtual_stage(interleaved, 2, 1) == 6);
  CHECK(virtual_stage_count({ScheduleKind::zero_bubble_h1, 4, 8, 1}) == 4);
}

TEST_CASE(
    "dualpipe runs each microbatch once per stage, on the chunk of its direction, F before B before W") {
  for (const ScheduleSpec& spec : grid()) {
    INFO("p=" << spec.stages << " m=" << spec.microbatches);
    const int half = spec.microbatches / 2;
    const auto schedule = build_schedule(spec);
    REQUIRE(static_cast<int>(schedule.size()) == spec.stages);
    for (const auto& ops : schedule) {
      CHECK(static_cast<int>(ops.size()) == ops_per_stage(spec));
      std::map<std::tuple<OpKind, int, int>, std::size_t> at;
      for (std::size_t i = 0; i < ops.size(); ++i) at[{ops[i].kind, ops[i].microbatch, ops[i].chunk}] = i;
      CHECK(at.size() == ops.size());  // no op twice
      for (int mb = 0; mb < spec.microbatches; ++mb) {
        const int c = mb / half;  // the first m/2 go forward (chunk 0), the others in reverse (chunk 1)
        REQUIRE(at.count({OpKind::forward, mb, c}) == 1);
        REQUIRE(at.count({OpKind::backward_input, mb, c}) == 1);
        REQUIRE(at.count({OpKind::backward_weight, mb, c}) == 1);
        CHECK(at[{OpKind::forward, mb, c}] < at[{OpKind::backward_input, mb, c}]);
        CHECK(at[{OpKind::backward_input, mb, c}] < at[{OpKind::backward_weight, mb, c}]);
      }
    }
  }
}

TEST_CASE("dualpipe follows the reference's eight steps (p=4, m=8), mirrored on the second half") {
  // Derived by hand from DualPipe.step with P = 2, M = 4. Stage 0 (h = 0): step 1 F0 F1; step 2 F2 F4.c1;
  // step 3 B4.c1 W4.c1 F5.c1; step 4 F3 B5.c1(+W) F6.c1 B0(+W); step 5 B6.c1(+W) F7.c1 B1(+W); step 6
  // B7.c1(+W) B2 (W deferred); step 7 W2 B3; step 8 W3. Stage 1 (h = 1, a middle stage) has no steps 1,
  // 3, 5, 7, two iterations of step 4, and defers the W's of the last two of step 6's four B's.
  const auto s = build_schedule(dualpipe(4, 8));
  CHECK(test::op_listing(s[0]) ==
        "F0 F1 F2 F4.c1 B4.c1 W4.c1 F5.c1 F3 B5.c1 W5.c1 F6.c1 B0 W0 B6.c1 W6.c1 F7.c1 B1 W1 B7.c1 W7.c1 "
        "B2 W2 B3 W3");
  CHECK(test::op_listing(s[1]) ==
        "F0 F4.c1 F1 F5.c1 F2 B4.c1 W4.c1 F6.c1 B0 W0 F3 B5.c1 W5.c1 F7.c1 B1 W1 B6.c1 W6.c1 B2 W2 B7.c1 "
        "B3 W7.c1 W3");
  CHECK(test::op_listing(s[2]) ==
        "F4.c1 F0 F5.c1 F1 F6.c1 B0 W0 F2 B4.c1 W4.c1 F7.c1 B1 W1 F3 B5.c1 W5.c1 B2 W2 B6.c1 W6.c1 B3 "
        "B7.c1 W3 W7.c1");
  CHECK(test::op_listing(s[3]) ==
        "F4.c1 F5.c1 F6.c1 F0 B0 W0 F1 F7.c1 B1 W1 F2 B4.c1 W4.c1 B2 W2 F3 B5.c1 W5.c1 B3 W3 B6.c1 W6.c1 "
        "B7.c1 W7.c1");
}

TEST_CASE(
    "dualpipe starts stages 0 and 7 as the reference README's / report's Fig. 5 (p=8, m=20) draws them") {
  // Device 0: forwards 0..6, a reverse forward, three rounds of reverse B, W, F, then F7 paired with a
  // reverse B. Device 7, its mirror: seven reverse forwards, then F0 B0 W0 F1 B1 W1 F2 B2 W2 F3.
  const auto s = build_schedule(dualpipe(8, 20));
  const auto prefix = [](const std::vector<PipelineOp>& ops, std::size_t n) {
    return test::op_listing(std::vector<PipelineOp>(ops.begin(), ops.begin() + static_cast<std::ptrdiff_t>(n)));
  };
  CHECK(
      prefix(s[0], 19) ==
      "F0 F1 F2 F3 F4 F5 F6 F10.c1 B10.c1 W10.c1 F11.c1 B11.c1 W11.c1 F12.c1 B12.c1 W12.c1 F13.c1 F7 B13.c1");
  CHECK(prefix(s[7], 17) == "F10.c1 F11.c1 F12.c1 F13.c1 F14.c1 F15.c1 F16.c1 F0 B0 W0 F1 B1 W1 F2 B2 W2 F3");
}

TEST_CASE("dualpipe warms up with p forwards, p + 1 on the two middle stages") {
  for (int p : {2, 4, 8}) {
    for (int s = 0; s < p; ++s) {
      const bool middle = s == p / 2 - 1 || s == p / 2;
      StageOpCursor cursor(dualpipe(p, 2 * p), s);
      CHECK(cursor.warmup_forwards() == (middle ? p + 1 : p));
      int forwards = 0;
      while (cursor.next_kind() == OpKind::forward) ++forwards;
      CHECK(forwards == cursor.warmup_forwards());
    }
  }
}

TEST_CASE("dualpipe's kind-only walk agrees with its op order") {
  for (const ScheduleSpec& spec : grid()) {
    for (int stage = 0; stage < spec.stages; ++stage) {
      const auto ops = build_stage_schedule(spec, stage);
      StageOpCursor kinds(spec, stage);
      for (const auto& op : ops) CHECK(kinds.next_kind() == op.kind);
      CHECK(kinds.done());
    }
  }
}

TEST_CASE("a forward-direction op reads from stage s-1, a reverse-direction op from stage s+1") {
  const ScheduleSpec spec = dualpipe(4, 8);
  // Microbatch 2 goes forward (chunk 0): enters at stage 0, its loss is on stage 3.
  CHECK_FALSE(data_dependency(spec, 0, {OpKind::forward, 2, 0}).has_value());
  CHECK(data_dependency(spec, 1, {OpKind::forward, 2, 0}) == OpRef{0, {OpKind::forward, 2, 0}});
  CHECK(data_dependency(spec, 3, {OpKind::backward_input, 2, 0}) == OpRef{3, {OpKind::forward, 2, 0}});
  CHECK(data_dependency(spec, 1, {OpKind::backward_input, 2, 0}) == OpRef{2, {OpKind::backward_input, 2, 0}});
  // Microbatch 6 goes in reverse (chunk 1): enters at stage 3, its loss is on stage 0.
  CHECK_FALSE(data_dependency(spec, 3, {OpKind::forward, 6, 1}).has_value());
  CHECK(data_dependency(spec, 1, {OpKind::forward, 6, 1}) == OpRef{2, {OpKind::forward, 6, 1}});
  CHECK(data_dependency(spec, 0, {OpKind::backward_input, 6, 1}) == OpRef{0, {OpKind::forward, 6, 1}});
  CHECK(data_dependency(spec, 2, {OpKind::backward_input, 6, 1}) == OpRef{1, {OpKind::backward_input, 6, 1}});
  CHECK(data_dependency(spec, 2, {OpKind::backward_weight, 6, 1}) ==
        OpRef{2, {OpKind::backward_input, 6, 1}});
  // Ops the schedule does not contain are refused.
  CHECK_THROWS_WITH(data_dependency(spec, 1, {OpKind::forward, 6, 0}),
                    Catch::Contains("dualpipe runs microbatch 6 on chunk 1 only"));
  CHECK_THROWS_AS(data_dependency(spec, 1, {OpKind::backward, 2, 0}), std::invalid_argument);
}

TEST_CASE("dualpipe's dependencies can be met: every stage finishes, also with unequal op times") {
  for (const ScheduleSpec& spec : grid()) {
    INFO("p=" << spec.stages << " m=" << spec.microbatches);
    for (const OpTimes& times : {OpTimes{1, 2, 1, 1, 0}, OpTimes{3, 5, 2, 3, 4}, OpTimes{1, 2, 3, 1, 1}}) {
      const Timeline tl = run(spec, times);
      REQUIRE_FALSE(tl.deadlock);
      for (int s = 0; s < spec.stages; ++s) {
        CHECK(tl.busy[static_cast<std::size_t>(s)] ==
              spec.microbatches * (times.forward + times.backward_input + times.backward_weight));
      }
    }
  }
}

TEST_CASE("dualpipe's bubble, ops run one after the other: (p/2 - 1)(F + B - W) for F >= B") {
  // Measured law over this grid: with F = B = W = 1 every stage idles p/2 - 1, half of zb-h1's p - 1 and
  // a sixth of 1f1b's 3(p - 1) for the same p and m (each stage runs the same m forwards of one model
  // stage in all three). It is below Table 2's (p/2 - 1)(F&B + B - 3W) = p - 2 (F&B = 3, full B = 2)
  // because here the F of an overlapped pair may start before the gradient its B needs has arrived.
  for (int p : {2, 4, 6, 8, 16}) {
    for (int m : {2 * p, 4 * p, 8 * p + 2}) {
      INFO("p=" << p << " m=" << m);
      const Timeline dp = run(dualpipe(p, m), OpTimes{1, 2, 1, 1, 0});
      const Timeline zb = run({ScheduleKind::zero_bubble_h1, p, m, 1}, OpTimes{1, 2, 1, 1, 0});
      const Timeline f1b = run({ScheduleKind::one_f_one_b, p, m, 1}, OpTimes{1, 2, 1, 1, 0});
      REQUIRE_FALSE(dp.deadlock);
      CHECK(dp.makespan == 3 * m + p / 2 - 1);
      for (int s = 0; s < p; ++s) {
        CHECK(dp.idle(s) == p / 2 - 1);
        CHECK(zb.idle(s) == p - 1);
        CHECK(2 * dp.idle(s) + 1 == zb.idle(s));
        CHECK(f1b.idle(s) == 3 * (p - 1));
      }
      for (const OpTimes& t : {OpTimes{2, 3, 2, 1, 0}, OpTimes{3, 3, 2, 1, 0}}) {
        const Timeline other = run(dualpipe(p, m), t);
        for (int s = 0; s < p; ++s) {
          CHECK(other.idle(s) == (p / 2 - 1) * (t.forward + t.backward_input - t.backward_weight));
        }
      }
    }
  }
}

namespace {

// Runs dualpipe with each overlapped F&B pair of the reference (steps 4 and 5: an F followed by the B of
// the other chunk and that B's W) as one unit of `pair_time` that starts once both the F's and the B's
// inputs are ready; the first such pair on the two middle stages is not overlapped in the reference
// and runs as single ops. Returns each stage's idle time.
std::vector<std::int64_t> idle_with_pairs(const ScheduleSpec& spec, const OpTimes& t,
                                          std::int64_t pair_time) {
  const int p = spec.stages;
  const auto schedule = build_schedule(spec);
  std::map<std::tuple<int, OpKind, int>, std::int64_t> done;  // (stage, kind, microbatch) -> finish
  const auto ready = [&](int stage, const PipelineOp& op) -> std::int64_t {
    std::int64_t r = 0;
    if (const auto dep = data_dependency(spec, stage, op)) {
      const auto it = done.find({dep->stage, dep->op.kind, dep->op.microbatch});
      if (it == done.end()) return -1;
      r = it->second;
    }
    return r;
  };
  const auto duration = [&](OpKind k) {
    return k == OpKind::forward          ? t.forward
           : k == OpKind::backward_input ? t.backward_input
                                         : t.backward_weight;
  };
  std::vector<std::size_t> next(static_cast<std::size_t>(p), 0);
  std::vector<std::int64_t> free_at(static_cast<std::size_t>(p), 0), busy(static_cast<std::size_t>(p), 0);
  std::size_t remaining = static_cast<std::size_t>(p) * static_cast<std::size_t>(ops_per_stage(spec));
  while (remaining > 0) {
    bool progress = false;
    for (int s = 0; s < p; ++s) {
      const auto& ops = schedule[static_cast<std::size_t>(s)];
      std::size_t& i = next[static_cast<std::size_t>(s)];
      std::int64_t& free = free_at[static_cast<std::size_t>(s)];
      while (i < ops.size()) {
        const bool middle_first = std::min(s, p - 1 - s) == p / 2 - 1 && i == static_cast<std::size_t>(p);
        const bool pair = ops[i].kind == OpKind::forward && i + 2 < ops.size() &&
                          ops[i + 1].kind == OpKind::backward_input && ops[i + 1].chunk != ops[i].chunk &&
                          !middle_first;
        const std::size_t n = pair ? 3 : 1;
        std::int64_t start = free;
        bool ok = true;
        for (std::size_t k = 0; k < (pair ? 2 : 1); ++k) {
          const std::int64_t r = ready(s, ops[i + k]);
          ok = ok && r >= 0;
          start = std::max(start, r);
        }
        if (!ok) break;
        const std::int64_t d = pair ? pair_time : duration(ops[i].kind);
        free = start + d;
        busy[static_cast<std::size_t>(s)] += d;
        for (std::size_t k = 0; k < n; ++k) done[{s, ops[i + k].kind, ops[i + k].microbatch}] = free;
        i += n;
        remaining -= n;
        progress = true;
      }
    }
    REQUIRE(progress);
  }
  const std::int64_t makespan = *std::max_element(free_at.begin(), free_at.end());
  std::vector<std::int64_t> idle;
  for (int s = 0; s < p; ++s) idle.push_back(makespan - busy[static_cast<std::size_t>(s)]);
  return idle;
}

}  // namespace

TEST_CASE(
    "dualpipe with its F&B pairs run as units idles Table 2's (PP/2 - 1)(F&B + B - 3W) when F = B = W") {
  // F = B = W = 1, full backward B + W = 2. A pair without overlap gain (F&B = 3): every stage idles
  // (p/2 - 1)(3 + 2 - 3) = p - 2. A pair that overlaps to F&B = 2: the middle stages, the worst, idle
  // (p/2 - 1)(2 + 2 - 3) = p/2 - 1.
  const OpTimes unit{1, 2, 1, 1, 0};
  for (int p : {2, 4, 6, 8, 16}) {
    for (int m : {2 * p, 4 * p}) {
      INFO("p=" << p << " m=" << m);
      for (const std::int64_t idle : idle_with_pairs(dualpipe(p, m), unit, 3)) CHECK(idle == p - 2);
      const auto overlapped = idle_with_pairs(dualpipe(p, m), unit, 2);
      CHECK(*std::max_element(overlapped.begin(), overlapped.end()) == p / 2 - 1);
    }
  }
}

TEST_CASE("dualpipe holds p + 1 microbatches' activations on every stage (Table 2: PP + 1)") {
  for (const ScheduleSpec& spec : grid()) {
    const int p = spec.stages;
    for (int s = 0; s < p; ++s) {
      CHECK(peak_inflight_activations(spec, s) == p + 1);
      // The peak comes right after step 4's first forward, when no deferred W is held: M_W plays no part.
      CHECK(peak_activation_memory(spec, s, Bytes(100), Bytes(40)).value() == Approx(100.0 * (p + 1)));
    }
  }
  // 1f1b's first stage holds p: DualPipe needs one microbatch more, of the same size (one model stage).
  CHECK(peak_inflight_activations({ScheduleKind::one_f_one_b, 8, 16, 1}, 0) + 1 ==
        peak_inflight_activations(dualpipe(8, 16), 0));
}

TEST_CASE("check() explains what dualpipe needs") {
  SECTION("an odd number of stages") {
    const auto problems = check(dualpipe(3, 12));
    REQUIRE(problems.size() == 1);
    CHECK(problems[0] ==
          "dualpipe needs an even number of stages (got 3): each stage pairs with stage p-1-s");
  }
  SECTION("fewer than 2p microbatches") {
    const auto problems = check(dualpipe(4, 6));
    REQUIRE(problems.size() == 1);
    CHECK(problems[0] == "dualpipe needs an even number of microbatches, at least 2 x stages = 8 (got 6)");
  }
  SECTION("an odd number of microbatches") {
    const auto problems = check(dualpipe(4, 9));
    REQUIRE(problems.size() == 1);
    CHECK_THAT(problems[0], Catch::StartsWith("dualpipe needs an even number of microbatches"));
  }
  SECTION("a chunk count other than 2") {
    const auto problems = check({ScheduleKind::dualpipe, 4, 8, 1});
    REQUIRE(problems.size() == 1);
    CHECK(problems[0] == "dualpipe holds exactly 2 chunks per stage, one per direction (got chunks = 1)");
    CHECK_FALSE(is_valid(schedule_spec(ScheduleKind::dualpipe, 4, 8, 2)));
  }
  SECTION("valid specs pass and is_valid agrees") {
    for (const ScheduleSpec& spec : grid()) CHECK(check(spec).empty());
    CHECK_FALSE(is_valid(dualpipe(2, 2)));
    CHECK_THROWS_WITH(build_schedule(dualpipe(6, 10)), Catch::Contains("at least 2 x stages = 12"));
  }
}

TEST_CASE("dualpipe marks the ops of its overlapped F&B pairs (dualpipe.py's _forward_backward_chunk)") {
  // p=4, m=8 (the listing of the eight-step test above). Overlapped: step 4's F0B1 and F1B0 pairs (B with
  // its W) except the middle stages' first pair, and step 5's F1B0; every other op runs alone.
  const auto marked = [](int stage) {
    std::string s;
    for (StageOpCursor c(dualpipe(4, 8), stage); !c.done();) {
      const PipelineOp op = c.next();
      if (!s.empty()) s += ' ';
      if (c.overlapped()) s += '*';
      s += to_string(op);
    }
    return s;
  };
  CHECK(marked(0) ==
        "F0 F1 F2 F4.c1 B4.c1 W4.c1 F5.c1 *F3 *B5.c1 *W5.c1 *F6.c1 *B0 *W0 B6.c1 W6.c1 *F7.c1 *B1 *W1 B7.c1 "
        "W7.c1 B2 W2 B3 W3");
  CHECK(marked(1) ==
        "F0 F4.c1 F1 F5.c1 F2 B4.c1 W4.c1 *F6.c1 *B0 *W0 *F3 *B5.c1 *W5.c1 *F7.c1 *B1 *W1 B6.c1 W6.c1 B2 W2 "
        "B7.c1 B3 W7.c1 W3");
  // Other schedules have no overlapped pairs.
  for (StageOpCursor c(schedule_spec(ScheduleKind::zero_bubble_h1, 4, 8), 0); !c.done();) {
    c.next();
    CHECK_FALSE(c.overlapped());
  }
  // p = 16 and 120 microbatches (DeepSeek-V3): stage 0 runs 2(60 - 16 + 1) + 7 = 97 overlapped pairs
  // (F, B and the B's W: 291 of its 360 ops); 23 forwards and 23 backwards run alone.
  int pairs_ops = 0;
  for (StageOpCursor c(dualpipe(16, 120), 0); !c.done();) {
    c.next();
    pairs_ops += c.overlapped() ? 1 : 0;
  }
  CHECK(pairs_ops == 3 * (2 * (60 - 16 + 1) + 7));
}
