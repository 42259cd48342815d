// The one launch sequence of a run, for the simulator (one process) and MPI (every rank of a job)
// alike: resource keys, session, memory, engine, notes, folder, checkpoint, training. What differs
// between the two is a strategy, LaunchSteps: how a step that may fail is agreed on (MPI: by every
// rank, so none hangs), which session and engine are built, what the log says of the compute, and
// how the run ends (MPI: a failure after training starts ends the job through MPI_Abort).
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "engine/engine.h"
#include "run/session.h"
#include "train/config.h"

namespace dsgd {

class LaunchSteps {
 public:
  virtual ~LaunchSteps() = default;
  // Whether this process owns the run folder and the log: the simulator, or MPI rank 0.
  virtual bool root() const = 0;
  // Runs a step that may fail. MPI: every rank learns whether it failed anywhere and throws then.
  virtual void together(const std::function<void()>& step) = 0;
  // The session, built and checked (the ranks the job has, the memory this process needs).
  virtual std::unique_ptr<Session> make_session(const RunConfig& config) = 0;
  virtual std::unique_ptr<Engine> build_engine(Session& session) = 0;
  // The log's line on threads and replicas (MPI's is printed when the ranks share the cores).
  virtual std::string compute_note(const Session& session) const = 0;
  // The root's value, on every process.
  virtual std::string from_root(const std::string& value) = 0;
  // What the "run folder:" line adds: MPI's rank count.
  virtual std::string folder_note() const = 0;
  // Trains, and ends as the engine needs: MPI ranks stop together or the job is aborted.
  virtual void train(Session& session, Engine& engine, const std::string& path) = 0;
};

// Runs the job through `steps`; returns the run folder on the root, "" elsewhere. With `resume`,
// out_dir is the folder of an earlier run to continue from its last checkpoint.
std::string launch(const RunConfig& config, const std::string& out_dir, bool resume,
                   LaunchSteps& steps);

}  // namespace dsgd
