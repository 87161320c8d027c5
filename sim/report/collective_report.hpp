// Rendering of a collective size sweep (`clustersim collective`): an nccl-tests-style table and JSON.
//
// JSON keys (a contract: add, never rename): cluster, op, ranks, type, ring_order, rows[] with
// size_bytes, count, type, time_us (microseconds), algbw_gbps and busbw_gbps (GB/s = 1e9 bytes/s, as
// nccl-tests prints them), algo (the algorithm used: auto's choice), bottleneck_link (link kind of the
// slowest phase's bottleneck).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/collectives/collective_sweep.hpp"
#include "sim/scenario/scenario.hpp"

namespace clustersim {

struct CollectiveReportHeader {
  std::string cluster;
  CollectiveSweepSpec spec;
  std::string topology;  // TopologyGraph::description() (of one slice for a multi-slice cluster)
  // Multi-slice all-reduce (sweep_multislice_all_reduce): rows carry ici_us and dcn_us, the text table
  // two more columns, and the bottleneck is "dcn" when the DCN part is the longer one.
  bool multi_slice = false;
};

nlohmann::json collective_json(const CollectiveReportHeader& h, const CollectiveModel& m,
                               const std::vector<CollectiveRow>& rows);
std::string collective_text(const CollectiveReportHeader& h, const CollectiveModel& m,
                            const std::vector<CollectiveRow>& rows);

/// The step report's `compression` block for one DP rank of an average stage (compressed_sync.hpp):
/// {scheme, collective, wire_bytes, wire_bytes_uncompressed, comm_s, comm_uncompressed_s, comm_saved_s,
///  compute_added_s, break_even_bandwidth_Bps (per rank; null when the codec is free)}.
/// Null when the scenario has no compression.
nlohmann::json compression_json(const Scenario& s);

}  // namespace clustersim
