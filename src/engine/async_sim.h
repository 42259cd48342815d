// The discrete-event simulator of N asynchronous workers and one parameter server. Each worker's
// minibatch time comes from the timing model; a priority queue ordered by (finish time, worker,
// sequence) pops the worker that finishes next, its gradient is computed on the single model
// replica at the parameters it was sent, the server rule applies its message and sends it fresh
// parameters. One replica does all gradient computations, so N workers cost only their
// per-worker state (the parameters each was sent, and the rule's own state). The server's link
// is priced like the synchronous family's global link (comm.global_*): every push and pull
// takes α + β·M/servers and queues for it, so simulated time is comparable across families.
#pragma once

#include <memory>

#include "algos/async_rule.h"
#include "engine/engine.h"
#include "engine/timing.h"
#include "engine/trace.h"

namespace dsgd {

// The rules' options, from the config (shared with the MPI engine).
AsyncOptions async_options(const RunConfig& config);

class AsyncSimulator : public Engine {
 public:
  // Validates the algorithm's options and the trace file; throws ConfigError before any
  // training (and so before a run folder exists).
  explicit AsyncSimulator(Training& training);
  ~AsyncSimulator() override;
  void restore(const TensorMap& checkpoint) override;
  void run() override;

 private:
  struct State;
  Training& training_;
  std::unique_ptr<State> state_;
};

}  // namespace dsgd
