// The `clustersim` Python module: the library called in-process (no subprocess), returning the same JSON
// as the CLI, as Python dicts. See docs/python.md.
//
//   import clustersim
//   r = clustersim.run("gpt2-1b-a100-8gpu", {"/parallelism/tp": 2})   # == clustersim run ... --format json
//   for row in clustersim.sweep("gpt2-1b-a100-8gpu", {"/parallelism/tp": [1, 2, 4]}): ...
//
// Bad input raises clustersim.ConfigError (a ValueError) whose .diagnostics lists (file, pointer,
// message) for every problem found.
#include <dlfcn.h>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "paths.hpp"
#include "sim/config/experiment_loader.hpp"
#include "sim/config/reference_runs.hpp"
#include "sim/core/diagnostics.hpp"
#include "sim/core/unit_parse.hpp"
#include "sim/engine/flow/contention_report.hpp"
#include "sim/engine/flow/flow_availability.hpp"
#include "sim/plan/plan_report.hpp"
#include "sim/plan/point_evaluator.hpp"
#include "sim/plan/row_format.hpp"
#include "sim/report/jobs_report.hpp"
#include "sim/report/prediction.hpp"
#include "sim/report/validation.hpp"

namespace py = pybind11;
namespace fs = std::filesystem;

namespace clustersim::python {
namespace {

// JSON crosses the boundary as text through Python's json module, so a dict holds exactly what
// `clustersim ... --format json` prints (same keys, same doubles).
py::object to_python(const nlohmann::json& j) {
  return py::module_::import("json").attr("loads")(j.dump());
}

nlohmann::json to_json(const py::handle& o) {
  return nlohmann::json::parse(py::module_::import("json").attr("dumps")(o).cast<std::string>());
}

// An override value: strings as they are ("40 GiB", "full"), anything else as its JSON text.
std::string override_text(const py::handle& v) {
  if (py::isinstance<py::str>(v)) return v.cast<std::string>();
  return py::module_::import("json").attr("dumps")(v).cast<std::string>();
}

std::string path_text(const py::handle& o) {
  return py::str(py::module_::import("os").attr("fspath")(o)).cast<std::string>();
}

void module_anchor() {}

std::optional<fs::path> module_bundled_root() {
  Dl_info info{};
  fs::path dir;
  if (dladdr(reinterpret_cast<void*>(&module_anchor), &info) != 0 && info.dli_fname != nullptr)
    dir = fs::path(info.dli_fname).parent_path();
  return cli::bundled_catalog_root_for(dir, CLUSTERSIM_PYTHON_INSTALL_DIR);
}

// Catalog roots: `configs` (None, a path, or a list of paths), $CLUSTERSIM_CONFIGS, then the bundled
// catalogs (the CLI's rules, tools/clustersim/paths.hpp).
config::CatalogPaths catalog_paths(const py::object& configs) {
  std::vector<std::string> dirs;
  if (!configs.is_none()) {
    if (py::isinstance<py::str>(configs) || py::hasattr(configs, "__fspath__")) {
      dirs.push_back(path_text(configs));
    } else {
      for (const py::handle& d : configs) dirs.push_back(path_text(d));
    }
  }
  for (const std::string& d : dirs) {
    std::error_code ec;
    if (!fs::is_directory(d, ec))
      throw ConfigError("<configs>", "", "catalog root \"" + d + "\" is not a directory");
  }
  return {cli::catalog_roots(dirs, module_bundled_root())};
}

// The experiment as a loaded document: a dict (resolved in memory, relative paths from the current
// directory), or a file path or catalog name.
config::ResolvedDocument load_document(config::ExperimentLoader& loader, const py::object& experiment) {
  if (py::isinstance<py::dict>(experiment))
    return loader.resolve(to_json(experiment), "<dict>", fs::current_path());
  if (py::isinstance<py::str>(experiment) || py::hasattr(experiment, "__fspath__"))
    return loader.load(path_text(experiment));
  throw py::type_error("experiment must be a dict, a file path or a catalog name");
}

std::vector<config::Override> overrides_of(const py::object& overrides) {
  std::vector<config::Override> out;
  if (overrides.is_none()) return out;
  for (const auto& [k, v] : overrides.cast<py::dict>())
    out.push_back({k.cast<std::string>(), override_text(v)});
  return out;
}

Scenario build_scenario(const py::object& experiment, const py::object& overrides, const py::object& configs,
                        const std::optional<std::string>& engine = std::nullopt) {
  config::ExperimentLoader loader(catalog_paths(configs));
  config::ResolvedDocument doc = load_document(loader, experiment);
  std::vector<config::Override> o = overrides_of(overrides);
  if (engine) o.push_back({"/engine", *engine});
  return loader.build(doc, o);
}

py::object run(const py::object& experiment, const py::object& overrides,
               const std::optional<std::string>& engine, const std::string& fidelity,
               const py::object& configs) {
  if (engine && *engine != "analytic" && *engine != "flow")
    throw ConfigError("<engine>", "", "unknown engine \"" + *engine + "\" (expected analytic or flow)");
  if (fidelity != "phase" && fidelity != "exact")
    throw ConfigError("<fidelity>", "", "unknown fidelity \"" + fidelity + "\" (expected phase or exact)");
  const Scenario s = build_scenario(experiment, overrides, configs, engine);
  nlohmann::json j;
  {
    py::gil_scoped_release release;
    if (!s.jobs.empty()) {
      flow::FlowOptions fo;
      fo.fidelity = fidelity == "exact" ? flow::Fidelity::exact : flow::Fidelity::phase;
      j = jobs_json(s, run_jobs(s, fo));
    } else {
      PredictOptions po;
      po.text = false;
      po.fidelity = fidelity == "exact" ? flow::Fidelity::exact : flow::Fidelity::phase;
      const Prediction p = predict(s, po);
      j = prediction_json(s, p);
      if (p.flow) j["contention"] = flow::contention_json(*p.flow, *p.analytic);
    }
  }
  return to_python(j);
}

// The rows of a sweep, evaluated one per next(): the JSON Lines rows of `clustersim sweep` as dicts.
class SweepIterator {
 public:
  SweepIterator(const py::object& experiment, const py::dict& vary, bool zip, const py::object& overrides,
                const py::object& configs)
      : loader_(catalog_paths(configs)) {
    std::vector<plan::VarySpec> axes;
    for (const auto& [k, v] : vary) {
      plan::VarySpec a{k.cast<std::string>(), {}};
      if (py::isinstance<py::str>(v)) {
        a.values.push_back(v.cast<std::string>());
      } else {
        for (const py::handle& x : v) a.values.push_back(override_text(x));
      }
      if (a.pointer.empty() || a.pointer.front() != '/')
        throw ConfigError(std::string(plan::kVaryLabel), a.pointer, "a pointer must start with '/'");
      if (a.values.empty()) throw ConfigError(std::string(plan::kVaryLabel), a.pointer, "no values");
      axes.push_back(std::move(a));
    }
    space_ = std::make_unique<plan::SweepSpace>(std::move(axes), zip);
    doc_ = load_document(loader_, experiment);
    const std::vector<config::Override> sets = overrides_of(overrides);
    loader_.apply_base_overrides(doc_, sets);
    plan::check_axes(loader_, doc_, *space_);
    evaluator_ = std::make_unique<plan::PointEvaluator>(config::CatalogPaths{loader_.catalog().paths()}, doc_,
                                                        *space_);
    formatter_ = std::make_unique<plan::RowFormatter>(plan::RowFormat::jsonl,
                                                      plan::probe_schema(*evaluator_, *space_), *space_);
  }

