#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <cmath>
#include <cstdlib>

#include "models/memory_model.hpp"
#include "models/roofline.hpp"
#include "schedules/pipeline_deps.hpp"
#include "schedules/stage_op_cursor.hpp"
#include "sim/collectives/compressed_sync.hpp"
#include "sim/collectives/multislice.hpp"
#include "sim/collectives/parameter_server.hpp"
#include "sim/core/diagnostics.hpp"
#include "sim/graph/step_graph.hpp"

namespace clustersim {
namespace {

constexpr double kBucketElements = 40e6;  // Megatron DDP default gradient bucket (40M elements)

int kind_slot(OpKind k) {
  switch (k) {
    case OpKind::forward:
      return 0;
    case OpKind::backward:
      return 1;
    case OpKind::backward_input:
      return 2;
    case OpKind::backward_weight:
      return 3;
  }
  return 0;
}

OpKind op_kind(NodeKind k) {
  switch (k) {
    case NodeKind::backward:
      return OpKind::backward;
    case NodeKind::backward_input:
      return OpKind::backward_input;
    case NodeKind::backward_weight:
      return OpKind::backward_weight;
    case NodeKind::forward:
    case NodeKind::dp_sync:
    case NodeKind::optimizer:
      return OpKind::forward;
  }
  return OpKind::forward;
}

NodeKind node_kind(OpKind k) {
  switch (k) {
    case OpKind::forward:
      return NodeKind::forward;
    case OpKind::backward:
      return NodeKind::backward;
    case OpKind::backward_input:
      return NodeKind::backward_input;
    case OpKind::backward_weight:
      return NodeKind::backward_weight;
  }
  return NodeKind::forward;
}

struct OpIndex {
  int m, v;
  std::vector<int> ids;
  OpIndex(int stages, int microbatches, int chunks)
      : m(microbatches), v(chunks), ids(static_cast<std::size_t>(stages) * 4 * microbatches * chunks, -1) {}
  int& at(int stage, OpKind k, int mb, int chunk) {
    return ids[static_cast<std::size_t>(((stage * 4 + kind_slot(k)) * m + mb) * v + chunk)];
  }
};

// Everything of a graph's forward/backward nodes that depends on the schedule alone (ScheduleSpec: kind,
// stages, microbatches, chunks): each node's kind, stage, microbatch, chunk, data dependency and cost
// slot, in node order. Scenarios with the same schedule (a sweep over bandwidths, batch-preserving
// changes, the planner's repeated shapes) share it; their graphs differ only in durations and delays,
// which build_step_graph fills in from the costs of each scenario.
struct Skeleton {
  ScheduleSpec spec;
  std::vector<StepNode> nodes;        // duration, dep_delay and tail 0; cost = 4 (stage·v + chunk) + slot
  std::vector<std::uint8_t> crosses;  // per node: its dependency is on another stage (pipeline transfer)
  std::vector<std::uint8_t> lone;     // per node: DualPipe runs it outside an overlapped F&B pair
  std::vector<int> stage_begin;       // nodes of stage st: [stage_begin[st], stage_begin[st + 1])
  std::vector<int> last_backward;     // [st·v + c]: the last backward (or W) op of chunk c in st's order, -1
  std::shared_ptr<const PipelinePlan> order;  // StepGraph::pipeline_order
};

// An order of the pipeline ops in which each comes after its dependency and after its predecessor on
// its stage's compute stream: the stages' streams walked round-robin, one op of each stage per round
// whose dependency is done. Any such order gives evaluate_timeline the same times (each node's start and
// end are computed from its dependency and its predecessor alone); taking one op per stage in turn puts
// ops of different streams next to each other, so the processor overlaps the streams' chains of
// additions instead of waiting on one stream's. Asserts on a cycle (sim/config refuses such schedules).
std::shared_ptr<const PipelinePlan> evaluation_order(const Skeleton& sk) {
  const std::size_t n = sk.nodes.size();
  const std::size_t stages = sk.stage_begin.size() - 1;
  auto plan = std::make_shared<PipelinePlan>();
  plan->stage_begin = sk.stage_begin;
  std::vector<PipelinePlan::Step>& out = plan->steps;
  out.reserve(n);
  std::vector<char> done(n, 0);
  std::vector<int> next(sk.stage_begin.begin(), sk.stage_begin.end() - 1);
  while (out.size() < n) {
    bool progress = false;
    for (std::size_t st = 0; st < stages; ++st) {
      int& i = next[st];
      if (i >= sk.stage_begin[st + 1]) continue;
      const int dep = sk.nodes[static_cast<std::size_t>(i)].dep;
      if (dep >= 0 && !done[static_cast<std::size_t>(dep)]) continue;
      done[static_cast<std::size_t>(i)] = 1;
      out.push_back({i, dep, static_cast<int>(st)});
      ++i;
      progress = true;
    }
    CS_ASSERT(progress, "step graph has a dependency cycle (pipeline schedule deadlock)");
  }
  return plan;
}

bool same_schedule(const ScheduleSpec& a, const ScheduleSpec& b) {
  return a.kind == b.kind && a.stages == b.stages && a.microbatches == b.microbatches && a.chunks == b.chunks &&
         a.vocab_slots == b.vocab_slots && (!is_auto_zero_bubble(a.kind) || a.auto_costs == b.auto_costs);
}

// `with_order`: also the evaluation order (a walk of the whole schedule; only worth it for a skeleton
// that is kept).
std::shared_ptr<Skeleton> make_skeleton(const ScheduleSpec& spec, bool with_order) {
  auto sk = std::make_shared<Skeleton>();
  sk->spec = spec;
  const int p = spec.stages, v = spec.chunks, m = spec.microbatches;
  OpIndex index(p, m, v);
  const auto ops_on_stage = static_cast<std::size_t>(ops_per_stage(spec));
  // Room for the syncs and optimizers too: a skeleton used once hands its nodes to the graph.
  sk->nodes.reserve(ops_on_stage * static_cast<std::size_t>(p) + 2 * static_cast<std::size_t>(p * (v + 1)));
  sk->stage_begin.reserve(static_cast<std::size_t>(p) + 1);
  sk->last_backward.assign(static_cast<std::size_t>(p * v), -1);
  // Nodes straight from each stage's op cursor; the schedule is never materialised as op vectors.
  for (int st = 0; st < p; ++st) {
    sk->stage_begin.push_back(static_cast<int>(sk->nodes.size()));
    for (StageOpCursor cursor(spec, st); !cursor.done();) {
      const PipelineOp op = cursor.next();
      const int id = static_cast<int>(sk->nodes.size());
      StepNode& n = sk->nodes.emplace_back();
      n.kind = node_kind(op.kind);
      n.stage = st;
      n.microbatch = op.microbatch;
      n.chunk = op.chunk;
      n.cost = 4 * (st * v + op.chunk) + kind_slot(op.kind);
      sk->lone.push_back(cursor.overlapped() ? 0 : 1);
      index.at(st, op.kind, op.microbatch, op.chunk) = id;
      if (op.kind == OpKind::backward || op.kind == OpKind::backward_weight) {
        sk->last_backward[static_cast<std::size_t>(st * v + op.chunk)] = id;
      }
    }
  }
  sk->stage_begin.push_back(static_cast<int>(sk->nodes.size()));
  sk->crosses.assign(sk->nodes.size(), 0);
  // The spec passed is_valid() and every node is an op of its schedule.
  for (std::size_t i = 0; i < sk->nodes.size(); ++i) {
    StepNode& n = sk->nodes[i];
    const PipelineOp op{op_kind(n.kind), n.microbatch, n.chunk};
    const auto dep = unchecked_data_dependency(spec, n.stage, op);
    if (!dep) continue;
    n.dep = index.at(dep->stage, dep->op.kind, dep->op.microbatch, dep->op.chunk);
    sk->crosses[i] = crosses_stage(n.stage, *dep) ? 1 : 0;
  }
  if (with_order) sk->order = evaluation_order(*sk);
  return sk;
}

// The last few schedules seen on this thread, most recently used first, with their skeleton from the
// second time a schedule is seen (a single run never pays for keeping one: a schedule seen once gets a
// skeleton for one use, whose nodes the graph takes). Per thread, so no lock and no order between
// threads; a kept skeleton is never changed, so sharing one changes no figure.
struct CacheEntry {
  ScheduleSpec spec;
  std::shared_ptr<Skeleton> skeleton;  // null: seen once
};
constexpr std::size_t kSkeletonCacheEntries = 4;
constexpr std::size_t kSkeletonCacheMaxNodes = std::size_t{1} << 20;  // larger ones are built each time
thread_local std::array<std::optional<CacheEntry>, kSkeletonCacheEntries> skeleton_cache;
thread_local bool skeleton_cache_on = true;

// The skeleton of `spec`; `shared` tells whether it is kept in the cache (then it must not be changed).
std::shared_ptr<Skeleton> skeleton_of(const ScheduleSpec& spec, bool& shared) {
  shared = false;
  if (!skeleton_cache_on) return make_skeleton(spec, false);
  std::size_t hit = kSkeletonCacheEntries;
  for (std::size_t i = 0; i < kSkeletonCacheEntries && hit == kSkeletonCacheEntries; ++i) {
    if (skeleton_cache[i] && same_schedule(skeleton_cache[i]->spec, spec)) hit = i;
  }
  // Move the entry (or a new one in the last slot) to the front.
  const std::size_t slot = hit == kSkeletonCacheEntries ? kSkeletonCacheEntries - 1 : hit;
  std::optional<CacheEntry> entry = hit == kSkeletonCacheEntries ? CacheEntry{spec, nullptr} : std::move(skeleton_cache[slot]);
  for (std::size_t j = slot; j > 0; --j) skeleton_cache[j] = std::move(skeleton_cache[j - 1]);
  if (hit == kSkeletonCacheEntries) {  // first time seen: a skeleton for one use
    skeleton_cache[0] = std::move(entry);
    return make_skeleton(spec, false);
  }
  if (!entry->skeleton) {
    std::shared_ptr<Skeleton> sk = make_skeleton(spec, true);
    if (sk->nodes.size() > kSkeletonCacheMaxNodes) {
      skeleton_cache[0] = std::move(entry);
      return sk;
    }
    entry->skeleton = std::move(sk);
  }
  std::shared_ptr<Skeleton> sk = entry->skeleton;
  skeleton_cache[0] = std::move(entry);
  shared = true;
  return sk;
}

// zb-1p / zb-2p: the search's inputs as the authors' runtime gives them (sail-sg/zero-bubble-pipeline-
// parallelism f68d3879, zb_schedules.py update_schedule and get_zero_bubble_forward_backward_func): the
// median over the ranks of each rank's F, B and W time (sorted(...)[n // 2]; every rank of a stage has its
// stage's times, so this is the stage median sorted[p / 2]) and the p2p time, in microseconds, truncated,
// at least 1 (max(int(ms * 1000), 1)); the memory an F adds is 34h + 5as and a W frees 32h (h hidden, a
// heads, s sequence length; the B frees the rest). The times are this simulator's own op costs (the
// reference profiles its iterations 100-110 and searches again with those). Op times above
// kAutoScheduleMaxTime microseconds are clamped to it.
void set_auto_schedule_costs(ScheduleSpec& spec, const Scenario& s, const std::vector<Seconds>& durations, Seconds p2p) {
  const int p = spec.stages;
  const auto micros = [](Seconds t) {
    const double us = std::floor(t.value() * 1e6);
    return static_cast<std::int64_t>(std::clamp(us, 1.0, static_cast<double>(kAutoScheduleMaxTime)));
  };
  const auto median = [&](int slot) {
    std::vector<std::int64_t> v;
    v.reserve(static_cast<std::size_t>(p));
    for (int st = 0; st < p; ++st) v.push_back(micros(durations[static_cast<std::size_t>(4 * st + slot)]));
    std::sort(v.begin(), v.end());
    return v[static_cast<std::size_t>(p / 2)];
  };
  AutoScheduleCosts& c = spec.auto_costs;
  c.forward = median(0);
  c.backward_input = median(2);
  c.backward_weight = median(3);
  c.p2p = micros(p2p);
  // In double, then clamped: 5·a·s overflows int64 for hostile sizes (a, s up to 2^31 - 1 each).
  const double h = s.model.hidden, a = s.model.heads, seq = s.training.seq_len;
  const auto bounded = [](double x) {
    return static_cast<std::int64_t>(std::clamp(x, 1.0, static_cast<double>(kAutoScheduleMaxMemory)));
  };
  c.forward_memory = bounded(34.0 * h + 5.0 * a * seq);
  c.weight_memory = std::min(bounded(32.0 * h), c.forward_memory);
}

// Parameters one rank holds of one chunk of a stage, before ZeRO: the TP-sharded part (everything but
// the routed experts) and the routed experts (sharded over ep·etp).
struct ChunkParameters {
  double dense = 0;
  double experts = 0;
  [[nodiscard]] double total() const { return dense + experts; }
};

// The stage the tied embedding's gradient of chunk `role` on `stage` is all-reduced with: the stage that
// holds the other end (the LM head for the embedding chunk, the embedding for the head chunk), or `stage`
// itself when it holds both. Megatron-Core's embedding group is the pipeline ranks holding either end
// (megatron/core/parallel_state.py default_embedding_ranks: the first and last pipeline rank) and
// finalize_model_grads.py _allreduce_word_embedding_grads skips a group of one rank; the V-Half authors'
// branch makes it the first rank alone, which holds both the first and the last virtual stage
// (sail-sg/zero-bubble-pipeline-parallelism 92895b9a, megatron/core/parallel_state.py
// default_embedding_ranks: [pp_ranks[0]] with zero_bubble_v_schedule). Under DualPipe both end ranks hold
// the embedding and the head (chunk 0 of stage 0 and chunk 1 of stage p-1 are virtual stage 0, the
// other two chunks virtual stage p-1): each rank ties its two locally, and the copies' gradients are
// summed by the mirrored-stage exchange charged below. Roles are indexed stage * v + chunk.
int tied_peer_stage(const std::vector<ChunkRole>& roles, int stage, int v, const ChunkRole& role) {
  const auto other_end = [&](int st) {
    for (int c = 0; c < v; ++c) {
      const ChunkRole& r = roles[static_cast<std::size_t>(st * v + c)];
      if ((role.has_embedding && r.has_head) || (role.has_head && r.has_embedding)) return true;
    }
    return false;
  };
  if (other_end(stage)) return stage;
  const int stages = static_cast<int>(roles.size()) / v;
  for (int st = 0; st < stages; ++st) {
    if (other_end(st)) return st;
  }
  return stage;
}

ChunkParameters chunk_parameters(const Scenario& s, const ParameterCount& pc, const ChunkRole& role) {
  const ParallelismSpec& par = s.parallelism;
  double p = pc.per_layer * (role.layers - role.moe_layers) + pc.moe_layer_shared * role.moe_layers;
  if (role.has_embedding) p += pc.embedding - pc.position_table;
  if (role.has_head) p += pc.head;
  double experts = pc.moe_layer_experts * role.moe_layers;
  if (role.mtp_modules > 0) {
    // Each multi-token-prediction module: a block of the last layer's kind, the 2h x h projection and
    // two RMSNorms (the embedding and head are shared with the main model).
    const TransformerSpec& m = s.model;
    const bool moe = m.moe.is_moe_layer(m.layers - 1);
    const double h = m.hidden;
    p += role.mtp_modules * ((moe ? pc.moe_layer_shared : pc.per_layer) + 2.0 * h * h + 2.0 * h);
    if (moe) experts += role.mtp_modules * pc.moe_layer_experts;
  }
  // The learned position table is whole on every TP rank.
  const double replicated = role.has_embedding ? pc.position_table : 0.0;
  return {p / par.tp + replicated, experts / (par.ep * par.etp)};
}

// Gradient of one chunk for compression: its parameters, and for PowerSGD its weight matrices.
GradientPayload chunk_payload(const Scenario& s, const ChunkRole& role, double params, int dp) {
  GradientPayload p;
  p.elements = params;
  p.base_bytes_per_element = bytes_per_element(s.training.gradient_precision);
  p.dp = dp;
  if (s.training.compression.scheme == CompressionScheme::power_sgd) {
    p.matrices = transformer_gradient_matrices(s.model, s.parallelism.tp);
    for (GradientMatrix& m : p.matrices) m.count = role.layers;
  }
  return p;
}

// Optimizer HBM traffic per parameter, all memory-bound (Megatron-LM optimizer.step with Apex/TE fused
// multi-tensor kernels): the gradient norm for clipping reads every gradient once
// (clip_grads.py: multi_tensor_l2norm); Adam reads grad, fp32 master, m, v and writes master, m, v and
// the low-precision copy (FusedAdam); SGD with momentum reads grad, master, momentum; the gradient
// buffer is zeroed for the next step (zero_grad_buffer). Scaling the gradients when the norm exceeds the
// clip value is folded into Adam's read (not charged separately).
double optimizer_bytes_per_param(const TrainingSpec& t) {
  const double g = bytes_per_element(t.gradient_precision);
  const double w = std::max(2.0, bytes_per_element(t.precision));
  const double norm_and_zero = 2.0 * g;
  return norm_and_zero + (t.optimizer == Optimizer::adam ? g + 12.0 + 12.0 + w : g + 8.0 + 8.0 + w);
}

}  // namespace

void set_schedule_skeleton_cache(bool on) {
  skeleton_cache_on = on;
  if (!on) skeleton_cache.fill(std::nullopt);
}

StepGraph build_step_graph(const Scenario& s) {
  const ParallelismSpec& par = s.parallelism;
  const TrainingSpec& tr = s.training;
  StepGraph g;
  g.schedule = schedule_spec(par.schedule, par.pp, tr.microbatches(par.dp), par.vp, v_half_vocab_slots(par));
  CS_ASSERT(is_valid(g.schedule), "sim/config checks the pipeline schedule (cross_checks.cpp)");
  const int p = par.pp, v = g.schedule.chunks, m = g.schedule.microbatches;
  const int mc = chunk_microbatches(g.schedule);  // microbatches through each chunk: m/2 with dualpipe
  const OpCostModel model(s);
  // DualPipe overlaps a chunk's all-to-alls with the other chunk of an F&B pair (V3 report §3.2.1: "overlap
  // the computation and communication within a pair of individual forward and backward chunks"); the
  // chunks dualpipe.py runs on their own (warm-up, cool-down, step 5's lone B) have nothing to hide their
  // dispatch and combine under, so they are costed with the all-to-alls exposed and the SMs free.
  // OpCostModel keeps a reference to its scenario: `alone` lives as long as `lone` (declared before it).
  std::optional<Scenario> alone;
  std::optional<OpCostModel> lone;
  if (g.schedule.kind == ScheduleKind::dualpipe && s.model.moe.enabled() &&
      par.moe_overlap == MoeOverlap::compute) {
    alone.emplace(s);
    alone->parallelism.moe_overlap = MoeOverlap::none;
    alone->parallelism.ep_comm_sms_reserved = false;
    lone.emplace(*alone);
  }
  g.p2p_time = model.p2p_time();
  g.moe_all_to_all = model.moe_dispatch_time();
  g.moe_load = model.moe_load();

  // Costs per (stage, chunk): the first and last virtual stages carry embedding / head.
  std::vector<ChunkRole> roles(static_cast<std::size_t>(p * v));
  for (int st = 0; st < p; ++st) {
    for (int c = 0; c < v; ++c) {
      const int k = virtual_stage(g.schedule, st, c);
      const LayerRange lr = virtual_stage_layers(par, s.model.layers, k);
      const bool last = k == virtual_stage_count(g.schedule) - 1;
      ChunkRole role{lr.count, s.model.moe_layers_in(lr.first, lr.first + lr.count), k == 0, last,
                     last ? s.model.mtp_depth : 0};
      role.has_prev = k > 0;
      role.has_next = !last;
      set_bf16_layers(role, s, lr.first, lr.count);
      if (par.vocab_parallel != VocabParallel::none && p > 1) {
        role.has_embedding = role.has_head = false;  // split over every chunk instead
        role.vocab_share = 1.0 / (p * v);
      }
      roles[static_cast<std::size_t>(st * v + c)] = role;
      const ChunkCosts cc = model.chunk_costs(role);
      // The skeleton's cost slots: four costs per (stage, chunk), in this order.
      CS_ASSERT(g.costs.size() == 4 * static_cast<std::size_t>(st * v + c), "cost slots out of order");
      g.costs.push_back(cc.forward);
      g.costs.push_back(cc.backward);
      g.costs.push_back(cc.backward_input);
      g.costs.push_back(cc.backward_weight);
      g.model_flops_per_replica += (cc.forward.model_flops + cc.backward.model_flops) * mc;
      g.hardware_flops_per_replica += (cc.forward.hardware_flops + cc.backward.hardware_flops) * mc;
    }
  }

  // The lone chunks' costs after all the others (the flow engine tells them apart by index).
  if (lone) {
    g.lone_costs_from = static_cast<int>(g.costs.size());
    for (std::size_t k = 0; k < roles.size(); ++k) {
      const ChunkCosts lc = lone->chunk_costs(roles[k]);
      // A lone op's cost slot is its skeleton slot + lone_costs_from (four per (stage, chunk) again).
      CS_ASSERT(g.costs.size() == static_cast<std::size_t>(g.lone_costs_from) + 4 * k, "lone cost slots out of order");
      g.costs.push_back(lc.forward);
      g.costs.push_back(lc.backward);
      g.costs.push_back(lc.backward_input);
      g.costs.push_back(lc.backward_weight);
    }
  }

  // Activation offloading (pp = 1 by sim/config: one stage, one chunk; models/activation_offload.hpp):
  // per micro-batch, the waits for the host-link copies the layers' forward and backward did not hide
  // are charged to the ops (OpCost::offload), and the copies' HBM traffic slows the memory-bound kernels
  // they run under.
  if (tr.activation_offload_layers > 0 && p == 1 && v == 1 && s.cluster.node.host_link) {
    const int n = tr.activation_offload_layers, layers = s.model.layers;
    const int n_moe = s.model.moe_layers_in(0, n);
    OffloadStep off;
    off.layers = n;
    off.microbatches = m;
    off.bandwidth = s.cluster.node.host_link->reached();
    double bytes = layer_activation_bytes(s.model, model.shape(), tr.recompute).value() * (n - n_moe);
    if (n_moe > 0) bytes += layer_activation_bytes(s.model, model.shape(), tr.recompute, LayerKind::moe).value() * n_moe;
    off.bytes_per_microbatch = Bytes(bytes);
    // The layers alone (no embedding or head): their mean forward and backward per layer.
    ChunkRole body{layers, s.model.moe_layers_in(0, layers), false, false, 0};
    set_bf16_layers(body, s, 0, layers);
    const ChunkCosts lc = model.chunk_costs(body);
    const Seconds f = lc.forward.duration() * (1.0 / layers), b = lc.backward.duration() * (1.0 / layers);
    const Seconds copy(bytes / n / off.bandwidth.value());
    off.forward = offload_forward_time(layers, n, f, copy);
    off.backward = offload_backward_time(layers, n, b, copy);
    // HBM traffic: a copy engine reads (forward) or writes (backward) HBM at the link rate while its copy
    // runs; the memory-bound kernels under it lose that share of HBM bandwidth - the HBM term of
    // overlap_slowdown (roofline.hpp) with one pass of the bytes (a copy engine holds no SMs and stages
    // nothing, unlike NCCL).
    const DeviceSpec& d = s.cluster.node.device;
    const double hbm = d.memory_bandwidth.value() * d.efficiency.memory_efficiency;
    const double share = hbm > 0.0 ? std::min(1.0, off.bandwidth.value() / hbm) : 0.0;
    auto slowed = [&](const OpCost& c, Seconds busy, Seconds pass) {
      const double cb = c.compute.value() > 0.0 ? std::clamp(c.compute_bound.value() / c.compute.value(), 0.0, 1.0) : 1.0;
      return std::min(busy, pass) * ((1.0 - cb) * share);
    };
    const Seconds sf = slowed(g.costs[0], off.forward.busy, lc.forward.compute);
    const Seconds sb = slowed(g.costs[1], off.backward.busy, lc.backward.compute);
    off.hbm_slowdown = sf + sb;
    g.costs[0].offload += off.forward.exposed;
    g.costs[0].compute += sf;
    g.costs[0].overlap_slowdown += sf;
    for (std::size_t k : {std::size_t{1}, std::size_t{2}}) {  // fused B + W, and a split B
      g.costs[k].offload += off.backward.exposed;
      g.costs[k].compute += sb;
      g.costs[k].overlap_slowdown += sb;
    }
    g.offload = off;
  }

  // Weight streaming (wafer-scale systems, pp = tp = cp = 1 by sim/config): each micro-batch's forward
  // and backward take Σ max(compute, stream) over the model's pieces; the part not hidden is charged to
  // the op as data-parallel communication (the stream is the data-parallel fabric).
  if (s.cluster.node.weight_streaming) {
    const WeightStreamingSpec& ws = *s.cluster.node.weight_streaming;
    const std::vector<StreamedPiece> pieces = model.streamed_pieces(std::max(2.0, bytes_per_element(tr.precision)),
                                                                    bytes_per_element(tr.gradient_precision));
    StreamingStep st;
    st.forward = streamed_forward(pieces, ws.bandwidth);
    st.backward = streamed_backward(pieces, ws.bandwidth);
    st.boundary = streaming_step_boundary(pieces.front(), ws.bandwidth, par.dp, ws.hop_latency);
    st.microbatches = m;
    st.systems = par.dp;
    st.bandwidth = ws.bandwidth;
    for (const StreamedPiece& x : pieces) {
      st.weights += x.weights * x.count;
      st.gradients += x.gradients * x.count;
      st.largest_piece = max(st.largest_piece, x.weights);
      st.largest_piece_grads = max(st.largest_piece_grads, x.gradients);
    }
    for (std::size_t k = 0; k < g.costs.size(); k += 4) {
      g.costs[k].dp_comm += st.forward.exposed();
      g.costs[k + 1].dp_comm += st.backward.exposed();
      g.costs[k + 2].dp_comm += st.backward.exposed();  // zero-bubble B carries the stream of the pass
    }
    g.streaming = st;
  }

  std::vector<Seconds> cost_duration;
  cost_duration.reserve(g.costs.size());
  for (const OpCost& c : g.costs) cost_duration.push_back(c.duration());
  if (is_auto_zero_bubble(g.schedule.kind)) set_auto_schedule_costs(g.schedule, s, cost_duration, g.p2p_time);

  // Pipeline ops from the schedule's skeleton; durations and transfer delays from this scenario's costs.
  bool shared = false;
  const std::shared_ptr<Skeleton> sk = skeleton_of(g.schedule, shared);
  const std::size_t ops = sk->nodes.size();
  {
    const std::uint8_t* crosses = sk->crosses.data();
    const std::uint8_t* lone_op = sk->lone.data();
    const Seconds* durations = cost_duration.data();
    const Seconds p2p = g.p2p_time;
    const bool blocking_p2p = par.pipeline_p2p_blocking;
    const bool has_lone = lone.has_value();
    const int lone_from = g.lone_costs_from;
    auto fill = [&](StepNode& n, std::size_t i) {
      if (has_lone && lone_op[i]) n.cost += lone_from;
      n.duration = durations[static_cast<std::size_t>(n.cost)];
      // pipeline_p2p "deepspeed": the transfer is in the ops' own durations (OpCost::pp_comm).
      if (crosses[i] && !blocking_p2p) n.dep_delay = p2p;
    };
    if (shared) {
      g.nodes.reserve(ops + 2 * static_cast<std::size_t>(p * (v + 1)));  // + syncs and optimizers
      g.nodes.assign(sk->nodes.begin(), sk->nodes.end());
    } else {
      g.nodes = std::move(sk->nodes);  // used once: taken, not copied
    }
    StepNode* nodes = g.nodes.data();
    for (std::size_t i = 0; i < ops; ++i) fill(nodes[i], i);
  }
  g.pipeline_order = sk->order;
  g.order.resize(static_cast<std::size_t>(p));
  for (int st = 0; st < p; ++st) {
    std::vector<int>& compute_order = g.order[static_cast<std::size_t>(st)][0];
    const int first = sk->stage_begin[static_cast<std::size_t>(st)];
    const int last = sk->stage_begin[static_cast<std::size_t>(st) + 1];
    compute_order.reserve(static_cast<std::size_t>(last - first) + 1);  // + the optimizer, no reallocation
    compute_order.resize(static_cast<std::size_t>(last - first));
    std::iota(compute_order.begin(), compute_order.end(), first);
  }

  // Gradient synchronisation per chunk on the stage's data-parallel channel, then the optimizer.
  const TopologyCollectives& topo = model.topology();
  // A multi-slice job shards (ZeRO) and reduces over the replicas of one slice; the slices then
  // all-reduce each rank's shard over the data-centre network (sim/collectives/multislice.hpp).
  const int slices = slice_count(s.cluster);
  const int dpg = slice_dp(s) * par.cp;
  const int edp = std::max(1, par.tp * par.cp * slice_dp(s) / (par.ep * par.etp));
  const double grad_elem = bytes_per_element(tr.gradient_precision);
  const double weight_elem = std::max(2.0, bytes_per_element(tr.precision));
  const bool tied_split = s.model.tied_embeddings && p > 1;
  if (g.streaming) {
    // The step boundary on the sync channel after the last backward; the optimizer runs in the external
    // store as the gradients arrive (no time on the systems).
    std::vector<int>& compute_order = g.order[0][0];
    StepNode n;
    n.kind = NodeKind::dp_sync;
    n.resource = Resource::dp_channel;
    n.duration = g.streaming->boundary;
    n.dep = compute_order.empty() ? -1 : compute_order.back();
    g.dp_comm_total += n.duration;
    const int sync = static_cast<int>(g.nodes.size());
    g.order[0][1].push_back(sync);
    g.nodes.push_back(n);
    StepNode opt;
    opt.kind = NodeKind::optimizer;
    opt.dep = sync;
    compute_order.push_back(static_cast<int>(g.nodes.size()));
    g.nodes.push_back(opt);
    return g;
  }
  const DpModeSpec& dm = par.data_parallel;
  const bool local_sgd = dm.mode == DpMode::local_sgd;
  // Local SGD across datacentres: after the averaging inside each site, the sites exchange the whole
  // model once as a ring over their links (2(D−1)/D of it through each site's link, Patarasuk & Yuan
  // 2009); every stage's sync shares that link, so each stage's part is the whole exchange.
  Seconds cross_dc(0);
  if (local_sgd && dm.datacenters > 1) {
    const double D = dm.datacenters;
    const ParameterCount pc = parameter_count(s.model);
    const double all = pc.layers(pc.dense_layers, pc.moe_layers) + pc.embedding + pc.head;
    cross_dc = Bytes(2.0 * (D - 1.0) / D * all * grad_elem) / dm.cross_dc_bandwidth +
               dm.cross_dc_latency * (2.0 * (D - 1.0));
  }
  // Parameters of every (stage, chunk), counted once (parameter_count of the model once per build).
  std::vector<ChunkParameters> chunk_params;
  chunk_params.reserve(roles.size());
  {
    const ParameterCount pc = parameter_count(s.model);
    for (const ChunkRole& role : roles) chunk_params.push_back(chunk_parameters(s, pc, role));
  }
  for (int st = 0; st < p; ++st) {
    double stage_held = 0;
    for (int c = 0; c < v; ++c) stage_held += chunk_params[static_cast<std::size_t>(st * v + c)].total();
    ChunkParameters stage_params;
    int last_dp = -1;
    Seconds codec(0);  // gradient compression encode/decode of this stage
    for (int c = v - 1; c >= 0; --c) {
      const ChunkRole& role = roles[static_cast<std::size_t>(st * v + c)];
      const ChunkParameters held = chunk_params[static_cast<std::size_t>(st * v + c)];
      const double params = held.total();
      stage_params.dense += held.dense;
      stage_params.experts += held.experts;
      Seconds t(0);
      if (dm.uses_servers()) {
        // Push the gradient to the server shards, pull the updated weights (parameter_server.hpp).
        t = ps_round(ps_shape(s, params)).total();
      } else if (local_sgd) {
        // Averaging every H steps (DiLoCo's outer step): the all-reduce of the parameters (the outer
        // gradient θ_old − θ_new), and the sites' exchange, amortised over the H steps.
        if (dpg > 1) t = model.dp_collective_time(CollectiveOp::all_reduce, Bytes(held.dense * grad_elem));
        if (held.experts > 0 && edp > 1) {
          t += model.expert_dp_collective_time(CollectiveOp::all_reduce, Bytes(held.experts * grad_elem));
        }
        if (stage_held > 0) t += cross_dc * (params / stage_held);
        t = t / dm.local_steps;
      } else if (dpg > 1 && par.zero_stage == 0 && tr.compression.scheme != CompressionScheme::none) {
        // Compressed sync: the compressed collectives on the DP channel; encode/decode runs on
        // the device's compute stream, charged before the optimizer below.
        const CompressedSyncCost cs =
            compressed_sync_cost(tr.compression, chunk_payload(s, role, params, dpg), topo, dp_groups(par),
                                 dp_choice(par), s.cluster.node.device);
        t = cs.comm;
        codec += cs.codec;
      } else if (slices > 1) {
        // Hierarchical sync across slices (MaxText sharding guide: reduce-scatter on ICI, all-reduce of
        // the shard over DCN, all-gather on ICI): the in-slice reduce-scatter (ZeRO-3: already done per
        // layer by the FSDP scatters), the DCN all-reduce of the 1/dpg shard, and for ZeRO-0 the
        // in-slice all-gather of the reduced gradient (ZeRO-1/2 gather the updated weights after the
        // optimizer, below). sim/config refuses expert parallelism across slices.
        const Bytes grads(held.dense * grad_elem);
        if (dpg > 1 && par.zero_stage < 3) {
          t = model.dp_collective_time(CollectiveOp::reduce_scatter, grads);
          if (par.zero_stage == 0) t += model.dp_collective_time(CollectiveOp::all_gather, grads);
        }
        t += dcn_all_reduce_time(s.cluster, grads / static_cast<double>(dpg));
      } else if (dpg > 1 && par.zero_stage < 3) {
        const CollectiveOp op = par.zero_stage == 0 ? CollectiveOp::all_reduce : CollectiveOp::reduce_scatter;
        t = model.dp_collective_time(op, Bytes(held.dense * grad_elem));
        // Routed experts' gradients are reduced over the expert data-parallel group.
        if (held.experts > 0 && edp > 1) {
          t += model.expert_dp_collective_time(op, Bytes(held.experts * grad_elem));
        }
      }
      const int tied_peer =
          tied_split && (role.has_embedding || role.has_head) ? tied_peer_stage(roles, st, v, role) : st;
      if (tied_peer != st) {
        // Megatron all-reduces the tied embedding's gradient over its embedding group, the pipeline ranks
        // holding the embedding (virtual stage 0) and the LM head (the last one): every rank of this
        // stage with its peer in the stage holding the other end, all at once. Where they sit follows the
        // schedule's virtual_stage() mapping; when this stage holds both ends (V-Half: both on stage 0;
        // DualPipe: each end rank holds both) there is nothing to exchange (tied_peer_stage).
        const int stage_ranks = par.tp * par.cp * par.dp;
        const ConcurrentGroups pairs{.size = 2,
                                     .stride = std::abs(tied_peer - st) * stage_ranks,
                                     .first = std::min(st, tied_peer) * stage_ranks,
                                     .count = stage_ranks,
                                     .group_stride = 1};
        const double emb = static_cast<double>(s.model.vocab) * s.model.hidden / par.tp;
        t += topo.time(CollectiveOp::all_reduce, Bytes(emb * grad_elem), pairs);
      }
      if (g.schedule.kind == ScheduleKind::dualpipe && p > 1) {
        // DualPipe keeps two copies of every model stage: chunk 0 of rank st and chunk 1 of rank
        // p-1-st hold the same layers, and their gradients are summed (deepseek-ai/DualPipe,
        // examples/example_dualpipe.py: p0.grad += p1all[pp_size - 1 - rank]). Two-level: after the
        // data-parallel reduce-scatter above each rank all-reduces its shard (1/dp·cp of the dense
        // part, 1/edp of the experts; the whole gradient without data parallelism) with its peer in the
        // mirrored stage, all pairs at once; both copies then update the same shard and gather it.
        const int stage_ranks = par.tp * par.cp * par.dp;
        const int peer = p - 1 - st;
        const ConcurrentGroups pairs{.size = 2,
                                     .stride = std::abs(peer - st) * stage_ranks,
                                     .first = std::min(st, peer) * stage_ranks,
                                     .count = stage_ranks,
                                     .group_stride = 1};
        const double shard = held.dense / dpg + held.experts / edp;
        t += topo.time(CollectiveOp::all_reduce, Bytes(shard * grad_elem), pairs);
      }
      if (t.value() <= 0.0) continue;
      // The chunk's gradients are final after its last backward (or W) op in the stage order.
      const int last_bwd = sk->last_backward[static_cast<std::size_t>(st * v + c)];
      StepNode n;
      n.kind = NodeKind::dp_sync;
      n.resource = Resource::dp_channel;
      n.stage = st;
      n.chunk = c;
      n.duration = t;
      n.dep = last_bwd;
      // Push/pull and the periodic averaging start once the step's gradients are final (not overlapped).
      n.starts_with_dep = tr.overlap_grad_reduce && dm.mode == DpMode::allreduce;
      n.tail = t * std::min(1.0, kBucketElements / std::max(1.0, params));
      g.dp_comm_total += t;
      if (n.starts_with_dep && last_bwd >= 0) {
        // The buckets reduced while the chunk's last backward runs slow its kernels (roofline.hpp): that
        // node gets a cost entry of its own with the slowdown in its compute.
        StepNode& bwd = g.nodes[static_cast<std::size_t>(last_bwd)];
        OpCost cost = g.costs[static_cast<std::size_t>(bwd.cost)];
        const double share =
            cost.compute.value() > 0 ? cost.compute_bound.value() / cost.compute.value() : 0.0;
        const Seconds slow =
            overlap_slowdown(s.cluster.node.device, min(t - n.tail, cost.compute), share, model.dp_bandwidth());
        if (slow.value() > 0.0) {
          cost.compute += slow;
          cost.overlap_slowdown += slow;
          bwd.cost = static_cast<int>(g.costs.size());
          bwd.duration = cost.duration();
          g.costs.push_back(cost);
        }
      }
      last_dp = static_cast<int>(g.nodes.size());
      g.order[static_cast<std::size_t>(st)][1].push_back(last_dp);
      g.nodes.push_back(n);
    }
    // Optimizer on this rank's shard, then (ZeRO-1/2) all-gather of the updated low-precision weights.
    const double shard = par.zero_stage >= 1 ? stage_params.dense / dpg + stage_params.experts / edp
                                             : stage_params.total();
    Seconds opt =
        memory_pass_time(s.cluster.node.device, Bytes(shard * optimizer_bytes_per_param(tr))) + codec;
    if (dm.uses_servers()) {
      // The optimizer runs on the server shards: a colocated shard updates 1/servers of the parameters
      // on its device (the slowest worker's step); dedicated servers' update is not charged (it is
      // pipelined with the pushes per key range, Li et al. OSDI'14 §4).
      opt = dm.placement == ServerPlacement::colocated
                ? memory_pass_time(s.cluster.node.device,
                                   Bytes(shard / dm.servers * optimizer_bytes_per_param(tr)))
                : Seconds(0);
    } else if (local_sgd) {
      // DiLoCo's outer Nesterov step every H steps: read θ, the fp32 anchor and momentum, write all three.
      opt += memory_pass_time(s.cluster.node.device, Bytes(shard * 24.0)) / dm.local_steps;
    }
    if (par.zero_stage >= 1 && par.zero_stage < 3 && dpg > 1) {
      Seconds gather = model.dp_collective_time(CollectiveOp::all_gather, Bytes(stage_params.dense * weight_elem));
      if (stage_params.experts > 0 && edp > 1) {
        gather += model.expert_dp_collective_time(CollectiveOp::all_gather, Bytes(stage_params.experts * weight_elem));
      }
      // With overlap the gather runs under the next step's forward except its first bucket.
      opt += tr.overlap_grad_reduce
                 ? gather * std::min(1.0, kBucketElements / std::max(1.0, stage_params.total()))
                 : gather;
    }
    StepNode n;
    n.kind = NodeKind::optimizer;
    n.stage = st;
    n.duration = opt;
    n.dep = last_dp;
    g.order[static_cast<std::size_t>(st)][0].push_back(static_cast<int>(g.nodes.size()));
    g.nodes.push_back(n);
  }
  return g;
}

}  // namespace clustersim
