// async-local-dn: asynchronous local SGD (async_local.h) with Delayed Nesterov (Liu et al. 2024,
// Algorithm 3): the outer buffer moves once per N = dn.period arrivals (0: N = workers), on their
// mean, and θ takes plain steps in between; with c = dn.c, at arrival t
//   Σ ← Σ + Δ_t
//   t mod N = 0:  u ← βu + Σ/N;  θ ← θ − α((1 − cN + c)βu + Δ_t/N);  Σ ← 0
//   otherwise:    θ ← θ − α(cβu + Δ_t/N)
// With c = 0 (the paper's default) N arrivals move θ exactly as one Nesterov step on their mean
// (tested).
#include <fmt/format.h>

#include "algos/async_algorithms.h"
#include "algos/async_local.h"
#include "algos/async_util.h"
#include "algos/server_sgd.h"

namespace dsgd {
namespace {

using namespace async_internal;  // NOLINT(build/namespaces): the helpers of async_util.h

// Delayed Nesterov, as above. u = momentum_, Σ = pending_, t = arrivals_.
class DelayedNesterovServer : public ThetaServer {
 public:
  DelayedNesterovServer(const AsyncOptions& options, const torch::Tensor& theta0, int64_t workers)
      : ThetaServer(outer_rule_options(options, convention_options(), {}), theta0, workers),
        outer_lr_(options.values.number("outer.lr")),
        period_(options.values.integer("dn.period") > 0 ? options.values.integer("dn.period")
                                                        : workers),
        c_(options.values.number("dn.c")),
        beta_(torch::full({}, momentum_, theta_.options())),
        u_(torch::zeros_like(theta_)),
        pending_(torch::zeros_like(theta_)),
        arrivals_(torch::zeros({}, torch::kLong)) {
    if (c_ > 1.0 / static_cast<double>(period_)) {
      throw ConfigError(fmt::format("dn.c = {} must be at most 1/N = 1/{} (dn.period, or the "
                                    "number of workers when dn.period = 0)",
                                    c_, period_),
                        "leave dn.c at 0, the paper's default");
    }
  }

  void apply(int64_t worker, const torch::Tensor& delta, double /*lr*/) override {
    check_call(worker, delta);
    // t, counted in the checkpointed tensor itself (no allocation per update)
    const int64_t t = ++*arrivals_.data_ptr<int64_t>();
    const double n = static_cast<double>(period_);
    const double beta = momentum_;
    pending_.add_(delta);
    if (t % period_ == 0) {
      // u ← βu + Σ/N;  θ ← θ − α((1 − cN + c)βu + Δ_t/N);  Σ ← 0
      u_.mul_(beta_).add_(pending_, 1.0 / n);
      theta_.add_(u_, -outer_lr_ * (1.0 - c_ * n + c_) * beta).add_(delta, -outer_lr_ / n);
      pending_.zero_();
    } else {
      // θ ← θ − α(cβu + Δ_t/N)
      if (c_ != 0.0) theta_.add_(u_, -outer_lr_ * c_ * beta);
      theta_.add_(delta, -outer_lr_ / n);
    }
  }

  int64_t state_bytes() const override {
    return bytes_of(theta_) + bytes_of(u_) + bytes_of(pending_);
  }
  NamedTensors state() override {
    return {{"theta", theta_}, {"u", u_}, {"pending", pending_}, {"arrivals", arrivals_}};
  }

 private:
  double outer_lr_;  // α
  int64_t period_;   // N
  double c_;
  torch::Tensor beta_;      // β, 0-dim: Tensor::mul_(double) would allocate
  torch::Tensor u_;         // u
  torch::Tensor pending_;   // Σ, the pseudo-gradients since the buffer last moved
  torch::Tensor arrivals_;  // t, 0-dim
};

}  // namespace

AsyncAlgorithm async_local_dn_algorithm() {
  return local_algorithm(
      "async-local-dn",
      "asynchronous local SGD with Delayed Nesterov: the outer buffer moves once per N "
      "pseudo-gradients (Liu et al. 2024)",
      // DiLoCo's outer rate and momentum, which the paper's outer rules start from.
      local_keys(0.7, 0.9, false,
                 {integer_option("dn.period", 0,
                                 "N: pseudo-gradients per move of the outer buffer (0: the "
                                 "number of workers)",
                                 0),
                  number_option("dn.c", 0.0,
                                "c in [0, 1/N]: the share of the buffer applied at every "
                                "arrival (the paper's default 0)",
                                0.0)}),
      [](const AsyncOptions& options, const torch::Tensor& theta0, int64_t workers) {
        check_setup(theta0, workers);
        return std::make_unique<DelayedNesterovServer>(options, theta0, workers);
      });
}

}  // namespace dsgd
