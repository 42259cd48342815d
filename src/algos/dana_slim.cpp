// DANA-Slim: DANA with the momentum moved to the workers (Hakimi, Barkai, Gabel, Schuster
// 2019, "Taming Momentum in a Distributed Asynchronous Environment"). Each worker keeps its own
// momentum v_i and sends Bengio's form of the Nesterov step, m = γv_i + (g + λΘ); the server
// keeps only Θ and applies Θ ← Θ − ηm, so it costs no more server memory than plain ASGD. With
// constant η and λ = 0, Θ is exactly the look-ahead point DANA-Zero sends (θ − ηγΣ_j v_j), and
// with one worker it follows SGD with Nesterov momentum.
#include <memory>

#include "algos/async_algorithms.h"
#include "algos/async_util.h"

namespace dsgd {
namespace {

using async_internal::bytes_of;
using async_internal::check_message;
using async_internal::check_options;
using async_internal::check_setup;
using async_internal::ThetaServer;

class DanaSlimServer : public ThetaServer {
 public:
  // No γ or λ at the server: the workers fold both into their messages.
  using ThetaServer::ThetaServer;

  // m = message, η = lr, Θ = theta_. No weight decay here: the worker folded λΘ into m.
  void apply(int64_t worker, const torch::Tensor& message, double lr) override {
    check_call(worker, message);
    // Θ ← Θ − ηm
    theta_.add_(message, -lr);
  }

  int64_t state_bytes() const override { return bytes_of(theta_); }
  NamedTensors state() override { return {{"theta", theta_}}; }
};

class DanaSlimWorker : public AsyncWorkerRule {
 public:
  DanaSlimWorker(const AsyncOptions& options, const torch::Tensor& theta0)
      : momentum_(options.momentum),
        weight_decay_(options.weight_decay),
        v_(torch::zeros(theta0.sizes(), theta0.options())),
        message_(torch::empty_like(v_)) {}

  // g = gradient, Θ = received (the parameters g was computed at), γ = momentum_,
  // λ = weight_decay_, v_i = v_, m = message_.
  torch::Tensor message(const torch::Tensor& gradient, const torch::Tensor& received) override {
    check_message(gradient, v_);
    check_message(received, v_);
    // v_i ← γv_i + (g + λΘ)
    at::add_out(v_, gradient, v_, momentum_);
    if (weight_decay_ != 0.0) v_.add_(received, weight_decay_);
    // m = γv_i + (g + λΘ)   (with the updated v_i)
    at::add_out(message_, gradient, v_, momentum_);
    if (weight_decay_ != 0.0) message_.add_(received, weight_decay_);
    return message_;
  }

  // v_i plus the buffer the message is built in.
  int64_t state_bytes() const override { return bytes_of(v_) + bytes_of(message_); }
  // The message buffer is rebuilt on every call: only v_i needs checkpointing.
  NamedTensors state() override { return {{"v", v_}}; }

 private:
  double momentum_;
  double weight_decay_;
  torch::Tensor v_;        // v_i
  torch::Tensor message_;  // m
};

}  // namespace

AsyncAlgorithm dana_slim_algorithm() {
  return {"dana-slim",
          "DANA-Slim: momentum kept on the workers (Bengio-Nesterov); server keeps theta only",
          [](const AsyncOptions& options, const torch::Tensor& theta0,
             int64_t workers) -> std::unique_ptr<AsyncServerRule> {
            check_setup(options, theta0, workers);
            return std::make_unique<DanaSlimServer>(options, theta0, workers);
          },
          [](const AsyncOptions& options, int64_t /*worker*/,
             const torch::Tensor& theta0) -> std::unique_ptr<AsyncWorkerRule> {
            check_options(options);
            return std::make_unique<DanaSlimWorker>(options, theta0);
          }};
}

}  // namespace dsgd
