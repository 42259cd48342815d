// The DANA-Zero server (dana_zero.cpp says what it is and why), shared with DANA-DC, which is
// DANA-Zero applied to delay-compensated messages. Private to src/algos/.
#pragma once

#include <torch/torch.h>

#include <string>
#include <vector>

#include "algos/async_util.h"

namespace dsgd {
namespace async_internal {

// The DANA family's own keys: which point it evaluates, and the conventions (async_util.h).
std::vector<OptionSpec> dana_options();

class DanaZeroServer : public ThetaServer {
 public:
  DanaZeroServer(const AsyncOptions& options, const torch::Tensor& theta0, int64_t workers)
      : ThetaServer(options, theta0, workers),
        evaluate_theta_(options_.values.flag("dana.eval_theta")),
        v_(theta_, workers),
        look_ahead_(copy_parameters(theta0)),
        step_(torch::empty_like(theta_)),
        lr_scalar_(torch::zeros({}, theta_.options())) {
    if (!lr_in_velocity_) v_sum_ = torch::zeros_like(theta_);
  }

  // Θ = look_ahead_.
  void parameters_for(int64_t worker, torch::Tensor& out) override {
    check_worker(worker, workers_);
    // out = Θ   (the look-ahead)
    out.copy_(look_ahead_);
  }

  // d = message (+ λθ when decay_at_server), η = lr, γ = momentum_, θ = theta_, v_i = v_[i],
  // Θ = look_ahead_.
  void apply(int64_t worker, const torch::Tensor& message, double lr) override {
    check_call(worker, message);
    const torch::Tensor& d = decayed(message);
    torch::Tensor& v = v_[worker];
    if (!lr_in_velocity_) {
      apply_rate_outside(v, d, lr);
      return;
    }
    // v_i ← γv_i + ηd
    accumulate(v, d, lr);
    // θ ← θ − v_i
    theta_.sub_(v);
    // Θ ← Θ − (ηd + γv_i), the step built as DANA-Slim's worker builds its message
    lr_scalar_.fill_(lr);
    at::mul_out(step_, d, lr_scalar_).add_(v, momentum_);
    look_ahead_.sub_(step_);
  }

  // The DANA authors' simulator and DANA-Slim's server evaluate the look-ahead Θ, the parameters
  // every worker is sent (docs/design/algorithms.md, "The evaluation point"); dana.eval_theta: θ.
  const torch::Tensor& evaluated() const override { return evaluate_theta_ ? theta_ : look_ahead_; }
  std::string evaluated_name() const override { return evaluate_theta_ ? "theta" : "look-ahead"; }

  // θ, the buffers, Θ, the scratch the step is built in, and Σv (rate outside the velocity).
  int64_t state_bytes() const override {
    return bytes_of(theta_) + bytes_of(v_.block) + bytes_of(look_ahead_) + bytes_of(step_) +
           bytes_of(v_sum_) + decay_bytes();
  }
  // The step is rebuilt on every update: it needs no checkpoint.
  NamedTensors state() override {
    NamedTensors state = {{"theta", theta_}, {"v", v_.block}, {"look_ahead", look_ahead_}};
    if (v_sum_.defined()) state.emplace_back("v_sum", v_sum_);
    return state;
  }

 protected:
  // The DANA authors' form: v_i ← γv_i + d, θ ← θ − ηv_i, and the look-ahead with the current
  // rate on every buffer, Θ = θ − ηγΣ_j v_j. Not DANA-Slim's Θ under a changing rate.
  void apply_rate_outside(torch::Tensor& v, const torch::Tensor& d, double lr) {
    // Σv ← Σv − v_i;  v_i ← γv_i + d;  Σv ← Σv + v_i
    v_sum_.sub_(v);
    accumulate(v, d, lr);
    v_sum_.add_(v);
    // θ ← θ − ηv_i
    step_along(v, lr);
    // Θ = θ − ηγΣv
    at::add_out(look_ahead_, theta_, v_sum_, -lr * momentum_);
  }

  bool evaluate_theta_;       // dana.eval_theta
  PerWorker v_;               // v_1..v_N as one [N, P] block
  torch::Tensor look_ahead_;  // Θ = θ − γΣ_j v_j
  torch::Tensor step_;        // ηd + γv_i, scratch
  torch::Tensor lr_scalar_;   // η as a 0-dim tensor (a double would allocate one per update)
  torch::Tensor v_sum_;       // Σ_j v_j, with the rate outside the velocity only
};

}  // namespace async_internal
}  // namespace dsgd
