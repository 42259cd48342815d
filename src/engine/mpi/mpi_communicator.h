// The Communicator of the MPI engine: one learner per rank; each averaging level below the
// outermost is an all-reduce on its own communicator from MPI_Comm_split (consecutive ranks) or,
// for the innermost, MPI_Comm_split_type (the ranks sharing a node); the outermost an all-reduce
// over every rank. Sums are divided by the group's size on each rank. The all-reduces are
// non-blocking, waited for under the world's watchdog, so that a rank that stops answering ends the
// job instead of hanging it (blocking when the watchdog is off). Learners on a GPU are summed
// through pinned host buffers (core/host_staging.h): Debian's Open MPI reads host memory only.
// With `rank_order` (allreduce = "rank-order") a mean is not MPI's all-reduce but a reduce-scatter
// by direct exchange (MPI_Ialltoallv), each rank summing its slice in rank order with the
// simulator's own kernel (mean_in_member_order), then an all-gather: the same bytes on the wire as
// the ring, and the simulator's means bit for bit (MPI leaves the order of its sums unspecified,
// and Open MPI's ring starts each slice's sum at another rank).
#pragma once

#include <map>
#include <utility>

#include "core/host_staging.h"
#include "engine/mpi/mpi_world.h"
#include "engine/world.h"

namespace dsgd {

class MpiCommunicator : public RankCommunicator {
 public:
  // `group_sizes`: consecutive ranks per group at each level, innermost first (a level of every
  // rank is added when the last is not one); with `node_groups` the innermost level is the ranks
  // of each node, and the constructor checks (ConfigError) that the nodes nest in the next level.
  // The learners' tensors live on `device`.
  MpiCommunicator(MpiWorld& world, std::vector<int64_t> group_sizes, bool node_groups,
                  torch::Device device = torch::kCPU, bool rank_order = false);
  ~MpiCommunicator() override;
  MpiCommunicator(const MpiCommunicator&) = delete;
  MpiCommunicator& operator=(const MpiCommunicator&) = delete;
  void average(size_t level, const std::vector<torch::Tensor>& tensors) override;
  int64_t group_size(size_t level) const override { return sizes_.at(level); }
  size_t levels() const override { return comms_.size(); }
  // In-place sum over the rank's group at `level` (float32 or float64 tensors, on the host or
  // on the communicator's device).
  void sum(size_t level, torch::Tensor& tensor) override;
  // Wall-clock seconds spent in this communicator's all-reduces so far, staging included.
  double seconds_in_collectives() const override { return seconds_; }
  const HostStaging& staging() const { return staging_; }

 private:
  // The host tensor MPI reads and writes for `tensor` (staged through a buffer on a GPU), after
  // checking that MPI can carry it.
  torch::Tensor host_side(const torch::Tensor& tensor);
  // The group mean at `level` summed in rank order (rank_order_).
  void mean_in_rank_order(size_t level, torch::Tensor& tensor);

  Watchdog& watchdog_;
  bool rank_order_;
  std::vector<MPI_Comm> comms_;  // per level; the last is the world's (not ours to free)
  std::vector<int64_t> sizes_;
  double seconds_ = 0;
  torch::Device device_;
  HostStaging staging_;
  // Host buffers of the device tensors summed, by type and size (parameters, buffers, losses).
  std::map<std::pair<int, int64_t>, torch::Tensor> buffers_;
  // Rank-order means: every member's copy of this rank's slice, by type and size, kept between
  // rounds as the staging buffers are.
  std::map<std::pair<int, int64_t>, torch::Tensor> received_;
};

}  // namespace dsgd
