// The Communicator of the MPI engine: one learner per rank; a group average is an all-reduce on
// a communicator from MPI_Comm_split (S consecutive ranks) or MPI_Comm_split_type (the ranks
// sharing a node), a global average an all-reduce over every rank. Sums are divided by the
// group's size on each rank. The all-reduces are non-blocking, waited for under the world's
// watchdog, so that a rank that stops answering ends the job instead of hanging it (blocking
// when the watchdog is off).
#pragma once

#include "algos/communicator.h"
#include "engine/mpi_world.h"

namespace dsgd {

class MpiCommunicator : public Communicator {
 public:
  // Groups of `group_size` consecutive ranks, or with `node_groups` the ranks of each node.
  MpiCommunicator(MpiWorld& world, int64_t group_size, bool node_groups);
  ~MpiCommunicator() override;
  void average(AverageLevel level, const std::vector<torch::Tensor>& tensors) override;
  int64_t group_size(AverageLevel level) const override {
    return level == AverageLevel::kGroup ? group_size_ : global_size_;
  }
  // In-place sum over every rank (float32 or float64 tensors).
  void sum(AverageLevel level, torch::Tensor& tensor);

 private:
  Watchdog& watchdog_;
  MPI_Comm global_;
  MPI_Comm group_ = MPI_COMM_NULL;
  int64_t group_size_ = 1;
  int64_t global_size_ = 1;
};

}  // namespace dsgd
