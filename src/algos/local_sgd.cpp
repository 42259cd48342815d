// Flat-tensor SGD; see local_sgd.h.
#include "algos/local_sgd.h"

namespace dsgd {

LocalSgd::LocalSgd(SgdOptions options, const torch::Tensor& like) : options_(options) {
  if (options_.momentum != 0.0) {
    velocity_ = torch::zeros_like(like);
    gamma_ = torch::full({}, options_.momentum, like.options());
  }
}

void LocalSgd::step(torch::Tensor& theta, torch::Tensor& grad, double lr) {
  torch::NoGradGuard no_grad;
  const double gamma = options_.momentum;
  // d = g + λθ
  torch::Tensor& d = grad;
  if (options_.weight_decay != 0.0) d.add_(theta, options_.weight_decay);
  if (gamma == 0.0) {
    // θ ← θ − ηd
    theta.add_(d, -lr);
    return;
  }
  if (!options_.lr_in_velocity) {
    // v ← γv + d;  θ ← θ − ηv, or Nesterov: θ ← θ − η(d + γv)
    velocity_.mul_(gamma_).add_(d);
    theta.add_(options_.nesterov ? d.add_(velocity_, gamma) : velocity_, -lr);
    return;
  }
  // v ← γv + ηd
  velocity_.mul_(gamma_).add_(d, lr);
  if (options_.nesterov) {
    // θ ← θ − (γv + ηd)
    theta.add_(velocity_, -gamma).add_(d, -lr);
  } else {
    // θ ← θ − v
    theta.sub_(velocity_);
  }
}

}  // namespace dsgd
