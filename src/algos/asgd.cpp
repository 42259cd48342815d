// ASGD: asynchronous SGD on a parameter server (the Hogwild!/Downpour baseline). Each worker
// computes a gradient at the parameters it was last sent; the server applies it as soon as it
// arrives, however stale, with plain SGD and no momentum. The server keeps θ only. It is the
// baseline of the DANA paper (Hakimi et al. 2019, "Taming Momentum in a Distributed
// Asynchronous Environment").
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

class AsgdServer : public AsyncServerRule {
 public:
  AsgdServer(const AsyncOptions& options, const torch::Tensor& theta0, int64_t workers)
      : weight_decay_(options.weight_decay), workers_(workers), theta_(copy_parameters(theta0)) {}

  void parameters_for(int64_t worker, double /*lr*/, torch::Tensor& out) override {
    check_worker(worker, workers_);
    out.copy_(theta_);
  }

  // g = message, η = lr, λ = weight_decay_, θ = theta_.
  void apply(int64_t worker, const torch::Tensor& message, double lr) override {
    check_worker(worker, workers_);
    check_message(message, theta_);
    // θ ← θ − η(g + λθ), as θ ← θ − ηλθ then θ ← θ − ηg (no buffer for d: the server keeps
    // θ only)
    if (weight_decay_ != 0.0) theta_.add_(theta_, -lr * weight_decay_);
    theta_.add_(message, -lr);
  }

  const torch::Tensor& center() const override { return theta_; }
  int64_t state_bytes() const override { return bytes_of(theta_); }
  NamedTensors state() override { return {{"theta", theta_}}; }

 private:
  double weight_decay_;
  int64_t workers_;
  torch::Tensor theta_;  // θ
};

}  // namespace

AsyncAlgorithm asgd_algorithm() {
  return {
      "asgd", "asynchronous SGD: the server applies each (stale) gradient as it arrives",
      [](const AsyncOptions& options, const torch::Tensor& theta0,
         int64_t workers) -> std::unique_ptr<AsyncServerRule> {
        check_setup(options, theta0, workers);
        return std::make_unique<AsgdServer>(options, theta0, workers);
      },
      [](const AsyncOptions&, int64_t, const torch::Tensor&) -> std::unique_ptr<AsyncWorkerRule> {
        return std::make_unique<GradientWorkerRule>();
      }};
}

}  // namespace dsgd
