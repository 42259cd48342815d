// The ranks of a distributed run as the rank engines (engine/ranks/) see them: this rank and how
// many there are, the collectives they need (a sum, a gather, the learners' all-reduces), the
// transport for point-to-point messages, and the watch on silent ranks. MPI is one implementation
// (engine/mpi/mpi_world.h); engines never include MPI.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "algos/communicator.h"
#include "core/errors.h"
#include "engine/transport.h"

namespace dsgd {

// An error another rank met, on this rank: the same exit code, and a message pointing at that
// rank's own (empty where that rank prints it).
class PeerError : public Error {
 public:
  PeerError(const std::string& what, int code) : Error(what), code_(code) {}
  int exit_code() const override { return code_; }

 private:
  int code_;
};

// The synchronous learners' all-reduces over ranks (one learner per rank): the Communicator the
// algorithms speak, a plain sum for losses and signals, and the seconds it has spent.
class RankCommunicator : public Communicator {
 public:
  // In-place sum over this rank's group at `level` (float32 or float64 tensors).
  virtual void sum(size_t level, torch::Tensor& tensor) = 0;
  // Wall-clock seconds spent in its collectives so far, staging included.
  virtual double seconds_in_collectives() const = 0;
};

class World {
 public:
  virtual ~World() = default;

  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual Transport& transport() = 0;

  // Collective. Every rank passes the error its setup ended with (null: success). Returns when
  // every rank succeeded; otherwise throws on every rank: the failing rank its own error, the
  // others an error with the same exit code naming the first rank that failed.
  virtual void agree(std::exception_ptr error) = 0;
  // Collective. Runs `step` on this rank and agrees on its outcome as agree() does.
  void agree_on(const std::function<void()>& step) {
    std::exception_ptr error;
    try {
      step();
    } catch (...) {
      error = std::current_exception();
    }
    agree(error);
  }
  // Collective, after training: every rank ends as rank 0 did. Rank 0 rethrows its `outcome`
  // (null: success); every other rank throws a silent error with rank 0's exit code (rank 0
  // reports it), or returns.
  virtual void follow_root(std::exception_ptr outcome) = 0;
  // Collective. Rank `root`'s bytes on every rank.
  virtual std::string broadcast(std::string bytes, int root = 0) = 0;
  // Collective. The sum of every rank's `value`, on every rank.
  virtual int64_t sum(int64_t value) = 0;
  // Collective. Every rank's `local` (float, the same size everywhere) as the rows of a
  // [size, numel] tensor on rank 0; an undefined tensor elsewhere.
  virtual torch::Tensor gather_to_root(const torch::Tensor& local) = 0;
  // Collective. The all-reduces of synchronous learners: `group_sizes` consecutive ranks per group
  // at each level, innermost first (a level of every rank is added when the last is not one);
  // with `node_groups` the innermost level is the ranks of each host. Tensors live on `device`;
  // `rank_order`: every mean summed in rank order, the simulator's sums bit for bit.
  virtual std::unique_ptr<RankCommunicator> learner_communicator(std::vector<int64_t> group_sizes,
                                                                 bool node_groups,
                                                                 torch::Device device,
                                                                 bool rank_order) = 0;

  // Seconds after which rank 0 gives up on a rank that stopped answering (0: never) and ends the
  // job naming it with `describe_rank` ("worker 2 (rank 3)").
  virtual void watch(double timeout_seconds, std::function<std::string(int)> describe_rank) = 0;
  virtual double hang_timeout() const = 0;
  // Whether this rank's host has more ranks than cores: waiting ranks then sleep between polls
  // instead of spinning, leaving the cores to the ranks that compute.
  virtual bool host_oversubscribed() const = 0;
};

}  // namespace dsgd
