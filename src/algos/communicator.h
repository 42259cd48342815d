// How synchronous learners talk: an all-reduce mean over a group of learners, and nothing else.
// The synchronous algorithms (sync_round.h) speak only this interface; the simulator implements
// it in memory over all P learners (InProcessCommunicator, below), the MPI engine with
// MPI_Allreduce on communicators from MPI_Comm_split. Groups come in levels, numbered from the
// innermost (0) out: at level l the learners form groups of group_size(l) consecutive learners,
// each level's groups nest in the next level's, and the last level is one group of all P.
#pragma once

#include <torch/torch.h>

#include <vector>

namespace dsgd {

class Communicator {
 public:
  virtual ~Communicator() = default;
  // `tensors[j]` belongs to the j-th learner this process holds (all P in the simulator, one per
  // MPI rank). Replaces each with the mean of that tensor over the learners of its group at
  // `level`. Every learner passes tensors of the same shape.
  virtual void average(size_t level, const std::vector<torch::Tensor>& tensors) = 0;
  // Learners in one group at `level`.
  virtual int64_t group_size(size_t level) const = 0;
  virtual size_t levels() const = 0;
  // The level of all P learners.
  size_t global_level() const { return levels() - 1; }
};

// Replaces every member with the members' mean, summed in member order and divided by their
// count (so equal inputs give bit-identical results wherever it runs). Contiguous float CPU
// tensors take one fused pass: each member is read once and written once. Under the test fault
// DSGD_FAULT=reduce:REVERSED the members are summed last to first: the spread between a run and
// itself summed in another order is what a bound on two engines' rounding is derived from.
void average_in_place(const std::vector<torch::Tensor>& members);

// out[k] = (((members[0][k] + members[1][k]) + ...) + members[n-1][k]) / n for k < len: the one
// sum every exact mean of dsgd computes, the simulator's over its learners and the MPI engine's
// rank-order all-reduce over the chunks it received, so that the two agree bit for bit.
template <typename T>
void mean_in_member_order(const T* const* members, size_t n, T* out, int64_t len) {
  const T* first = members[0];
  for (int64_t k = 0; k < len; ++k) out[k] = first[k];
  for (size_t j = 1; j < n; ++j) {
    const T* src = members[j];
    for (int64_t k = 0; k < len; ++k) out[k] += src[k];
  }
  const T count = static_cast<T>(n);
  for (int64_t k = 0; k < len; ++k) out[k] /= count;
}

// All P learners in this process: tensors[j] is learner j's.
class InProcessCommunicator : public Communicator {
 public:
  // `group_sizes`: the learners per group at each level, innermost first; a level of all
  // `learners` is added when the last is not one.
  InProcessCommunicator(int64_t learners, std::vector<int64_t> group_sizes);
  void average(size_t level, const std::vector<torch::Tensor>& tensors) override;
  int64_t group_size(size_t level) const override { return group_sizes_.at(level); }
  size_t levels() const override { return group_sizes_.size(); }

 private:
  int64_t learners_;
  std::vector<int64_t> group_sizes_;
};

}  // namespace dsgd
