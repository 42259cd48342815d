// Multi-ASGD: asynchronous SGD with one momentum buffer per worker at the parameter server.
// Worker i's gradients only ever flow into v_i, so each buffer sees a stream of gradients that
// is not interleaved with other workers'; θ takes a step along the v_i just updated. The
// baseline as defined in the DANA paper (Hakimi et al. 2019, "Taming Momentum in a Distributed
// Asynchronous Environment"), where DANA-Zero adds the look-ahead to it.
#include <memory>
#include <vector>

#include "algos/async_algorithms.h"
#include "algos/async_util.h"

namespace dsgd {
namespace {

using async_internal::bytes_of;
using async_internal::check_message;
using async_internal::check_setup;
using async_internal::check_worker;
using async_internal::copy_parameters;
using async_internal::rows_of;
using async_internal::zeros_per_worker;

class MultiAsgdServer : public AsyncServerRule {
 public:
  MultiAsgdServer(const AsyncOptions& options, const torch::Tensor& theta0, int64_t workers)
      : momentum_(options.momentum),
        weight_decay_(options.weight_decay),
        workers_(workers),
        theta_(copy_parameters(theta0)),
        v_(zeros_per_worker(theta_, workers)),
        v_rows_(rows_of(v_, theta_)) {}

  void parameters_for(int64_t worker, double /*lr*/, torch::Tensor& out) override {
    check_worker(worker, workers_);
    out.copy_(theta_);
  }

  // g = message, η = lr, γ = momentum_, λ = weight_decay_, θ = theta_, v_i = v_rows_[i].
  void apply(int64_t worker, const torch::Tensor& message, double lr) override {
    check_worker(worker, workers_);
    check_message(message, theta_);
    torch::Tensor& v = v_rows_[worker];
    // v_i ← γv_i + d,  d = g + λθ
    at::add_out(v, message, v, momentum_);
    if (weight_decay_ != 0.0) v.add_(theta_, weight_decay_);
    // θ ← θ − ηv_i
    theta_.add_(v, -lr);
  }

  const torch::Tensor& center() const override { return theta_; }
  int64_t state_bytes() const override { return bytes_of(theta_) + bytes_of(v_); }
  NamedTensors state() override { return {{"theta", theta_}, {"v", v_}}; }

 private:
  double momentum_;
  double weight_decay_;
  int64_t workers_;
  torch::Tensor theta_;                // θ
  torch::Tensor v_;                    // [N, P]: row i is v_i
  std::vector<torch::Tensor> v_rows_;  // v_i, views of v_ shaped like θ
};

}  // namespace

AsyncAlgorithm multi_asgd_algorithm() {
  return {
      "multi-asgd", "ASGD with one momentum buffer per worker at the server",
      [](const AsyncOptions& options, const torch::Tensor& theta0,
         int64_t workers) -> std::unique_ptr<AsyncServerRule> {
        check_setup(options, theta0, workers);
        return std::make_unique<MultiAsgdServer>(options, theta0, workers);
      },
      [](const AsyncOptions&, int64_t, const torch::Tensor&) -> std::unique_ptr<AsyncWorkerRule> {
        return std::make_unique<GradientWorkerRule>();
      }};
}

}  // namespace dsgd
