// The outer optimizer; see outer_optimizer.h.
#include "algos/outer_optimizer.h"

namespace dsgd {

std::vector<OptionSpec> outer_optimizer_keys(double lr, double momentum, bool with_nesterov) {
  OptionSpec rate = number_option(
      "outer.lr", lr,
      "outer learning rate alpha of the step along the pseudo-gradient, the displacement of a "
      "local run (SlowMo, DiLoCo); 1 with outer.momentum = 0 is plain averaging",
      0.0);
  rate.low_open = true;
  std::vector<OptionSpec> keys = {
      rate,
      number_option("outer.momentum", momentum,
                    "outer momentum beta over pseudo-gradients (SlowMo: 0.5-0.8, DiLoCo: 0.9)", 0.0,
                    1.0)};
  if (with_nesterov) {
    keys.push_back(
        boolean_option("outer.nesterov", false,
                       "Nesterov outer momentum (DiLoCo) instead of heavy ball (SlowMo)"));
  }
  return keys;
}

std::vector<OptionSpec> with_outer_optimizer(std::vector<OptionSpec> own) {
  for (OptionSpec& key : outer_optimizer_keys(1.0, 0.0, true)) own.push_back(std::move(key));
  return own;
}

OuterOptions outer_options(const OptionValues& values) {
  return {values.number("outer.lr"), values.number("outer.momentum"),
          values.flag("outer.nesterov")};
}

OuterOptimizer::OuterOptimizer(const OuterOptions& options, const torch::Tensor& params0)
    : options_(options),
      anchor_(params0.detach().clone().reshape({-1})),
      delta_(torch::empty_like(anchor_)) {
  if (options_.momentum > 0.0) momentum_ = torch::zeros_like(anchor_);
}

void OuterOptimizer::step(torch::Tensor& params, double inner_lr) {
  torch::NoGradGuard no_grad;
  // Δ = θ_anchor − mean   (SlowMo's form: Δ/η_t, and the step's rate α·η_t)
  at::sub_out(delta_, anchor_, params);
  double rate = options_.lr;
  if (!options_.lr_in_velocity) {
    // A round whose last step had rate 0 (a cosine schedule's end) has no size in units of it:
    // it leaves the buffer and the anchor as they are.
    if (!(inner_lr > 0.0)) {
      params.copy_(anchor_);
      return;
    }
    delta_.div_(inner_lr);
    rate *= inner_lr;
  }
  const torch::Tensor* direction = &delta_;
  if (momentum_.defined()) {
    // u ← βu + Δ; heavy ball steps along u, Nesterov along βu + Δ.
    momentum_.mul_(options_.momentum).add_(delta_);
    if (options_.nesterov) {
      delta_.add_(momentum_, options_.momentum);
    } else {
      direction = &momentum_;
    }
  }
  // θ ← θ_anchor − α·direction, the next anchor
  params.copy_(anchor_).add_(*direction, -rate);
  anchor_.copy_(params);
}

}  // namespace dsgd
