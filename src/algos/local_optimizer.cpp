// The learners' optimizer; see local_optimizer.h.
#include "algos/local_optimizer.h"

#include "core/errors.h"

namespace dsgd {

void clip_gradient_norm(torch::Tensor& grad, double max_norm) {
  torch::NoGradGuard no_grad;
  const torch::Tensor factor = (max_norm / (grad.norm() + 1e-6)).clamp_max(1.0);
  grad.mul_(factor);
}

LocalOptimizer::LocalOptimizer(const LocalOptimizerOptions& options, const torch::Tensor& like)
    : clip_norm_(options.clip_norm) {
  switch (options.kind) {
    case LocalOptimizerKind::kSgd:
      sgd_.emplace(options.sgd, like);
      break;
    case LocalOptimizerKind::kAdamw:
      adamw_.emplace(options.adamw, like);
      break;
  }
}

void LocalOptimizer::step(torch::Tensor& theta, torch::Tensor& grad, double lr, int64_t t) {
  if (clip_norm_ > 0.0) clip_gradient_norm(grad, clip_norm_);
  if (adamw_) {
    adamw_->step(theta, grad, lr, t);
  } else {
    sgd_->step(theta, grad, lr);
  }
}

torch::Tensor& LocalOptimizer::state() {
  return adamw_ ? adamw_->moments() : sgd_->momentum_buffer();
}

void LocalOptimizer::keep_state_in(const torch::Tensor& storage) {
  if (adamw_) {
    adamw_->keep_moments_in(storage);
  } else {
    sgd_->keep_velocity_in(storage);
  }
}

}  // namespace dsgd
