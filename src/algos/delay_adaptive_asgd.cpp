// Delay-adaptive ASGD: asynchronous SGD whose step shrinks with the staleness of the gradient it
// applies, η_t = η·min(1, τ_C/τ_t), where τ_t counts the server updates between sending the worker
// its parameters and applying its message (Mishchenko, Bach, Even, Woodworth 2022, "Asynchronous
// SGD Beats Minibatch SGD Under Arbitrary Delays"; Koloskova, Stich, Jaggi 2022, "Sharper
// Convergence Guarantees for Asynchronous SGD for Distributed and Federated Learning"). Fresh
// gradients take the full step; a gradient far older than τ_C moves θ proportionally less, so a
// rare straggler cannot throw the model back. τ_C = da.tau_c, by default N: with N workers at
// equal speed every message is about N − 1 updates old, so only delays beyond the typical one are
// damped. The server counts updates itself, so the rule needs nothing from the engine.
#include <algorithm>
#include <memory>

#include "algos/async_algorithms.h"
#include "algos/async_util.h"

namespace dsgd {
namespace {

using namespace async_internal;  // NOLINT(build/namespaces): the helpers of async_util.h

class DelayAdaptiveAsgdServer : public ThetaServer {
 public:
  using ThetaServer::ThetaServer;

  // t = the server's update count, s_i = when worker i was sent θ.
  void parameters_for(int64_t worker, torch::Tensor& out) override {
    check_worker(worker, workers_);
    // out = θ;  s_i ← t
    out.copy_(theta_);
    int64_t* counts = counters_.data_ptr<int64_t>();
    counts[worker] = counts[workers_];
  }

  // d = message, η = lr, θ = theta_, τ_C = tau_c_.
  void apply(int64_t worker, const torch::Tensor& message, double lr) override {
    check_call(worker, message);
    int64_t* counts = counters_.data_ptr<int64_t>();
    // τ = t − s_i
    const double tau = static_cast<double>(counts[workers_] - counts[worker]);
    // θ ← θ − η·min(1, τ_C/τ)·d   (τ = 0 takes the full step)
    const double scale = tau <= tau_c_ ? 1.0 : tau_c_ / tau;
    theta_.add_(message, -lr * scale);
    // t ← t + 1
    ++counts[workers_];
  }

  int64_t state_bytes() const override { return bytes_of(theta_) + bytes_of(counters_); }
  NamedTensors state() override { return {{"theta", theta_}, {"counters", counters_}}; }

 private:
  // τ_C; 0 means N.
  double tau_c_ = options_.values.number("da.tau_c") > 0.0 ? options_.values.number("da.tau_c")
                                                           : static_cast<double>(workers_);
  // s_1..s_N and t: [sent_at_0 .. sent_at_{N−1}, updates], on the CPU whatever θ's device, a
  // checkpoint entry like any other state.
  torch::Tensor counters_ = torch::zeros({workers_ + 1}, torch::kLong);
};

}  // namespace

AsyncAlgorithm delay_adaptive_asgd_algorithm() {
  return gradient_algorithm<DelayAdaptiveAsgdServer>(
      "asgd-da",
      "delay-adaptive ASGD: step eta*min(1, tau_c/tau) for a gradient tau updates stale "
      "(Mishchenko et al. 2022)",
      {number_option("da.tau_c", 0.0,
                     "delay threshold τ_C of asgd-da: a message τ > τ_C updates stale takes the "
                     "step η·τ_C/τ (0: τ_C = N workers)",
                     0.0)});
}

}  // namespace dsgd
