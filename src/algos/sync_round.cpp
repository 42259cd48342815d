// The synchronous round; see sync_round.h.
#include "algos/sync_round.h"

namespace dsgd {
namespace {

int64_t bytes_of(const torch::Tensor& t) {
  return t.defined() ? t.numel() * static_cast<int64_t>(t.element_size()) : 0;
}

// One slice of every learner's block, for one collective.
template <class Slice>
std::vector<torch::Tensor> gather(std::vector<Learner>& learners, Slice slice) {
  std::vector<torch::Tensor> tensors;
  tensors.reserve(learners.size());
  for (auto& learner : learners) tensors.push_back(slice(learner));
  return tensors;
}

}  // namespace

Learner::Learner(const LocalOptimizerOptions& optimizer_options, const torch::Tensor& params0,
                 const torch::Tensor& buffers0, const OuterOptions& outer_options)
    : optimizer(optimizer_options, params0) {
  const int64_t p = params0.numel(), b = buffers0.numel();
  const int64_t s = optimizer.state().defined() ? optimizer.state().numel() : 0;
  state = torch::zeros({p + b + p + s}, params0.options());
  grad = state.narrow(0, 0, p);
  buffers = state.narrow(0, p, b);
  params = state.narrow(0, p + b, p);
  buffers.copy_(buffers0.reshape({-1}));
  params.copy_(params0.reshape({-1}));
  if (s > 0) optimizer.keep_state_in(state.narrow(0, p + b + p, s));
  if (!outer_options.plain()) {
    OuterOptions options = outer_options;
    options.lr_in_velocity = optimizer_options.sgd.lr_in_velocity;
    outer.emplace(options, params);
  }
}

torch::Tensor Learner::averaged(bool with_state, bool with_buffers) const {
  const int64_t p = params.numel(), b = buffers.numel();
  const int64_t length = p + (with_state ? state.numel() - (p + b + p) : 0);
  return with_buffers ? state.narrow(0, p, b + length) : state.narrow(0, p + b, length);
}

RoundTraffic finish_round(const SyncPlan& plan, int64_t step, double lr, bool average_momentum,
                          std::vector<Learner>& learners, Communicator& communicator,
                          const std::function<void()>& before_averaging) {
  torch::NoGradGuard no_grad;
  RoundTraffic traffic;
  const size_t global = communicator.global_level();
  if (plan.averages_gradients_at(step) && communicator.group_size(global) > 1) {
    // BatchNorm buffers travel with the gradients so that the replicas stay identical.
    auto exchanged =
        gather(learners, [&](Learner& l) { return l.gradient_and_buffers(plan.average_buffers); });
    communicator.average(global, exchanged);
    traffic = {global, communicator.group_size(global), bytes_of(exchanged.front())};
  }
  // Every learner steps in every round, so `step` is also its optimizer's own step count.
  for (auto& learner : learners) learner.optimizer.step(learner.params, learner.grad, lr, step);
  std::optional<size_t> level = plan.averaging_after(step);
  if (!level || communicator.group_size(*level) <= 1) return traffic;
  if (before_averaging) before_averaging();
  auto averaged = gather(
      learners, [&](Learner& l) { return l.averaged(average_momentum, plan.average_buffers); });
  communicator.average(*level, averaged);
  if (*level == global) {
    for (auto& learner : learners) {
      if (learner.outer) learner.outer->step(learner.params, lr);
    }
  }
  return {level, communicator.group_size(*level), bytes_of(averaged.front())};
}

}  // namespace dsgd
