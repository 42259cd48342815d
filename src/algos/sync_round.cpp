// The synchronous round; see sync_round.h.
#include "algos/sync_round.h"

namespace dsgd {
namespace {

int64_t bytes_of(const torch::Tensor& t) {
  return t.defined() ? t.numel() * static_cast<int64_t>(t.element_size()) : 0;
}

std::vector<torch::Tensor> gather(std::vector<Learner>& learners, torch::Tensor Learner::*field) {
  std::vector<torch::Tensor> tensors;
  tensors.reserve(learners.size());
  for (auto& learner : learners) tensors.push_back(learner.*field);
  return tensors;
}

}  // namespace

RoundTraffic finish_round(const SyncPlan& plan, int64_t step, double lr, bool average_momentum,
                          std::vector<Learner>& learners, Communicator& communicator) {
  torch::NoGradGuard no_grad;
  RoundTraffic traffic;
  Learner& first = learners.front();
  if (plan.average_gradients && communicator.group_size(AverageLevel::kGlobal) > 1) {
    // BatchNorm buffers travel with the gradients so that the replicas stay identical.
    communicator.average(AverageLevel::kGlobal, gather(learners, &Learner::grad));
    communicator.average(AverageLevel::kGlobal, gather(learners, &Learner::buffers));
    traffic = {AverageLevel::kGlobal, communicator.group_size(AverageLevel::kGlobal),
               bytes_of(first.grad) + bytes_of(first.buffers)};
  }
  for (auto& learner : learners) learner.optimizer.step(learner.params, learner.grad, lr);

  std::optional<AverageLevel> level = plan.averaging_after(step);
  if (!level || communicator.group_size(*level) <= 1) return traffic;
  communicator.average(*level, gather(learners, &Learner::params));
  communicator.average(*level, gather(learners, &Learner::buffers));
  int64_t bytes = bytes_of(first.params) + bytes_of(first.buffers);
  if (average_momentum && first.optimizer.momentum_buffer().defined()) {
    std::vector<torch::Tensor> velocities;
    for (auto& learner : learners) velocities.push_back(learner.optimizer.momentum_buffer());
    communicator.average(*level, velocities);
    bytes += bytes_of(first.optimizer.momentum_buffer());
  }
  return {level, communicator.group_size(*level), bytes};
}

}  // namespace dsgd
