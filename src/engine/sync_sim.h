// The simulator of P synchronous learners in one process. Each learner keeps its own parameters,
// BatchNorm buffers and momentum; every round each learner computes the gradient of its own next
// minibatch on the one shared model replica, then the algorithm's plan (sync_round.h) steps and
// averages them through an in-memory communicator.
//
// Simulated time: a round lasts as long as its slowest learner (Gamma minibatch times, as in the
// asynchronous simulator) plus, when it ends with a reduction among n learners of M bytes each,
// alpha + beta * 2(n-1)/n * M with the (alpha, beta) of the in-group or the global link.
#pragma once

#include <memory>

#include "engine/engine.h"

namespace dsgd {

class SyncSimulator : public Engine {
 public:
  // Validates the plan's options; throws ConfigError before any training.
  explicit SyncSimulator(Training& training);
  ~SyncSimulator() override;
  void restore(const TensorMap& checkpoint) override;
  void run() override;

 private:
  struct State;
  Training& training_;
  std::unique_ptr<State> state_;
};

}  // namespace dsgd
