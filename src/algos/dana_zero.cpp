// DANA-Zero: Distributed Asynchronous Nesterov-Accelerated gradient (Hakimi, Barkai, Gabel,
// Schuster 2019, "Taming Momentum in a Distributed Asynchronous Environment"). The server keeps
// one momentum buffer per worker, like Multi-ASGD, and sends each worker not θ but an estimate
// of where θ will be once the other workers' momentum has been applied: θ − ηγΣ_j v_j. The
// gradient is thus computed near the point it will be applied at, which lets momentum be used at
// full strength despite staleness. With one worker the points sent follow SGD with Nesterov
// momentum. The sum S = Σ_j v_j is kept up to date incrementally, so sending costs one pass.
#include <memory>
#include <vector>

#include "algos/async_algorithms.h"
#include "algos/async_util.h"

namespace dsgd {
namespace {

using async_internal::bytes_of;
using async_internal::check_worker;
using async_internal::gradient_algorithm;
using async_internal::PerWorker;
using async_internal::ThetaServer;

class DanaZeroServer : public ThetaServer {
 public:
  DanaZeroServer(const AsyncOptions& options, const torch::Tensor& theta0, int64_t workers)
      : ThetaServer(options, theta0, workers),
        v_(theta_, workers),
        v_sum_(torch::zeros_like(theta_)) {}

  // η = lr, γ = momentum_, θ = theta_, S = v_sum_.
  void parameters_for(int64_t worker, double lr, torch::Tensor& out) override {
    check_worker(worker, workers_);
    // out = θ − ηγS   (the look-ahead)
    at::add_out(out, theta_, v_sum_, -lr * momentum_);
  }

  // g = message, η = lr, γ = momentum_, λ = weight_decay_, θ = theta_, v_i = v_[i],
  // S = v_sum_.
  void apply(int64_t worker, const torch::Tensor& message, double lr) override {
    check_call(worker, message);
    torch::Tensor& v = v_[worker];
    // S ← S − v_i   (the old v_i leaves the sum)
    v_sum_.sub_(v);
    // v_i ← γv_i + d,  d = g + λθ
    at::add_out(v, message, v, momentum_);
    if (weight_decay_ != 0.0) v.add_(theta_, weight_decay_);
    // S ← S + v_i   (the new v_i joins it)
    v_sum_.add_(v);
    // θ ← θ − ηv_i
    theta_.add_(v, -lr);
  }

  int64_t state_bytes() const override {
    return bytes_of(theta_) + bytes_of(v_.block) + bytes_of(v_sum_);
  }
  NamedTensors state() override { return {{"theta", theta_}, {"v", v_.block}, {"v_sum", v_sum_}}; }

 private:
  PerWorker v_;          // v_1..v_N as one [N, P] block
  torch::Tensor v_sum_;  // S = Σ_j v_j
};

}  // namespace

AsyncAlgorithm dana_zero_algorithm() {
  return gradient_algorithm<DanaZeroServer>(
      "dana-zero",
      "DANA-Zero: a momentum buffer per worker; workers get the look-ahead theta - lr*m*sum(v)");
}

}  // namespace dsgd
