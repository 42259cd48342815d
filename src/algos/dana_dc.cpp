// DANA-DC: DANA-Zero with the delay compensation of DC-ASGD (Hakimi, Barkai, Gabel, Schuster
// 2019, "Taming Momentum in a Distributed Asynchronous Environment"; compensation from Zheng et
// al. 2017). Workers get DANA-Zero's look-ahead θ − γΣ_j v_j, which the server also records as
// θ̂_i; a message d from worker i is first corrected to d + λ_t·d⊙d⊙(θ − θ̂_i) and then applied
// exactly as in DANA-Zero, so λ_dc = 0 is DANA-Zero.
//
// θ in the correction is the server's current θ, not its current look-ahead: that is what the
// DANA paper's simulator does (its delay_compensation() takes the master weights saved right
// after the optimizer step, before the look-ahead is subtracted). A consequence worth knowing:
// even without delay (one worker) θ − θ̂_i = γv ≠ 0, so with λ_dc > 0 DANA-DC is not Nesterov;
// the compensation then also corrects for the look-ahead itself. The constant and adaptive forms
// and their published defaults are DC-ASGD's (delay_compensation.h); the DANA authors' simulator
// defaults to the constant form with λ_dc = 2.
#include <memory>
#include <vector>

#include "algos/async_algorithms.h"
#include "algos/async_util.h"
#include "algos/delay_compensation.h"

namespace dsgd {
namespace {

using async_internal::bytes_of;
using async_internal::check_worker;
using async_internal::gradient_algorithm;
using async_internal::PerWorker;
using async_internal::ThetaServer;

class DanaDcServer : public ThetaServer {
 public:
  DanaDcServer(const AsyncOptions& options, const torch::Tensor& theta0, int64_t workers)
      : ThetaServer(options, theta0, workers),
        v_(theta_, workers),
        v_sum_(torch::zeros_like(theta_)),
        compensation_(options, theta_, workers) {}

  // γ = momentum_, θ = theta_, S = v_sum_, θ̂_i kept by compensation_.
  void parameters_for(int64_t worker, torch::Tensor& out) override {
    check_worker(worker, workers_);
    // out = θ − γS   (the look-ahead);  θ̂_i ← out
    at::add_out(out, theta_, v_sum_, -momentum_);
    compensation_.record(worker, out);
  }

  // d = message, η = lr, γ = momentum_, θ = theta_, v_i = v_[i], S = v_sum_.
  void apply(int64_t worker, const torch::Tensor& message, double lr) override {
    check_call(worker, message);
    torch::Tensor& v = v_[worker];
    // S ← S − v_i   (the old v_i leaves the sum)
    v_sum_.sub_(v);
    // v_i ← γv_i + η(d + λ_t·d⊙d⊙(θ − θ̂_i)), in two steps:
    //   v_i ← γv_i + ηd
    accumulate(v, message, lr);
    //   v_i ← v_i + η·λ_t·d⊙d⊙(θ − θ̂_i)
    compensation_.add_to(v, worker, message, theta_, lr);
    // S ← S + v_i   (the new v_i joins it)
    v_sum_.add_(v);
    // θ ← θ − v_i
    theta_.sub_(v);
  }

  int64_t state_bytes() const override {
    return bytes_of(theta_) + bytes_of(v_.block) + bytes_of(v_sum_) + compensation_.state_bytes();
  }
  NamedTensors state() override {
    NamedTensors state = {{"theta", theta_}, {"v", v_.block}, {"v_sum", v_sum_}};
    compensation_.append_state(state);
    return state;
  }

 private:
  PerWorker v_;                     // v_1..v_N as one [N, P] block
  torch::Tensor v_sum_;             // S = Σ_j v_j
  DelayCompensation compensation_;  // θ̂_1..θ̂_N (and MS_i when adaptive)
};

}  // namespace

AsyncAlgorithm dana_dc_algorithm() {
  return gradient_algorithm<DanaDcServer>(
      "dana-dc", "DANA-DC: DANA-Zero with DC-ASGD's delay compensation of stale gradients");
}

}  // namespace dsgd
