// The compiled half of the Python package `dsgd` (python/dsgd/): the CLI's verbs as functions
// (run, sweep, report, the lists), the run-folder reader, and the small helpers the package's
// inputs need, called in this process with the GIL released while they work. Values cross as
// boundary.h says: configs as dicts, errors as python/dsgd/_errors.py's classes; python/dsgd/
// _core.pyi types every function. A call leaves the process as it found it: LibTorch's thread
// counts, its global random generator and its default dtype are put back (the signal handlers by
// core/interrupt.h's InterruptScope, which every run and sweep holds).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <torch/torch.h>
#include <torch/version.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "algos/catalog.h"
#include "boundary.h"
#include "core/atomic_file.h"
#include "core/host_memory.h"
#include "data/dataset.h"
#include "data/worker_stream.h"
#include "experiment/report.h"
#include "experiment/run_results.h"
#include "experiment/sweep_runner.h"
#include "experiment/sync_reclock.h"
#include "models/model.h"
#include "process_state.h"
#include "run/clock_only.h"
#include "run/mpi_launch.h"
#include "run/progress.h"
#include "run/run_folder.h"
#include "run/run_job.h"
#include "train/config_table.h"

namespace py = pybind11;

namespace dsgd {
namespace {

// Runs `work` without the GIL; its exceptions leave through translate_errors().
template <class Work>
void without_gil(Work&& work) {
  py::gil_scoped_release no_gil;
  work();
}

// Progress for the Python side: each callback runs with the GIL, and an exception in it is
// reported as unraisable instead of ending the run.
std::shared_ptr<const ProgressObserver> python_observer(py::object on_update, py::object on_log,
                                                        py::object on_evaluation) {
  auto observer = std::make_shared<ProgressObserver>();
  auto call = [](const py::object& f, auto&&... args) {
    py::gil_scoped_acquire gil;
    try {
      f(std::forward<decltype(args)>(args)...);
    } catch (py::error_already_set& e) {
      e.discard_as_unraisable("dsgd progress callback");
    }
  };
  if (!on_update.is_none()) {
    observer->update = [on_update, call](int64_t updates, int64_t total, double epoch, double lr,
                                         double loss, double accuracy) {
      call(on_update, updates, total, epoch, lr, loss, accuracy);
    };
  }
  if (!on_log.is_none()) {
    observer->log = [on_log, call](const std::string& line) { call(on_log, line); };
  }
  if (!on_evaluation.is_none()) {
    observer->evaluation = [on_evaluation, call](const std::map<std::string, double>& row) {
      call(on_evaluation, row);
    };
  }
  return observer;
}

// Trains a run: a new one from a config file and a dict of keys (validated before anything starts:
// a ConfigError leaves from here), or the run in `resume_dir` continued with the keys as its
// changes. Returns {"path": its folder, "error": the exception it ended with, or None}: the
// caller loads the trained weights of a run that stopped before it raises its error. `path` is
// empty on an MPI rank other than 0.
py::dict run(const std::string& config_path, const py::dict& keys, const std::string& out,
             const std::string& resume_dir, py::object on_update, py::object on_log,
             py::object on_evaluation) {
  const toml::table key_table = config_table(keys);
  const bool resume = !resume_dir.empty();
  RunConfig config;
  without_gil([&] {
    config = resume ? resume_config(resume_dir, key_table) : load_config(config_path, key_table);
  });
  const std::string folder = resume        ? resume_dir
                             : out.empty() ? default_run_path(config.algo)
                                           : out;
  std::string path;
  std::exception_ptr error;
  {
    ProcessState keep;
    set_progress_observer(python_observer(on_update, on_log, on_evaluation));
    without_gil([&] {
      try {
        path = run_job(config, folder, resume);
      } catch (...) {
        error = std::current_exception();
      }
    });
    set_progress_observer(nullptr);
  }
  // A run that ended with an error (diverged, interrupted) has its folder all the same, on the
  // rank that writes it.
  if (error && world_rank() == 0) path = folder;
  py::dict result;
  result["path"] = path;
  result["error"] = error ? python_error(error) : py::none();
  return result;
}

py::dict sweep(const std::string& spec_path, const std::string& out, int jobs, int threads,
               const std::string& executable) {
  SweepOutcome outcome;
  std::string folder;
  without_gil([&] {
    SweepSpec spec = load_sweep_spec(spec_path);
    if (!out.empty()) spec.out = out;
    folder = spec.out;
    SweepOptions options;
    options.jobs = jobs;
    options.threads_per_run = threads;
    options.executable = executable;
    outcome = run_sweep(spec, options);
  });
  py::dict result;
  result["path"] = folder;
  result["skipped"] = outcome.skipped;
  result["started"] = outcome.started;
  result["ok"] = outcome.ok;
  result["stopped"] = outcome.stopped;
  result["failed"] = outcome.failed;
  result["interrupted_by"] = outcome.interrupted_by;
  return result;
}

std::string report(const std::vector<std::string>& dirs, const std::string& out, bool plots,
                   double target, const std::string& command,
                   const std::vector<std::string>& clusters, const std::string& cluster_file,
                   const std::string& device) {
  std::string path;
  without_gil([&] {
    ReportOptions options;
    options.dirs = dirs;
    options.out = out;
    options.plots = plots;
    options.target = target;
    options.command = command;
    options.clusters = clusters;
    options.cluster_file = cluster_file;
    options.device = device;
    path = write_report(options);
  });
  return path;
}

// Raises the error a run with these keys would stop with before it starts; returns the algorithm
// they resolve to.
std::string check_config(const std::string& config_path, const py::dict& keys) {
  const toml::table key_table = config_table(keys);
  std::string algo;
  without_gil([&] { algo = load_config(config_path, key_table).algo; });
  return algo;
}

// The clock alone of the run these keys describe (`dsgd estimate --json`), as a dict.
py::object estimate(const std::string& config_path, const py::dict& keys) {
  const toml::table key_table = config_table(keys);
  std::string json;
  {
    ProcessState keep;
    without_gil([&] { json = estimate_json(estimate_clock(load_config(config_path, key_table))); });
  }
  return py::module_::import("json").attr("loads")(json);
}

// One run as Python sees it: its folder, labels, status, summary.json and metrics.csv's columns.
py::dict run_dict(const RunResult& run) {
  py::dict d;
  d["dir"] = run.dir;
  d["labels"] = run.labels;
  d["status"] = run.status;
  d["summary"] = python_value(run.summary);
  d["columns"] = run.metric_columns;
  d["metrics"] = run.metrics;
  return d;
}

py::dict read_run_folder(const std::string& folder) {
  RunResult run;
  without_gil([&] { run = read_run(folder, {}); });
  return run_dict(run);
}

// Every started run below `dirs`, found and labelled as `dsgd report` finds them, with the clock
// the report derives for synchronous simulator runs (sync_reclock.h).
py::list load_runs(const std::vector<std::string>& dirs) {
  Experiment experiment;
  without_gil([&] {
    experiment = load_experiment(dirs);
    reclock_synchronous_runs(experiment);
  });
  py::list runs;
  for (const Configuration& configuration : experiment.configurations) {
    for (const RunResult& run : configuration.runs) {
      if (!run.status.empty()) runs.append(run_dict(run));
    }
  }
  return runs;
}

// images as a run feeds them to its network (data/worker_stream.h), through DLPack both ways.
py::capsule normalize(const py::capsule& images, const std::vector<float>& mean,
                      const std::vector<float>& std) {
  const at::Tensor input = tensor_from_python(images);
  at::Tensor output;
  without_gil([&] { output = normalize_images(input, Normalization{mean, std}); });
  return tensor_to_python(output);
}

const char* family_name(AlgorithmFamily family) {
  switch (family) {
    case AlgorithmFamily::kSingle:
      return "single worker";
    case AlgorithmFamily::kAsync:
      return "asynchronous";
    case AlgorithmFamily::kSync:
      return "synchronous";
  }
  return "";
}

}  // namespace
}  // namespace dsgd

