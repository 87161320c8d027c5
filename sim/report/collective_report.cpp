#include "sim/report/collective_report.hpp"

#include <fmt/format.h>

#include <cmath>

#include "sim/collectives/compressed_sync.hpp"
#include "sim/graph/op_cost.hpp"

namespace clustersim {

namespace {

std::string_view type_name(Bytes element) {
  const double e = element.value();
  return e == 4.0 ? "float" : e == 2.0 ? "half" : e == 8.0 ? "double" : e == 1.0 ? "int8" : "bytes";
}

std::string_view ring_order_name(RingOrder o) {
  switch (o) {
    case RingOrder::topology_aware:
      return "topology-aware";
    case RingOrder::rank_order:
      return "rank-order";
    case RingOrder::flat:
      return "flat";
  }
  return "topology-aware";
}

// Link kind of the bottleneck of the slowest phase, "" when nothing moved.
std::string bottleneck(const CollectiveModel& m, const CollectiveEstimate& e) {
  const PhaseEstimate* worst = nullptr;
  for (const PhaseEstimate& p : e.phases) {
    if (p.cost.bottleneck >= 0 && (!worst || p.cost.bandwidth > worst->cost.bandwidth)) worst = &p;
  }
  return worst ? std::string(to_string(m.graph().link(worst->cost.bottleneck).kind)) : std::string();
}

// The bottleneck column: "dcn" when a multi-slice row's DCN part outlasts its ICI parts.
std::string row_bottleneck(const CollectiveReportHeader& h, const CollectiveModel& m, const CollectiveRow& r) {
  if (h.multi_slice && r.dcn > r.ici) return "dcn";
  return bottleneck(m, r.estimate);
}

}  // namespace

nlohmann::json collective_json(const CollectiveReportHeader& h, const CollectiveModel& m,
                               const std::vector<CollectiveRow>& rows) {
  nlohmann::json j;
  j["cluster"] = h.cluster;
  j["topology"] = h.topology;
  j["op"] = std::string(to_string(h.spec.op));
  j["ranks"] = h.spec.ranks;
  j["type"] = std::string(type_name(h.spec.element));
  j["ring_order"] = std::string(ring_order_name(h.spec.ring_order));
  j["rows"] = nlohmann::json::array();
  for (const CollectiveRow& r : rows) {
    j["rows"].push_back({{"size_bytes", r.size.value()},
                         {"count", r.count},
                         {"type", std::string(type_name(h.spec.element))},
                         {"time_us", r.estimate.time.value() * 1e6},
                         {"algbw_gbps", r.estimate.algbw / 1e9},
                         {"busbw_gbps", r.estimate.busbw / 1e9},
                         {"algo", std::string(to_string(r.estimate.algorithm))},
                         {"bottleneck_link", row_bottleneck(h, m, r)}});
    if (h.multi_slice) {
      j["rows"].back()["ici_us"] = r.ici.value() * 1e6;
      j["rows"].back()["dcn_us"] = r.dcn.value() * 1e6;
    }
  }
  return j;
}

std::string collective_text(const CollectiveReportHeader& h, const CollectiveModel& m,
                            const std::vector<CollectiveRow>& rows) {
  std::string out = fmt::format("# clustersim collective: {} over {} ranks of {} ({})\n", to_string(h.spec.op),
                                h.spec.ranks, h.cluster, h.topology);
  out += fmt::format("# algorithm {}, ring order {}; contention-free alpha-beta model, GB/s = 1e9 B/s\n",
                     to_string(h.spec.algorithm), ring_order_name(h.spec.ring_order));
  if (h.multi_slice) {
    out += "# hierarchical: reduce-scatter on each slice's ICI torus, ring all-reduce of the shard across slices "
           "over the DCN, all-gather on the torus (as `run` costs a multi-slice gradient sync)\n";
    out += fmt::format("#{:>14} {:>13} {:>7} {:>12} {:>12} {:>12} {:>8} {:>8}  {:<16} {}\n", "size", "count", "type",
                       "time", "ici", "dcn", "algbw", "busbw", "algo", "bottleneck");
    out += fmt::format("#{:>14} {:>13} {:>7} {:>12} {:>12} {:>12} {:>8} {:>8}\n", "(B)", "(elements)", "", "(us)",
                       "(us)", "(us)", "(GB/s)", "(GB/s)");
    for (const CollectiveRow& r : rows) {
      out += fmt::format(" {:>14.0f} {:>13} {:>7} {:>12.2f} {:>12.2f} {:>12.2f} {:>8.2f} {:>8.2f}  {:<16} {}\n",
                         r.size.value(), r.count, type_name(h.spec.element), r.estimate.time.value() * 1e6,
                         r.ici.value() * 1e6, r.dcn.value() * 1e6, r.estimate.algbw / 1e9, r.estimate.busbw / 1e9,
                         to_string(r.estimate.algorithm), row_bottleneck(h, m, r));
    }
    return out;
  }
  out += fmt::format("#{:>14} {:>13} {:>7} {:>12} {:>8} {:>8}  {:<16} {}\n", "size", "count", "type", "time",
                     "algbw", "busbw", "algo", "bottleneck");
  out += fmt::format("#{:>14} {:>13} {:>7} {:>12} {:>8} {:>8}\n", "(B)", "(elements)", "", "(us)", "(GB/s)", "(GB/s)");
  for (const CollectiveRow& r : rows) {
    out += fmt::format(" {:>14.0f} {:>13} {:>7} {:>12.2f} {:>8.2f} {:>8.2f}  {:<16} {}\n", r.size.value(), r.count,
                       type_name(h.spec.element), r.estimate.time.value() * 1e6, r.estimate.algbw / 1e9,
                       r.estimate.busbw / 1e9, to_string(r.estimate.algorithm), bottleneck(m, r.estimate));
  }
  return out;
}

nlohmann::json compression_json(const Scenario& s) {
  if (s.training.compression.scheme == CompressionScheme::none) return nullptr;
  const CompressedSyncCost c = compression_summary(s);
  nlohmann::json j;
  j["scheme"] = std::string(to_string(s.training.compression.scheme));
  j["collective"] = c.sync.collective == SyncCollective::all_gather ? "all-gather" : "all-reduce";
  j["wire_bytes"] = c.sync.wire_total().value();
  j["wire_bytes_uncompressed"] = c.wire_uncompressed.value();
  j["comm_s"] = c.comm.value();
  j["comm_uncompressed_s"] = c.comm_uncompressed.value();
  j["comm_saved_s"] = (c.comm_uncompressed - c.comm).value();
  j["compute_added_s"] = c.codec.value();
  j["break_even_bandwidth_Bps"] = std::isfinite(c.break_even_Bps) ? nlohmann::json(c.break_even_Bps) : nlohmann::json(nullptr);
  return j;
}

}  // namespace clustersim
