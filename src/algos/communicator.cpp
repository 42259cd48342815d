// In-memory all-reduce mean; see communicator.h.
#include "algos/communicator.h"

#include <ATen/Parallel.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "core/errors.h"
#include "core/fault_injection.h"

namespace dsgd {

namespace {

// One fused pass over contiguous CPU tensors of type T: blocks small enough that the n input
// slices stay in cache between reading and writing.
template <typename T>
void fused_average(const std::vector<torch::Tensor>& members) {
  const size_t n = members.size();
  std::vector<T*> data(n);
  for (size_t j = 0; j < n; ++j) data[j] = members[j].data_ptr<T>();
  constexpr int64_t kBlock = 2048;
  at::parallel_for(0, members[0].numel(), kBlock, [&](int64_t begin, int64_t end) {
    T mean[kBlock];
    std::vector<const T*> slices(n);
    for (int64_t start = begin; start < end; start += kBlock) {
      const int64_t len = std::min(kBlock, end - start);
      for (size_t j = 0; j < n; ++j) slices[j] = data[j] + start;
      mean_in_member_order(slices.data(), n, mean, len);
      for (size_t j = 0; j < n; ++j) std::copy(mean, mean + len, data[j] + start);
    }
  });
}

}  // namespace

void average_in_place(const std::vector<torch::Tensor>& given) {
  const size_t n = given.size();
  if (n <= 1) return;
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> members = given;
  if (state_fault("reduce", "REVERSED")) std::reverse(members.begin(), members.end());
  const auto type = members[0].scalar_type();
  bool fused = type == torch::kFloat || type == torch::kDouble;
  for (const auto& m : members) {
    fused = fused && m.device().is_cpu() && m.scalar_type() == type && m.is_contiguous() &&
            m.numel() == members[0].numel();
  }
  if (!fused) {
    torch::Tensor sum = members[0].clone();
    for (size_t j = 1; j < n; ++j) sum.add_(members[j]);
    sum.div_(static_cast<double>(n));
    for (const auto& m : members) m.copy_(sum);
    return;
  }
  if (type == torch::kFloat) {
    fused_average<float>(members);
  } else {
    fused_average<double>(members);
  }
}

InProcessCommunicator::InProcessCommunicator(int64_t learners, std::vector<int64_t> group_sizes)
    : learners_(learners), group_sizes_(std::move(group_sizes)) {
  if (group_sizes_.empty() || group_sizes_.back() != learners) group_sizes_.push_back(learners);
  int64_t inner = 1;
  for (int64_t size : group_sizes_) {
    if (learners < 1 || size < 1 || learners % size != 0 || size % inner != 0) {
      throw ConfigError(fmt::format("{} learners cannot form nested groups of {}", learners,
                                    fmt::join(group_sizes_, ", then ")),
                        "groups are consecutive learners: each level's group size must divide "
                        "the next level's and the learner count");
    }
    inner = size;
  }
}

void InProcessCommunicator::average(size_t level, const std::vector<torch::Tensor>& tensors) {
  if (static_cast<int64_t>(tensors.size()) != learners_) {
    throw Error(
        fmt::format("in-process average of {} tensors over {} learners", tensors.size(), learners_),
        "pass one tensor per learner");
  }
  const int64_t size = group_size(level);
  for (int64_t first = 0; first < learners_; first += size) {
    average_in_place(
        std::vector<torch::Tensor>(tensors.begin() + first, tensors.begin() + first + size));
  }
}

}  // namespace dsgd
