#include <fmt/format.h>

#include <filesystem>

#include "sim/config/enum_names.hpp"
#include "sim/config/section_readers.hpp"
#include "sim/config/sections.hpp"

namespace clustersim::config {
namespace {

// Efficiencies: fractions of peak, at least 1 % (fuzz seed 7045 case 752: a gemm_max of 1e-320 made GEMM
// times so large that a step's state times no longer summed to it within rounding: an internal error).
constexpr NumberRange kFraction{.min = 0.01, .max = 1.0};
constexpr auto kDeviceKinds = std::to_array<std::string_view>({"gpu", "tpu", "wafer"});

constexpr Field kPeakFields[] = {
    {.key = "fp32",
     .kind = FieldKind::quantity,
     .doc = "dense FP32 peak",
     .dimension = Dimension::flops_rate},
    {.key = "tf32",
     .kind = FieldKind::quantity,
     .doc = "dense TF32 peak",
     .dimension = Dimension::flops_rate},
    {.key = "fp16",
     .kind = FieldKind::quantity,
     .doc = "dense FP16 peak",
     .dimension = Dimension::flops_rate},
    {.key = "bf16",
     .kind = FieldKind::quantity,
     .doc = "dense BF16 peak",
     .dimension = Dimension::flops_rate},
    {.key = "fp8", .kind = FieldKind::quantity, .doc = "dense FP8 peak", .dimension = Dimension::flops_rate},
    {.key = "fp4",
     .kind = FieldKind::quantity,
     .doc = "dense FP4 (NVFP4) peak; training.precision \"fp4\" needs it",
     .dimension = Dimension::flops_rate},
};

constexpr Field kMemoryFields[] = {
    {.key = "capacity",
     .kind = FieldKind::quantity,
     .doc = "HBM (on-chip SRAM for wafers)",
     .fallback = "required",
     .dimension = Dimension::bytes},
    {.key = "bandwidth",
     .kind = FieldKind::quantity,
     .doc = "memory bandwidth",
     .fallback = "required",
     .dimension = Dimension::bandwidth},
};

constexpr Field kPowerFields[] = {
    {.key = "tdp",
     .kind = FieldKind::quantity,
     .doc = "thermal design power",
     .fallback = "required",
     .dimension = Dimension::power},
    {.key = "idle",
     .kind = FieldKind::quantity,
     .doc = "idle power",
     .fallback = "\"0 W\"",
     .dimension = Dimension::power,
     .rule = QuantityRule::non_negative},
};

constexpr Field kEfficiencyFields[] = {
    {.key = "gemm_max",
     .kind = FieldKind::number,
     .doc = "fraction of peak reached by large GEMMs",
     .fallback = "0.8",
     .numbers = kFraction},
    {.key = "gemm_half_flops",
     .kind = FieldKind::quantity,
     .doc = "per-GEMM work at which half of gemm_max is reached",
     .fallback = "\"1 GFLOP\"",
     .dimension = Dimension::flops,
     .rule = QuantityRule::non_negative},
    {.key = "attention",
     .kind = FieldKind::number,
     .doc = "fraction of peak for fused attention",
     .fallback = "0.5",
     .numbers = kFraction},
    {.key = "memory",
     .kind = FieldKind::number,
     .doc = "fraction of HBM bandwidth for bandwidth-bound kernels",
     .fallback = "0.8",
     .numbers = kFraction},
    {.key = "kernel_overhead",
     .kind = FieldKind::quantity,
     .doc = "fixed cost per kernel",
     .fallback = "\"5 us\"",
     .dimension = Dimension::time,
     .rule = QuantityRule::non_negative},
    {.key = "attention_half_head_dim",
     .kind = FieldKind::number,
     .doc = "head dimension at which flash attention runs at half its large-head rate (models/device.hpp)",
     .fallback = "32",
     .numbers = {.min = 0.0}},
    {.key = "attention_half_keys",
     .kind = FieldKind::number,
     .doc = "keys a causal query tile iterates over per call at which flash attention runs at half its "
            "long-sequence rate (docs/model.md, \"Attention on Blackwell\")",
     .fallback = "240",
     .numbers = {.min = 1.0, .max = 1e6}},
    {.key = "attention_flash2_rate",
     .kind = FieldKind::number,
     .doc = "FlashAttention-2's throughput relative to the device's native fused attention (the kernel "
            "`attention` describes; 1 where that is FlashAttention-2): scales the flash-2, flash-1 and "
            "triton-flash attention kernels (docs/model.md, \"Attention kernels\")",
     .fallback = "1",
     .numbers = {.min = 0.01, .max = 4.0}},
    {.key = "op_overhead",
     .kind = FieldKind::quantity,
     .doc = "fixed cost of one pipeline op (forward or backward of one micro-batch through one chunk)",
     .fallback = "\"0 s\"",
     .dimension = Dimension::time,
     .rule = QuantityRule::non_negative},
};

constexpr Field kDeviceFields[] = {
    kEntryNameField,
    {.key = "display_name", .kind = FieldKind::string, .doc = "name in reports", .fallback = "derived: name"},
    {.key = "kind",
     .kind = FieldKind::choice,
     .doc = "accelerator kind",
     .fallback = "\"gpu\"",
     .choices = kDeviceKinds},
    kDescriptionField,
    {.key = "calibration", .kind = FieldKind::text, .doc = "what the efficiencies were fitted to"},
    kSourceField,
    kSourcesField,
    {.key = "peak",
     .kind = FieldKind::object,
     .doc = "dense (no sparsity) peak FLOP rate per precision; at least one",
     .fallback = "required",
     .section = &kPeakSection},
    {.key = "memory",
     .kind = FieldKind::object,
     .doc = "device memory",
     .fallback = "required",
     .section = &kMemorySection},
    {.key = "power",
     .kind = FieldKind::object,
     .doc = "device power",
     .fallback = "required",
     .section = &kDevicePowerSection},
    {.key = "sm_count",
     .kind = FieldKind::integer,
     .doc = "streaming multiprocessors that GEMM tiles are scheduled on; 0 = no wave quantisation",
     .fallback = "0",
     .ints = {.min = 0}},
    {.key = "efficiency",
     .kind = FieldKind::object,
     .doc = "achieved fractions of peak (models/device.hpp)",
     .section = &kEfficiencySection},
};

void read_peaks(ObjectReader& r, DeviceSpec& d) {
  auto peak = r.require_child("peak");
  bool any_given = false;
  for (const auto& [name, precision] : precision_names()) {
    any_given = any_given || peak.has(name);
    if (auto v = peak.get_quantity(name)) d.peak[precision] = FlopsPerSecond(*v);
  }
  if (peak.valid() && !any_given) {
    peak.error_here(
        "no peak given: expected at least one of \"fp32\", \"tf32\", \"fp16\", \"bf16\", \"fp8\", \"fp4\"");
  }
  peak.finish();
}

DeviceEfficiency read_efficiency(ObjectReader& r) {
  auto eff = r.child("efficiency");
  static const nlohmann::json kEmpty = nlohmann::json::object();
  ObjectReader defaults(kEmpty, r.pointer_of("efficiency"), kEfficiencySection, r.context());
  ObjectReader& e = eff ? *eff : defaults;
  DeviceEfficiency out;
  out.gemm_max_efficiency = e.number("gemm_max");
  out.gemm_half_flops = e.quantity<Flops>("gemm_half_flops").value();
  out.attention_efficiency = e.number("attention");
  out.memory_efficiency = e.number("memory");
  out.kernel_overhead = e.quantity<Seconds>("kernel_overhead");
  out.attention_half_head_dim = e.number("attention_half_head_dim");
  out.attention_half_keys = e.number("attention_half_keys");
  out.attention_flash2_rate = e.number("attention_flash2_rate");
  out.op_overhead = e.quantity<Seconds>("op_overhead");
  e.finish();
  return out;
}

}  // namespace

const Section kPeakSection{"peak", "/cluster/node/device/peak", "dense peak per precision", kPeakFields};
const Section kMemorySection{"memory", "/cluster/node/device/memory", "device memory", kMemoryFields};
const Section kDevicePowerSection{"device_power", "/cluster/node/device/power", "device power", kPowerFields};
const Section kEfficiencySection{"efficiency", "/cluster/node/device/efficiency",
                                 "achieved fractions of peak (models/device.hpp)", kEfficiencyFields};
const Section kDeviceSection{"device", "/cluster/node/device", "an accelerator (configs/devices/<name>.json)",
                             kDeviceFields};

void accept_sources(ObjectReader& r) {
  r.accept("source");
  r.accept("sources");
}

std::string entry_name_from_file(const ObjectReader& r) {
  const auto where = r.context().origin().locate(r.pointer());
  if (!where.pointer.empty() || !where.file.ends_with(".json")) return {};
  return std::filesystem::path(where.file).stem().string();
}

DeviceSpec read_device(ObjectReader& r) {
  DeviceSpec d;
  d.name = r.string("name", entry_name_from_file(r));
  d.display_name = r.string("display_name", d.name);
  d.kind = std::string(r.choice("kind"));
  r.accept("description");
  r.accept("calibration");
  accept_sources(r);
  read_peaks(r, d);
  auto memory = r.require_child("memory");
  d.memory_capacity = memory.require_quantity<Bytes>("capacity");
  d.memory_bandwidth = memory.require_quantity<BytesPerSecond>("bandwidth");
  memory.finish();
  d.sm_count = static_cast<int>(r.integer("sm_count"));
  auto power = r.require_child("power");
  d.tdp = power.require_quantity<Watts>("tdp");
  d.idle_power = power.quantity<Watts>("idle");
  power.finish();
  d.efficiency = read_efficiency(r);
  return d;
}

}  // namespace clustersim::config
