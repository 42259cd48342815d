// NAG-ASGD: asynchronous SGD with Nesterov momentum at the parameter server. Like ASGD-M the
// server keeps θ and one momentum buffer v shared by all workers, but it steps along γv + ηd
// (PyTorch's nesterov=True step, with η inside v); with one worker it is SGD with Nesterov
// momentum. The baseline as defined in the DANA paper (Hakimi et al. 2019, "Taming Momentum in a
// Distributed Asynchronous Environment").
#include <memory>

#include "algos/async_algorithms.h"
#include "algos/async_util.h"

namespace dsgd {
namespace {

using async_internal::bytes_of;
using async_internal::gradient_algorithm;
using async_internal::ThetaServer;

class NagAsgdServer : public ThetaServer {
 public:
  NagAsgdServer(const AsyncOptions& options, const torch::Tensor& theta0, int64_t workers)
      : ThetaServer(options, theta0, workers), v_(torch::zeros_like(theta_)) {}

  // d = message, η = lr, γ = momentum_, θ = theta_, v = v_.
  void apply(int64_t worker, const torch::Tensor& message, double lr) override {
    check_call(worker, message);
    // v ← γv + ηd
    accumulate(v_, message, lr);
    // θ ← θ − (γv + ηd)
    theta_.add_(v_, -momentum_).add_(message, -lr);
  }

  int64_t state_bytes() const override { return bytes_of(theta_) + bytes_of(v_); }
  NamedTensors state() override { return {{"theta", theta_}, {"v", v_}}; }

 private:
  torch::Tensor v_;  // v
};

}  // namespace

AsyncAlgorithm nag_asgd_algorithm() {
  return gradient_algorithm<NagAsgdServer>("nag-asgd", "ASGD with Nesterov momentum at the server");
}

}  // namespace dsgd
