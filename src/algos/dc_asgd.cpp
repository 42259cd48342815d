// DC-ASGD: asynchronous SGD with delay compensation (Zheng, Meng, Wang, Chen, Yu, Ma, Liu 2017,
// "Asynchronous Stochastic Gradient Descent with Delay Compensation", ICML). A gradient g that
// worker i computed at θ̂_i is corrected towards the gradient at the server's current θ with a
// first-order Taylor term whose Hessian is approximated by g⊙g: g + λ_t·g⊙g⊙(θ − θ̂_i). The
// server records θ̂_i for every worker when sending. Here the corrected gradient then goes
// through server momentum as in ASGD-M (and in MXNet's DCASGD); γ = 0 gives the paper's
// algorithm. The constant form DC-ASGD-c uses λ_t = λ_dc (published: 0.04), dc.adaptive the
// DC-ASGD-a form λ_t = λ_dc / sqrt(MS_i + ε) (published: λ_dc = 2, m = 0.95).
#include <memory>

#include "algos/async_algorithms.h"
#include "algos/async_util.h"
#include "algos/delay_compensation.h"

namespace dsgd {
namespace {

using namespace async_internal;  // NOLINT(build/namespaces): the helpers of async_util.h

class DcAsgdServer : public SharedMomentumServer {
 public:
  DcAsgdServer(const AsyncOptions& options, const torch::Tensor& theta0, int64_t workers)
      : SharedMomentumServer(options, theta0, workers), compensation_(options, theta_, workers) {}

  // θ = theta_, θ̂_i kept by compensation_.
  void parameters_for(int64_t worker, torch::Tensor& out) override {
    check_worker(worker, workers_);
    // out = θ;  θ̂_i ← θ
    out.copy_(theta_);
    compensation_.record(worker, theta_);
  }

  // d = message, η = lr, γ = momentum_, θ = theta_, v = v_.
  void apply(int64_t worker, const torch::Tensor& message, double lr) override {
    check_call(worker, message);
    // v ← γv + η(d + λ_t·d⊙d⊙(θ − θ̂_i)), in two steps:
    //   v ← γv + ηd
    accumulate(v_, message, lr);
    //   v ← v + η·λ_t·d⊙d⊙(θ − θ̂_i)
    compensation_.add_to(v_, worker, message, theta_, lr);
    // θ ← θ − v
    theta_.sub_(v_);
  }

  int64_t state_bytes() const override {
    return SharedMomentumServer::state_bytes() + compensation_.state_bytes();
  }
  NamedTensors state() override {
    NamedTensors state = SharedMomentumServer::state();
    compensation_.append_state(state);
    return state;
  }

 private:
  DelayCompensation compensation_;  // θ̂_1..θ̂_N (and MS_i when adaptive)
};

}  // namespace

AsyncAlgorithm dc_asgd_algorithm() {
  return gradient_algorithm<DcAsgdServer>(
      "dc-asgd", "DC-ASGD: delay-compensated gradients g + l*g*g*(theta - sent), server momentum",
      delay_compensation_options());
}

}  // namespace dsgd
