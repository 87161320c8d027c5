// The pipeline schedules clustersim knows, by name.
#pragma once

#include <optional>
#include <string_view>

namespace clustersim {

enum class ScheduleKind {
  gpipe,             // all forwards, then all backwards (Huang et al. 2019)
  one_f_one_b,       // PipeDream-Flush / Megatron non-interleaved 1F1B (Narayanan et al. 2021)
  interleaved_1f1b,  // Megatron interleaved 1F1B with v model chunks per rank (Narayanan et al. 2021 S2.2)
  zero_bubble_h1,    // ZB-H1: backward split into B (input grad) and W (weight grad) (Qi et al. 2024)
  dualpipe,          // DeepSeek DualPipe: two directions, two chunks per rank, split backward
                     // (DeepSeek-AI 2024, arXiv:2412.19437 Section 3.2.1)
  v_half,            // V-Half: two chunks per rank in V placement, split backward, about half of 1F1B's
                     // activation memory (Qi et al., "Pipeline Parallelism with Controllable Memory",
                     // arXiv:2405.15362, 2024)
  zero_bubble_1p,    // ZB-1p / ZB-2p: the automatic zero-bubble scheduler's greedy search (Qi et al., ICLR
  zero_bubble_2p     // 2024, Section 3; auto_schedule.py) under an activation limit of p resp. 2p
                     // microbatches' activations; op order depends on the F, B, W and p2p times
};

std::string_view to_string(ScheduleKind k);  // "gpipe", "1f1b", "interleaved-1f1b", "zb-h1", "dualpipe", "v-half", "zb-1p", "zb-2p"
std::optional<ScheduleKind> schedule_from_string(std::string_view s);

}  // namespace clustersim
