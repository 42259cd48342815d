// ASGD-M: asynchronous SGD with heavy-ball momentum at the parameter server. The server keeps
// θ and one momentum buffer v that every worker's (stale) gradient flows into, as an SGD
// optimizer on the server would; with one worker it is SGD with momentum. It is the
// "ASGD with momentum" baseline of the DANA paper (Hakimi et al. 2019, "Taming Momentum in a
// Distributed Asynchronous Environment").
#include <memory>

#include "algos/async_algorithms.h"
#include "algos/async_util.h"

namespace dsgd {
namespace {

using async_internal::bytes_of;
using async_internal::gradient_algorithm;
using async_internal::ThetaServer;

class AsgdMomentumServer : public ThetaServer {
 public:
  AsgdMomentumServer(const AsyncOptions& options, const torch::Tensor& theta0, int64_t workers)
      : ThetaServer(options, theta0, workers), v_(torch::zeros_like(theta_)) {}

  // d = message, η = lr, γ = momentum_, θ = theta_, v = v_.
  void apply(int64_t worker, const torch::Tensor& message, double lr) override {
    check_call(worker, message);
    // v ← γv + ηd
    accumulate(v_, message, lr);
    // θ ← θ − v
    theta_.sub_(v_);
  }

  int64_t state_bytes() const override { return bytes_of(theta_) + bytes_of(v_); }
  NamedTensors state() override { return {{"theta", theta_}, {"v", v_}}; }

 private:
  torch::Tensor v_;  // v
};

}  // namespace

AsyncAlgorithm asgd_momentum_algorithm() {
  return gradient_algorithm<AsgdMomentumServer>(
      "asgd-m", "ASGD with one heavy-ball momentum buffer at the server");
}

}  // namespace dsgd
