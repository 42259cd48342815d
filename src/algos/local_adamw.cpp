// Flat-tensor AdamW; see local_adamw.h.
#include "algos/local_adamw.h"

#include <cmath>

#include "core/errors.h"

namespace dsgd {

LocalAdamW::LocalAdamW(AdamWOptions options, const torch::Tensor& like) : options_(options) {
  keep_moments_in(torch::zeros({2 * like.numel()}, like.options()));
}

void LocalAdamW::keep_moments_in(const torch::Tensor& storage) {
  moments_ = storage;
  const int64_t n = storage.numel() / 2;
  m_ = moments_.narrow(0, 0, n);
  v_ = moments_.narrow(0, n, n);
}

void LocalAdamW::step(torch::Tensor& theta, torch::Tensor& grad, double lr, int64_t t) {
  if (t < 1) throw Error("LocalAdamW::step: the step count t starts at 1");
  torch::NoGradGuard no_grad;
  const AdamWOptions& o = options_;
  // θ ← θ(1 − ηλ)
  if (o.weight_decay != 0.0) theta.mul_(1.0 - lr * o.weight_decay);
  // m ← β₁m + (1 − β₁)g;  v ← β₂v + (1 − β₂)g²
  m_.mul_(o.beta1).add_(grad, 1.0 - o.beta1);
  v_.mul_(o.beta2).addcmul_(grad, grad, 1.0 - o.beta2);
  const double correction1 = 1.0 - std::pow(o.beta1, static_cast<double>(t));
  const double correction2 = 1.0 - std::pow(o.beta2, static_cast<double>(t));
  // denominator √v / √(1 − β₂ᵗ) + ε, in grad's storage
  torch::Tensor& denominator = grad;
  at::sqrt_out(denominator, v_).div_(std::sqrt(correction2)).add_(o.eps);
  // θ ← θ − η/(1 − β₁ᵗ) · m / denominator
  theta.addcdiv_(m_, denominator, -lr / correction1);
}

}  // namespace dsgd
