#include <fmt/format.h>

#include <array>
#include <string_view>

#include "sim/config/enum_names.hpp"
#include "sim/config/pipeline_layout.hpp"
#include "sim/config/section_readers.hpp"
#include "sim/config/sections.hpp"

namespace clustersim::config {
namespace {

constexpr IntRange kPositive{.min = 1};
constexpr IntRange kNonNegativeLayers{.min = 0};
constexpr std::array<std::string_view, 2> kOverlapScopeChoices{"forward-backward", "forward"};
constexpr std::array<std::string_view, 2> kPipelineP2pChoices{"megatron", "deepspeed"};
constexpr auto kDpCollectives = std::to_array<std::string_view>({"hierarchical", "flat-ring"});
constexpr auto kVocabParallel = std::to_array<std::string_view>({"none", "vocab-1", "vocab-2", "interlaced"});
constexpr auto kMoeOverlapChoices = std::to_array<std::string_view>({"none", "shared-expert", "compute"});
constexpr auto kMasterWeights = std::to_array<std::string_view>({"fp32", "none"});
constexpr auto kPipelineSplitRules = std::to_array<std::string_view>(
    {"ends-one-fewer", "remainder-to-middle", "deepspeed-transformer", "deepspeed-transformer-embedding"});

constexpr auto kHeteroChoices = std::to_array<std::string_view>({"data", "pipeline"});
constexpr auto kHeteroSplitChoices = std::to_array<std::string_view>({"proportional", "equal"});

constexpr Field kParallelismFields[] = {
    {.key = "tp",
     .kind = FieldKind::integer,
     .doc = "tensor parallel size",
     .fallback = "1",
     .ints = kPositive},
    {.key = "pp",
     .kind = FieldKind::integer,
     .doc = "pipeline parallel size",
     .fallback = "1",
     .ints = kPositive},
    {.key = "dp",
     .kind = FieldKind::integer,
     .doc = "data parallel size (error if devices / (tp·pp·cp) is not integral)",
     .fallback = "derived: devices / (tp·pp·cp)",
     .ints = kPositive},
    {.key = "cp",
     .kind = FieldKind::integer,
     .doc = "context parallel size",
     .fallback = "1",
     .ints = kPositive},
    {.key = "ep",
     .kind = FieldKind::integer,
     .doc = "expert parallel size (MoE models): divides num_experts; ep·etp divides tp·cp·dp",
     .fallback = "1",
     .ints = kPositive},
    {.key = "etp",
     .kind = FieldKind::integer,
     .doc = "expert tensor parallel size (each routed expert split over etp ranks)",
     .fallback = "1",
     .ints = kPositive},
    {.key = "moe_overlap",
     .kind = FieldKind::choice,
     .doc = "what the MoE all-to-alls overlap: nothing, the shared experts, or the op's compute (DualPipe, "
            "Megatron-Core EP overlap; docs/moe.md)",
     .fallback = "derived: \"compute\" with schedule dualpipe, else \"none\"",
     .choices = kMoeOverlapChoices},
    {.key = "ep_comm_sms",
     .kind = FieldKind::integer,
     .doc = "SMs the MoE all-to-all kernels occupy while they run under compute (DeepSeek-V3: 20 of 132); "
            "compute-bound kernels under them lose that share (docs/moe.md)",
     .fallback = "derived: 16, the generic collective figure (docs/model.md)",
     .ints = {.min = 1, .max = 100000}},
    {.key = "ep_comm_sms_reserved",
     .kind = FieldKind::boolean,
     .doc = "the MoE all-to-all's SMs (ep_comm_sms) are set aside for the whole MoE layer: its compute-bound "
            "kernels run on the remaining SMs throughout, not only while the all-to-all runs (DeepSeek's "
            "DualPipe: every GEMM of deepseek-ai/profile-data train.json is launched on 112 = 132 - 20 SMs; "
            "docs/moe.md)",
     .fallback = "false"},
    {.key = "vp",
     .kind = FieldKind::integer,
     .doc = "model chunks per pipeline rank (interleaved schedule); 1 with dualpipe and v-half, which hold "
            "their two chunks per rank (one per direction; V placement) by themselves",
     .fallback = "1",
     .ints = kPositive},
    {.key = "pipeline_layers",
     .kind = FieldKind::array,
     .doc = "layers per pipeline stage (pp entries; pp·vp per virtual stage, chunk-major, with vp > 1), "
            "summing to the model's layers: uneven stages, e.g. a lighter last stage carrying the LM head",
     .fallback = "derived: layers / (pp·vp) each",
     .ints = {.min = 0, .max = 1000000},
     .items = FieldKind::integer},
    {.key = "pipeline_layout",
     .kind = FieldKind::string,
     .doc = "Megatron-Core's pipeline_model_parallel_layout, e.g. \"Et*4|(t*4|)*14tmL\" (E embedding, t "
            "transformer layer, m MTP layer, L loss, '|' virtual-stage boundary, x*N and (...)*N repeat; "
            "Megatron-LM megatron/core/transformer/pipeline_parallel_layer_layout.py): its t counts per virtual "
            "stage are the pipeline_layers; it must have pp·vp stages, the model's layers as t and "
            "model.mtp_depth m layers beside L; exclusive with pipeline_layers",
     .fallback = "derived: none (pipeline_layers, else layers / (pp·vp) each)"},
    {.key = "pipeline_split",
     .kind = FieldKind::choice,
     .doc = "a framework's rule for spreading the layers over the pp·vp stages, applied at every pp·vp, also "
            "where the layers divide (so ends-one-fewer refuses 32 layers at pp 4, as Megatron-Core does with "
            "the accounting set; sweeps over pp keep the rule): ends-one-fewer (Megatron-Core's account_for_embedding/loss_in_pipeline_"
            "split: the first and last stage one layer fewer), remainder-to-middle (torchtitan's split points), "
            "deepspeed-transformer / deepspeed-transformer-embedding (DeepSpeed's partition_method "
            "type:transformer, Megatron-DeepSpeed's default, / type:transformer|embedding; DeepSpeed has no "
            "interleaving, so with vp > 1 they split the pp·vp chunks as if they were stages); docs/validation.md "
            "\"Uneven pipeline stages\"; exclusive with pipeline_layers and pipeline_layout; not with dualpipe, "
            "v-half or a heterogeneous pipeline",
     .fallback = "derived: none (layers / (pp·vp) each)",
     .choices = kPipelineSplitRules},
    {.key = "sequence_parallel",
     .kind = FieldKind::boolean,
     .doc = "Korthikanti et al. 2022 sequence parallelism",
     .fallback = "false"},
    {.key = "zero_stage",
     .kind = FieldKind::integer,
     .doc = "ZeRO stage",
     .fallback = "derived: 0 (3 with fsdp)",
     .ints = {.min = 0, .max = 3}},
    {.key = "fsdp", .kind = FieldKind::boolean, .doc = "`true` means zero_stage 3", .fallback = "false"},
    {.key = "schedule",
     .kind = FieldKind::choice,
     .doc = "pipeline schedule (docs/schedules.md)",
     .fallback = "\"1f1b\"",
     .choices = kScheduleChoices},
    {.key = "tp_comm_overlap",
     .kind = FieldKind::boolean,
     .doc = "overlap TP collectives with GEMMs",
     .fallback = "false"},
    {.key = "tp_comm_overlap_scope",
     .kind = FieldKind::choice,
     .doc = "passes tp_comm_overlap covers: forward-backward (Megatron-Core) or forward (PyTorch async TP; "
            "docs/model.md)",
     .fallback = "\"forward-backward\"",
     .choices = kOverlapScopeChoices},
    {.key = "dp_collective",
     .kind = FieldKind::choice,
     .doc =
         "DP gradient sync and ZeRO gathers: NCCL-style hierarchical (the buffer split over a node's NICs) "
         "or one flat ring, every rank moving the whole buffer through its own NIC (docs/collectives.md)",
     .fallback = "\"hierarchical\"",
     .choices = kDpCollectives},
    {.key = "pipeline_p2p",
     .kind = FieldKind::choice,
     .doc = "pipeline sends/receives: megatron (each TP rank sends its 1/tp slice, the transfer runs beside "
            "the compute stream) or deepspeed (DeepSpeed PipelineEngine: blocking transfers on the compute "
            "stream, activations and gradients sent as 1/tp slices and all-gathered; "
            "docs/model.md)",
     .fallback = "\"megatron\"",
     .choices = kPipelineP2pChoices},
    {.key = "vocab_parallel",
     .kind = FieldKind::choice,
     .doc = "vocabulary parallelism (Yeung et al. 2025): embedding and output layer split over all pp ranks "
            "(none: on the stages holding the first and the last virtual stage: the first and last stage, both "
            "stage 0 with v-half); vocab-1/vocab-2 overlap its collectives, interlaced runs them "
            "synchronously (docs/model.md)",
     .fallback = "\"none\"",
     .choices = kVocabParallel},
    {.key = "hetero",
     .kind = FieldKind::choice,
     .doc = "with cluster.pools: each pool runs whole DP replicas (data, tp·pp·cp devices each) or consecutive "
            "pipeline stages (pipeline, tp·cp·dp devices each; docs/heterogeneous.md)",
     .fallback = "\"data\"",
     .choices = kHeteroChoices},
    {.key = "hetero_split",
     .kind = FieldKind::choice,
     .doc = "with cluster.pools: split the global batch (data) or the layers (pipeline) proportional to each "
            "pool's measured rate, or equally per replica / per stage; pipeline_layers overrides the layer split",
     .fallback = "\"proportional\"",
     .choices = kHeteroSplitChoices},
    {.key = "dp_mode",
     .kind = FieldKind::choice,
     .doc = "how data-parallel replicas combine gradients: synchronous all-reduce, a synchronous parameter "
            "server, asynchronous SGD through the servers, stale-synchronous (ssp) with staleness_bound, or "
            "local SGD / DiLoCo averaging every local_sgd_steps (docs/data_parallel_modes.md)",
     .fallback = "\"allreduce\"",
     .choices = kDpModeChoices},
    {.key = "ps_servers",
     .kind = FieldKind::integer,
     .doc = "parameter-server shards (parameter_server, async, ssp); each holds 1/servers of the parameters",
     .fallback = "1",
     .ints = kPositive},
    {.key = "ps_placement",
     .kind = FieldKind::choice,
     .doc = "server shards on server nodes of their own (with ps_server_nic each) or on the first device of "
            "evenly spaced worker nodes, sharing that device's NIC (at most one shard per node)",
     .fallback = "\"dedicated\"",
     .choices = kServerPlacementChoices},
    {.key = "ps_server_nic",
     .kind = FieldKind::quantity,
     .doc = "NIC bandwidth of one dedicated server, per direction",
     .fallback = "derived: the worker node's NIC bandwidth × nics × nic efficiency",
     .dimension = Dimension::bandwidth},
    {.key = "staleness_bound",
     .kind = FieldKind::integer,
     .doc = "ssp: a worker at clock c waits until every worker reached clock c − s (Ho et al. 2013)",
     .fallback = "3",
     .ints = {.min = 0, .max = 1000000}},
    {.key = "worker_step_cv",
     .kind = FieldKind::number,
     .doc = "async and ssp: coefficient of variation of one worker's compute time per step (lognormal), "
            "the source of the staleness spread",
     .fallback = "0",
     .numbers = {.min = 0, .max = 10}},
    {.key = "local_sgd_steps",
     .kind = FieldKind::integer,
     .doc = "local_sgd: H, inner steps between two averagings of the parameters (DiLoCo's H)",
     .fallback = "1",
     .ints = {.min = 1, .max = 1000000}},
    {.key = "datacenters",
     .kind = FieldKind::integer,
     .doc = "local_sgd: sites the data-parallel replicas are split over evenly; the averaging crosses "
            "cross_dc_bandwidth between them",
     .fallback = "1",
     .ints = kPositive},
    {.key = "cross_dc_bandwidth",
     .kind = FieldKind::quantity,
     .doc = "local_sgd with datacenters > 1: bandwidth of one site's link to the others, per direction",
     .fallback = "",
     .dimension = Dimension::bandwidth},
    {.key = "cross_dc_latency",
     .kind = FieldKind::quantity,
     .doc = "local_sgd with datacenters > 1: one-way latency between sites",
     .fallback = "\"0 s\"",
     .dimension = Dimension::time,
     .rule = QuantityRule::non_negative},
};

// Megatron-LM's --rampup-batch-size <start> <increment> <samples> (megatron/core/
// num_microbatches_calculator.py, RampupBatchsizeNumMicroBatchesCalculator, NVIDIA/Megatron-LM 0b9bc2088b6d);
// replayed by the run section (sim/run/batch_ramp.hpp). At most kMaxRampBatches distinct batches: the run
// section predicts one step per batch (docs/limits.md).
constexpr std::int64_t kMaxRampBatches = 1024;
constexpr Field kBatchRampupFields[] = {
    {.key = "start",
     .kind = FieldKind::integer,
     .doc = "global batch (sequences) of the first step; at most global_batch, a multiple of micro_batch·dp",
     .fallback = "required",
     .ints = kPositive},
    {.key = "increment",
     .kind = FieldKind::integer,
     .doc = "sequences added at each level; divides global_batch - start and is a multiple of micro_batch·dp",
     .fallback = "required",
     .ints = kPositive},
    {.key = "samples",
     .kind = FieldKind::integer,
     .doc = "sequences consumed over the ramp: the batch grows by increment every samples / ((global_batch - "
            "start) / increment) sequences, then stays at global_batch",
     .fallback = "required",
     .ints = {.min = 1, .max = 1000000000000000}},
};
const Section kBatchRampupSection{"batch_rampup", "/training/batch_rampup",
                                  "batch-size ramp as Megatron-LM's --rampup-batch-size (docs/reliability.md)",
                                  kBatchRampupFields};

constexpr Field kTrainingFields[] = {
    {.key = "micro_batch",
     .kind = FieldKind::integer,
     .doc = "sequences per micro-batch per DP rank",
     .fallback = "required",
     .ints = kPositive},
    {.key = "global_batch",
     .kind = FieldKind::integer,
     .doc = "sequences per optimizer step",
     .fallback = "required",
     .ints = kPositive},
    {.key = "seq_len",
     .kind = FieldKind::integer,
     .doc = "sequence length",
     .fallback = "derived: model.seq_len",
     .ints = kPositive},
    {.key = "precision",
     .kind = FieldKind::choice,
     .doc = "GEMM precision; the device must list a peak for it. fp8: FP8 linear layers (fp8_scaling); fp4: "
            "NVFP4 linear layers (Transformer Engine NVFP4BlockScaling: 1x16 E4M3-scaled blocks, 16x16 for "
            "weights, Hadamard transform on wgrad inputs), attention and LM head in BF16 (docs/model.md)",
     .fallback = "\"bf16\"",
     .choices = kPrecisionChoices},
    {.key = "gradient_precision",
     .kind = FieldKind::choice,
     .doc = "gradient reduction buffers (\"fp4\" is refused: NVFP4 is a GEMM format, not a buffer format)",
     .fallback = "\"fp32\"",
     .choices = kPrecisionChoices},
    {.key = "master_weights",
     .kind = FieldKind::choice,
     .doc = "FP32 master copy of the weights",
     .fallback = "\"fp32\"",
     .choices = kMasterWeights},
    {.key = "recompute",
     .kind = FieldKind::choice,
     .doc = "activation recomputation",
     .fallback = "\"none\"",
     .choices = kRecomputeChoices},
    {.key = "selective_recompute",
     .kind = FieldKind::choice,
     .doc = "with recompute selective: attention (the attention core, Korthikanti 2022), op (torchtitan's "
            "op-level SAC: every second linear GEMM, all FP8 GEMMs, element-wise ops and TP all-gathers "
            "re-run), layer (every k-th layer in full), core-attn (Megatron-Core --recompute-modules core_attn: "
            "the attention core re-run, with flash attention the fused kernel's forward) or dots (JAX "
            "checkpoint_dots_with_no_batch_dims, MaxText remat_policy 'minimal': the weight matmuls' outputs the "
            "backward reads and the layer input saved, everything else re-run; dense non-MLA models; "
            "docs/model.md)",
     .fallback = "\"attention\"",
     .choices = kSelectivePolicyChoices},
    {.key = "bf16_layers_at_start",
     .kind = FieldKind::integer,
     .doc = "with precision fp8 or fp4: the first n transformer layers run in BF16, no casts (Megatron-Core "
            "first_last_layers_bf16 with num_layers_at_start_in_bf16)",
     .fallback = "0",
     .ints = kNonNegativeLayers},
    {.key = "bf16_layers_at_end",
     .kind = FieldKind::integer,
     .doc = "with precision fp8 or fp4: the last n transformer layers run in BF16 (num_layers_at_end_in_bf16)",
     .fallback = "0",
     .ints = kNonNegativeLayers},
    {.key = "activation_offload_layers",
     .kind = FieldKind::integer,
     .doc = "Megatron-Core CPU offloading (cpu_offloading_num_layers): the activations of the first n transformer "
            "layers go to host memory in the forward and come back in the backward (Transformer Engine "
            "cpu_offload.py); needs pp 1, recompute none, n below the layer count and a node host_link "
            "(docs/model.md)",
     .fallback = "0",
     .ints = kNonNegativeLayers},
    {.key = "selective_layer_interval",
     .kind = FieldKind::integer,
     .doc = "with selective_recompute layer: every k-th layer is recomputed (torchtitan selective_ac_option)",
     .fallback = "2",
     .ints = kPositive},
    {.key = "fp8_scaling",
     .kind = FieldKind::choice,
     .doc = "FP8 scaling recipe: delayed (Transformer Engine, fused cast-transpose), tensorwise (dynamic, an "
            "amax pass first), rowwise (per-row scales on both axes, CUTLASS row-wise GEMM; docs/model.md), "
            "blockwise (DeepSeek-V3 S3.3.2 1x128/128x128 scales with CUDA-core promotion, DeepGEMM kernels; "
            "needs precision fp8; docs/moe.md), mxfp8 (OCP microscaling, 1x32 E8M0 scales, row- and "
            "column-wise copies per cast as Transformer Engine; needs precision fp8; docs/model.md)",
     .fallback = "\"delayed\"",
     .choices = kFp8ScalingChoices},
    {.key = "mxfp8_separate_swizzle",
     .kind = FieldKind::boolean,
     .doc = "with fp8_scaling mxfp8: every FP8 GEMM first swizzles both operands' scales in two separate "
            "small kernels (Transformer Engine v2.7-v2.11); false: the quantisers write GEMM-ready scales "
            "(v2.12 and later; docs/model.md)",
     .fallback = "false"},
    {.key = "eager_elementwise",
     .kind = FieldKind::boolean,
     .doc = "eager PyTorch (no torch.compile): RMSNorm, rotary embedding and the SwiGLU product run as "
            "separate element-wise kernels (docs/model.md)",
     .fallback = "false"},
    {.key = "separate_projections",
     .kind = FieldKind::boolean,
     .doc = "Q, K, V and the SwiGLU gate/up projections run as separate linear layers, each its own GEMM "
            "and (FP8) its own input cast, as torchtitan's Llama; false: fused QKV and gate/up GEMMs as "
            "Megatron-Core (docs/model.md)",
     .fallback = "false"},
    {.key = "optimizer",
     .kind = FieldKind::choice,
     .doc = "optimizer (state size)",
     .fallback = "\"adam\"",
     .choices = kOptimizerChoices},
    {.key = "overlap_grad_reduce",
     .kind = FieldKind::boolean,
     .doc = "DP gradient buckets overlap the backward pass",
     .fallback = "true"},
    {.key = "flash_attention", .kind = FieldKind::boolean, .doc = "fused attention", .fallback = "true"},
    {.key = "attention_kernel",
     .kind = FieldKind::choice,
     .doc = "which fused attention kernel (with flash_attention): native (the kernel the device's attention "
            "efficiency describes: FlashAttention-2 on A100, Transformer Engine's cuDNN fused attention on "
            "H100/H200/H800), cudnn, FlashAttention-2, FlashAttention (v1) or the Triton FlashAttention; "
            "the last three run at the device's attention_flash2_rate times their fraction of "
            "FlashAttention-2's speed measured by Dao 2023 §4.1 (docs/model.md, \"Attention kernels\")",
     .fallback = "\"native\"",
     .choices = kAttentionKernelChoices},
    {.key = "fp8_attention",
     .kind = FieldKind::boolean,
     .doc = "attention kernels in FP8 too (needs precision fp8; otherwise FP8 runs keep BF16 attention)",
     .fallback = "false"},
    {.key = "fp8_activation_cache",
     .kind = FieldKind::boolean,
     .doc = "cache linear-layer inputs for the backward in FP8 (attention output in E5M6; the MoE SwiGLU "
            "recomputed from its FP8 input); needs precision fp8 (DeepSeek-V3 S3.3.4; docs/moe.md)",
     .fallback = "false"},
    {.key = "fp8_saved_inputs",
     .kind = FieldKind::choice,
     .doc = "what FP8 linear layers keep of their inputs for the backward: fp8 (the FP8 casts, 1 byte per "
            "element plus the recipe's scales: Transformer Engine), fp8-bf16-proj (as fp8, but the attention "
            "output projection keeps its BF16 input under recipes other than delayed: Megatron-Core from 0.15), "
            "bf16 (torchao's Float8Linear from v0.9); memory (and the bytes activation offloading moves), ignored without precision fp8 or with "
            "fp8_activation_cache (docs/model.md)",
     .fallback = "\"fp8\"",
     .choices = kFp8SavedInputsChoices},
    {.key = "recompute_norm_mla_up",
     .kind = FieldKind::boolean,
     .doc = "recompute the norms' outputs and MLA's up-projections in the backward instead of storing them "
            "(DeepSeek-V3 S3.2.3; docs/moe.md)",
     .fallback = "false"},
    {.key = "batch_rampup",
     .kind = FieldKind::object,
     .doc = "batch-size ramp {start, increment, samples} as Megatron-LM's --rampup-batch-size: the run section "
            "replays it (one step prediction per distinct batch, at most 1024); the step is predicted at "
            "global_batch, the final batch (docs/reliability.md)",
     .section = &kBatchRampupSection},
};

// dp_mode and the keys of its mode; a key of another mode is an error at its own pointer.
void read_dp_mode(ObjectReader& r, DpModeSpec& d) {
  d.mode = r.enumeration("dp_mode", dp_mode_names());
  const bool servers = d.uses_servers();
  const bool local = d.mode == DpMode::local_sgd;
  const bool mode_failed = r.context().failed(r.pointer_of("dp_mode"));
  const auto only = [&](std::string_view key, bool allowed, std::string_view modes) {
    if (r.has(key) && !allowed && !mode_failed) {
      r.error(key, fmt::format("only used with dp_mode {} (dp_mode is \"{}\")", modes,
                               name_of(dp_mode_names(), d.mode)));
    }
  };
  only("ps_servers", servers, "parameter_server, async or ssp");
  only("ps_placement", servers, "parameter_server, async or ssp");
  only("ps_server_nic", servers, "parameter_server, async or ssp");
  only("staleness_bound", d.mode == DpMode::ssp, "ssp");
  only("worker_step_cv", d.mode == DpMode::ssp || d.mode == DpMode::async, "async or ssp");
  only("local_sgd_steps", local, "local_sgd");
  only("datacenters", local, "local_sgd");
  only("cross_dc_bandwidth", local, "local_sgd");
  only("cross_dc_latency", local, "local_sgd");
  d.servers = r.integer("ps_servers");
  d.placement = r.enumeration("ps_placement", server_placement_names());
  d.server_nic = BytesPerSecond(r.get_quantity("ps_server_nic").value_or(0.0));
  if (r.has("ps_server_nic") && d.placement == ServerPlacement::colocated) {
    r.error("ps_server_nic", "colocated servers use their device's NIC; ps_server_nic is for dedicated servers");
  }
  d.staleness = r.integer("staleness_bound");
  d.worker_cv = r.number("worker_step_cv");
  d.local_steps = r.integer("local_sgd_steps");
  d.datacenters = r.integer("datacenters");
  d.cross_dc_bandwidth = BytesPerSecond(r.get_quantity("cross_dc_bandwidth").value_or(0.0));
  d.cross_dc_latency = r.quantity<Seconds>("cross_dc_latency");
  if (local && d.datacenters > 1 && !r.has("cross_dc_bandwidth")) {
    r.error("datacenters", fmt::format("{} datacenters need cross_dc_bandwidth (the link between sites)",
                                       d.datacenters));
  }
}

}  // namespace

const Section kParallelismSection{"parallelism", "/parallelism", "how the model is split over the devices",
                                  kParallelismFields};
const Section kTrainingSection{"training", "/training", "the training recipe", kTrainingFields};

ParallelismSpec read_parallelism(ObjectReader& r) {
  ParallelismSpec p;
  p.tp = r.integer("tp");
  p.pp = r.integer("pp");
  p.dp = static_cast<int>(r.get_integer("dp").value_or(0));
  p.cp = r.integer("cp");
  p.ep = r.integer("ep");
  p.etp = r.integer("etp");
  p.vp = r.integer("vp");
  p.ep_comm_sms = static_cast<int>(r.get_integer("ep_comm_sms").value_or(0));
  p.ep_comm_sms_reserved = r.boolean("ep_comm_sms_reserved");
  if (const nlohmann::json* layers = r.find("pipeline_layers")) {
    if (!layers->is_array() || layers->empty()) {
      r.error("pipeline_layers", fmt::format("expected a non-empty array of layer counts, got {}", describe(*layers)));
    } else {
      for (std::size_t i = 0; i < layers->size(); ++i) {
        const nlohmann::json& v = (*layers)[i];
        if (!v.is_number_integer() || v.get<std::int64_t>() < 0 || v.get<std::int64_t>() > 1000000) {
          r.context().error(r.pointer_of("pipeline_layers") + "/" + std::to_string(i),
                            fmt::format("expected a layer count (an integer 0..1000000), got {}", describe(v)));
          p.pipeline_layers.clear();
          break;
        }
        p.pipeline_layers.push_back(v.get<int>());
      }
    }
  }
  if (auto layout = r.get_string("pipeline_layout")) {
    const auto parsed = parse_pipeline_layout(*layout);
    if (!parsed.layout) {
      r.error("pipeline_layout", fmt::format("{}: {}", quoted_layout(*layout), parsed.error));
    } else if (r.find("pipeline_layers") != nullptr) {
      r.error("pipeline_layout", "state pipeline_layout or pipeline_layers, not both");
    } else {
      p.pipeline_layout = *layout;
      p.pipeline_layers = parsed.layout->decoder_per_stage();
    }
  }
  if (const auto rule = r.get_choice("pipeline_split")) {
    if (r.find("pipeline_layers") != nullptr || r.find("pipeline_layout") != nullptr) {
      r.error("pipeline_split", "state one of pipeline_split, pipeline_layers and pipeline_layout");
    } else {
      p.pipeline_split = std::string(kPipelineSplitRules[*rule]);
    }
  }
  p.sequence_parallel = r.boolean("sequence_parallel");
  const auto zero = r.get_integer("zero_stage");
  const bool fsdp = r.boolean("fsdp");
  p.zero_stage = static_cast<int>(zero.value_or(fsdp ? 3 : 0));
  if (fsdp && zero && *zero != 3) {
    r.error("fsdp", fmt::format("fsdp: true means zero_stage 3, but zero_stage is {}", *zero));
  }
  p.schedule = r.enumeration("schedule", schedule_names());
  p.tp_comm_overlap = r.boolean("tp_comm_overlap");
  p.tp_comm_overlap_backward = r.choice("tp_comm_overlap_scope") != "forward";
  p.dp_flat_ring = r.choice("dp_collective") == "flat-ring";
  p.pipeline_p2p_blocking = r.choice("pipeline_p2p") == "deepspeed";
  if (r.has("vocab_parallel")) {
    const std::string_view v = r.choice("vocab_parallel");
    p.vocab_parallel = v == "vocab-1"      ? VocabParallel::vocab_1
                       : v == "vocab-2"    ? VocabParallel::vocab_2
                       : v == "interlaced" ? VocabParallel::interlaced
                                           : VocabParallel::none;
    // pp > 1 is a cross-field check (cross_checks.cpp check_misc), skipped when pp itself is wrong.
  }
  if (r.has("moe_overlap")) {
    const std::string_view o = r.choice("moe_overlap");
    p.moe_overlap = o == "compute" ? MoeOverlap::compute
                    : o == "shared-expert" ? MoeOverlap::shared_expert
                                           : MoeOverlap::none;
  } else {
    p.moe_overlap = p.schedule == ScheduleKind::dualpipe ? MoeOverlap::compute : MoeOverlap::none;
    p.moe_overlap_defaulted = true;
  }
  read_dp_mode(r, p.data_parallel);
  p.hetero_defaulted = !r.has("hetero");
  p.hetero = r.choice("hetero") == "pipeline" ? HeteroMode::pipeline : HeteroMode::data;
  p.hetero_split_defaulted = !r.has("hetero_split");
  p.hetero_split = r.choice("hetero_split") == "equal" ? HeteroSplit::equal : HeteroSplit::proportional;
  return p;
}

TrainingSpec read_training(ObjectReader& r) {
  TrainingSpec t;
  t.micro_batch = r.require_integer("micro_batch");
  t.global_batch = r.require_integer("global_batch");
  t.seq_len = static_cast<int>(r.get_integer("seq_len").value_or(0));
  t.precision = r.enumeration("precision", precision_names());
  t.gradient_precision = r.enumeration("gradient_precision", precision_names());
  t.master_weights_fp32 = r.choice("master_weights") == "fp32";
  t.recompute = r.enumeration("recompute", recompute_names());
  t.selective_policy = r.enumeration("selective_recompute", selective_policy_names());
  t.selective_layer_interval = static_cast<int>(r.get_integer("selective_layer_interval").value_or(2));
  t.fp8_scaling = r.enumeration("fp8_scaling", fp8_scaling_names());
  t.eager_elementwise = r.boolean("eager_elementwise");
  t.separate_projections = r.boolean("separate_projections");
  t.optimizer = r.enumeration("optimizer", optimizer_names());
  t.overlap_grad_reduce = r.boolean("overlap_grad_reduce");
  t.flash_attention = r.boolean("flash_attention");
  t.attention_kernel = r.enumeration("attention_kernel", attention_kernel_names());
  if (r.has("attention_kernel") && !t.flash_attention) {
    r.error("attention_kernel", "names a fused attention kernel, but flash_attention is false");
  }
  t.fp8_attention = r.boolean("fp8_attention");
  t.fp8_activation_cache = r.boolean("fp8_activation_cache");
  t.fp8_saved_inputs = r.enumeration("fp8_saved_inputs", fp8_saved_inputs_names());
  t.fp8_blockwise = t.fp8_scaling == Fp8Scaling::blockwise;
  // One message per problem: with fp4 any fp8_scaling is the problem, else blockwise/mxfp8 without fp8.
  if (t.precision == Precision::fp4 && r.has("fp8_scaling")) {
    r.error("fp8_scaling",
            "applies to \"precision\": \"fp8\"; \"fp4\" is NVFP4 with its own scaling (docs/model.md, NVFP4)");
  } else if (t.fp8_blockwise && t.precision != Precision::fp8) {
    r.error("fp8_scaling", "\"blockwise\" needs \"precision\": \"fp8\" (it scales FP8 GEMM inputs)");
  } else if (t.fp8_scaling == Fp8Scaling::mxfp8 && t.precision != Precision::fp8) {
    r.error("fp8_scaling", "\"mxfp8\" needs \"precision\": \"fp8\" (it scales FP8 GEMM inputs)");
  }
  t.bf16_layers_start = static_cast<int>(r.get_integer("bf16_layers_at_start").value_or(0));
  t.bf16_layers_end = static_cast<int>(r.get_integer("bf16_layers_at_end").value_or(0));
  for (const char* key : {"bf16_layers_at_start", "bf16_layers_at_end"}) {
    // 0 keeps nothing out of anything, so a sweep over precisions may state it with bf16 too.
    const bool keeps = (std::string_view(key) == "bf16_layers_at_start" ? t.bf16_layers_start : t.bf16_layers_end) > 0;
    if (keeps && !is_quantised(t.precision)) {
      r.error(key, "needs \"precision\": \"fp8\" or \"fp4\" (it keeps layers out of the quantised GEMMs)");
    }
  }
  if (t.gradient_precision == Precision::fp4) {
    r.error("gradient_precision", "\"fp4\" is a GEMM precision (NVFP4), not a gradient-buffer format");
  }
  t.mxfp8_separate_swizzle = r.boolean("mxfp8_separate_swizzle");
  if (r.has("mxfp8_separate_swizzle") && t.fp8_scaling != Fp8Scaling::mxfp8) {
    r.error("mxfp8_separate_swizzle", "applies only with \"fp8_scaling\": \"mxfp8\"");
  }
  t.recompute_norm_mla_up = r.boolean("recompute_norm_mla_up");
  t.activation_offload_layers = static_cast<int>(r.get_integer("activation_offload_layers").value_or(0));
  if (t.fp8_activation_cache && t.precision != Precision::fp8) {
    r.error("fp8_activation_cache", "needs \"precision\": \"fp8\" (the FP8 cache holds FP8 GEMM inputs)");
  }
  if (t.fp8_attention && t.precision != Precision::fp8) {
    r.error("fp8_attention", "needs \"precision\": \"fp8\" (FP8 attention is part of FP8 training)");
  }
  if (t.fp8_attention && t.flash_attention && flash2_family(t.attention_kernel)) {
    r.error("fp8_attention",
            "needs an attention kernel with an FP8 path (native or cudnn): FlashAttention-2, FlashAttention (v1) "
            "and the Triton FlashAttention have none");
  }
  if (auto c = r.child("batch_rampup")) {
    BatchRampup b;
    b.start = c->require_integer("start");
    b.increment = c->require_integer("increment");
    b.samples = c->require_integer("samples");
    c->finish();
    bool ok = b.start > 0 && b.increment > 0 && b.samples > 0 && t.global_batch > 0;
    if (ok && b.start > t.global_batch) {
      c->error("start", fmt::format("the ramp starts at {} sequences, above global_batch ({}), the batch it "
                                    "ramps up to", b.start, t.global_batch));
      ok = false;
    }
    if (ok && (t.global_batch - b.start) % b.increment != 0) {
      c->error("increment", fmt::format("{} does not divide global_batch - start = {} - {} = {} (Megatron-LM "
                                        "asserts the same)", b.increment, t.global_batch, b.start,
                                        t.global_batch - b.start));
      ok = false;
    }
    if (ok && (t.global_batch - b.start) / b.increment + 1 > kMaxRampBatches) {
      c->error("increment", fmt::format("the ramp has {} distinct batches ((global_batch - start) / increment + "
                                        "1), more than the {} the run section predicts a step for",
                                        (t.global_batch - b.start) / b.increment + 1, kMaxRampBatches));
      ok = false;
    }
    if (ok) t.batch_rampup = b;
  }
  return t;
}

}  // namespace clustersim::config