PYBIND11_MODULE(_core, m) {
  using namespace dsgd;  // NOLINT(build/namespaces): the module's functions
  m.doc() = "dsgd's engine, for the Python package dsgd (use dsgd's functions, not these)";
  m.attr("torch_version") = TORCH_VERSION;
  translate_errors();
  // Several jobs may run in this process: MPI stays initialised between them.
  keep_mpi_between_jobs();
  m.def("finish_mpi", &finish_mpi, "end MPI if dsgd started it (at exit)");
  m.def("run", &run, py::arg("config_path"), py::arg("keys"), py::arg("out"), py::arg("resume_dir"),
        py::arg("on_update") = py::none(), py::arg("on_log") = py::none(),
        py::arg("on_evaluation") = py::none());
  m.def("sweep", &sweep, py::arg("spec"), py::arg("out"), py::arg("jobs"), py::arg("threads"),
        py::arg("executable"));
  m.def("report", &report, py::arg("dirs"), py::arg("out"), py::arg("plots"), py::arg("target"),
        py::arg("command"), py::arg("clusters") = std::vector<std::string>{},
        py::arg("cluster_file") = "", py::arg("device") = "");
  m.def("check_config", &check_config, py::arg("config_path"), py::arg("keys"));
  m.def("estimate", &estimate, py::arg("config_path"), py::arg("keys"));
  m.def("read_run", &read_run_folder, py::arg("folder"));
  m.def("load_runs", &load_runs, py::arg("dirs"));
  m.def("normalize", &normalize, py::arg("images"), py::arg("mean"), py::arg("std"));
  m.def("available_memory_bytes", &available_memory_bytes);
  m.def(
      "write_file_atomically",
      [](const std::string& path, const py::bytes& content) {
        std::string bytes = content;
        without_gil([&] { write_file_atomically(path, bytes); });
      },
      py::arg("path"), py::arg("content"));
  m.def("algorithms", [] {
    std::vector<std::tuple<std::string, std::string, std::string>> rows;
    for (const auto& a : algorithm_catalog()) {
      rows.emplace_back(a.name, family_name(a.family), a.description);
    }
    return rows;
  });
  m.def("models", [] {
    std::vector<std::pair<std::string, std::string>> rows;
    for (const auto& info : model_registry()) rows.emplace_back(info.name, info.description);
    return rows;
  });
  m.def("datasets", [] {
    std::vector<std::pair<std::string, std::string>> rows;
    for (const auto& info : dataset_registry()) rows.emplace_back(info.name, info.description);
    return rows;
  });
  m.def("keys", [] {
    std::vector<std::tuple<std::string, std::string, std::string, std::string, std::string, bool>>
        rows;
    for (const auto& k : config_keys()) {
      rows.emplace_back(k.key, k.type, k.default_value, k.help, k.applies_to,
                        k.may_change_on_resume);
    }
    return rows;
  });
}
