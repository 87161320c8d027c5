#include "tests/catch.hpp"

#include <map>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "schedules/pipeline_schedule.hpp"
#include "schedules/stage_op_cursor.hpp"
#include "tests/schedules/list_scheduler.hpp"

using namespace clustersim;

namespace {

std::vector<ScheduleSpec> valid_grid() {
  std::vector<ScheduleSpec> specs;
  for (auto kind : {ScheduleKind::gpipe, ScheduleKind::one_f_one_b, ScheduleKind::interleaved_1f1b,
                    ScheduleKind::zero_bubble_h1}) {
    for (int p : {1, 2, 3, 4, 8}) {
      for (int m : {1, 2, 3, 4, 6, 8, 16}) {
        for (int v : {1, 2, 3, 4}) {
          const ScheduleSpec spec{kind, p, m, v};
          if (is_valid(spec)) specs.push_back(spec);
        }
      }
    }
  }
  return specs;
}

}  // namespace

TEST_CASE(
    "every stage runs exactly one forward and one backward (or one B and one W) per microbatch and chunk") {
  for (const auto& spec : valid_grid()) {
    INFO(to_string(spec.kind) << " p=" << spec.stages << " m=" << spec.microbatches << " v=" << spec.chunks);
    const auto schedule = build_schedule(spec);
    REQUIRE(static_cast<int>(schedule.size()) == spec.stages);
    const bool split = spec.kind == ScheduleKind::zero_bubble_h1;
    for (const auto& ops : schedule) {
      CHECK(static_cast<int>(ops.size()) == ops_per_stage(spec));
      std::map<std::tuple<OpKind, int, int>, int> count;
      for (const auto& op : ops) ++count[{op.kind, op.microbatch, op.chunk}];
      CHECK(count.size() == ops.size());  // no op appears twice
      for (int mb = 0; mb < spec.microbatches; ++mb) {
        for (int c = 0; c < spec.chunks; ++c) {
          CHECK(count[{OpKind::forward, mb, c}] == 1);
          if (split) {
            CHECK(count[{OpKind::backward_input, mb, c}] == 1);
            CHECK(count[{OpKind::backward_weight, mb, c}] == 1);
          } else {
            CHECK(count[{OpKind::backward, mb, c}] == 1);
          }
        }
      }
    }
  }
}

TEST_CASE("on every stage a microbatch's forward precedes its backward, and its B precedes its W") {
  for (const auto& spec : valid_grid()) {
    INFO(to_string(spec.kind) << " p=" << spec.stages << " m=" << spec.microbatches << " v=" << spec.chunks);
    for (const auto& ops : build_schedule(spec)) {
      std::map<std::tuple<OpKind, int, int>, std::size_t> at;
      for (std::size_t i = 0; i < ops.size(); ++i) at[{ops[i].kind, ops[i].microbatch, ops[i].chunk}] = i;
      for (const auto& [key, pos] : at) {
        const auto [kind, mb, c] = key;
        if (kind == OpKind::backward || kind == OpKind::backward_input)
          CHECK(at.at({OpKind::forward, mb, c}) < pos);
        if (kind == OpKind::backward_weight) CHECK(at.at({OpKind::backward_input, mb, c}) < pos);
      }
    }
  }
}

TEST_CASE("1f1b matches Megatron's warm-up / steady / cool-down order (p=4, m=8)") {
  const auto s = build_schedule({ScheduleKind::one_f_one_b, 4, 8, 1});
  CHECK(test::op_listing(s[0]) == "F0 F1 F2 F3 BW0 F4 BW1 F5 BW2 F6 BW3 F7 BW4 BW5 BW6 BW7");
  CHECK(test::op_listing(s[1]) == "F0 F1 F2 BW0 F3 BW1 F4 BW2 F5 BW3 F6 BW4 F7 BW5 BW6 BW7");
  CHECK(test::op_listing(s[3]) == "F0 BW0 F1 BW1 F2 BW2 F3 BW3 F4 BW4 F5 BW5 F6 BW6 F7 BW7");
}

