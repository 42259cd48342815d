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

using namespace async_internal;  // NOLINT(build/namespaces): the helpers of async_util.h

class MultiAsgdServer : public ThetaServer {
 public:
  using ThetaServer::ThetaServer;

  // d = message (+ λθ when decay_at_server), η = lr, γ = momentum_, θ = theta_, v_i = v_[i].
  void apply(int64_t worker, const torch::Tensor& message, double lr) override {
    check_call(worker, message);
    torch::Tensor& v = v_[worker];
    // v_i ← γv_i + ηd   (lr_in_velocity = false: v_i ← γv_i + d)
    accumulate(v, decayed(message), lr);
    // θ ← θ − v_i   (θ ← θ − ηv_i)
    step_along(v, lr);
  }

  int64_t state_bytes() const override {
    return bytes_of(theta_) + bytes_of(v_.block) + decay_bytes();
  }
  NamedTensors state() override { return {{"theta", theta_}, {"v", v_.block}}; }

 private:
  PerWorker v_{theta_, workers_};  // v_1..v_N as one [N, P] block
};

}  // namespace

AsyncAlgorithm multi_asgd_algorithm() {
  return gradient_algorithm<MultiAsgdServer>(
      "multi-asgd", "ASGD with one momentum buffer per worker at the server", convention_options());
}

}  // namespace dsgd
