#include "models/transformer_cost.hpp"

#include <algorithm>
#include <initializer_list>
#include <utility>

#include "models/eager_kernels.hpp"

namespace clustersim {
namespace {

struct Dims {
  double tokens;        // T: tokens of the micro-batch on this rank (b·s/cp)
  double norm_tokens;   // tokens seen by norms/dropouts (T/t with sequence parallelism)
  double keys;          // key length each query attends over (full s)
  double h, hl;         // hidden, hidden per TP rank
  double ql;            // query width per TP rank (heads/t · head_dim; = hl when head_dim = h/heads)
  double ol;            // attention output width per TP rank (heads/t · v_head_dim)
  double kvl;           // K width per TP rank (GQA groups replicate when t > kv_heads)
  double vkl;           // V width per TP rank
  double fl;            // MLP inner width per TP rank
  double heads_l;       // query heads per TP rank
  double vl;            // vocabulary per TP rank
  double e;             // bytes per element of activations (BF16 in FP8 training)
  double seq_local;     // query rows of one sequence on this rank (s/cp)
  double microbatches;  // per step (FP8 weight-cast amortisation)
  double cast_bytes;    // bytes per element of an FP8 input cast (the scaling recipe)
  double fp8_gemm_eff;  // speed of the FP8 GEMM kernel of the recipe relative to tensor-wise
  Precision linear;     // QKV / projection / MLP GEMMs
  Precision attention;  // attention core
  Precision head;       // LM head GEMM (and the activations' precision)
  bool blockwise;       // FP8 linear GEMMs blockwise-scaled (LayerShape::fp8_blockwise)
  bool swizzle;         // MXFP8 GEMMs swizzle their operands' scales first (LayerShape::mxfp8_separate_swizzle)
  bool separate;        // separate Q/K/V and gate/up linears (LayerShape::separate_projections)
  bool shared_cast;     // separate linears share one FP8 input cast (see dims_of)
  double shared_cast_rows;  // rows that shared cast covers
};

// FP8 and NVFP4 training keep activations, attention (unless fp8_attention) and the LM head in BF16.
Precision activation_precision(Precision p) {
  return is_quantised(p) ? Precision::bf16 : p;
}

Dims dims_of(const TransformerSpec& m, const LayerShape& s) {
  Dims d{};
  const double t = s.tp;
  d.tokens = static_cast<double>(s.micro_batch) * s.seq_len / s.cp;
  d.norm_tokens = s.sequence_parallel ? d.tokens / t : d.tokens;
  d.keys = s.seq_len;
  d.h = m.hidden;
  d.hl = m.hidden / t;
  const double kv_heads_l = std::max(1.0, static_cast<double>(m.kv_heads) / t);
  d.kvl = kv_heads_l * m.head_dim();
  d.vkl = kv_heads_l * m.v_head_dim();
  d.ql = static_cast<double>(m.heads) / t * m.head_dim();
  d.ol = static_cast<double>(m.heads) / t * m.v_head_dim();
  d.fl = m.ffn_hidden / t;
  d.heads_l = m.heads / t;
  d.vl = m.vocab / t;
  d.linear = s.precision;
  d.head = activation_precision(s.precision);
  d.attention = s.fp8_attention ? s.precision : activation_precision(s.precision);
  d.e = bytes_per_element(d.head);
  d.seq_local = static_cast<double>(s.seq_len) / s.cp;
  d.microbatches = std::max(1, s.microbatches);
  d.cast_bytes = s.precision == Precision::fp4 ? kNvfp4InputCastBytes : fp8_cast_bytes_per_element(s.fp8_scaling);
  d.fp8_gemm_eff = s.fp8_scaling == Fp8Scaling::rowwise ? kRowwiseFp8GemmEfficiency : 1.0;
  d.blockwise = s.fp8_blockwise && s.precision == Precision::fp8;
  d.swizzle = s.mxfp8_separate_swizzle && s.fp8_scaling == Fp8Scaling::mxfp8 && s.precision == Precision::fp8;
  d.separate = s.separate_projections;
  // torchao's float8 tensor-parallel plan (Float8ColwiseParallel + PrepareFloat8ModuleInput), which
  // torchtitan applies only for tensor-wise scaling (torchtitan 820504e models/llama3/parallelize_llama.py:
  // "float8 all-gather with TP is only supported for tensorwise float8 scaling recipes. For rowwise
  // recipes, we use regular TP and all-gather happens in high precision"): the sequence-sharded input is
  // cast once before the all-gather and the gathered FP8 tensor feeds every linear of the group.
  // Under torch.compile the casts stay per module too: AOTAutograd's graph CSE could merge identical
  // casts of one input, but torchtitan's maintainers measured the opposite (pytorch/torchtitan PR 1319,
  // 2025-06: keeping the small wk and wv out of row-wise FP8 gave "~10% TPS improvement for TP", the
  // size of two extra casts of the attention input per layer, not of two narrow GEMMs).
  const bool fp8_tp_plan = s.fp8_scaling == Fp8Scaling::tensorwise && s.tp > 1 && s.sequence_parallel;
  d.shared_cast = d.separate && s.precision == Precision::fp8 && fp8_tp_plan;
  d.shared_cast_rows = d.norm_tokens;
  return d;
}

// A GEMM M x N x K at `p`: inputs at p's width, output at the activations' width `e_out`.
Kernel gemm(std::string_view name, double mm, double nn, double kk, Precision p, double e_out) {
  const double f = 2.0 * mm * nn * kk;
  const double e_in = bytes_per_element(p);
  Kernel g{name, KernelClass::gemm, Flops(f), Flops(f), Bytes(e_in * (mm * kk + kk * nn) + e_out * mm * nn),
           false};
  g.precision = p;
  g.m = mm;
  g.n = nn;
  g.k = kk;
  return g;
}

Kernel elementwise(std::string_view name, double bytes) {
  return Kernel{name, KernelClass::elementwise, Flops(0), Flops(0), Bytes(bytes), false};
}

// Bytes per element of a cast-transpose: read BF16 (2 B), write FP8 (1 B) and its transpose (1 B).
constexpr double kCastTransposeBytes = 4.0;

// A quantisation kernel of a linear layer's operands: `bytes` moved in all, `cast_bytes` per activation
// element (what the energy timeline and the overlap model read), the GEMM's shape for its tile accounting.
Kernel quantise_kernel(const char* name, double bytes, double cast_bytes, double mm, double nn, double kk) {
  Kernel c = elementwise(name, bytes);
  c.fp8_cast = true;
  c.cast_bytes = cast_bytes;
  c.m = mm;
  c.n = nn;
  c.k = kk;
  return c;
}

Kernel cast_kernel(double mm, double nn, double kk, double microbatches,
                   double bytes_per_element = kCastTransposeBytes) {
  return quantise_kernel("fp8_cast", bytes_per_element * (mm * kk + kk * nn / microbatches), bytes_per_element,
                         mm, nn, kk);
}

// The NVFP4 quantisation of a linear layer's inputs: the activation (M x K) every micro-batch in three
// kernels (kNvfp4InputCastBytes), the weight (K x N) once per step (kNvfp4WeightCastBytes). The backward
// copy of this kernel quantises the output gradient with the activation's recipe (Hadamard transform on
// its column-wise copy; stochastic rounding is done inside the cast and not charged).
// `weights` K x N weights are quantised (the local experts of a grouped GEMM; 1 otherwise).
Kernel nvfp4_cast_kernel(double mm, double nn, double kk, double microbatches, double weights = 1.0) {
  Kernel c = quantise_kernel("fp4_cast",
                             kNvfp4InputCastBytes * mm * kk + kNvfp4WeightCastBytes * weights * kk * nn / microbatches,
                             kNvfp4InputCastBytes, mm, nn, kk);
  c.extra_kernels = kNvfp4InputCastExtraKernels;
  return c;
}

// The input cast of a quantised linear GEMM at the layer's precision (FP8 recipe or NVFP4).
Kernel input_cast_kernel(double mm, double nn, double kk, const Dims& d) {
  return d.linear == Precision::fp4 ? nvfp4_cast_kernel(mm, nn, kk, d.microbatches)
                                    : cast_kernel(mm, nn, kk, d.microbatches, d.cast_bytes);
}

// An NVFP4 GEMM also reads its operands' E4M3 block scales (1/16 B per element; weights' 16x16 blocks
// are smaller still, counted as 1/16 too).
void add_fp4_scale_bytes(Kernel& g) {
  if (g.precision != Precision::fp4) return;
  g.bytes = Bytes(g.bytes.value() + kNvfp4ScaleBytesPerElement * g.batch * (g.m * g.k + g.k * g.n));
}

// MXFP8 with separate scale swizzles (Dims::swizzle): the GEMM launches one swizzle per operand first,
// here the forward's activation (M x K per problem) and weight (K x N per problem) scales.
void add_swizzles(Kernel& g, const Dims& d) {
  if (!d.swizzle || g.precision != Precision::fp8) return;
  g.extra_kernels = 2;
  g.extra_bytes = kMxfp8SwizzleBytesPerElement * g.batch * (g.m * g.k + g.k * g.n);
}

// A linear-layer GEMM, preceded in FP8 training by the cast of its inputs: the activation (M x K) every
// micro-batch, the weight (K x N) once per step.
void add_linear(LayerKernels& ks, std::string_view name, double mm, double nn, double kk, const Dims& d) {
  if (is_quantised(d.linear)) ks.add(input_cast_kernel(mm, nn, kk, d));
  Kernel g = gemm(name, mm, nn, kk, d.linear, d.e);
  if (d.linear == Precision::fp8) g.impl_efficiency = d.fp8_gemm_eff;
  g.fp8_blockwise = d.blockwise;
  add_swizzles(g, d);
  add_fp4_scale_bytes(g);
  ks.add(g);
}

// Linears reading one input (M x K) with output widths `parts`: one fused GEMM named `fused` over the
// summed widths (Megatron-Core linear_qkv / linear_fc1), or with separate projections one GEMM per part
// (torchtitan models/llama3/model.py at 820504e: wq, wk, wv and w1, w3 are separate nn.Linear). In FP8
// each separate Float8Linear casts its own input when run eagerly (torchao 6243040
// float8/float8_linear.py, matmul_with_hp_or_float8_args: the input is cast unless it is already a float8
// tensor); under the float8 tensor-parallel plan one cast of the sequence shard is shared (Dims::shared_cast).
// Each GEMM still casts its own weight, and its output gradient in the backward.
void add_linear_group(LayerKernels& ks, std::string_view fused,
                      std::initializer_list<std::pair<std::string_view, double>> parts, double mm, double kk,
                      const Dims& d) {
  if (!d.separate) {
    double n = 0.0;
    for (const auto& p : parts) n += p.second;
    add_linear(ks, fused, mm, n, kk, d);
    return;
  }
  bool first = true;
  for (const auto& [name, n] : parts) {
    if (d.shared_cast) {
      Kernel c = cast_kernel(mm, n, kk, d.microbatches, d.cast_bytes);
      c.bytes = Bytes(d.cast_bytes * ((first ? d.shared_cast_rows * kk : 0.0) + kk * n / d.microbatches));
      ks.add(c);
      Kernel g = gemm(name, mm, n, kk, d.linear, d.e);
      g.impl_efficiency = d.fp8_gemm_eff;
      add_swizzles(g, d);
      ks.add(g);
    } else {
      add_linear(ks, name, mm, n, kk, d);
    }
    first = false;
  }
}

}  // namespace

double fp8_cast_bytes_per_element(Fp8Scaling scaling) {
  switch (scaling) {
    case Fp8Scaling::delayed:
    case Fp8Scaling::blockwise:
      return kCastTransposeBytes;
    case Fp8Scaling::tensorwise:
      return kCastTransposeBytes + 2.0;
    case Fp8Scaling::rowwise:
      return 2.0 * (2.0 + 2.0 + 1.0);
    case Fp8Scaling::mxfp8:
      return 2.0 + 1.0 + 1.0 + 2.0 / 32.0;
  }
  return kCastTransposeBytes;
}

Kernel gemm_kernel(std::string_view name, double m, double n, double k, Precision p, double out_bytes) {
  return gemm(name, m, n, k, p, out_bytes);
}

Kernel fp8_cast_kernel(double m, double n, double k, int microbatches) {
  return cast_kernel(m, n, k, std::max(1, microbatches));
}

Kernel linear_input_cast_kernel(Precision p, double m, double n, double k, int microbatches) {
  return p == Precision::fp4 ? nvfp4_cast_kernel(m, n, k, std::max(1, microbatches))
                             : fp8_cast_kernel(m, n, k, microbatches);
}

namespace {

// Attention of one layer: QKV (or MLA's projections), the attention core, the output projection.
void add_attention(LayerKernels& k, const TransformerSpec& m, const LayerShape& s, const Dims& d) {
  if (m.mla.enabled()) {
    // Multi-head latent attention (DeepSeek-V2 §2.1; Megatron-Core MLASelfAttention): the down-projections
    // are replicated on every TP rank, the up-projections column-parallel.
    const MlaSpec& a = m.mla;
    const double heads_l = d.heads_l;
    if (a.q_lora_rank > 0) {
      add_linear(k, "q_down", d.tokens, a.q_lora_rank, d.h, d);
      k.add(elementwise("q_norm", d.tokens * a.q_lora_rank * 2.0 * d.e));
      add_linear(k, "q_up", d.tokens, d.ql, a.q_lora_rank, d);
    } else {
      add_linear(k, "q_proj", d.tokens, d.ql, d.h, d);
    }
    add_linear(k, "kv_down", d.tokens, a.kv_lora_rank + a.qk_rope_head_dim, d.h, d);
    k.add(elementwise("kv_norm", d.tokens * a.kv_lora_rank * 2.0 * d.e));
    add_linear(k, "kv_up", d.tokens, heads_l * (a.qk_nope_head_dim + a.v_head_dim), a.kv_lora_rank, d);
  } else {
    add_linear_group(k, "qkv", {{"wq", d.ql}, {"wk", d.kvl}, {"wv", d.vkl}}, d.tokens, d.h, d);
  }
  const double score_elems = d.heads_l * d.tokens * d.keys;
  // QK^T (head_dim) + AV (v_head_dim), 2 FLOPs per multiply-add, full score matrix.
  const double core_flops = 2.0 * d.tokens * d.keys * (d.ql + d.ol);
  const double ea = bytes_per_element(d.attention);
  if (s.flash_attention) {
    const double bytes = ea * d.tokens * (d.ql + d.ol) + ea * d.keys * (d.kvl + d.vkl);
    // Causal flash kernels skip the masked upper triangle: half the score blocks execute.
    Kernel fa{"flash_attention",       KernelClass::attention, Flops(core_flops),
              Flops(0.5 * core_flops), Bytes(bytes),           true};
    fa.precision = d.attention;
    // Each call (one per context-parallel ring step) sees s/cp keys; a causal query tile iterates over
    // half of them on average.
    fa.attn_keys = 0.5 * d.keys / s.cp;
    fa.attn_head_dim = m.head_dim();
    const AttentionKernelRate rate = attention_kernel_rate(s.attention_kernel);
    fa.attn_rate = rate.forward;
    fa.attn_bwd_rate = rate.backward;
    fa.attn_flash2_family = flash2_family(s.attention_kernel);
    k.add(fa);
  } else {
    if (m.position == PositionKind::alibi) {
      // ALiBi without a fused kernel (Megatron-DeepSpeed, BigScience's fork: megatron/model/transformer.py,
      // ParallelAttention.forward): the score buffer is the [b·heads/t, 1, s] bias broadcast, and QK^T is a
      // baddbmm with beta != 0 (1/layer_number under query-key layer scaling, else 1), so PyTorch first copies
      // the expanded bias into the [b·heads/t, s/cp, s] output and the GEMM then reads it as C: one more write
      // and one more read of the score matrix, in the forward only (the bias is a constant, with no gradient).
      // Recomputed with the core attention.
      Kernel ab = elementwise("alibi_bias", 2.0 * d.e * score_elems);
      ab.attention_core = true;
      ab.forward_only = true;
      k.add(ab);
    }
    // Batched GEMMs over (micro-batch x local heads): s/cp query rows x s keys x head_dim.
    Kernel qk = gemm("attn_qk", d.seq_local, d.keys, m.head_dim(), d.attention, d.e);
    qk.batch = s.micro_batch * d.heads_l;
    qk.model_flops = qk.exec_flops = Flops(2.0 * d.tokens * d.keys * d.ql);
    qk.bytes = Bytes(ea * (d.tokens * d.ql + d.keys * d.kvl) + d.e * score_elems);
    qk.attention_core = true;
    k.add(qk);
    Kernel sm = elementwise("softmax", 2.0 * d.e * score_elems);
    sm.attention_core = true;
    k.add(sm);
    Kernel dr = elementwise("attn_dropout", (2.0 * d.e + 1.0) * score_elems);
    dr.attention_core = true;
    k.add(dr);
    Kernel av = qk;
    av.name = "attn_av";
    av.n = m.v_head_dim();
    av.k = d.keys;
    av.model_flops = av.exec_flops = Flops(2.0 * d.tokens * d.keys * d.ol);
    av.bytes = Bytes(ea * (score_elems + d.keys * d.vkl) + d.e * d.tokens * d.ol);
    k.add(av);
  }
  add_linear(k, "proj", d.tokens, d.h, d.ol, d);
}

// A TP-sharded MLP of inner width `fl` per rank on the layer's tokens (the dense MLP, or shared experts).
void add_mlp(LayerKernels& k, const TransformerSpec& m, const Dims& d, double fl, std::string_view fc1,
             std::string_view fc2) {
  const double w_in = m.mlp == MlpKind::swiglu ? 2.0 * fl : fl;
  if (m.mlp == MlpKind::swiglu && fc1 == "fc1") {
    add_linear_group(k, fc1, {{"w1", fl}, {"w3", fl}}, d.tokens, d.h, d);
  } else {
    add_linear(k, fc1, d.tokens, w_in, d.h, d);
  }
  k.add(elementwise(m.mlp == MlpKind::swiglu ? "swiglu" : "gelu", d.e * d.tokens * (w_in + fl)));
  add_linear(k, fc2, d.tokens, d.h, fl, d);
}

// An expert GEMM: `experts` problems of `rows` tokens each (the busiest rank: `load` x the mean) by
// N x K; model FLOPs count the mean load. In FP8 training the tokens and the experts' weights are cast.
void add_expert_gemm(LayerKernels& ks, std::string_view name, double rows_mean, double load, double nn,
                     double kk, double experts, const Dims& d) {
  const double rows = rows_mean * load;
  if (d.linear == Precision::fp8) {
    Kernel c = elementwise("fp8_cast", kCastTransposeBytes * (rows * experts * kk + experts * kk * nn / d.microbatches));
    c.fp8_cast = true;
    c.m = rows * experts;
    c.n = nn;
    c.k = kk;
    ks.add(c);
  } else if (d.linear == Precision::fp4) {
    ks.add(nvfp4_cast_kernel(rows * experts, nn, kk, d.microbatches, experts));
  }
  Kernel g = gemm(name, rows, nn, kk, d.linear, d.e);
  g.batch = experts;
  g.grouped = true;
  g.fp8_blockwise = d.blockwise;
  g.model_flops = Flops(2.0 * rows_mean * experts * nn * kk);
  g.exec_flops = Flops(2.0 * rows * experts * nn * kk);
  g.bytes = Bytes(bytes_per_element(d.linear) * experts * (rows * kk + kk * nn) + d.e * experts * rows * nn);
  add_swizzles(g, d);  // one multi-tensor swizzle per operand list (Transformer Engine grouped GEMM)
  add_fp4_scale_bytes(g);
  ks.add(g);
}

// The MoE feed-forward of one layer on one rank (layer_forward_kernels documents the kernels).
void add_moe(LayerKernels& k, const TransformerSpec& m, const LayerShape& s, const Dims& d) {
  const MoeSpec& e = m.moe;
  const double tm = d.tokens / s.tp;  // tokens this rank routes (sequence-parallel shard)
  const double experts_l = static_cast<double>(e.num_experts) / s.ep;
  const double recv = tm * e.top_k * s.etp;  // tokens this rank's experts compute, mean over EP ranks
  const double load = std::max(1.0, s.moe_load);
  const double fl = static_cast<double>(e.ffn_hidden) / s.etp;
  const double w_in = m.mlp == MlpKind::swiglu ? 2.0 * fl : fl;
  // The router's T/t x E x h product is a skinny GEMM (E columns) that runs at memory speed: reading the
  // tokens dominates (a 128-wide tile would waste most of its columns), so it is costed by its bytes.
  k.add(elementwise("router", d.e * tm * d.h + d.e * d.h * e.num_experts + 4.0 * tm * e.num_experts));
  k.add(elementwise("router_topk", tm * e.num_experts * 4.0 * 3.0));
  k.add(elementwise("permute", d.e * tm * d.h * (1.0 + e.top_k)));
  add_expert_gemm(k, "expert_fc1", recv / experts_l, load, w_in, d.h, experts_l, d);
  k.add(elementwise(m.mlp == MlpKind::swiglu ? "expert_swiglu" : "expert_gelu",
                    d.e * recv * load * (w_in + fl)));
  add_expert_gemm(k, "expert_fc2", recv / experts_l, load, d.h, fl, experts_l, d);
  k.add(elementwise("unpermute", d.e * tm * d.h * (1.0 + e.top_k) + 4.0 * tm * e.top_k));
  if (e.shared_experts > 0) {
    add_mlp(k, m, d, static_cast<double>(e.shared_experts) * e.shared_ffn_hidden / s.tp, "shared_fc1",
            "shared_fc2");
  }
}

}  // namespace

LayerKernels layer_forward_kernels(const TransformerSpec& m, const LayerShape& s, LayerKind kind) {
  const Dims d = dims_of(m, s);
  LayerKernels k;
  const double norm_bytes = d.norm_tokens * d.h * 2.0 * d.e;
  const double dropout_add_bytes = d.norm_tokens * d.h * (3.0 * d.e + 1.0);
  const auto add_ffn = [&] {
    if (kind == LayerKind::moe && m.moe.enabled()) {
      add_moe(k, m, s, d);
    } else {
      add_mlp(k, m, d, d.fl, "fc1", "fc2");
    }
  };
  if (m.parallel_block) {
    // x + attn(ln(x)) + mlp(ln(x)): one norm pass over x feeds both branches (PaLM §2; GPT-J), and one
    // fused kernel adds both branch outputs with their dropouts to the residual: reads x and the two
    // outputs, writes x (4e), plus two 1-byte dropout masks.
    k.add(elementwise("layernorm", norm_bytes));
    add_attention(k, m, s, d);
    add_ffn();
    k.add(elementwise("dropout_add", d.norm_tokens * d.h * (4.0 * d.e + 2.0)));
    if (s.eager_elementwise && kind == LayerKind::dense) add_eager_elementwise(k, m, s);
    return k;
  }
  k.add(elementwise("layernorm", norm_bytes));
  add_attention(k, m, s, d);
  k.add(elementwise("dropout_add", dropout_add_bytes));
  k.add(elementwise("layernorm", norm_bytes));
  add_ffn();
  k.add(elementwise("dropout_add", dropout_add_bytes));
  if (s.eager_elementwise && kind == LayerKind::dense) add_eager_elementwise(k, m, s);
  return k;
}

TpCollectives layer_tp_collectives(const TransformerSpec& m, const LayerShape& s) {
  TpCollectives c;
  if (s.tp <= 1) return c;
  const int reductions = m.parallel_block ? 1 : 2;  // after attention and after the MLP, or once after both
  if (s.sequence_parallel) {
    c.all_gather = reductions;
    c.reduce_scatter = reductions;
  } else {
    c.all_reduce = reductions;
  }
  return c;
}

namespace {
void add_backward_of(LayerKernels& out, const Kernel& f, bool input_grad, bool weight_grad) {
  if (f.forward_only) return;
  if (f.fp8_cast) {
    // The output gradient (M x N of the GEMM) is cast and transposed for the dgrad and wgrad GEMMs.
    if (input_grad) {
      Kernel c = f;
      c.bytes = Bytes(f.cast_bytes * f.m * f.n);
      out.add(c);
    }
    return;
  }
  switch (f.cls) {
    case KernelClass::gemm:
      if (f.attention_core) {  // activation-activation GEMMs have no weights: both halves are "input" grads
        if (input_grad) {
          Kernel b = f;
          b.model_flops = b.exec_flops = Flops(2.0 * f.exec_flops.value());
          b.bytes = Bytes(2.0 * f.bytes.value());
          out.add(b);
        }
        return;
      }
      if (input_grad) {  // dX = dY · W^T: M x K output, reduction over N
        Kernel b = f;
        b.n = f.k;
        b.k = f.n;
        // MXFP8 swizzles of its operands: the output gradient (M x N) and the weight (K x N).
        if (f.extra_kernels > 0) b.extra_bytes = kMxfp8SwizzleBytesPerElement * f.batch * (f.m * f.n + f.k * f.n);
        out.add(b);
      }
      if (weight_grad) {  // dW = X^T · dY: K x N output, reduction over M
        Kernel w = f;
        w.m = f.k;
        w.k = f.m;
        // MXFP8 swizzles of its operands' column-wise scales: the input (M x K) and output gradient (M x N).
        if (f.extra_kernels > 0) w.extra_bytes = kMxfp8SwizzleBytesPerElement * f.batch * (f.m * f.k + f.m * f.n);
        out.add(w);
      }
      return;
    case KernelClass::attention:
      if (input_grad) {
        // FlashAttention-2 backward recomputes the scores: 5 GEMM-sized passes vs 2 forward (Dao 2023).
        Kernel b = f;
        b.model_flops = Flops(2.0 * f.model_flops.value());
        b.exec_flops = Flops(2.5 * f.exec_flops.value());
        b.bytes = Bytes(2.0 * f.bytes.value());
        b.attn_rate = f.attn_bwd_rate;
        out.add(b);
      }
      return;
    case KernelClass::elementwise:
      if (input_grad) {
        Kernel b = f;
        b.bytes = Bytes(1.5 * f.bytes.value());  // read output-grad + saved input, write input-grad
        out.add(b);
      }
      return;
  }
}
}  // namespace

LayerKernels layer_backward_kernels(const TransformerSpec& m, const LayerShape& s, bool input_grad,
                                    bool weight_grad, LayerKind kind) {
  return layer_backward_kernels(m, s, layer_forward_kernels(m, s, kind), input_grad, weight_grad, kind);
}

LayerKernels layer_backward_kernels(const TransformerSpec& m, const LayerShape& s, const LayerKernels& fwd,
                                    bool input_grad, bool weight_grad, LayerKind kind) {
  LayerKernels out;
  for (const Kernel& f : fwd) {
    add_backward_of(out, f, input_grad, weight_grad);
  }
  if (input_grad && s.separate_projections) {
    // Separate linears on one input each return an input gradient (M x K); autograd sums them before the
    // gradient flows on. Counted as one fused pass: read the n gradients, write the sum.
    const Dims d = dims_of(m, s);
    const auto sum_of = [&](double n) { out.add(elementwise("grad_sum", (n + 1.0) * d.e * d.tokens * d.h)); };
    if (!m.mla.enabled()) sum_of(3.0);
    if (m.mlp == MlpKind::swiglu && !(kind == LayerKind::moe && m.moe.enabled())) sum_of(2.0);
  }
  return out;
}

LayerKernels embedding_forward_kernels(const TransformerSpec& m, const LayerShape& s) {
  const Dims d = dims_of(m, s);
  LayerKernels k;
  const double extra = m.position == PositionKind::learned ? 1.0 : 0.0;
  k.add(elementwise("embedding", d.e * d.tokens * d.h * (2.0 + extra)));
  return k;
}

LayerKernels head_forward_kernels(const TransformerSpec& m, const LayerShape& s) {
  const Dims d = dims_of(m, s);
  LayerKernels k;
  k.add(elementwise("final_norm", d.norm_tokens * d.h * 2.0 * d.e));
  k.add(gemm("lm_head", d.tokens, d.vl, d.h, d.head, d.e));
  // Vocab-parallel cross-entropy: logits upcast to fp32, max/exp/sum passes (Megatron cross_entropy.py).
  k.add(elementwise("cross_entropy", d.tokens * d.vl * (d.e + 3.0 * 4.0)));
  return k;
}

LayerKernels head_backward_kernels(const TransformerSpec& m, const LayerShape& s, bool input_grad,
                                   bool weight_grad) {
  return head_backward_kernels(head_forward_kernels(m, s), input_grad, weight_grad);
}

LayerKernels head_backward_kernels(const LayerKernels& fwd, bool input_grad, bool weight_grad) {
  LayerKernels out;
  for (const Kernel& f : fwd) add_backward_of(out, f, input_grad, weight_grad);
  return out;
}

namespace {

// Weights of one layer's attention block (no norms or biases).
double attention_matmul_params(const TransformerSpec& m) {
  const double h = m.hidden;
  if (m.mla.enabled()) {
    const MlaSpec& a = m.mla;
    const double heads = m.heads;
    const double q = a.q_lora_rank > 0
                         ? h * a.q_lora_rank + a.q_lora_rank * heads * m.head_dim()
                         : h * heads * m.head_dim();
    return q + h * (a.kv_lora_rank + a.qk_rope_head_dim) +
           a.kv_lora_rank * heads * (a.qk_nope_head_dim + a.v_head_dim) + heads * a.v_head_dim * h;
  }
  const double qd = static_cast<double>(m.heads) * m.head_dim();
  const double kvd = static_cast<double>(m.kv_heads) * m.head_dim();
  return h * (qd + 2.0 * kvd) + qd * h;
}

double attention_bias_params(const TransformerSpec& m) {
  if (!m.linear_bias || m.mla.enabled()) return 0.0;
  const double qd = static_cast<double>(m.heads) * m.head_dim();
  const double kvd = static_cast<double>(m.kv_heads) * m.head_dim();
  return qd + 2.0 * kvd + m.hidden;
}

// Weights (+ biases) of one MLP of inner size f.
double mlp_params(const TransformerSpec& m, double f) {
  const bool swiglu = m.mlp == MlpKind::swiglu;
  const double h = m.hidden;
  double p = (swiglu ? 3.0 : 2.0) * h * f;
  if (m.linear_bias) p += (swiglu ? 2.0 * f : f) + h;
  return p;
}

}  // namespace

ParameterCount parameter_count(const TransformerSpec& m) {
  const double h = m.hidden;
  const double norm = m.norm == NormKind::layernorm ? 2.0 * h : h;
  double mla_norms = 0.0;
  if (m.mla.enabled()) mla_norms = m.mla.q_lora_rank + m.mla.kv_lora_rank;
  const double attention = attention_matmul_params(m) + attention_bias_params(m) + mla_norms;
  ParameterCount p;
  p.per_layer = attention + mlp_params(m, m.ffn_hidden) + 2.0 * norm;
  if (m.moe.enabled()) {
    const MoeSpec& e = m.moe;
    p.moe_layer_shared = attention + 2.0 * norm + h * e.num_experts +
                         (e.shared_experts > 0 ? mlp_params(m, static_cast<double>(e.shared_experts) *
                                                                   e.shared_ffn_hidden)
                                               : 0.0);
    p.moe_layer_experts = static_cast<double>(e.num_experts) * mlp_params(m, e.ffn_hidden);
  }
  p.moe_layers = m.moe_layers_in(0, m.layers);
  p.dense_layers = m.layers - p.moe_layers;
  p.position_table = m.position == PositionKind::learned ? m.seq_len * h : 0.0;
  p.embedding = static_cast<double>(m.vocab) * h + p.position_table;
  p.head = (m.tied_embeddings ? 0.0 : static_cast<double>(m.vocab) * h) + norm;
  return p;
}

double active_parameters(const TransformerSpec& m) {
  const ParameterCount pc = parameter_count(m);
  double active_moe = pc.moe_layer_shared;
  if (m.moe.enabled()) active_moe += m.moe.top_k * mlp_params(m, m.moe.ffn_hidden);
  return pc.per_layer * pc.dense_layers + active_moe * pc.moe_layers + pc.embedding + pc.head;
}

Flops model_flops_per_step(const TransformerSpec& m, int seq_len, double sequences) {
  const double h = m.hidden;
  const double attention = attention_matmul_params(m);
  const double dense = attention + (m.mlp == MlpKind::swiglu ? 3.0 : 2.0) * h * m.ffn_hidden;
  const int moe_layers = m.moe_layers_in(0, m.layers);
  double moe = 0.0;
  if (moe_layers > 0) {
    const MoeSpec& e = m.moe;
    const double mlp = (m.mlp == MlpKind::swiglu ? 3.0 : 2.0) * h;
    moe = attention + h * e.num_experts + mlp * (static_cast<double>(e.top_k) * e.ffn_hidden +
                                                 static_cast<double>(e.shared_experts) * e.shared_ffn_hidden);
  }
  const double s = seq_len;
  // Attention core: QK^T over head_dim and AV over v_head_dim for every head, full s x s matrix.
  const double core = 2.0 * s * s * m.heads * (static_cast<double>(m.head_dim()) + m.v_head_dim());
  const double per_seq_fwd = (m.layers - moe_layers) * 2.0 * s * dense + moe_layers * 2.0 * s * moe +
                             m.layers * core + 2.0 * s * h * m.vocab;
  return Flops(3.0 * per_seq_fwd * sequences);
}

Bytes boundary_activation_bytes(const TransformerSpec& m, const LayerShape& s) {
  const double tokens = static_cast<double>(s.micro_batch) * s.seq_len / s.cp;
  return Bytes(tokens * m.hidden * bytes_per_element(activation_precision(s.precision)));
}

}  // namespace clustersim