TEST_CASE("1f1b caps the warm-up at m forwards when there are fewer microbatches than stages") {
  const auto s = build_schedule({ScheduleKind::one_f_one_b, 4, 2, 1});
  CHECK(test::op_listing(s[0]) == "F0 F1 BW0 BW1");  // warm-up min(3, 2) = 2
  CHECK(test::op_listing(s[2]) == "F0 F1 BW0 BW1");  // warm-up 1, one steady pair, one cool-down backward
  CHECK(test::op_listing(s[3]) == "F0 BW0 F1 BW1");  // warm-up 0
}

TEST_CASE("gpipe runs all forwards, then the backwards in reverse microbatch order") {
  const auto s = build_schedule({ScheduleKind::gpipe, 3, 4, 1});
  for (const auto& ops : s) CHECK(test::op_listing(ops) == "F0 F1 F2 F3 BW3 BW2 BW1 BW0");
}

TEST_CASE("interleaved-1f1b matches Megatron's schedule table with microbatch groups of p (p=2, m=4, v=2)") {
  // Warm-up 2(p-s-1) + (v-1)p: 4 forwards on stage 0, 2 on stage 1; forwards visit chunk 0 then chunk 1
  // for each group of p microbatches, backwards visit the chunks in reverse.
  const auto s = build_schedule({ScheduleKind::interleaved_1f1b, 2, 4, 2});
  CHECK(test::op_listing(s[0]) == "F0 F1 F0.c1 F1.c1 F2 BW0.c1 F3 BW1.c1 F2.c1 BW0 F3.c1 BW1 BW2.c1 BW3.c1 BW2 BW3");
  CHECK(test::op_listing(s[1]) == "F0 F1 F0.c1 BW0.c1 F1.c1 BW1.c1 F2 BW0 F3 BW1 F2.c1 BW2.c1 F3.c1 BW3.c1 BW2 BW3");
}

TEST_CASE("interleaved-1f1b warm-up is 2(p-s-1) + (v-1)p forwards, capped at v*m") {
  for (int s = 0; s < 4; ++s) {
    CHECK(StageOpCursor({ScheduleKind::interleaved_1f1b, 4, 8, 3}, s).warmup_forwards() ==
          2 * (3 - s) + 2 * 4);
  }
  // m = p: stage 0 would need 2*3 + 4 = 10 > v*m = 8 forwards, so it runs all of them first.
  CHECK(StageOpCursor({ScheduleKind::interleaved_1f1b, 4, 4, 2}, 0).warmup_forwards() == 8);
  CHECK(StageOpCursor({ScheduleKind::interleaved_1f1b, 4, 4, 2}, 3).warmup_forwards() == 4);
}

TEST_CASE("zb-h1 delays the first s weight-gradient ops on stage s to fill the drain (p=4, m=8)") {
  const auto s = build_schedule({ScheduleKind::zero_bubble_h1, 4, 8, 1});
  CHECK(test::op_listing(s[0]) == "F0 F1 F2 F3 B0 W0 F4 B1 W1 F5 B2 W2 F6 B3 W3 F7 B4 W4 B5 W5 B6 W6 B7 W7");
  CHECK(test::op_listing(s[1]) == "F0 F1 F2 B0 F3 B1 W0 F4 B2 W1 F5 B3 W2 F6 B4 W3 F7 B5 W4 B6 W5 B7 W6 W7");
  CHECK(test::op_listing(s[3]) == "F0 B0 F1 B1 F2 B2 F3 B3 W0 F4 B4 W1 F5 B5 W2 F6 B6 W3 F7 B7 W4 W5 W6 W7");
}

TEST_CASE("the cursor's kind-only walk agrees with the full op order and ends at size()") {
  for (const ScheduleSpec& spec : valid_grid()) {
    for (int stage = 0; stage < spec.stages; ++stage) {
      const auto ops = build_stage_schedule(spec, stage);
      StageOpCursor kinds(spec, stage);
      CHECK(kinds.size() == static_cast<int>(ops.size()));
      for (const auto& op : ops) CHECK(kinds.next_kind() == op.kind);
      CHECK(kinds.done());
    }
  }
}

