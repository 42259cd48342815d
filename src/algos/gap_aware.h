// Gap-Aware (Barkai, Hakimi, Schuster, ICLR 2020, "Gap-Aware Mitigation of Gradient Staleness",
// arXiv 1909.10802), shared by ga-asgd and dana-ga. A message computed at θ̂_i is applied at θ,
// and the gap G = |θ − θ̂_i| (per coordinate) says how far the parameters moved since; Gap-Aware
// divides the message, per coordinate, by the penalty
//   C = 1 + G / A,   A = η_max·(sqrt(r̂) + ε),
// where r is the running mean of the squared per-update step of θ measured in units of its rate,
//   r ← β·r + (1 − β)·((θ_before − θ_after)/η)²,   r̂ = r / (1 − β^(t+1))   (t = updates so far),
// and η_max the largest rate so far (the current message's included). So a coordinate that moved
// k typical steps since the gradient was taken is damped by 1 + k, and a fresh gradient (G = 0)
// passes unchanged. This is exactly the authors' group's implementation (FTPipe's SGD Gap-Aware,
// Eliad, Hakimi, De Jagger, Silberstein, Schuster 2021; tests/test_golden.cpp reproduces it):
// there r is the running mean of the squared momentum buffer, which with the rate outside the
// velocity (lr_in_velocity = false, PyTorch's SGD) is the step over its rate; its count starts
// with the zero buffer before the first step, hence β^(t+1); and ε and the typical step are
// scaled by the largest rate so far. The paper's server runs SGD with momentum, here ASGD-M's
// server (ga-asgd).
//
// G here is the gap the server's telemetry measures (θ at apply − θ̂_i, with θ the server's actual
// parameters, not a look-ahead it may send), so `gap_rms` in metrics.csv is the RMS of the same
// quantity. With DANA (dana-ga) θ̂_i is the look-ahead the worker was sent; the one-worker gap is
// then the look-ahead itself, and the penalty is not 1 there. FTPipe has no DANA server, so
// dana-ga has no golden reference.
// Private to src/algos/.
#pragma once

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "algos/async_rule.h"
#include "algos/async_util.h"

namespace dsgd {

// The keys ga.beta and ga.epsilon, declared by every Gap-Aware rule.
std::vector<OptionSpec> gap_aware_options();

template <class Server>
class GapAware : public async_internal::CorrectedMessages<Server> {
  using Base = async_internal::CorrectedMessages<Server>;

 public:
  using Base::Base;

  int64_t state_bytes() const override {
    return Base::state_bytes() + async_internal::bytes_of(step_sq_) +
           async_internal::bytes_of(before_) + async_internal::bytes_of(updates_) +
           async_internal::bytes_of(max_lr_);
  }
  // θ before the step is rebuilt on every update: it needs no checkpoint.
  NamedTensors state() override {
    NamedTensors state = Base::state();
    state.emplace_back("ga_step_sq", step_sq_);
    state.emplace_back("ga_updates", updates_);
    state.emplace_back("ga_max_lr", max_lr_);
    return state;
  }

 private:
  // d = message, η = lr, d' = out, θ = theta_, θ̂_i = sent_[i] (scratch once read), r = step_sq_,
  // t = updates_.
  void correct(int64_t worker, const torch::Tensor& message, double lr,
               torch::Tensor& out) override {
    torch::Tensor& theta = this->theta_;
    torch::Tensor& penalty = this->sent_[worker];
    // η_max ← max(η_max, η)
    double& max_lr = *max_lr_.data_ptr<double>();
    max_lr = std::max(max_lr, lr);
    // A = η_max·(sqrt(r / (1 − β^(t+1))) + ε)
    const int64_t updates = *updates_.data_ptr<int64_t>();
    correction_.fill_(1.0 / (1.0 - std::pow(beta_, static_cast<double>(updates + 1))));
    max_lr_scalar_.fill_(max_lr);
    at::mul_out(before_, step_sq_, correction_).sqrt_().add_(epsilon_).mul_(max_lr_scalar_);
    // C = 1 + |θ − θ̂_i| / A   (θ̂_i's row becomes C)
    at::sub_out(penalty, theta, penalty).abs_().div_(before_).add_(one_);
    // d' = d / C
    at::div_out(out, message, penalty);
    before_.copy_(theta);
  }

  void applied(double lr) override {
    // r ← β·r + (1 − β)·((θ_before − θ)/η)²;  t ← t + 1. A step at rate 0 (a cosine schedule's
    // end) has no size in units of its rate: it counts as a zero sample.
    step_sq_.mul_(beta_scalar_);
    if (lr > 0.0) {
      max_lr_scalar_.fill_(lr);  // η, now that the penalty no longer needs η_max
      before_.sub_(this->theta_).div_(max_lr_scalar_);
      step_sq_.addcmul_(before_, before_, 1.0 - beta_);
    }
    ++*updates_.data_ptr<int64_t>();
  }

  double beta_ = this->options_.values.number("ga.beta");
  // β, ε, 1, η_max and the bias correction as 0-dim tensors: a double operand would allocate a
  // tensor on every update.
  torch::Tensor beta_scalar_ = torch::full({}, beta_, this->theta_.options());
  torch::Tensor epsilon_ =
      torch::full({}, this->options_.values.number("ga.epsilon"), this->theta_.options());
  torch::Tensor one_ = torch::ones({}, this->theta_.options());
  torch::Tensor correction_ = torch::zeros({}, this->theta_.options());
  torch::Tensor max_lr_scalar_ = torch::zeros({}, this->theta_.options());  // η_max, then η
  torch::Tensor step_sq_ = torch::zeros_like(this->theta_);                 // r
  torch::Tensor before_ = torch::empty_like(this->theta_);  // θ before the step, scratch
  // t and η_max, on the CPU whatever θ's device: checkpoint entries like any other state.
  torch::Tensor updates_ = torch::zeros({}, torch::kLong);
  torch::Tensor max_lr_ = torch::zeros({}, torch::kDouble);
};

}  // namespace dsgd
