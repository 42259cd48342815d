// dana-local: asynchronous local SGD (async_local.h) with DANA-Zero's server as the outer rule: a
// velocity per worker, v_i ← βv_i + αΔ, θ ← θ − v_i, and every worker is sent the look-ahead
// θ − βΣ_j v_j, the parameters as they will be once the pseudo-gradients in flight have landed.
// With H = 1, no local momentum, α = 1 and β = the run's γ it is dana-zero (tested to rounding: Δ
// is a difference of parameters).
#include "algos/async_algorithms.h"
#include "algos/async_local.h"
#include "algos/async_util.h"
#include "algos/dana_zero.h"

namespace dsgd {

using namespace async_internal;  // NOLINT(build/namespaces): the helpers of async_util.h

AsyncAlgorithm dana_local_algorithm() {
  return local_algorithm(
      "dana-local",
      "asynchronous local SGD with DANA-Zero's server as the outer rule: each worker sent the "
      "look-ahead of the outer momentum",
      // DANA's γ as the outer momentum, at the full outer rate.
      local_keys(1.0, 0.9, false, {dana_options().front()}),
      [](const AsyncOptions& options, const torch::Tensor& theta0, int64_t workers) {
        check_setup(theta0, workers);
        OptionValues eval_theta;
        eval_theta.set("dana.eval_theta", options.values.number("dana.eval_theta"));
        const AsyncOptions outer = outer_rule_options(options, dana_options(), eval_theta);
        return at_outer_rate(std::make_unique<DanaZeroServer>(outer, theta0, workers), outer.lr);
      });
}

}  // namespace dsgd
