// ASGD-M: asynchronous SGD with heavy-ball momentum at the parameter server. The server keeps
// θ and one momentum buffer v that every worker's (stale) gradient flows into, as an SGD
// optimizer on the server would; with one worker it is SGD with momentum. It is the
// "ASGD with momentum" baseline of the DANA paper (Hakimi et al. 2019, "Taming Momentum in a
// Distributed Asynchronous Environment").
#include <memory>

#include "algos/async_algorithms.h"
#include "algos/async_util.h"

namespace dsgd {
namespace {

using namespace async_internal;  // NOLINT(build/namespaces): the helpers of async_util.h

class AsgdMomentumServer : public SharedMomentumServer {
 public:
  using SharedMomentumServer::SharedMomentumServer;

  // d = message, η = lr, γ = momentum_, θ = theta_, v = v_.
  void apply(int64_t worker, const torch::Tensor& message, double lr) override {
    check_call(worker, message);
    // v ← γv + ηd
    accumulate(v_, message, lr);
    // θ ← θ − v
    theta_.sub_(v_);
  }
};

}  // namespace

AsyncAlgorithm asgd_momentum_algorithm() {
  return gradient_algorithm<AsgdMomentumServer>(
      "asgd-m", "ASGD with one heavy-ball momentum buffer at the server");
}

}  // namespace dsgd
