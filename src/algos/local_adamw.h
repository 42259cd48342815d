// AdamW over one flat parameter vector (Loshchilov & Hutter 2019, "Decoupled Weight Decay
// Regularization"): the inner optimizer of DiLoCo (Douillard et al. 2023) and of asynchronous
// local SGD (Liu et al. 2024), whose learners take Adam steps between averages. With step count
// t (1-based), rate η, gradient g, decay λ:
//   θ ← θ(1 − ηλ);  m ← β₁m + (1 − β₁)g;  v ← β₂v + (1 − β₂)g²
//   θ ← θ − η/(1 − β₁ᵗ) · m / (√v / √(1 − β₂ᵗ) + ε)
// in the order and form of torch.optim.AdamW (amsgrad off), so that the two agree to rounding
// (tests pin this down). m and v lie in one block [m | v], which an owner can place beside its
// other state so that averaging them is one collective.
#pragma once

#include <torch/torch.h>

#include <cstdint>

namespace dsgd {

struct AdamWOptions {
  double beta1 = 0.9;         // β₁
  double beta2 = 0.999;       // β₂
  double eps = 1e-8;          // ε
  double weight_decay = 0.0;  // λ, decoupled: θ ← θ(1 − ηλ)
};

class LocalAdamW {
 public:
  LocalAdamW(AdamWOptions options, const torch::Tensor& like);

  // Step t (1-based: the bias corrections' exponent) at learning rate η. `grad` is used as
  // scratch (it holds the denominator afterwards).
  void step(torch::Tensor& theta, torch::Tensor& grad, double lr, int64_t t);

  // [m | v], 2n values for n parameters.
  torch::Tensor& moments() { return moments_; }
  // Keeps [m | v] in `storage` (2n values, zeros) from now on.
  void keep_moments_in(const torch::Tensor& storage);
  const AdamWOptions& options() const { return options_; }

 private:
  AdamWOptions options_;
  torch::Tensor moments_;  // [m | v]
  torch::Tensor m_;        // views of it
  torch::Tensor v_;
};

}  // namespace dsgd
