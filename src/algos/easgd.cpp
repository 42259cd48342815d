// Elastic averaging (Zhang, Choromanska, LeCun, "Deep learning with Elastic Averaging SGD",
// NeurIPS 2015, arXiv 1412.6651): asynchronous EASGD and EAMSGD, and DANA-EASGD, their
// combination with DANA's look-ahead.
//
// Each worker i runs its own SGD on its own variable x^i; every τ of its steps (easgd.tau) it
// makes an elastic exchange with the centre x̃, the model the server evaluates. The paper's
// Algorithms 1 (EASGD) and 2 (EAMSGD) for worker i, in dsgd's momentum convention (async_rule.h),
// with α = β/N (easgd.beta = β) and δ = the run's momentum:
//   x ← x^i                                           (the point of this step's gradient)
//   if τ divides t^i:  e = α(x − x̃);  x^i ← x^i − e;  x̃ ← x̃ + e
//   EASGD:  x^i ← x^i − η·d,  d the gradient at x
//   EAMSGD: v^i ← δv^i + η·d,  x^i ← x^i − v^i,  d the gradient at x − δv^i (Nesterov)
//   t^i ← t^i + 1
// The server keeps every x^i (and v^i), sends worker i the point of its next gradient and applies
// the whole step when the gradient arrives, so the exchange meets the centre as it is when the
// message lands. The iterates are the paper's exactly; the traffic is not: every gradient travels,
// where the paper's worker keeps x^i and talks to the server every τ steps. That protocol is
// easgd-local and eamsgd-local (easgd_local.cpp), equal to these at τ = 1.
// The gap the server reports (gap_rms) is the centre's distance from the worker's point.
//
// The exchange is symmetric, so at α = 1 it swaps x^i and x̃: with one worker, τ = 1 and β = 1
// the iterates are not SGD's (x^i_{t+1} = x^i_{t−1} − η·d). With β = 0 the centre stays and each
// worker runs plain SGD (EASGD) or Nesterov SGD (EAMSGD); the tests check both.
//
// DANA-EASGD (dsgd's definition; the DANA paper, Hakimi et al. 2019, says DANA combines with
// EASGD but gives no equations). After an exchange worker i runs τ steps on its own and meets the
// centre again; by then every other worker j has made, on average, one exchange of its own, each
// moving the centre by α(x^j − x̃). DANA sends a worker the parameters as they will be once the
// updates already in flight have landed (θ − γΣv_j); here the updates to come are the others'
// pushes, so the centre a worker is pulled toward is the estimate
//   x̃_i = x̃ + α Σ_{j≠i} (x^j − x̃)          (x^j, x̃ as they are now)
// and the exchange is e = α(x − x̃);  x^i ← x^i − α(x − x̃_i);  x̃ ← x̃ + e. The centre's own step is
// EAMSGD's; only the pull differs, by α²Σ_{j≠i}(x^j − x̃). Worker i's own push is not in x̃_i: it
// is the other half of the same exchange, as in EAMSGD. With one worker the sum is empty and
// DANA-EASGD is EAMSGD bit for bit. The server keeps S = Σ_j x^j so that the pull costs O(P).
#include "algos/async_algorithms.h"
#include "algos/async_util.h"

namespace dsgd {
namespace {

using namespace async_internal;  // NOLINT(build/namespaces): the helpers of async_util.h

enum class Elastic { kEasgd, kEamsgd, kDanaEasgd };

template <Elastic kKind>
class ElasticServer : public ThetaServer {
  static constexpr bool kMomentum = kKind != Elastic::kEasgd;
  static constexpr bool kLookAhead = kKind == Elastic::kDanaEasgd;

 public:
  ElasticServer(const AsyncOptions& options, const torch::Tensor& theta0, int64_t workers)
      : ThetaServer(options, theta0, workers),
        period_(checked_period(options)),
        alpha_(options_.values.number("easgd.beta") / static_cast<double>(workers_)),
        alpha_scalar_(torch::full({}, alpha_, theta_.options())) {
    local_.block.copy_(theta_.view({1, -1}).expand_as(local_.block));
    if (kLookAhead) sum_ = theta_ * static_cast<double>(workers_);
  }

  // τ, once the rule has refused a convention it has no equations for.
  static int64_t checked_period(const AsyncOptions& options) {
    if (kMomentum) {
      require_lr_in_velocity(options, kLookAhead ? "dana-easgd" : "eamsgd",
                             "the paper's Algorithm 2 has the rate inside the velocity");
    }
    return options.values.integer("easgd.tau");
  }

  // x^i for EASGD; x^i − δv^i for the momentum variants.
  void parameters_for(int64_t worker, torch::Tensor& out) override {
    check_worker(worker, workers_);
    if (kMomentum) {
      at::sub_out(out, local_[worker], velocity_[worker], momentum_);
    } else {
      out.copy_(local_[worker]);
    }
  }

