// The asynchronous parameter server on ranks (engine = "mpi": MPI processes). Rank 0 is the
// server, ranks 1..N the workers, and
// they run the same rules as the simulator. With `servers = S` ranks 0..S-1 each serve a slice of
// the flat vector (every rule is element-wise) and workers are ranks S..S+N-1; shard 0 takes
// arrivals and tells the other shards the order, so every shard applies the same messages in the
// same sequence and the run is the same algorithm as with one server. The server takes messages in
// arrival order (a receive from any source), applies each, and sends that worker fresh parameters;
// it records the arrival order, so the simulator can replay it and reproduce the run's parameters.
//
// Evaluation happens on the server while the workers keep computing (their messages wait in the
// transport).
// A checkpoint first collects the one message every busy worker owes (kept, not applied, and
// applied first afterwards, in arrival order) and each worker's rule state and batch counter:
// nothing in flight is lost, and `--resume` continues exactly from there. At the end the server
// collects the messages still owed and tells every worker to stop, so no rank is left waiting.
//
// Files: async_ranks.cpp sets the ranks up, async_ranks_server.cpp runs the shards around the same
// AsyncServer the simulator uses, async_ranks_worker.cpp the workers, and async_protocol.h holds
// the tags and orders they speak over the world's transport (engine/transport.h).
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "engine/engine.h"
#include "engine/world.h"

namespace dsgd {

class AsyncRanksEngine : public Engine {
 public:
  // Throws ConfigError unless the world has workers + servers ranks.
  AsyncRanksEngine(Training& training, World& world);
  ~AsyncRanksEngine() override;
  // Every rank gets the checkpoint (the server's file, broadcast).
  void restore(const TensorMap& checkpoint) override;
  void run() override;

  // Replaces the workers' gradient computation, for benchmarks of the message path alone:
  // fills training.model().grads() for the worker's batch number k and returns the loss.
  using GradientSource = std::function<torch::Tensor(int64_t k)>;
  void set_gradient_source(GradientSource source) { gradient_source_ = std::move(source); }

 private:
  struct Server;
  struct Worker;
  struct ShardOps;
  void run_server();  // shard 0: takes arrivals, sequences the other shards, evaluates
  void run_shard();   // shards 1..S-1
  void run_worker();
  Training& training_;
  World& world_;
  std::unique_ptr<Server> server_;
  std::unique_ptr<Worker> worker_;
  GradientSource gradient_source_;
  int64_t shards_ = 1;
  std::vector<int64_t> steps_;  // H_i: worker i's minibatches per exchange (local.steps)
};

}  // namespace dsgd
