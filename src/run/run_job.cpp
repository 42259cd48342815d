// Job dispatch and the simulated launch; see run_job.h. The MPI launch is in mpi_launch.cpp.
#include "run/run_job.h"

#include <fmt/format.h>

#include <iostream>

#include "core/interrupt.h"
#include "run/host_limits.h"
#include "run/mpi_launch.h"
#include "run/session.h"
#include "train/local_steps.h"

namespace dsgd {
namespace {

std::string run_simulated(const RunConfig& config, const std::string& out_dir, bool resume) {
  // One process holds the whole run: it stops at the next update after a signal.
  InterruptScope interrupts;
  check_resource_keys(config, host_limits());  // before a thread or a folder exists
  Session session(config);
  session.check_memory();
  std::unique_ptr<Engine> engine = session.plan().build_simulator(session);
  const ComputePlan& plan = session.context().compute_plan();
  if (plan.streams) {
    std::cerr << fmt::format(
        "GPU: {} replica{}, each on a CUDA stream of its own ({}; set sim.replicas to override)\n",
        plan.replicas, plan.replicas == 1 ? "" : "s", plan.reason);
  } else {
    std::cerr << fmt::format(
        "threads: {}{} ({}; set threads and sim.replicas to override)\n", plan.threads,
        plan.replicas > 1 ? fmt::format(" on each of {} replicas", plan.replicas) : "",
        plan.reason);
  }
  std::cerr << session.context().compute_format_note();
  if (session.plan().family == AlgorithmFamily::kAsync) std::cerr << describe_local_steps(config);
  std::string path = out_dir.empty() ? default_run_path(config.algo) : out_dir;
  TensorMap checkpoint;  // outlives the run: engines may read it while running
  if (resume) {
    checkpoint = session.resume_folder(path);
    session.check_free_space(path);
    engine->restore(checkpoint);
    std::cerr << "resuming " << path << " at update " << session.updates_done() << "\n";
  } else {
    session.check_free_space(path);
    session.open_folder(path);
    std::cerr << "run folder: " << path << "\n";
  }
  session.run(*engine);
  return path;
}

}  // namespace

std::string run_job(const RunConfig& config, const std::string& out_dir, bool resume) {
  return config.mpi() ? run_on_mpi(config, out_dir, resume)
                      : run_simulated(config, out_dir, resume);
}

}  // namespace dsgd
