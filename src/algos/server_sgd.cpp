// The server runs SGD: the three baselines of the DANA paper (Hakimi et al. 2019, "Taming
// Momentum in a Distributed Asynchronous Environment") in which every worker computes a gradient
// at the parameters it was last sent and the server applies it as soon as it arrives, however
// stale, as an SGD optimizer on the server would:
//   asgd      plain SGD, no momentum (the Hogwild!/Downpour baseline); the server keeps θ only;
//   asgd-m    heavy-ball momentum: one buffer v that every worker's gradient flows into;
//   nag-asgd  Nesterov momentum: the same v, but θ steps along γv + ηd (PyTorch's nesterov=True
//             step, with η inside v).
// With one worker each is the corresponding single-worker SGD. They are one class because they
// differ in one line, as PyTorch's SGD does.
#include "algos/server_sgd.h"

#include "algos/async_algorithms.h"

namespace dsgd {

using namespace async_internal;  // NOLINT(build/namespaces): the helpers of async_util.h

AsyncAlgorithm asgd_algorithm() {
  return gradient_algorithm<ServerSgd<ServerMomentum::kNone>>(
      "asgd", "asynchronous SGD: the server applies each (stale) gradient as it arrives",
      convention_options());
}

AsyncAlgorithm asgd_momentum_algorithm() {
  return gradient_algorithm<ServerSgd<ServerMomentum::kHeavyBall>>(
      "asgd-m", "ASGD with one heavy-ball momentum buffer at the server", convention_options());
}

AsyncAlgorithm nag_asgd_algorithm() {
  return gradient_algorithm<ServerSgd<ServerMomentum::kNesterov>>(
      "nag-asgd", "ASGD with Nesterov momentum at the server", convention_options());
}

}  // namespace dsgd
