// ASGD: asynchronous SGD on a parameter server (the Hogwild!/Downpour baseline). Each worker
// computes a gradient at the parameters it was last sent; the server applies it as soon as it
// arrives, however stale, with plain SGD and no momentum. The server keeps θ only. It is the
// baseline of the DANA paper (Hakimi et al. 2019, "Taming Momentum in a Distributed
// Asynchronous Environment").
#include <memory>

#include "algos/async_algorithms.h"
#include "algos/async_util.h"

namespace dsgd {
namespace {

using namespace async_internal;  // NOLINT(build/namespaces): the helpers of async_util.h

class AsgdServer : public ThetaServer {
 public:
  using ThetaServer::ThetaServer;

  // d = message, η = lr, θ = theta_.
  void apply(int64_t worker, const torch::Tensor& message, double lr) override {
    check_call(worker, message);
    // θ ← θ − ηd
    theta_.add_(message, -lr);
  }

  int64_t state_bytes() const override { return bytes_of(theta_); }
  NamedTensors state() override { return {{"theta", theta_}}; }
};

}  // namespace

AsyncAlgorithm asgd_algorithm() {
  return gradient_algorithm<AsgdServer>(
      "asgd", "asynchronous SGD: the server applies each (stale) gradient as it arrives");
}

}  // namespace dsgd
