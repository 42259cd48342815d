// The learners' optimizer; see local_optimizer.h.
#include "algos/local_optimizer.h"

#include "core/errors.h"

namespace dsgd {

LocalOptimizer::LocalOptimizer(const LocalOptimizerOptions& options, const torch::Tensor& like) {
  if (options.kind == "sgd") {
    sgd_.emplace(options.sgd, like);
  } else if (options.kind == "adamw") {
    adamw_.emplace(options.adamw, like);
  } else {
    throw ConfigError("optimizer = \"" + options.kind + "\" is not a learner's optimizer",
                      "use optimizer = \"sgd\" or \"adamw\"");
  }
}

void LocalOptimizer::step(torch::Tensor& theta, torch::Tensor& grad, double lr, int64_t t) {
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
