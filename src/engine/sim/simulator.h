// The shape the asynchronous and the synchronous simulator share (async_sim.cpp, sync_sim.cpp):
// an Engine over one Training whose state is a struct of the simulator's own, which its file
// defines (Simulator<Kind>::State) with the members below. Private to src/engine/sim/.
#pragma once

#include <memory>

#include "engine/engine.h"

namespace dsgd {

template <class Kind>
class Simulator : public Engine {
 public:
  // Validates its input (the algorithm's options, trace files); throws ConfigError before any
  // training, and so before a run folder exists.
  explicit Simulator(Training& training);
  ~Simulator() override;
  void restore(const TensorMap& checkpoint) override;
  void run() override;

 private:
  struct State;
  Training& training_;
  std::unique_ptr<State> state_;
};

}  // namespace dsgd
