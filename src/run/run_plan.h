// A run resolved once from its validated config: the algorithm's catalog entry and family, the
// engine, the MPI ranks it needs, the samples an update consumes, the gradients a simulator may
// compute at once, and how to build its engine. Everything that follows from the algorithm's
// family is in one table (run_plan.cpp), which run_job, the launchers, Session and the training
// context read instead of working it out again. Its memory estimate, made once the model and the
// data are known, stops a run that cannot fit before anything is written.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "algos/catalog.h"
#include "engine/engine.h"
#include "engine/world.h"
#include "train/config.h"
#include "train/training_context.h"

namespace dsgd {

class Session;

struct RunPlan {
  const AlgorithmInfo* algorithm = nullptr;
  AlgorithmFamily family = AlgorithmFamily::kSingle;
  bool on_ranks = false;  // ranks, a process each (engine = "mpi"), or one simulating process
  // The ranks the run needs: a worker or learner each, plus the server shards.
  int64_t ranks = 1;
  std::string ranks_are;  // what they are, for messages: "one per learner"
  // What the training context needs: samples per update, gradients computed at once.
  ContextShape shape;
  // The engine, in this process (MPI: on this rank). Engines validate their own input (trace
  // files, group shapes) on construction, before any run folder exists.
  // The simulator runs on any Training: a Session's, or a run of the clock alone (clock_only.h).
  std::function<std::unique_ptr<Engine>(Training&)> build_simulator;
  // This rank's engine on a World of ranks (engine/world.h); empty: the algorithm has none.
  std::function<std::unique_ptr<Engine>(Training&, World&)> build_ranks;
};

// Throws ConfigError for an algorithm without the engine the config asks for.
RunPlan plan_run(const RunConfig& config);

// What a run will hold in memory, by part, in bytes.
struct MemoryEstimate {
  int64_t server = 0;    // the asynchronous server's state and what it keeps per worker
  int64_t workers = 0;   // every simulated worker's or learner's own state
  int64_t replicas = 0;  // the model replicas computing gradients
  int64_t dataset = 0;   // both splits, decoded
  int64_t total() const { return server + workers + replicas + dataset; }
};

// The estimate for a run whose training context is built (model, data, compute plan), before its
// engine allocates anything. In an MPI job: what this rank holds.
MemoryEstimate estimate_memory(const RunPlan& plan, const TrainingContext& context, int rank = 0);

// Throws ConfigError (exit 2) when the estimate exceeds `available_bytes` (0: unknown, no check),
// naming both, the parts, and the keys that would make the run fit.
void check_memory(const MemoryEstimate& estimate, int64_t available_bytes, const RunConfig& config);

}  // namespace dsgd
