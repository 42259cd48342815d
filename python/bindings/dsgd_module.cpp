// The compiled half of the Python package `dsgd` (python/dsgd/): the CLI's verbs as functions
// (run, sweep, report, the lists), called in this process with the GIL released while they work.
// A dsgd error comes back as _core.Error(exit_code, message, hint), which python/dsgd/_errors.py
// turns into Python's exceptions. A call leaves the process as it found it: LibTorch's thread
// counts, its global random generator and its default dtype are put back (the signal handlers by
// core/interrupt.h's InterruptScope, which every run and sweep holds).
#include <ATen/CPUGeneratorImpl.h>
#include <dlfcn.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <torch/torch.h>
#include <torch/version.h>

#include <memory>
#include <string>
#include <vector>

#include "algos/catalog.h"
#include "core/errors.h"
#include "data/dataset.h"
#include "experiment/report.h"
#include "experiment/sweep_runner.h"
#include "models/model.h"
#include "run/mpi_launch.h"
#include "run/progress.h"
#include "run/run_folder.h"
#include "run/run_job.h"
#include "train/config.h"

namespace py = pybind11;

namespace dsgd {
namespace {

// The process-wide LibTorch state a run changes (TrainingContext sets the thread count and seeds
// the default generator; tensors made without a dtype follow the default one), kept on
// construction and put back on destruction. While the object lives the default dtype is float32,
// so that a Python user's torch.set_default_dtype(torch.float64) does not reach dsgd's tensors.
class ProcessState {
 public:
  ProcessState()
      : threads_(at::get_num_threads()),
        blas_threads_(get_blas_threads()),
        generator_state_(at::detail::getDefaultCPUGenerator().get_state()),
        dtype_(c10::get_default_dtype()) {
    c10::set_default_dtype(caffe2::TypeMeta::Make<float>());
  }
  ~ProcessState() {
    at::set_num_threads(threads_);
    set_blas_threads(blas_threads_);
    at::Generator generator = at::detail::getDefaultCPUGenerator();
    generator.set_state(generator_state_);
    c10::set_default_dtype(dtype_);
  }
  ProcessState(const ProcessState&) = delete;
  ProcessState& operator=(const ProcessState&) = delete;

 private:
  // OpenBLAS's own pool, which TrainingContext sizes too (when the BLAS is OpenBLAS).
  static int get_blas_threads() {
    using Get = int (*)();
    auto get = reinterpret_cast<Get>(::dlsym(RTLD_DEFAULT, "openblas_get_num_threads"));
    return get ? get() : 0;
  }
  static void set_blas_threads(int threads) {
    using Set = void (*)(int);
    auto set = reinterpret_cast<Set>(::dlsym(RTLD_DEFAULT, "openblas_set_num_threads"));
    if (set && threads > 0) set(threads);
  }

