// The MPI World (engine/world.h): initialisation and finalisation, this process's rank, the
// agreements every rank reaches before training — the rank count fits the config, every rank
// runs the same config, every rank's setup (data, model) succeeded — so that bad input ends every
// rank with exit 2 and a message, never a hang; and the rank engines' transport, collectives and
// watchdog on a duplicate of MPI_COMM_WORLD. Only engine/mpi/ and the launcher include MPI.
#pragma once

#include <mpi.h>

#include <exception>
#include <memory>
#include <string>
#include <utility>

#include "engine/mpi/mpi_transport.h"
#include "engine/mpi/mpi_watchdog.h"
#include "engine/world.h"
#include "train/collective_cost.h"

namespace dsgd {

// Whether ~MpiWorld ends MPI (true: the dsgd executable, one job per process) or leaves it for
// finish_mpi_we_started() at exit (an embedding process that may run more jobs).
void set_finalize_after_job(bool finalize);
// MPI_Finalize, if dsgd initialised MPI and nobody has finalised it.
void finish_mpi_we_started();

class MpiWorld : public World {
 public:
  // Initialises MPI (once per process, unless another library did) and duplicates
  // MPI_COMM_WORLD for dsgd's traffic.
  MpiWorld();
  ~MpiWorld() override;
  MpiWorld(const MpiWorld&) = delete;
  MpiWorld& operator=(const MpiWorld&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  MPI_Comm comm() const { return comm_; }
  // Every wait during training goes through it (see mpi_watchdog.h).
  Watchdog& watchdog() { return *watchdog_; }
  Transport& transport() override { return *transport_; }

  void agree(std::exception_ptr error) override;
  void follow_root(std::exception_ptr outcome) override;
  std::string broadcast(std::string bytes, int root = 0) override;
  int64_t sum(int64_t value) override;
  torch::Tensor gather_to_root(const torch::Tensor& local) override;
  std::unique_ptr<RankCommunicator> learner_communicator(std::vector<int64_t> group_sizes,
                                                         bool node_groups, torch::Device device,
                                                         bool rank_order) override;
  void watch(double timeout_seconds, std::function<std::string(int)> describe_rank) override {
    watchdog_->watch(timeout_seconds, std::move(describe_rank));
  }
  double hang_timeout() const override { return watchdog_->timeout(); }

  // Collective. Throws ConfigError on every rank unless all ranks pass the same text.
  void check_same(const std::string& text, const std::string& what);
  // Collective. The lowest rank that passes a non-empty `text`, and its text, on every rank
  // (-1 and "" where every rank passes "").
  std::pair<int, std::string> first_rank_saying(const std::string& text);
  // Collective. How many ranks of this job share this rank's host (its shared-memory node), and
  // this rank's index among them.
  struct HostRanks {
    int size = 1;
    int rank = 0;
  };
  HostRanks ranks_on_host();
  // Whether this rank's host has more ranks than cores (known once ranks_on_host ran). Waiting
  // ranks then sleep between polls instead of spinning: a spinning server or shard takes the
  // scheduler's turns from the workers that compute (docs/performance.md, MPI engine against
  // the simulator).
  bool host_oversubscribed() const override { return host_oversubscribed_; }
  // Sets the algorithm of the non-blocking all-reduce that averages the learners ("ring", "tree",
  // "halving-doubling"), every rank the same: Open MPI's coll_libnbc_iallreduce_algorithm,
  // written through the MPI tool interface (MPI_T), which libnbc reads at each call. Returns the
  // value read back. Throws ConfigError where the MPI has no such variable (not Open MPI).
  int set_iallreduce_algorithm(AllreduceAlgorithm algorithm);

  // Ends every rank of the job with `code` (after a failure that other ranks cannot see).
  [[noreturn]] void abort(int code);

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  bool host_oversubscribed_ = false;
  std::unique_ptr<Watchdog> watchdog_;
  std::unique_ptr<MpiTransport> transport_;
  int rank_ = 0;
  int size_ = 1;
};

// Throws ConfigError (exit 2, every rank) when an MPI call failed.
void check_mpi(int result, const char* call);

}  // namespace dsgd
