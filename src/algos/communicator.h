// How synchronous learners talk: an all-reduce mean over a group of learners, and nothing else.
// The synchronous algorithms (sync_round.h) speak only this interface; the simulator implements
// it in memory over all P learners (InProcessCommunicator, below), the MPI engine with
// MPI_Allreduce on communicators from MPI_Comm_split. Groups are S consecutive learners.
#pragma once

#include <torch/torch.h>

#include <vector>

namespace dsgd {

enum class AverageLevel {
  kGroup,   // among the S learners of each group (fast, node-local links)
  kGlobal,  // among all P learners (the network)
};

class Communicator {
 public:
  virtual ~Communicator() = default;
  // `tensors[j]` belongs to the j-th learner this process holds (all P in the simulator, one per
  // MPI rank). Replaces each with the mean of that tensor over the learners of its group
  // (kGroup) or over all learners (kGlobal). Every learner passes tensors of the same shape.
  virtual void average(AverageLevel level, const std::vector<torch::Tensor>& tensors) = 0;
  // Learners in one group at `level` (S or P).
  virtual int64_t group_size(AverageLevel level) const = 0;
};

// Replaces every member with the members' mean, summed in member order and divided by their
// count (so equal inputs give bit-identical results wherever it runs). Contiguous float CPU
// tensors take one fused pass: each member is read once and written once.
void average_in_place(const std::vector<torch::Tensor>& members);

// All P learners in this process: tensors[j] is learner j's.
class InProcessCommunicator : public Communicator {
 public:
  InProcessCommunicator(int64_t learners, int64_t group_size);
  void average(AverageLevel level, const std::vector<torch::Tensor>& tensors) override;
  int64_t group_size(AverageLevel level) const override {
    return level == AverageLevel::kGroup ? group_size_ : learners_;
  }

 private:
  int64_t learners_;
  int64_t group_size_;
};

}  // namespace dsgd