  py::object next() {
    if (index_ >= space_->size()) throw py::stop_iteration();
    std::string line;
    {
      py::gil_scoped_release release;
      formatter_->append(evaluator_->evaluate(index_++), line);
    }
    return py::module_::import("json").attr("loads")(line);
  }

  [[nodiscard]] std::uint64_t size() const { return space_->size(); }

 private:
  config::ExperimentLoader loader_;
  config::ResolvedDocument doc_;
  std::unique_ptr<plan::SweepSpace> space_;
  std::unique_ptr<plan::PointEvaluator> evaluator_;
  std::unique_ptr<plan::RowFormatter> formatter_;
  std::uint64_t index_ = 0;
};

py::object plan_strategies(const py::object& experiment, const std::optional<int>& devices,
                           const std::string& objective, const std::optional<int>& max_devices,
                           int min_devices, const std::optional<std::string>& deadline, std::size_t top,
                           bool pareto, const py::object& overrides, const py::object& configs, bool explore,
                           double trust_error, double memory_limit) {
  const Scenario base = build_scenario(experiment, overrides, configs);
  plan::PlanOptions o;
  o.objective = plan::parse_objective(objective);
  const int per_node = base.cluster.node.devices_per_node;
  if (devices && max_devices) throw ConfigError("<plan>", "", "give devices or max_devices, not both");
  if (devices) o.bounds.node_counts = plan::node_counts_for(*devices, false, per_node);
  if (max_devices) o.bounds.node_counts = plan::node_counts_for(*max_devices, true, per_node, min_devices);
  if (deadline) o.deadline = Seconds(parse_quantity(*deadline, Dimension::time));
  o.threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  o.memory_limit = memory_limit;
  nlohmann::json j;
  {
    py::gil_scoped_release release;
    plan::PlanResult r = plan::plan_strategies(base, o);
    // As `clustersim plan`: strategies marked inside/outside the region the test split validates.
    const config::CatalogPaths paths = catalog_paths(configs);
    if (const auto corpus = cli::reference_file_in(paths.roots)) {
      const ValidationResult v = run_validation(read_corpus(*corpus, paths, true), paths, "test");
      plan::mark_trusted(r, base, plan::trust_region(v, trust_error), !explore);
    }
    j = plan::plan_json(r, top, pareto);
  }
  return to_python(j);
}

// The published-runs file `path` names, else the default corpus of the catalog roots.
fs::path corpus_file(const py::object& path, const config::CatalogPaths& paths) {
  if (!path.is_none()) return path_text(path);
  const auto found = cli::reference_file_in(paths.roots);
  if (!found)
    throw ConfigError("", "",
                      "no reference/published_runs.json in any catalog root: pass path or set CLUSTERSIM_REFERENCE");
  return *found;
}

py::object validate(const py::object& path, const py::object& configs) {
  const config::CatalogPaths paths = catalog_paths(configs);
  const fs::path file = corpus_file(path, paths);
  nlohmann::json j;
  {
    py::gil_scoped_release release;
    ValidationResult r = run_validation(read_corpus(file, paths, path.is_none()), paths);
    // As `clustersim validate`: the default corpus also carries the energy arithmetic check.
    const auto energy = file.parent_path() / "energy_runs.json";
    if (path.is_none() && fs::exists(energy)) add_energy_arithmetic(r, energy, paths);
    j = validation_json(r);
  }
  return to_python(j);
}

// As `clustersim validate --experiment ID`: the experiment validate builds for one record, its assumptions
// and the overrides run() needs to give the record's prediction.
py::object record_experiment(const std::string& id, const py::object& path, const py::object& configs) {
  const config::CatalogPaths paths = catalog_paths(configs);
  const fs::path file = corpus_file(path, paths);
  nlohmann::json j;
  {
    py::gil_scoped_release release;
    const config::ReferenceSet set = read_corpus(file, paths, path.is_none());
    const config::ReferenceCase& c = find_case(set, id, "<argument>", "id");
    j["experiment"] = c.experiment;
    j["assumptions"] = c.assumptions;
    j["overrides"] = nlohmann::json::object();
    for (const config::Override& o : case_overrides(c)) j["overrides"][o.pointer] = o.value;
    // The quantity validate compares: MFU/HFU rows with a stated peak divide the report's model (hardware)
    // TFLOP/s per device by that peak, not by the device's own.
    j["metric"] = c.metrics.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.metrics.front().name);
    j["peak_tflops"] = c.metrics.empty() || !c.metrics.front().peak_tflops
                           ? nlohmann::json(nullptr)
                           : nlohmann::json(*c.metrics.front().peak_tflops);
  }
  return to_python(j);
}

}  // namespace
}  // namespace clustersim::python

