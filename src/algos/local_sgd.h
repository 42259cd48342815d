// SGD with momentum, Nesterov and weight decay over one flat parameter vector: the optimizer of
// single-worker training and of every synchronous learner. By default the learning rate sits
// inside the velocity, as in every dsgd rule (algos/async_rule.h, docs/design/algorithms.md):
//   d = g + λθ,  v ← γv + ηd,  θ ← θ − v   (Nesterov: θ ← θ − (γv + ηd)).
// At constant η this is torch::optim::SGD with dampening 0 (its buffer is v/η; tests pin this
// down); when η changes, the velocity keeps the steps it was built from instead of rescaling
// them. With lr_in_velocity = false it is torch's form, v ← γv + d, θ ← θ − ηv (Nesterov:
// θ ← θ − η(d + γv)), under any schedule. It costs a few fused passes over one tensor instead of a
// loop over every parameter.
#pragma once

#include <torch/torch.h>

namespace dsgd {

struct SgdOptions {
  double momentum = 0.0;  // γ
  bool nesterov = false;
  double weight_decay = 0.0;   // λ
  bool lr_in_velocity = true;  // false: torch's form, the rate outside the velocity
};

class LocalSgd {
 public:
  LocalSgd(SgdOptions options, const torch::Tensor& like);

  // One step at learning rate η. `grad` is used as scratch (it holds d afterwards).
  void step(torch::Tensor& theta, torch::Tensor& grad, double lr);

  // v: the momentum buffer (undefined when γ = 0). Exposed for averaging and checkpoints.
  torch::Tensor& momentum_buffer() { return velocity_; }
  // Keeps v in `storage` (shaped like θ, zeros) from now on, so that an owner can lay it out
  // next to other state; ignored when γ = 0.
  void keep_velocity_in(const torch::Tensor& storage) {
    if (velocity_.defined()) velocity_ = storage;
  }
  const SgdOptions& options() const { return options_; }

 private:
  SgdOptions options_;
  torch::Tensor velocity_;
  // γ as a 0-dim tensor: Tensor::mul_(double) would allocate one on every step.
  torch::Tensor gamma_;
};

}  // namespace dsgd
