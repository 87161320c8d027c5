// JSON spellings of the enumerations of a Scenario (the only place that knows them). Each table is
// declared once; `k<Name>Choices` are its names for a Field's `choices` (field.hpp).
#pragma once

#include <array>
#include <span>
#include <string_view>

#include "sim/config/field.hpp"
#include "sim/core/diagnostics.hpp"
#include "sim/scenario/scenario.hpp"

namespace clustersim::config {

inline constexpr std::array<EnumName<Precision>, 6> kPrecisionNames{{{"fp32", Precision::fp32},
                                                                     {"tf32", Precision::tf32},
                                                                     {"fp16", Precision::fp16},
                                                                     {"bf16", Precision::bf16},
                                                                     {"fp8", Precision::fp8},
                                                                     {"fp4", Precision::fp4}}};
inline constexpr std::array<EnumName<ScheduleKind>, 8> kScheduleNames{
    {{"gpipe", ScheduleKind::gpipe},
     {"1f1b", ScheduleKind::one_f_one_b},
     {"interleaved-1f1b", ScheduleKind::interleaved_1f1b},
     {"zb-h1", ScheduleKind::zero_bubble_h1},
     {"dualpipe", ScheduleKind::dualpipe},
     {"v-half", ScheduleKind::v_half},
     {"zb-1p", ScheduleKind::zero_bubble_1p},
     {"zb-2p", ScheduleKind::zero_bubble_2p}}};
inline constexpr std::array<EnumName<NodeFabric>, 5> kFabricNames{{{"nvswitch", NodeFabric::nvswitch},
                                                                   {"nvlink-mesh", NodeFabric::nvlink_mesh},
                                                                   {"pcie", NodeFabric::pcie},
                                                                   {"torus-ici", NodeFabric::torus_ici},
                                                                   {"wafer", NodeFabric::wafer}}};
inline constexpr std::array<EnumName<Recompute>, 3> kRecomputeNames{
    {{"none", Recompute::none}, {"selective", Recompute::selective}, {"full", Recompute::full}}};
inline constexpr std::array<EnumName<SelectivePolicy>, 5> kSelectivePolicyNames{
    {{"attention", SelectivePolicy::attention},
     {"op", SelectivePolicy::op},
     {"layer", SelectivePolicy::layer},
     {"core-attn", SelectivePolicy::core_attn},
     {"dots", SelectivePolicy::dots}}};
inline constexpr std::array<EnumName<Fp8SavedInputs>, 3> kFp8SavedInputsNames{
    {{"fp8", Fp8SavedInputs::fp8}, {"fp8-bf16-proj", Fp8SavedInputs::fp8_bf16_proj}, {"bf16", Fp8SavedInputs::bf16}}};
inline constexpr std::array<EnumName<Fp8Scaling>, 5> kFp8ScalingNames{
    {{"delayed", Fp8Scaling::delayed},
     {"tensorwise", Fp8Scaling::tensorwise},
     {"rowwise", Fp8Scaling::rowwise},
     {"blockwise", Fp8Scaling::blockwise},
     {"mxfp8", Fp8Scaling::mxfp8}}};
inline constexpr std::array<EnumName<AttentionKernel>, 5> kAttentionKernelNames{
    {{"native", AttentionKernel::native},
     {"cudnn", AttentionKernel::cudnn},
     {"flash-2", AttentionKernel::flash2},
     {"flash-1", AttentionKernel::flash1},
     {"triton-flash", AttentionKernel::triton_flash}}};
inline constexpr std::array<EnumName<Optimizer>, 2> kOptimizerNames{
    {{"adam", Optimizer::adam}, {"sgd", Optimizer::sgd}}};
inline constexpr std::array<EnumName<MlpKind>, 2> kMlpNames{
    {{"gelu", MlpKind::gelu}, {"swiglu", MlpKind::swiglu}}};
inline constexpr std::array<EnumName<NormKind>, 2> kNormNames{
    {{"layernorm", NormKind::layernorm}, {"rmsnorm", NormKind::rmsnorm}}};
inline constexpr std::array<EnumName<PositionKind>, 3> kPositionNames{
    {{"learned", PositionKind::learned}, {"rotary", PositionKind::rotary}, {"alibi", PositionKind::alibi}}};
inline constexpr std::array<EnumName<Duplex>, 2> kDuplexNames{
    {{"full", Duplex::full}, {"half", Duplex::half}}};

inline constexpr std::array<EnumName<DpMode>, 5> kDpModeNames{{{"allreduce", DpMode::allreduce},
                                                                {"parameter_server", DpMode::parameter_server},
                                                                {"async", DpMode::async},
                                                                {"ssp", DpMode::ssp},
                                                                {"local_sgd", DpMode::local_sgd}}};
inline constexpr std::array<EnumName<ServerPlacement>, 2> kServerPlacementNames{
    {{"dedicated", ServerPlacement::dedicated}, {"colocated", ServerPlacement::colocated}}};

inline constexpr auto kPrecisionChoices = choices_of(kPrecisionNames);
inline constexpr auto kScheduleChoices = choices_of(kScheduleNames);
inline constexpr auto kFabricChoices = choices_of(kFabricNames);
inline constexpr auto kRecomputeChoices = choices_of(kRecomputeNames);
inline constexpr auto kSelectivePolicyChoices = choices_of(kSelectivePolicyNames);
inline constexpr auto kFp8ScalingChoices = choices_of(kFp8ScalingNames);
inline constexpr auto kFp8SavedInputsChoices = choices_of(kFp8SavedInputsNames);
inline constexpr auto kOptimizerChoices = choices_of(kOptimizerNames);
inline constexpr auto kAttentionKernelChoices = choices_of(kAttentionKernelNames);
inline constexpr auto kMlpChoices = choices_of(kMlpNames);
inline constexpr auto kNormChoices = choices_of(kNormNames);
inline constexpr auto kPositionChoices = choices_of(kPositionNames);
inline constexpr auto kDuplexChoices = choices_of(kDuplexNames);
inline constexpr auto kDpModeChoices = choices_of(kDpModeNames);
inline constexpr auto kServerPlacementChoices = choices_of(kServerPlacementNames);
inline constexpr auto kTopologyChoices =
    std::to_array<std::string_view>({"fat-tree", "torus", "dragonfly", "single-node"});
inline constexpr auto kRoutingChoices = std::to_array<std::string_view>({"ecmp", "adaptive"});
inline constexpr auto kEngineChoices = std::to_array<std::string_view>({"analytic", "flow"});

inline std::span<const EnumName<Precision>> precision_names() {
  return kPrecisionNames;
}
inline std::span<const EnumName<DpMode>> dp_mode_names() {
  return kDpModeNames;
}
inline std::span<const EnumName<ServerPlacement>> server_placement_names() {
  return kServerPlacementNames;
}
inline std::span<const EnumName<ScheduleKind>> schedule_names() {
  return kScheduleNames;
}
inline std::span<const EnumName<NodeFabric>> fabric_names() {
  return kFabricNames;
}
inline std::span<const EnumName<SelectivePolicy>> selective_policy_names() { return kSelectivePolicyNames; }
inline std::span<const EnumName<Fp8Scaling>> fp8_scaling_names() { return kFp8ScalingNames; }
inline std::span<const EnumName<Fp8SavedInputs>> fp8_saved_inputs_names() { return kFp8SavedInputsNames; }
inline std::span<const EnumName<Recompute>> recompute_names() {
  return kRecomputeNames;
}
inline std::span<const EnumName<AttentionKernel>> attention_kernel_names() {
  return kAttentionKernelNames;
}
inline std::span<const EnumName<Optimizer>> optimizer_names() {
  return kOptimizerNames;
}
inline std::span<const EnumName<MlpKind>> mlp_names() {
  return kMlpNames;
}
inline std::span<const EnumName<NormKind>> norm_names() {
  return kNormNames;
}
inline std::span<const EnumName<PositionKind>> position_names() {
  return kPositionNames;
}
inline std::span<const EnumName<Duplex>> duplex_names() {
  return kDuplexNames;
}
inline std::span<const std::string_view> topology_names() {
  return kTopologyChoices;
}
inline std::span<const std::string_view> engine_names() {
  return kEngineChoices;
}

/// The JSON spelling of `value` in `table` (CS_ASSERTs that it is listed).
template <class E>
std::string_view name_of(std::span<const EnumName<E>> table, E value) {
  for (const auto& entry : table) {
    if (entry.value == value) return entry.name;
  }
  CS_ASSERT(false, "enum value without a JSON spelling");
  return {};
}

}  // namespace clustersim::config