  int threads_;
  int blas_threads_;
  torch::Tensor generator_state_;
  caffe2::TypeMeta dtype_;
};

// The outcome of a call that may fail, as the CLI's exit code and message.
struct Outcome {
  int exit_code = 0;
  std::string message;
  std::string hint;
};

// Runs `work` without the GIL, catching what the CLI's main() catches.
template <class Work>
Outcome without_gil(Work&& work) {
  Outcome outcome;
  py::gil_scoped_release no_gil;
  try {
    work();
  } catch (const Error& e) {
    outcome = {e.exit_code(), e.what(), e.hint()};
  } catch (const c10::Error& e) {
    outcome = {1, e.what_without_backtrace(), "this is a LibTorch error; please report it"};
  } catch (const std::exception& e) {
    outcome = {1, e.what(), ""};
  }
  return outcome;
}

py::dict as_dict(const Outcome& outcome) {
  py::dict d;
  d["exit_code"] = outcome.exit_code;
  d["message"] = outcome.message;
  d["hint"] = outcome.hint;
  return d;
}

// Progress for the Python side: each callback runs with the GIL, and an exception in it is
// reported as unraisable instead of ending the run.
std::shared_ptr<const ProgressObserver> python_observer(py::object on_update, py::object on_log) {
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
  return observer;
}

// The run's config from a file and --set overrides, or from a run folder to resume (the CLI's
// two ways), checked before anything starts.
RunConfig config_of(const std::string& config_path, const std::vector<std::string>& overrides,
                    const std::string& resume_dir) {
  if (resume_dir.empty()) return load_config(config_path, overrides);
  return resume_config(resume_dir, overrides);
}

py::dict run(const std::string& config_path, const std::vector<std::string>& overrides,
             const std::string& out, const std::string& resume_dir, py::object on_update,
             py::object on_log) {
  std::string path;
  std::shared_ptr<const ProgressObserver> observer = python_observer(on_update, on_log);
  Outcome outcome;
  {
    ProcessState keep;
    set_progress_observer(observer);
    outcome = without_gil([&] {
      const RunConfig config = config_of(config_path, overrides, resume_dir);
      path = resume_dir.empty() ? run_job(config, out) : run_job(config, resume_dir, true);
    });
    // A run that ended with an error (diverged, interrupted) has its folder all the same, on the
    // rank that writes it.
    if (outcome.exit_code != 0 && path.empty() && world_rank() == 0) {
      path = resume_dir.empty() ? out : resume_dir;
    }
    set_progress_observer(nullptr);
  }
  py::dict result = as_dict(outcome);
  result["path"] = path;
  return result;
}

py::dict sweep(const std::string& spec_path, const std::string& out, int jobs, int threads,
               const std::string& executable) {
  SweepOutcome sweep_outcome;
  std::string folder;
  const Outcome outcome = without_gil([&] {
    SweepSpec spec = load_sweep_spec(spec_path);
    if (!out.empty()) spec.out = out;
    folder = spec.out;
    SweepOptions options;
    options.jobs = jobs;
    options.threads_per_run = threads;
    options.executable = executable;
    sweep_outcome = run_sweep(spec, options);
  });
  py::dict result = as_dict(outcome);
  result["path"] = folder;
  result["skipped"] = sweep_outcome.skipped;
  result["started"] = sweep_outcome.started;
  result["ok"] = sweep_outcome.ok;
  result["stopped"] = sweep_outcome.stopped;
  result["failed"] = sweep_outcome.failed;
  result["interrupted_by"] = sweep_outcome.interrupted_by;
  return result;
}

py::dict report(const std::vector<std::string>& dirs, const std::string& out, bool plots,
                double target, const std::string& command, const std::string& cluster,
                const std::string& cluster_file, const std::string& device) {
  std::string path;
  const Outcome outcome = without_gil([&] {
    ReportOptions options;
    options.dirs = dirs;
    options.out = out;
    options.plots = plots;
    options.target = target;
    options.command = command;
    options.cluster = cluster;
    options.cluster_file = cluster_file;
    options.device = device;
    path = write_report(options);
  });
  py::dict result = as_dict(outcome);
  result["path"] = path;
  return result;
}

// The resolved config as TOML, or the error a run with it would stop with.
py::dict check_config(const std::string& config_path, const std::vector<std::string>& overrides) {
  std::string toml;
  const Outcome outcome = without_gil([&] { toml = to_toml(load_config(config_path, overrides)); });
  py::dict result = as_dict(outcome);
  result["toml"] = toml;
  return result;
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
  // Several jobs may run in this process: MPI stays initialised between them.
  keep_mpi_between_jobs();
  m.def("finish_mpi", &finish_mpi, "end MPI if dsgd started it (at exit)");
  m.def("run", &run, py::arg("config_path"), py::arg("overrides"), py::arg("out"),
        py::arg("resume_dir"), py::arg("on_update") = py::none(), py::arg("on_log") = py::none());
  m.def("sweep", &sweep, py::arg("spec"), py::arg("out"), py::arg("jobs"), py::arg("threads"),
        py::arg("executable"));
  m.def("report", &report, py::arg("dirs"), py::arg("out"), py::arg("plots"), py::arg("target"),
        py::arg("command"), py::arg("cluster") = "", py::arg("cluster_file") = "",
        py::arg("device") = "");
  m.def("check_config", &check_config, py::arg("config_path"), py::arg("overrides"));
  m.def("default_run_path", &default_run_path, py::arg("algo"));
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
    std::vector<std::tuple<std::string, std::string, std::string, std::string, std::string>> rows;
    for (const auto& k : config_keys()) {
      rows.emplace_back(k.key, k.type, k.default_value, k.help, k.applies_to);
    }
    return rows;
  });
}
