// Synchronous learners on MPI: every rank is one learner of the same plan the simulator follows
// (sync_round.h), averaging through MpiCommunicator. The losses are all-reduced every round, so
// every rank sees the same mean loss and stops on divergence at the same update. At each
// evaluation the learners' average is all-reduced for rank 0 to evaluate, and every learner's
// state is gathered to rank 0 for a checkpoint in the simulator's format.
#pragma once

#include <memory>

#include "engine/engine.h"
#include "engine/mpi_world.h"

namespace dsgd {

class MpiSyncEngine : public Engine {
 public:
  // Throws ConfigError unless the world has `workers` ranks.
  MpiSyncEngine(Training& training, MpiWorld& world);
  ~MpiSyncEngine() override;
  void restore(const TensorMap& checkpoint) override;
  void run() override;

 private:
  struct State;
  Training& training_;
  MpiWorld& world_;
  std::unique_ptr<State> state_;
};

}  // namespace dsgd
