#include "sim/config/enum_names.hpp"

#include <array>

namespace clustersim::config {

std::span<const EnumName<Precision>> precision_names() {
  static constexpr std::array<EnumName<Precision>, 5> kNames{{{"fp32", Precision::fp32},
                                                              {"tf32", Precision::tf32},
                                                              {"fp16", Precision::fp16},
                                                              {"bf16", Precision::bf16},
                                                              {"fp8", Precision::fp8}}};
  return kNames;
}

std::span<const EnumName<ScheduleKind>> schedule_names() {
  static constexpr std::array<EnumName<ScheduleKind>, 4> kNames{
      {{"gpipe", ScheduleKind::gpipe},
       {"1f1b", ScheduleKind::one_f_one_b},
       {"interleaved-1f1b", ScheduleKind::interleaved_1f1b},
       {"zb-h1", ScheduleKind::zero_bubble_h1}}};
  return kNames;
}

std::span<const EnumName<NodeFabric>> fabric_names() {
  static constexpr std::array<EnumName<NodeFabric>, 5> kNames{{{"nvswitch", NodeFabric::nvswitch},
                                                               {"nvlink-mesh", NodeFabric::nvlink_mesh},
                                                               {"pcie", NodeFabric::pcie},
                                                               {"torus-ici", NodeFabric::torus_ici},
                                                               {"wafer", NodeFabric::wafer}}};
  return kNames;
}

std::span<const EnumName<Recompute>> recompute_names() {
  static constexpr std::array<EnumName<Recompute>, 3> kNames{
      {{"none", Recompute::none}, {"selective", Recompute::selective}, {"full", Recompute::full}}};
  return kNames;
}

std::span<const EnumName<Optimizer>> optimizer_names() {
  static constexpr std::array<EnumName<Optimizer>, 2> kNames{
      {{"adam", Optimizer::adam}, {"sgd", Optimizer::sgd}}};
  return kNames;
}

std::span<const EnumName<MlpKind>> mlp_names() {
  static constexpr std::array<EnumName<MlpKind>, 2> kNames{
      {{"gelu", MlpKind::gelu}, {"swiglu", MlpKind::swiglu}}};
  return kNames;
}

std::span<const EnumName<NormKind>> norm_names() {
  static constexpr std::array<EnumName<NormKind>, 2> kNames{
      {{"layernorm", NormKind::layernorm}, {"rmsnorm", NormKind::rmsnorm}}};
  return kNames;
}

std::span<const EnumName<PositionKind>> position_names() {
  static constexpr std::array<EnumName<PositionKind>, 2> kNames{
      {{"learned", PositionKind::learned}, {"rotary", PositionKind::rotary}}};
  return kNames;
}

std::span<const std::string_view> device_kind_names() {
  static constexpr std::array<std::string_view, 3> kNames{"gpu", "tpu", "wafer"};
  return kNames;
}

std::span<const std::string_view> topology_names() {
  static constexpr std::array<std::string_view, 4> kNames{"fat-tree", "torus", "dragonfly", "single-node"};
  return kNames;
}

std::span<const std::string_view> engine_names() {
  static constexpr std::array<std::string_view, 2> kNames{"analytic", "flow"};
  return kNames;
}

std::span<const EnumName<Duplex>> duplex_names() {
  static constexpr std::array<EnumName<Duplex>, 2> kNames{{{"full", Duplex::full}, {"half", Duplex::half}}};
  return kNames;
}

}  // namespace clustersim::config