TEST_CASE("check() rejects bad specs with a sentence naming the problem") {
  SECTION("stages < 1") {
    const auto problems = check({ScheduleKind::one_f_one_b, 0, 4, 1});
    REQUIRE(problems.size() == 1);
    CHECK(problems[0] == "stages must be at least 1 (got 0)");
  }
  SECTION("microbatches < 1") {
    const auto problems = check({ScheduleKind::gpipe, 2, -3, 1});
    REQUIRE(problems.size() == 1);
    CHECK(problems[0] == "microbatches must be at least 1 (got -3)");
  }
  SECTION("chunks < 1") {
    const auto problems = check({ScheduleKind::interleaved_1f1b, 2, 4, 0});
    REQUIRE(problems.size() == 1);
    CHECK(problems[0] == "chunks must be at least 1 (got 0)");
  }
  SECTION("chunks > 1 without interleaving") {
    const auto problems = check({ScheduleKind::zero_bubble_h1, 4, 8, 2});
    REQUIRE(problems.size() == 1);
    CHECK(problems[0] == "chunks > 1 needs interleaved-1f1b (got chunks = 2 with zb-h1)");
  }
  SECTION("interleaved with microbatches not divisible by stages") {
    const auto problems = check({ScheduleKind::interleaved_1f1b, 4, 6, 2});
    REQUIRE(problems.size() == 1);
    CHECK(problems[0] == "interleaved-1f1b needs microbatches (6) divisible by stages (4)");
  }
  SECTION("too many ops to count in an int") {
    const auto problems = check({ScheduleKind::interleaved_1f1b, 1, 1 << 20, 1 << 10});
    REQUIRE(problems.size() == 1);
    CHECK_THAT(problems[0], Catch::Contains("more ops per stage than an int can count"));
  }
  SECTION("an out-of-range kind") {
    const auto problems = check({static_cast<ScheduleKind>(42), 2, 4, 1});
    REQUIRE(problems.size() == 1);
    CHECK_THAT(problems[0], Catch::StartsWith("unknown schedule kind 42"));
  }
  SECTION("several problems are all reported") {
    CHECK(check({ScheduleKind::one_f_one_b, 0, 0, 2}).size() == 3);
  }
}

TEST_CASE("check() accepts valid specs and is_valid agrees with it") {
  for (const auto& spec : valid_grid()) CHECK(check(spec).empty());
  for (const ScheduleSpec& bad :
       {ScheduleSpec{ScheduleKind::one_f_one_b, 0, 4, 1},
        ScheduleSpec{ScheduleKind::interleaved_1f1b, 3, 4, 2}, ScheduleSpec{ScheduleKind::gpipe, 2, 4, 2}}) {
    CHECK_FALSE(is_valid(bad));
    CHECK_FALSE(check(bad).empty());
  }
}

TEST_CASE("build_schedule throws std::invalid_argument carrying check()'s sentences") {
  CHECK_THROWS_AS(build_schedule({ScheduleKind::one_f_one_b, 0, 4, 1}), std::invalid_argument);
  CHECK_THROWS_WITH(build_schedule({ScheduleKind::interleaved_1f1b, 4, 6, 2}),
                    Catch::Contains("interleaved-1f1b needs microbatches (6) divisible by stages (4)"));
  CHECK_THROWS_AS(build_stage_schedule({ScheduleKind::one_f_one_b, 4, 4, 1}, 4), std::invalid_argument);
}

TEST_CASE("ops_per_stage from a configuration's values equals the built op lists of every schedule") {
  int shapes = 0;
  for (auto kind : {ScheduleKind::gpipe, ScheduleKind::one_f_one_b, ScheduleKind::interleaved_1f1b,
                    ScheduleKind::zero_bubble_h1, ScheduleKind::dualpipe, ScheduleKind::v_half}) {
    for (int p : {1, 2, 3, 4, 6, 8}) {
      for (int m : {1, 2, 3, 4, 6, 8, 12, 16, 24}) {
        for (int vp : {1, 2, 3}) {
          for (int vocab : {0, 6, 12}) {
            const ScheduleSpec spec = schedule_spec(kind, p, m, vp, vocab);
            if (!is_valid(spec)) continue;
            INFO(to_string(kind) << " p=" << p << " m=" << m << " vp=" << vp << " vocab_slots=" << vocab);
            double built = 0;
            for (const auto& ops : build_schedule(spec)) built += static_cast<double>(ops.size());
            CHECK(built == p * ops_per_stage(kind, m, vp));
            CHECK(ops_per_stage(kind, m, vp) == ops_per_stage(spec));
            ++shapes;
          }
        }
      }
    }
  }
  CHECK(shapes > 300);
}
