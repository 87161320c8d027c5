// Readers of the built-in sections: JSON key names -> Scenario value types.
//
// Each function reads the keys of the object behind `r` (every key is documented in
// docs/configuration.md) and records per-field problems in r.context(). The caller that created `r`
// calls r.finish(); a reader finishes the child readers it creates itself. Cross-field checks that need
// more than one section live in cross_checks.hpp.
#pragma once

#include <vector>

#include "sim/config/object_reader.hpp"
#include "sim/core/diagnostics.hpp"
#include "sim/scenario/scenario.hpp"

namespace clustersim::config {

DeviceSpec read_device(ObjectReader& r);
LinkSpec read_link(ObjectReader& r);
NodeSpec read_node(ObjectReader& r);
ClusterSpec read_cluster(ObjectReader& r);
/// The problems of the fabric a cluster's keys imply (no explicit shape), which read_cluster reports:
/// none when the device count is not countable or the network is a dragonfly (checked elsewhere).
std::vector<FieldProblem> implied_fabric_problems(const ClusterSpec& c);
TransformerSpec read_model(ObjectReader& r);

/// `dp` is 0 when the key is absent (derived from the device count by finalize_scenario()).
ParallelismSpec read_parallelism(ObjectReader& r);

/// `seq_len` is 0 when the key is absent (taken from the model by finalize_scenario()).
TrainingSpec read_training(ObjectReader& r);

/// Accepts the documentation keys of a catalog entry: "source" (a citation string) and "sources" (an
/// object mapping a field to its citation).
void accept_sources(ObjectReader& r);

/// The catalog name of an entry read from its own file: the file's stem when the object at `r` is the
/// root of a *.json file, else "".
std::string entry_name_from_file(const ObjectReader& r);

}  // namespace clustersim::config
