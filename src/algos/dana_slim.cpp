// DANA-Slim: DANA with the momentum moved to the workers (Hakimi, Barkai, Gabel, Schuster
// 2019, "Taming Momentum in a Distributed Asynchronous Environment"). Each worker keeps its own
// momentum v_i and sends Bengio's form of the Nesterov step, m = γv_i + ηd with d = g + λΘ̂_i;
// the server keeps only Θ and applies Θ ← Θ − m, so it costs no more server memory than plain
// ASGD. Θ is exactly the look-ahead DANA-Zero sends, θ − γΣ_j v_j, under any schedule and any
// weight decay: with η inside the velocity (async_rule.h), DANA-Zero's look-ahead moves by
//   Θ' − Θ = −v_i' − γ(v_i' − v_i) = −(γv_i' + ηd),   v_i' = γv_i + ηd,
// which is m. DANA-Zero keeps its look-ahead with the same operations (dana_zero.cpp), so the two
// send bit-identical parameters. With one worker it follows SGD with Nesterov momentum.
#include <memory>

#include "algos/async_algorithms.h"
#include "algos/async_util.h"

namespace dsgd {
namespace {

using namespace async_internal;  // NOLINT(build/namespaces): the helpers of async_util.h

class DanaSlimServer : public ThetaServer {
 public:
  // No γ, η or λ at the server: the workers fold them into their messages.
  DanaSlimServer(const AsyncOptions& options, const torch::Tensor& theta0, int64_t workers)
      : ThetaServer(options, theta0, workers) {
    require_lr_in_velocity(options, "dana-slim",
                           "its server keeps the look-ahead by the workers' steps, which are "
                           "DANA-Zero's only with the rate inside the velocities; dana-zero "
                           "follows the DANA authors' form");
  }

  // m = message, Θ = theta_.
  void apply(int64_t worker, const torch::Tensor& message, double /*lr*/) override {
    check_call(worker, message);
    // Θ ← Θ − m
    theta_.sub_(message);
  }

  // Θ is all the server holds, and what the rest of the DANA family evaluates too.
  std::string evaluated_name() const override { return "look-ahead"; }
  int64_t state_bytes() const override { return bytes_of(theta_); }
  NamedTensors state() override { return {{"theta", theta_}}; }
};

class DanaSlimWorker : public AsyncWorkerRule {
 public:
  DanaSlimWorker(const AsyncOptions& options, const torch::Tensor& theta0)
      : momentum_(options.momentum),
        weight_decay_(options.weight_decay),
        v_(torch::zeros(theta0.sizes(), theta0.options())),
        message_(torch::empty_like(v_)),
        momentum_scalar_(torch::full({}, options.momentum, v_.options())),
        lr_scalar_(torch::zeros({}, v_.options())) {}

  // g = gradient, Θ̂_i = received (the parameters g was computed at), η = lr, γ = momentum_,
  // λ = weight_decay_, v_i = v_, m = message_.
  torch::Tensor message(const torch::Tensor& gradient, const torch::Tensor& received,
                        double lr) override {
    check_message(gradient, v_);
    check_message(received, v_);
    // m ← d = g + λΘ̂_i   (m holds d until the last step)
    at::add_out(message_, gradient, received, weight_decay_);
    // v_i ← γv_i + ηd   (γ and η multiply as 0-dim tensors: a double would allocate one)
    v_.mul_(momentum_scalar_).add_(message_, lr);
    // m = γv_i + ηd   (with the updated v_i)
    lr_scalar_.fill_(lr);
    message_.mul_(lr_scalar_).add_(v_, momentum_);
    return message_;
  }

  // v_i plus the buffer the message is built in.
  int64_t state_bytes() const override { return bytes_of(v_) + bytes_of(message_); }
  // The message buffer is rebuilt on every call: only v_i needs checkpointing.
  NamedTensors state() override { return {{"v", v_}}; }

  // DANA-Zero's θ moves by −v_i with this worker's message (θ = Θ + γΣ_j v_j).
  bool follows_parameters() const override { return true; }
  void follow_parameters(torch::Tensor& theta) const override { theta.sub_(v_); }

 private:
  double momentum_;
  double weight_decay_;
  torch::Tensor v_;                // v_i
  torch::Tensor message_;          // m
  torch::Tensor momentum_scalar_;  // γ, 0-dim
  torch::Tensor lr_scalar_;        // η of the current message, 0-dim
};

}  // namespace

AsyncAlgorithm dana_slim_algorithm() {
  return rule_algorithm<DanaSlimServer, DanaSlimWorker>(
      "dana-slim",
      "DANA-Slim: momentum kept on the workers (Bengio-Nesterov); server keeps theta only");
}

}  // namespace dsgd
