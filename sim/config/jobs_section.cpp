#include "sim/config/jobs_section.hpp"

#include <algorithm>
#include <array>
#include <cstdint>

#include <fmt/format.h>

#include "sim/config/catalog_entries.hpp"
#include "sim/config/cross_checks.hpp"
#include "sim/config/section_readers.hpp"
#include "sim/config/sections.hpp"
#include "topologies/job_placement.hpp"

namespace clustersim::config {
namespace {

constexpr std::array<std::string_view, 3> kPolicies{"contiguous", "rail-aligned", "scattered"};
constexpr std::array<Placement, 3> kPolicyValues{Placement::contiguous, Placement::rail_aligned,
                                                 Placement::scattered};

constexpr Field kJobFields[] = {
    {.key = "name",
     .kind = FieldKind::string,
     .doc = "unique name of the job",
     .fallback = "derived: job<i>"},
    {.key = "nodes",
     .kind = FieldKind::integer,
     .doc = "whole nodes of the experiment's cluster",
     .fallback = "derived: the length of an explicit placement list; required otherwise",
     .ints = {.min = 1}},
    {.key = "placement",
     .kind = FieldKind::choice,
     .doc = "how the nodes are chosen, or the list of node indices",
     .fallback = "\"contiguous\"",
     .ints = {.min = 0},
     .choices = kPolicies,
     .also = also_integers},
    {.key = "model",
     .kind = FieldKind::reference,
     .doc = "the job's model",
     .fallback = "derived: the top-level model",
     .section = &kModelSection},
    {.key = "parallelism",
     .kind = FieldKind::object,
     .doc = "replaces the top-level section entirely; dp is derived from the job's devices when absent",
     .fallback = "derived: the top-level section",
     .section = &kParallelismSection},
    {.key = "training",
     .kind = FieldKind::object,
     .doc = "replaces the top-level section entirely",
     .fallback = "derived: the top-level section",
     .section = &kTrainingSection},
    kDescriptionField,
};

void read_job_model(ObjectReader& e, JobSpec& job) {
  const nlohmann::json* v = e.find("model");
  if (v == nullptr) return;
  // A model that already failed to resolve (a Hugging Face config that did not convert leaves its path
  // here) is said once, by that problem.
  if (e.context().failed(e.pointer_of("model"))) return;
  if (v->is_string()) {
    Catalog* catalog = e.context().catalog();
    if (catalog == nullptr) {
      e.error("model", "a model name needs the models catalog; give the model object instead");
      return;
    }
    try {
      job.scenario.model = load_model(*catalog, v->get<std::string>());
    } catch (const ConfigError& err) {
      for (const Diagnostic& d : err.diagnostics()) e.error("model", d.to_string());
    }
    return;
  }
  if (auto m = e.child("model")) {
    job.scenario.model = read_model(*m);
    m->finish();
  }
}

void read_placement(ObjectReader& e, JobSpec& job) {
  PlacementRequest req;
  const nlohmann::json* v = e.find("placement");
  if (v != nullptr && v->is_array()) {
    req.policy = Placement::explicit_nodes;
    for (const nlohmann::json& n : *v) {
      if (!n.is_number_integer()) {
        e.error("placement",
                fmt::format("an explicit placement lists node indices (integers), got {}", describe(n)));
        return;
      }
      req.explicit_nodes.push_back(n.get<int>());
    }
    if (req.explicit_nodes.empty()) e.error("placement", "an explicit placement lists at least one node");
  } else if (v != nullptr) {
    if (auto i = e.get_choice("placement")) req.policy = kPolicyValues[*i];
  }
  job.placement = req.policy;
  if (req.policy == Placement::explicit_nodes) {
    req.nodes = static_cast<int>(req.explicit_nodes.size());
    if (auto n = e.get_integer("nodes"); n && *n != req.nodes) {
      e.error("nodes", fmt::format("nodes = {} but the explicit placement lists {} nodes", *n, req.nodes));
    }
  } else {
    req.nodes = e.require_integer("nodes");
  }
  job.node_count = req.nodes;
  job.nodes = req.explicit_nodes;  // replaced by the placement in the finish hook
}

void read_jobs(const nlohmann::json& value, const std::string& pointer, ReadContext& ctx, Scenario& s) {
  s.jobs.clear();
  if (!value.is_array() || value.empty()) {
    ctx.error(pointer, fmt::format("expected a non-empty array of jobs, got {}", describe(value)));
    return;
  }
  for (std::size_t i = 0; i < value.size(); ++i) {
    ObjectReader e(value[i], child_pointer(pointer, std::to_string(i)), kJobSection, ctx);
    JobSpec job;
    job.scenario = s;  // the top-level sections as read (derived values are filled per job later)
    job.scenario.run.reset();
    job.scenario.energy.reset();
    job.scenario.stragglers = {};
    job.scenario.jobs.clear();
    job.name = e.string("name", fmt::format("job{}", i));
    job.scenario.name = job.name;
    if (e.valid()) {
      read_job_model(e, job);
      if (auto p = e.child("parallelism")) {
        job.scenario.parallelism = read_parallelism(*p);
        p->finish();
      }
      if (auto t = e.child("training")) {
        job.scenario.training = read_training(*t);
        t->finish();
      }
      read_placement(e, job);
      e.accept("description");
    }
    e.finish();
    for (const JobSpec& other : s.jobs) {
      if (other.name == job.name) e.error("name", fmt::format("job name \"{}\" is used twice", job.name));
    }
    s.jobs.push_back(std::move(job));
  }
}

/// Runs the built-in cross-field checks on one job, reporting them below /jobs/i.
void check_job(JobSpec& job, const std::string& at, ReadContext& ctx) {
  const Provenance local(ctx.origin().root_file());
  Diagnostics found;
  ReadContext job_ctx(local, found, ctx.catalog());
  finalize_scenario(job.scenario, job_ctx);
  for (const Diagnostic& d : found.items()) {
    const std::string p = pointer_within(d.pointer, "/cluster") ? at + "/nodes" : at + d.pointer;
    ctx.record(
        {d.file, p,
         fmt::format("job \"{}\" ({} devices): {}", job.name, job.scenario.cluster.devices(), d.message)},
        p);
  }
}

void renumber_stragglers(const Scenario& s, JobSpec& job) {
  const int per = s.cluster.node.devices_per_node;
  for (const DeviceSlowdown& d : s.stragglers.devices) {
    const auto it = std::find(job.nodes.begin(), job.nodes.end(), d.device / per);
    if (it == job.nodes.end()) continue;
    const int k = static_cast<int>(it - job.nodes.begin());
    job.scenario.stragglers.devices.push_back({k * per + d.device % per, d.speed, k, d.device % per, d.at});
  }
}

void finish_jobs(Scenario& s, ReadContext& ctx) {
  if (s.jobs.empty() || ctx.failed("/jobs") || ctx.failed("/cluster")) return;
  // A cluster over kMaxDevices is refused by the cross-checks (with its device count); placing jobs on it
  // first would walk every one of its (up to 2^31) nodes.
  if (std::int64_t{s.cluster.nodes} * s.cluster.node.devices_per_node > kMaxDevices) return;
  std::vector<PlacementRequest> requests;
  for (const JobSpec& j : s.jobs) requests.push_back({j.placement, j.node_count, j.nodes});
  const PlacementResult placed = place_jobs(requests, s.cluster.nodes, s.flow.leaf_nodes);
  for (const PlacementProblem& p : placed.problems) {
    const std::string at = fmt::format("/jobs/{}/{}", p.job, p.at_nodes ? "nodes" : "placement");
    ctx.error(at, fmt::format("job \"{}\": {}", s.jobs[p.job].name, p.message));
  }
  for (std::size_t i = 0; i < s.jobs.size(); ++i) {
    JobSpec& job = s.jobs[i];
    job.nodes = placed.nodes[i];
    const std::string at = fmt::format("/jobs/{}", i);
    if (job.nodes.empty() || ctx.failed(at)) continue;
    job.scenario.cluster = s.cluster;
    job.scenario.cluster.nodes = static_cast<int>(job.nodes.size());
    job.scenario.flow = s.flow;
    check_job(job, at, ctx);
    renumber_stragglers(s, job);
  }
}

}  // namespace

const Section kJobSection{"job", "/jobs/*", "one job on the experiment's cluster", kJobFields};
const Field kJobsKey{.key = "jobs",
                     .kind = FieldKind::array,
                     .doc = "several jobs on one cluster (a non-empty array)",
                     .section = &kJobSection};

SectionSpec jobs_section() {
  SectionSpec spec{"jobs", false, {}, finish_jobs, {}, &kJobsKey};
  spec.parse_value = read_jobs;
  return spec;
}

}  // namespace clustersim::config