  // d = message, η = lr, x^i = local_[i], v^i = velocity_[i], x̃ = theta_, S = sum_.
  void apply(int64_t worker, const torch::Tensor& message, double lr) override {
    check_call(worker, message);
    torch::Tensor& x = local_[worker];
    int64_t& steps = steps_.data_ptr<int64_t>()[worker];
    if (steps % period_ == 0) exchange(x);
    if (kMomentum) {
      // v^i ← δv^i + ηd;  x^i ← x^i − v^i  (and S with it)
      torch::Tensor& v = velocity_[worker];
      accumulate(v, message, lr);
      x.sub_(v);
      if (kLookAhead) sum_.sub_(v);
    } else {
      // x^i ← x^i − ηd
      x.add_(message, -lr);
    }
    ++steps;
  }

  // The centre x̃, the model the paper evaluates.
  std::string evaluated_name() const override { return "centre"; }

  int64_t state_bytes() const override {
    return bytes_of(theta_) + bytes_of(local_.block) + bytes_of(velocity_.block) +
           bytes_of(steps_) + bytes_of(sum_) + bytes_of(push_) + bytes_of(move_);
  }
  // The push and the worker's move are rebuilt at each exchange: no checkpoint.
  NamedTensors state() override {
    NamedTensors state = {{"theta", theta_}, {"easgd_local", local_.block}};
    if (kMomentum) state.emplace_back("v", velocity_.block);
    state.emplace_back("easgd_steps", steps_);
    if (kLookAhead) state.emplace_back("easgd_sum", sum_);
    return state;
  }

 private:
  void exchange(torch::Tensor& x) {
    // e = α(x − x̃)
    at::sub_out(push_, x, theta_).mul_(alpha_scalar_);
    if (kLookAhead) {
      // Σ_{j≠i}(x^j − x̃) = S − x − (N − 1)x̃;  x^i ← x^i − α(x − x̃_i) = x − (e − α²Σ_{j≠i}(x^j −
      // x̃)), and S moves as x^i does
      at::sub_out(move_, sum_, x).sub_(theta_, static_cast<double>(workers_ - 1));
      move_.mul_(minus_alpha_sq_).add_(push_);
      x.sub_(move_);
      sum_.sub_(move_);
    } else {
      x.sub_(push_);
    }
    theta_.add_(push_);
  }

  int64_t period_;  // τ
  double alpha_;    // α = β/N
  torch::Tensor alpha_scalar_;
  torch::Tensor minus_alpha_sq_ = torch::full({}, -alpha_* alpha_, theta_.options());  // −α²
  PerWorker local_{theta_, workers_};                                                  // x^1..x^N
  PerWorker velocity_{theta_, kMomentum ? workers_ : 0};          // v^1..v^N (none for EASGD)
  torch::Tensor steps_ = torch::zeros({workers_}, torch::kLong);  // t^i, on the CPU
  torch::Tensor sum_;  // S = Σ_j x^j, moved with every change of an x^j
  torch::Tensor push_ = torch::empty_like(theta_);  // e, scratch
  // The worker's move at an exchange, e − α²Σ_{j≠i}(x^j − x̃), scratch.
  torch::Tensor move_ = kLookAhead ? torch::empty_like(theta_) : torch::Tensor();
};

std::vector<OptionSpec> elastic_options() {
  return {elastic_beta_option(),
          integer_option("easgd.tau", 4,
                         "local steps of each elastic-averaging worker between its "
                         "exchanges with the centre (the paper studies 1 to 64)")};
}

}  // namespace

namespace async_internal {
OptionSpec elastic_beta_option() {
  OptionSpec beta = number_option(
      "easgd.beta", 0.9,
      "elastic averaging's β: each exchange moves worker and centre by α = β/N of their "
      "difference (Zhang et al. use 0.9)",
      0.0, 1.0);
  beta.high_closed = true;
  return beta;
}
}  // namespace async_internal

AsyncAlgorithm easgd_algorithm() {
  return gradient_algorithm<ElasticServer<Elastic::kEasgd>>(
      "easgd",
      "EASGD's iterates with every worker's run kept on the server: each gradient travels "
      "(easgd-local is the published protocol); momentum is not read",
      elastic_options());
}

AsyncAlgorithm eamsgd_algorithm() {
  return gradient_algorithm<ElasticServer<Elastic::kEamsgd>>(
      "eamsgd",
      "EAMSGD's iterates with every worker's run kept on the server (eamsgd-local is the "
      "published protocol)",
      elastic_options());
}

AsyncAlgorithm dana_easgd_algorithm() {
  return gradient_algorithm<ElasticServer<Elastic::kDanaEasgd>>(
      "dana-easgd",
      "DANA-EASGD: EAMSGD whose exchanges pull toward the centre as the other workers' pushes "
      "will move it (dsgd's combination, docs/design.md)",
      elastic_options());
}

}  // namespace dsgd
