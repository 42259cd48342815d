// ASGD-M: asynchronous SGD with heavy-ball momentum at the parameter server. The server keeps
// θ and one momentum buffer v that every worker's (stale) gradient flows into, exactly as a
// PyTorch SGD optimizer on the server would; with one worker it is SGD with momentum. It is the
// "ASGD with momentum" baseline of the DANA paper (Hakimi et al. 2019, "Taming Momentum in a
// Distributed Asynchronous Environment").
#include <memory>

#include "algos/async_algorithms.h"
#include "algos/async_util.h"

namespace dsgd {
namespace {

using async_internal::bytes_of;
using async_internal::check_message;
using async_internal::check_setup;
using async_internal::check_worker;
using async_internal::copy_parameters;

class AsgdMomentumServer : public AsyncServerRule {
 public:
  AsgdMomentumServer(const AsyncOptions& options, const torch::Tensor& theta0, int64_t workers)
      : momentum_(options.momentum),
        weight_decay_(options.weight_decay),
        workers_(workers),
        theta_(copy_parameters(theta0)),
        v_(torch::zeros_like(theta_)) {}

  void parameters_for(int64_t worker, double /*lr*/, torch::Tensor& out) override {
    check_worker(worker, workers_);
    out.copy_(theta_);
  }

  // g = message, η = lr, γ = momentum_, λ = weight_decay_, θ = theta_, v = v_.
  void apply(int64_t worker, const torch::Tensor& message, double lr) override {
    check_worker(worker, workers_);
    check_message(message, theta_);
    // v ← γv + d,  d = g + λθ
    at::add_out(v_, message, v_, momentum_);
    if (weight_decay_ != 0.0) v_.add_(theta_, weight_decay_);
    // θ ← θ − ηv
    theta_.add_(v_, -lr);
  }

  const torch::Tensor& center() const override { return theta_; }
  int64_t state_bytes() const override { return bytes_of(theta_) + bytes_of(v_); }
  NamedTensors state() override { return {{"theta", theta_}, {"v", v_}}; }

 private:
  double momentum_;
  double weight_decay_;
  int64_t workers_;
  torch::Tensor theta_;  // θ
  torch::Tensor v_;      // v
};

}  // namespace

AsyncAlgorithm asgd_momentum_algorithm() {
  return {
      "asgd-m", "ASGD with one heavy-ball momentum buffer at the server",
      [](const AsyncOptions& options, const torch::Tensor& theta0,
         int64_t workers) -> std::unique_ptr<AsyncServerRule> {
        check_setup(options, theta0, workers);
        return std::make_unique<AsgdMomentumServer>(options, theta0, workers);
      },
      [](const AsyncOptions&, int64_t, const torch::Tensor&) -> std::unique_ptr<AsyncWorkerRule> {
        return std::make_unique<GradientWorkerRule>();
      }};
}

}  // namespace dsgd
