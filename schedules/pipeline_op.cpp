#include "schedules/pipeline_op.hpp"

namespace clustersim {

std::string_view to_string(OpKind k) {
  switch (k) {
    case OpKind::forward:
      return "F";
    case OpKind::backward:
      return "BW";
    case OpKind::backward_input:
      return "B";
    case OpKind::backward_weight:
      return "W";
  }
  return "?";
}

std::string to_string(const PipelineOp& op) {
  std::string s(to_string(op.kind));
  s += std::to_string(op.microbatch);
  if (op.chunk != 0) s += ".c" + std::to_string(op.chunk);
  return s;
}

}  // namespace clustersim
