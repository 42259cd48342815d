// The server runs SGD (server_sgd.cpp says which baselines these are): plain, heavy-ball or
// Nesterov momentum on one buffer shared by all workers. A header because DC-ASGD is the
// heavy-ball server fed delay-compensated messages. Private to src/algos/.
#pragma once

#include <torch/torch.h>

#include "algos/async_util.h"

namespace dsgd {
namespace async_internal {

enum class ServerMomentum { kNone, kHeavyBall, kNesterov };

template <ServerMomentum kMomentum>
class ServerSgd : public ThetaServer {
 public:
  ServerSgd(const AsyncOptions& options, const torch::Tensor& theta0, int64_t workers)
      : ThetaServer(options, theta0, workers),
        v_(kMomentum == ServerMomentum::kNone ? torch::Tensor() : torch::zeros_like(theta_)) {}

  // d = message (+ λθ when decay_at_server), η = lr, γ = momentum_, θ = theta_, v = v_.
  void apply(int64_t worker, const torch::Tensor& message, double lr) override {
    check_call(worker, message);
    const torch::Tensor& d = decayed(message);
    if constexpr (kMomentum == ServerMomentum::kNone) {
      // θ ← θ − ηd
      theta_.add_(d, -lr);
      return;
    }
    // v ← γv + ηd   (lr_in_velocity = false: v ← γv + d)
    accumulate(v_, d, lr);
    if constexpr (kMomentum == ServerMomentum::kHeavyBall) {
      // θ ← θ − v   (θ ← θ − ηv)
      step_along(v_, lr);
    } else if (lr_in_velocity_) {
      // θ ← θ − (γv + ηd)
      theta_.add_(v_, -momentum_).add_(d, -lr);
    } else {
      // θ ← θ − η(d + γv), as PyTorch's nesterov step
      at::add_out(nesterov_, d, v_, momentum_);
      theta_.add_(nesterov_, -lr);
    }
  }

  int64_t state_bytes() const override {
    return bytes_of(theta_) + bytes_of(v_) + bytes_of(nesterov_) + decay_bytes();
  }
  NamedTensors state() override {
    if (!v_.defined()) return {{"theta", theta_}};
    return {{"theta", theta_}, {"v", v_}};
  }

 private:
  torch::Tensor v_;  // v; undefined without momentum
  // d + γv, scratch of Nesterov's step with the rate outside the velocity
  torch::Tensor nesterov_ = kMomentum == ServerMomentum::kNesterov && !lr_in_velocity_
                                ? torch::empty_like(theta_)
                                : torch::Tensor();
};

}  // namespace async_internal
}  // namespace dsgd
