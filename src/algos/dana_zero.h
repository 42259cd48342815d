// The DANA-Zero server (dana_zero.cpp says what it is and why), shared with DANA-DC, which is
// DANA-Zero applied to delay-compensated messages. Private to src/algos/.
#pragma once

#include <torch/torch.h>

#include "algos/async_util.h"

namespace dsgd {
namespace async_internal {

class DanaZeroServer : public ThetaServer {
 public:
  DanaZeroServer(const AsyncOptions& options, const torch::Tensor& theta0, int64_t workers)
      : ThetaServer(options, theta0, workers),
        v_(theta_, workers),
        look_ahead_(copy_parameters(theta0)),
        step_(torch::empty_like(theta_)),
        lr_scalar_(torch::zeros({}, theta_.options())) {}

  // Θ = look_ahead_.
  void parameters_for(int64_t worker, torch::Tensor& out) override {
    check_worker(worker, workers_);
    // out = Θ = θ − γΣ_j v_j   (the look-ahead)
    out.copy_(look_ahead_);
  }

  // d = message, η = lr, γ = momentum_, θ = theta_, v_i = v_[i], Θ = look_ahead_.
  void apply(int64_t worker, const torch::Tensor& message, double lr) override {
    check_call(worker, message);
    torch::Tensor& v = v_[worker];
    // v_i ← γv_i + ηd
    accumulate(v, message, lr);
    // θ ← θ − v_i
    theta_.sub_(v);
    // Θ ← Θ − (ηd + γv_i), the step built as DANA-Slim's worker builds its message
    lr_scalar_.fill_(lr);
    at::mul_out(step_, message, lr_scalar_).add_(v, momentum_);
    look_ahead_.sub_(step_);
  }

  // θ, the buffers, Θ, and the scratch the step is built in.
  int64_t state_bytes() const override {
    return bytes_of(theta_) + bytes_of(v_.block) + bytes_of(look_ahead_) + bytes_of(step_);
  }
  // The step is rebuilt on every update: it needs no checkpoint.
  NamedTensors state() override {
    return {{"theta", theta_}, {"v", v_.block}, {"look_ahead", look_ahead_}};
  }

 protected:
  PerWorker v_;               // v_1..v_N as one [N, P] block
  torch::Tensor look_ahead_;  // Θ = θ − γΣ_j v_j
  torch::Tensor step_;        // ηd + γv_i, scratch
  torch::Tensor lr_scalar_;   // η as a 0-dim tensor (a double would allocate one per update)
};

}  // namespace async_internal
}  // namespace dsgd