PYBIND11_MODULE(clustersim, m) {
  using namespace clustersim::python;
  using clustersim::ConfigError;
  m.doc() = "clustersim: predicts step time, MFU, memory, communication and energy of large-model training";

  static py::exception<ConfigError> config_error(m, "ConfigError", PyExc_ValueError);
  config_error.doc() =
      "Bad input. .diagnostics is a list of (file, pointer, message) tuples, one per problem.";
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const ConfigError& e) {
      py::list diagnostics;
      std::string message;
      for (const clustersim::Diagnostic& d : e.diagnostics()) {
        diagnostics.append(py::make_tuple(d.file, d.pointer, d.message));
        message += (message.empty() ? "" : "\n") + d.to_string();
      }
      py::object err = py::handle(config_error.ptr())(message);
      err.attr("diagnostics") = diagnostics;
      PyErr_SetObject(config_error.ptr(), err.ptr());
    }
  });

  m.def(
      "version", [] { return std::string(CLUSTERSIM_VERSION); }, "The clustersim version, e.g. \"0.1.0\".");
  m.def("flow_engine_available", &clustersim::flow::flow_engine_available,
        "True when this build has the SimGrid flow engine (engine=\"flow\"); without it, a flow run raises\n"
        "ValueError naming the SimGrid version found (see docs/integrations.md).");
  m.def(
      "catalog_roots",
      [](const py::object& configs) {
        py::list out;
        for (const fs::path& r : catalog_paths(configs).roots) out.append(r.string());
        return out;
      },
      py::arg("configs") = py::none(),
      "The catalog roots searched, in order (configs, $CLUSTERSIM_CONFIGS, bundled).");
  m.def("run", &run, py::arg("experiment"), py::arg("overrides") = py::none(), py::arg("engine") = py::none(),
        py::arg("fidelity") = "phase", py::arg("configs") = py::none(),
        "Predicts one experiment (a dict, a file path or a catalog name) and returns the report dict of\n"
        "`clustersim run --format json`. overrides maps JSON pointers to values (like --set); engine\n"
        "(\"analytic\" or \"flow\") overrides the experiment's; configs adds catalog roots.");
  py::class_<SweepIterator>(m, "Sweep",
                            "Iterator over the rows of a sweep (one dict per point, in index order).")
      .def("__iter__", [](SweepIterator& s) -> SweepIterator& { return s; })
      .def("__next__", &SweepIterator::next)
      .def("__len__", &SweepIterator::size);
  m.def(
      "sweep",
      [](const py::object& experiment, const py::dict& vary, bool zip, const py::object& overrides,
         const py::object& configs) { return SweepIterator(experiment, vary, zip, overrides, configs); },
      py::arg("experiment"), py::arg("vary"), py::arg("zip") = false, py::arg("overrides") = py::none(),
      py::arg("configs") = py::none(),
      "Iterates over the points of a sweep: vary maps JSON pointers to lists of values (cartesian product,\n"
      "first axis slowest; zip=True pairs them). Each row is the dict of one `clustersim sweep` JSON Lines\n"
      "row: index, the varied pointers, status (ok, infeasible, invalid, error), reason, metrics.");
  m.def(
      "plan", &plan_strategies, py::arg("experiment"), py::arg("devices") = py::none(),
      py::arg("objective") = "time", py::arg("max_devices") = py::none(), py::arg("min_devices") = 1,
      py::arg("deadline") = py::none(), py::arg("top") = 10, py::arg("pareto") = false,
      py::arg("overrides") = py::none(), py::arg("configs") = py::none(), py::arg("explore") = false,
      py::arg("trust_error") = 0.25, py::arg("memory_limit") = 1.0,
      "Searches parallelization strategies (the dict of `clustersim plan --format json`). devices fixes the\n"
      "device count; max_devices searches 1, 2, 4, ... nodes up to it; objective is time, cost or energy;\n"
      "explore ranks by the objective alone (default: strategies inside the validated region first);\n"
      "memory_limit is the share of device memory a strategy's predicted peak may use (--memory-limit).");
  m.def("record_experiment", &record_experiment, py::arg("id"), py::arg("path") = py::none(),
        py::arg("configs") = py::none(),
        "The experiment `clustersim validate` builds for record `id` (as `validate --experiment ID`): a dict\n"
        "with experiment, assumptions, overrides, metric and peak_tflops; run(d[\"experiment\"], d[\"overrides\"])\n"
        "gives the record's prediction (for an mfu/hfu metric with a peak_tflops: tflops_per_device or\n"
        "hw_tflops_per_device over that peak). An unknown or skipped id raises ConfigError.");
  m.def("validate", &validate, py::arg("path") = py::none(), py::arg("configs") = py::none(),
        "Compares predictions with measured runs (the dict of `clustersim validate --format json`); path\n"
        "defaults to the bundled published-runs corpus.");
}
