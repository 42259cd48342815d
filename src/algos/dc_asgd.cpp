// DC-ASGD: asynchronous SGD with delay compensation (Zheng, Meng, Wang, Chen, Yu, Ma, Liu 2017,
// "Asynchronous Stochastic Gradient Descent with Delay Compensation", ICML). A gradient g that
// worker i computed at θ̂_i is corrected towards the gradient at the server's current θ with a
// first-order Taylor term whose Hessian is approximated by g⊙g: g + λ_t·g⊙g⊙(θ − θ̂_i). The
// server records θ̂_i for every worker when sending. The corrected gradient then goes through
// server momentum: the rule is ASGD-M's server (server_sgd.h) behind DelayCompensated
// (delay_compensation.h), and γ = 0 is the paper's algorithm. MXNet's DCASGD optimizer, which the
// golden test reproduces, squares the raw gradient as here, keeps the rate inside its momentum
// (mom ← γ·mom − η(...)) as dsgd does, and takes weight decay at the current weight
// (decay_at_server = true). The constant form DC-ASGD-c uses λ_t = λ_dc (MXNet's default 0.04),
// dc.adaptive the DC-ASGD-a form λ_t = λ_dc / sqrt(MS_i + ε) (published: λ_dc = 2, m = 0.95).
#include "algos/async_algorithms.h"
#include "algos/delay_compensation.h"
#include "algos/server_sgd.h"

namespace dsgd {

using namespace async_internal;  // NOLINT(build/namespaces): the helpers of async_util.h

AsyncAlgorithm dc_asgd_algorithm() {
  return delay_compensated_algorithm<ServerSgd<ServerMomentum::kHeavyBall>>(
      "dc-asgd", "DC-ASGD: delay-compensated gradients g + l*g*g*(theta - sent), server momentum",
      joined_options(delay_compensation_options(0.04), convention_options()));
}

}  // namespace dsgd
