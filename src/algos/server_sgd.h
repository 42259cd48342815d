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

  // d = message, η = lr, γ = momentum_, θ = theta_, v = v_.
  void apply(int64_t worker, const torch::Tensor& message, double lr) override {
    check_call(worker, message);
    if constexpr (kMomentum == ServerMomentum::kNone) {
      // θ ← θ − ηd
      theta_.add_(message, -lr);
      return;
    }
    // v ← γv + ηd
    accumulate(v_, message, lr);
    if constexpr (kMomentum == ServerMomentum::kHeavyBall) {
      // θ ← θ − v
      theta_.sub_(v_);
    } else {
      // θ ← θ − (γv + ηd)
      theta_.add_(v_, -momentum_).add_(message, -lr);
    }
  }

  int64_t state_bytes() const override {
    return bytes_of(theta_) + (v_.defined() ? bytes_of(v_) : 0);
  }
  NamedTensors state() override {
    if (!v_.defined()) return {{"theta", theta_}};
    return {{"theta", theta_}, {"v", v_}};
  }

 private:
  torch::Tensor v_;  // v; undefined without momentum
};

}  // namespace async_internal
}  // namespace dsgd
