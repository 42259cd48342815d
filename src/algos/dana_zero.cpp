// DANA-Zero: Distributed Asynchronous Nesterov-Accelerated gradient (Hakimi, Barkai, Gabel,
// Schuster 2019, "Taming Momentum in a Distributed Asynchronous Environment"). The server keeps
// one momentum buffer per worker, like Multi-ASGD, and sends each worker not θ but an estimate
// of where θ will be once the other workers' momentum has been applied: the look-ahead
// Θ = θ − γΣ_j v_j (η is inside the velocities, async_rule.h). The gradient is thus computed near
// the point it will be applied at, which lets momentum be used at full strength despite
// staleness. With one worker the points sent follow SGD with Nesterov momentum.
//
// Θ is kept up to date incrementally, so sending costs one copy: when v_i becomes
// v_i' = γv_i + ηd, Θ moves by −v_i' − γ(v_i' − v_i) = −(ηd + γv_i'). That step is computed with
// exactly DANA-Slim's operations (dana_slim.cpp), so that the two rules, one algorithm, also
// send bit-identical parameters in float32, where training amplifies any rounding difference.
#include "algos/dana_zero.h"

#include "algos/async_algorithms.h"

namespace dsgd {
namespace async_internal {

std::vector<OptionSpec> dana_options() {
  return joined_options({boolean_option("dana.eval_theta", false,
                                        "evaluate the server's theta instead of the look-ahead "
                                        "theta - m*sum(v) that workers are sent (the DANA "
                                        "authors' evaluation point, and dana-slim's only one)")},
                        convention_options());
}

}  // namespace async_internal

AsyncAlgorithm dana_zero_algorithm() {
  return async_internal::gradient_algorithm<async_internal::DanaZeroServer>(
      "dana-zero",
      "DANA-Zero: a momentum buffer per worker; workers get the look-ahead theta - m*sum(v)",
      async_internal::dana_options());
}

}  // namespace dsgd
