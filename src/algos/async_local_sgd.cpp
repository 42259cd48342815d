// async-local-sgd: asynchronous local SGD (async_local.h), the server applying each pseudo-gradient
// Δ as it lands by outer SGD: θ ← θ − αΔ (β = 0); u ← βu + Δ, θ ← θ − αu (heavy ball);
// θ ← θ − α(βu + Δ) (outer.nesterov: the paper's Eq. 4, DiLoCo's outer step applied
// asynchronously). It is the asgd, asgd-m and nag-asgd server fed Δ at rate α.
#include "algos/async_algorithms.h"
#include "algos/async_local.h"
#include "algos/async_util.h"
#include "algos/server_sgd.h"

namespace dsgd {

using namespace async_internal;  // NOLINT(build/namespaces): the helpers of async_util.h

AsyncAlgorithm async_local_sgd_algorithm() {
  return local_algorithm(
      "async-local-sgd",
      "asynchronous local SGD: H local steps, the pseudo-gradient applied by outer SGD (Liu et al. "
      "2024; outer.nesterov: async DiLoCo)",
      local_keys(1.0, 0.0, true, {}),
      [](const AsyncOptions& options, const torch::Tensor& theta0, int64_t workers) {
        check_setup(theta0, workers);
        const AsyncOptions outer = outer_rule_options(options, convention_options(), {});
        std::unique_ptr<AsyncServerRule> rule;
        if (outer.momentum == 0.0) {
          rule = std::make_unique<ServerSgd<ServerMomentum::kNone>>(outer, theta0, workers);
        } else if (options.values.flag("outer.nesterov")) {
          rule = std::make_unique<ServerSgd<ServerMomentum::kNesterov>>(outer, theta0, workers);
        } else {
          rule = std::make_unique<ServerSgd<ServerMomentum::kHeavyBall>>(outer, theta0, workers);
        }
        return at_outer_rate(std::move(rule), outer.lr);
      });
}

}  // namespace dsgd
