// Gap-Aware (Barkai, Hakimi, Schuster, ICLR 2020, "Gap-Aware Mitigation of Gradient Staleness",
// arXiv 1909.10802), shared by ga-asgd and dana-ga. A message computed at θ̂_i is applied at θ,
// and the gap G = |θ − θ̂_i| (per coordinate) says how far the parameters moved since; Gap-Aware
// divides the message, per coordinate, by the penalty
//   C = 1 + G / (sqrt(r̂) + ε),
// where r̂ is the bias-corrected running mean of the squared per-update step of θ,
//   r ← β·r + (1 − β)·(θ_before − θ_after)²,  r̂ = r / (1 − β^t)  (t = updates so far),
// so a coordinate that moved k typical steps since the gradient was taken is damped by 1 + k, and
// a fresh gradient (G = 0) passes unchanged. The form 1 + G/step, β = 0.999 and ε = 1e-8 are those
// of the authors' group's implementation (FTPipe's SGD Gap-Aware, Eliad, Hakimi, De Jagger,
// Silberstein, Schuster 2021); the paper's server runs SGD with momentum, here ASGD-M's server
// (ga-asgd). The step is what θ actually moved, with η inside it (dsgd's momentum convention), so
// under a changing schedule the typical step follows the rate, where FTPipe scales by the largest
// rate so far.
//
// G here is the gap the server's telemetry measures (θ at apply − θ̂_i, with θ the server's actual
// parameters, not a look-ahead it may send), so `gap_rms` in metrics.csv is the RMS of the same
// quantity. With DANA (dana-ga) θ̂_i is the look-ahead the worker was sent; the one-worker gap is
// then γv, the look-ahead itself, and the penalty is not 1 there.
// Private to src/algos/.
#pragma once

#include <torch/torch.h>

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
           async_internal::bytes_of(before_) + async_internal::bytes_of(updates_);
  }
  // θ before the step is rebuilt on every update: it needs no checkpoint.
  NamedTensors state() override {
    NamedTensors state = Base::state();
    state.emplace_back("ga_step_sq", step_sq_);
    state.emplace_back("ga_updates", updates_);
    return state;
  }

 private:
  // d = message, d' = out, θ = theta_, θ̂_i = sent_[i] (scratch once read), r = step_sq_,
  // t = updates_.
  void correct(int64_t worker, const torch::Tensor& message, torch::Tensor& out) override {
    torch::Tensor& theta = this->theta_;
    torch::Tensor& penalty = this->sent_[worker];
    // typical = sqrt(r / (1 − β^t)) + ε   (r̂ = 0 before the first update)
    const int64_t updates = *updates_.data_ptr<int64_t>();
    const double correction =
        updates == 0 ? 0.0 : 1.0 / (1.0 - std::pow(beta_, static_cast<double>(updates)));
    correction_.fill_(correction);
    at::mul_out(before_, step_sq_, correction_).sqrt_().add_(epsilon_);
    // C = 1 + |θ − θ̂_i| / typical   (θ̂_i's row becomes C)
    at::sub_out(penalty, theta, penalty).abs_().div_(before_).add_(one_);
    // d' = d / C
    at::div_out(out, message, penalty);
    before_.copy_(theta);
  }

  void applied() override {
    // r ← β·r + (1 − β)·(θ_before − θ)²;  t ← t + 1
    before_.sub_(this->theta_);
    step_sq_.mul_(beta_scalar_).addcmul_(before_, before_, 1.0 - beta_);
    ++*updates_.data_ptr<int64_t>();
  }

  double beta_ = this->options_.values.number("ga.beta");
  // β, ε, 1 and the bias correction as 0-dim tensors: a double operand would allocate a tensor on
  // every update.
  torch::Tensor beta_scalar_ = torch::full({}, beta_, this->theta_.options());
  torch::Tensor epsilon_ =
      torch::full({}, this->options_.values.number("ga.epsilon"), this->theta_.options());
  torch::Tensor one_ = torch::ones({}, this->theta_.options());
  torch::Tensor correction_ = torch::zeros({}, this->theta_.options());
  torch::Tensor step_sq_ = torch::zeros_like(this->theta_);  // r
  torch::Tensor before_ = torch::empty_like(this->theta_);   // θ before the step, scratch
  // t, on the CPU whatever θ's device: a checkpoint entry like any other state.
  torch::Tensor updates_ = torch::zeros({}, torch::kLong);
};

}  // namespace dsgd
