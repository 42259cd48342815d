// Job dispatch and the simulator's launch steps; see run_job.h. The sequence is launch.h's; MPI's
// steps are in mpi_launch.cpp.
#include "run/run_job.h"

#include <fmt/format.h>

#include "core/errors.h"
#include "core/interrupt.h"
#include "run/launch.h"
#include "run/mpi_launch.h"

namespace dsgd {
namespace {

// One process holds the whole run: its steps need no agreement, it owns the folder, and it stops
// at the next update after a signal.
class SimulatedLaunch : public LaunchSteps {
 public:
  bool root() const override { return true; }
  void together(const std::function<void()>& step) override { step(); }
  std::unique_ptr<Session> make_session(const RunConfig& config) override {
    auto session = std::make_unique<Session>(config);
    session->check_memory();
    return session;
  }
  std::unique_ptr<Engine> build_engine(Session& session) override {
    return session.plan().build_simulator(session);
  }
  std::string compute_note(const Session& session) const override {
    const ComputePlan& plan = session.context().compute_plan();
    if (plan.streams) {
      return fmt::format(
          "GPU: {} replica{}, each on a CUDA stream of its own ({}; set sim.replicas to "
          "override)\n",
          plan.replicas, plan.replicas == 1 ? "" : "s", plan.reason);
    }
    return fmt::format(
        "threads: {}{} ({}; set threads and sim.replicas to override)\n", plan.threads,
        plan.replicas > 1 ? fmt::format(" on each of {} replicas", plan.replicas) : "",
        plan.reason);
  }
  std::string from_root(const std::string& value) override { return value; }
  std::string folder_note() const override { return ""; }
  void train(Session& session, Engine& engine, const std::string&) override { session.run(engine); }
};

std::string run_simulated(const RunConfig& config, const std::string& out_dir, bool resume) {
  SimulatedLaunch steps;
  return launch(config, out_dir, resume, steps);
}

// The backends the `engine` key names, and how a job of each runs: a new backend (another
// process-group library) is a row here, its World (engine/world.h) and its launch steps.
struct EngineBackend {
  EngineKind engine;
  std::string (*run)(const RunConfig& config, const std::string& out_dir, bool resume);
};
const EngineBackend kEngineBackends[] = {
    {EngineKind::kSim, run_simulated},
    {EngineKind::kMpi, run_on_mpi},
};

}  // namespace

std::string run_job(const RunConfig& config, const std::string& out_dir, bool resume) {
  InterruptScope interrupts;
  for (const EngineBackend& backend : kEngineBackends) {
    if (backend.engine == config.engine) return backend.run(config, out_dir, resume);
  }
  throw Error(fmt::format("engine = \"{}\" has no backend", enum_name(config.engine)),
              "this is a dsgd bug: run_job.cpp's table lacks a row");
}

}  // namespace dsgd
