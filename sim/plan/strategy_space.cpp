#include "sim/plan/strategy_space.hpp"

#include <fmt/format.h>

#include <limits>

#include "schedules/pipeline_schedule.hpp"
#include "sim/config/framework_profile.hpp"
#include "sim/core/diagnostics.hpp"

namespace clustersim::plan {
namespace {

// In increasing order, in O(sqrt n) (a global batch of 4·10^7 per replica took 0.1 s per layout).
std::vector<int> divisors(int n) {
  std::vector<int> low, high;
  for (int d = 1; d <= n / d; ++d) {
    if (n % d != 0) continue;
    low.push_back(d);
    if (d != n / d) high.push_back(n / d);
  }
  low.insert(low.end(), high.rbegin(), high.rend());
  return low;
}

bool tp_fits_model(const TransformerSpec& m, int tp) {
  return m.heads % tp == 0 && m.ffn_hidden % tp == 0 && (m.kv_heads % tp == 0 || tp % m.kv_heads == 0);
}

struct Layout {
  int nodes, tp, pp, cp, dp;
};

void add_training_choices(const Scenario& base, const SearchBounds& b, const Layout& l, ScheduleKind kind, int vp,
                          std::vector<Strategy>& out) {
  const int per_replica = base.training.global_batch / l.dp;
  for (int mb : divisors(per_replica)) {
    const ScheduleSpec spec = schedule_spec(kind, l.pp, per_replica / mb, vp);
    if (!is_valid(spec)) continue;
    for (Recompute rc : b.recompute) {
      for (int zero : b.zero_stages) {
        if (zero > 0 && l.dp * l.cp == 1) continue;
        const MoeSpec& moe = base.model.moe;
        // MoE: every ep dividing the experts and the stage's ranks, with etp 1 or the dense tp
        // (Megatron-Core's default); MoE with tp > 1 always runs sequence parallel.
        std::vector<std::pair<int, int>> experts{{1, 1}};
        if (moe.enabled()) {
          experts.clear();
          const long stage = static_cast<long>(l.tp) * l.cp * l.dp;
          std::vector<int> etps{1};
          if (l.tp > 1 && moe.ffn_hidden % l.tp == 0) etps.push_back(l.tp);
          for (int ep : divisors(moe.num_experts)) {
            for (int etp : etps) {
              if (stage % (static_cast<long>(ep) * etp) == 0) experts.emplace_back(ep, etp);
            }
          }
        }
        // Wafer-scale systems stream their weights and run data parallel only (docs/wafer_scale.md).
        const bool wafer = base.cluster.node.fabric == NodeFabric::wafer;
        if (wafer && (l.tp != 1 || l.pp != 1 || l.cp != 1 || zero != 0)) continue;
        // Activation offloading (training.activation_offload_layers): Megatron-Core offloads only without
        // pipeline parallelism and without recomputation (docs/model.md), so the search keeps those.
        if (base.training.activation_offload_layers > 0 && (l.pp != 1 || rc != Recompute::none)) continue;
        for (const auto& [ep, etp] : experts) {
          if (wafer && ep != 1) continue;
          for (int sp = 0; sp < (l.tp > 1 && b.vary_sequence_parallel && !moe.enabled() ? 2 : 1); ++sp) {
            Strategy st{l.nodes, l.tp, l.pp, l.dp, l.cp, vp, ep, etp, mb, rc, zero, kind, sp == 1};
            // The experiment's choice, or its framework profile's "with TP > 1" rule applied to this tp.
            if (!b.vary_sequence_parallel)
              st.sequence_parallel =
                  l.tp > 1 && (base.parallelism.sequence_parallel || base.profile_rules.sequence_parallel);
            if (moe.enabled()) st.sequence_parallel = l.tp > 1;
            out.push_back(st);
          }
        }
      }
    }
  }
}

}  // namespace

std::vector<int> node_counts_for(int devices, bool is_max, int devices_per_node, int min_devices) {
  if (devices <= 0 || devices % devices_per_node != 0) {
    throw ConfigError("<command line>", is_max ? "--max-devices" : "--devices",
                      fmt::format("{} is not a positive multiple of the {} devices per node", devices, devices_per_node));
  }
  const int max_nodes = devices / devices_per_node;
  if (!is_max) return {max_nodes};
  std::vector<int> out;
  for (int n = 1; n < max_nodes; n *= 2) {
    if (n * devices_per_node >= min_devices) out.push_back(n);
  }
  out.push_back(max_nodes);
  return out;
}

std::vector<Strategy> enumerate_strategies(const Scenario& base, const SearchBounds& b) {
  const TransformerSpec& m = base.model;
  const int per_node = base.cluster.node.devices_per_node;
  std::vector<int> nodes = b.node_counts.empty() ? std::vector<int>{base.cluster.nodes} : b.node_counts;
  std::vector<Strategy> out;
  for (int n : nodes) {
    const long devices = static_cast<long>(n) * per_node;
    for (int tp : divisors(m.heads)) {
      if (!tp_fits_model(m, tp) || (!b.tp_beyond_node && tp > per_node) || devices % tp != 0) continue;
      // Pipeline depths: the divisors of the layers (even stages), or, with a stated pipeline_split rule,
      // every depth the rule can split the layers over (sim/config/framework_profile.hpp).
      const std::string& rule = base.parallelism.pipeline_split;
      const auto splits = [&](int chunks) {
        return chunks == 1 || (rule.empty() ? m.layers % chunks == 0
                                            : config::pipeline_split_layers(rule, m.layers, chunks).has_value());
      };
      std::vector<int> depths;
      if (rule.empty()) {
        depths = divisors(m.layers);
      } else if (devices / tp <= std::numeric_limits<int>::max()) {
        for (int pp : divisors(static_cast<int>(devices / tp))) {
          if (pp <= m.layers && splits(pp)) depths.push_back(pp);
        }
      }
      for (int pp : depths) {
        if (devices % (static_cast<long>(tp) * pp) != 0) continue;
        for (int cp = 1; cp <= b.max_cp; cp *= 2) {
          const long mp = static_cast<long>(tp) * pp * cp;
          if (base.training.seq_len % cp != 0 || devices % mp != 0) continue;
          const int dp = static_cast<int>(devices / mp);
          if (base.training.global_batch % dp != 0) continue;
          const Layout l{n, tp, pp, cp, dp};
          for (ScheduleKind kind : b.schedules) {
            if (kind == ScheduleKind::interleaved_1f1b) {
              if (pp == 1) continue;
              if (rule.empty()) {
                for (int vp : divisors(m.layers / pp)) {
                  if (vp > 1 && vp <= b.max_vp) add_training_choices(base, b, l, kind, vp, out);
                }
              } else if (!rule.starts_with("deepspeed")) {
                // DeepSpeed's PipelineEngine has no interleaved schedule: its rules are searched without one.
                for (int vp = 2; vp <= b.max_vp && static_cast<long>(pp) * vp <= m.layers; ++vp) {
                  if (splits(pp * vp)) add_training_choices(base, b, l, kind, vp, out);
                }
              }
            } else {
              add_training_choices(base, b, l, kind, 1, out);
            }
          }
        }
      }
    }
  }
  return out;
}

}  // namespace clustersim::plan
