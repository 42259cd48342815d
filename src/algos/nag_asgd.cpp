// NAG-ASGD: asynchronous SGD with Nesterov momentum at the parameter server. Like ASGD-M the
// server keeps θ and one momentum buffer v shared by all workers, but it steps along γv + ηd
// (PyTorch's nesterov=True step, with η inside v); with one worker it is SGD with Nesterov
// momentum. The baseline as defined in the DANA paper (Hakimi et al. 2019, "Taming Momentum in a
// Distributed Asynchronous Environment").
#include <memory>

#include "algos/async_algorithms.h"
#include "algos/async_util.h"

namespace dsgd {
namespace {

using namespace async_internal;  // NOLINT(build/namespaces): the helpers of async_util.h

class NagAsgdServer : public SharedMomentumServer {
 public:
  using SharedMomentumServer::SharedMomentumServer;

  // d = message, η = lr, γ = momentum_, θ = theta_, v = v_.
  void apply(int64_t worker, const torch::Tensor& message, double lr) override {
    check_call(worker, message);
    // v ← γv + ηd
    accumulate(v_, message, lr);
    // θ ← θ − (γv + ηd)
    theta_.add_(v_, -momentum_).add_(message, -lr);
  }
};

}  // namespace

AsyncAlgorithm nag_asgd_algorithm() {
  return gradient_algorithm<NagAsgdServer>("nag-asgd", "ASGD with Nesterov momentum at the server");
}

}  // namespace dsgd
