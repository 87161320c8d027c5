#include "schedules/schedule_kind.hpp"

namespace clustersim {

std::string_view to_string(ScheduleKind k) {
  switch (k) {
    case ScheduleKind::gpipe: return "gpipe";
    case ScheduleKind::one_f_one_b: return "1f1b";
    case ScheduleKind::interleaved_1f1b: return "interleaved-1f1b";
    case ScheduleKind::zero_bubble_h1: return "zb-h1";
    case ScheduleKind::dualpipe: return "dualpipe";
    case ScheduleKind::v_half: return "v-half";
    case ScheduleKind::zero_bubble_1p: return "zb-1p";
    case ScheduleKind::zero_bubble_2p: return "zb-2p";
  }
  return "1f1b";
}

std::optional<ScheduleKind> schedule_from_string(std::string_view s) {
  for (ScheduleKind k : {ScheduleKind::gpipe, ScheduleKind::one_f_one_b, ScheduleKind::interleaved_1f1b,
                         ScheduleKind::zero_bubble_h1, ScheduleKind::dualpipe, ScheduleKind::v_half,
                         ScheduleKind::zero_bubble_1p, ScheduleKind::zero_bubble_2p}) {
    if (s == to_string(k)) return k;
  }
  return std::nullopt;
}

}  // namespace clustersim
