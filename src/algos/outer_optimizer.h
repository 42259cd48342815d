// The outer optimizer of SlowMo (Wang, Tantia, Ballas, Rabbat, ICLR 2020, arXiv 1910.00643) and
// DiLoCo (Douillard et al. 2023, arXiv 2311.08105) at the global average of local SGD (kavg,
// hier-avg). The learners' mean after a round of local steps is not taken as the new model;
// its distance from the model the round started from is a pseudo-gradient
//   Δ = θ_anchor − mean_i(θ_i),
// and an SGD step with outer learning rate α and outer momentum β takes the anchor on:
//   u ← βu + Δ,   θ ← θ_anchor − α·u          (heavy ball: SlowMo)
//   u ← βu + Δ,   θ ← θ_anchor − α·(βu + Δ)   (Nesterov: DiLoCo's outer optimizer, α = 0.7,
//                                              β = 0.9 there, PyTorch's SGD step)
// and θ becomes the next anchor on every learner. α = 1, β = 0 is plain averaging (θ = mean):
// learners then hold no outer optimizer at all, so the mean is kept bit for bit. Δ keeps the inner
// learning rate inside it, as dsgd's velocities do (docs/design.md). With lr_in_velocity = false
// the buffer is SlowMo's (fairscale's), in units of the inner rate η_t of the round's last step:
//   u ← βu + Δ/η_t,   θ ← θ_anchor − α·η_t·u   (Nesterov: along βu + Δ/η_t),
// the same at a constant rate. DiLoCo's outer step (OpenDiLoCo: PyTorch's SGD on Δ) is the default
// form with outer.nesterov. Only parameters take the outer step; BatchNorm buffers and local
// momentum are averaged as before. fairscale, used as its tutorial shows, anchors the first round
// at the parameters after the first local step; dsgd, like fairscale's own test, at θ0.
#pragma once

#include <torch/torch.h>

#include <vector>

#include "algos/options.h"

namespace dsgd {

struct OuterOptions {
  double lr = 1.0;        // α
  double momentum = 0.0;  // β
  bool nesterov = false;
  bool lr_in_velocity = true;  // false: SlowMo's buffer, in units of the inner rate
  // α = 1, β = 0: the mean itself, no outer state.
  bool plain() const { return lr == 1.0 && momentum == 0.0; }
};

// The keys outer.lr (default `lr`), outer.momentum (default `momentum`) and, when `with_nesterov`,
// outer.nesterov: the outer optimizer over pseudo-gradients, synchronous (kavg, hier-avg: the
// learners' mean displacement) or asynchronous (async_local.h: each worker's).
std::vector<OptionSpec> outer_optimizer_keys(double lr, double momentum, bool with_nesterov);
// `own` followed by the outer keys at plain averaging's defaults (α = 1, β = 0), Nesterov
// available (kavg and hier-avg declare them so).
std::vector<OptionSpec> with_outer_optimizer(std::vector<OptionSpec> own);
OuterOptions outer_options(const OptionValues& values);

class OuterOptimizer {
 public:
  // The first anchor is the learners' common starting point.
  OuterOptimizer(const OuterOptions& options, const torch::Tensor& params0);

  // `params` holds the learners' mean on entry and the outer step's result on return, which is
  // also the next anchor; `inner_lr` is the rate of the round's last local step.
  void step(torch::Tensor& params, double inner_lr);

  torch::Tensor& anchor() { return anchor_; }
  torch::Tensor& momentum_buffer() { return momentum_; }  // undefined when β = 0

 private:
  OuterOptions options_;
  torch::Tensor anchor_;    // θ_anchor
  torch::Tensor momentum_;  // u
  torch::Tensor delta_;     // Δ, scratch
};

}  // namespace dsgd
