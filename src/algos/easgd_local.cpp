// Elastic averaging as published (Zhang, Choromanska, LeCun, "Deep learning with Elastic Averaging
// SGD", NeurIPS 2015, Algorithms 1 and 2): each worker keeps its own variable x^i, takes
// τ = local.steps steps of its own, and only then exchanges with the centre x̃. One exchange is a
// round trip: the worker sends x^i, the server moves the centre by e = α(x^i − x̃) and sends back
// the worker's pulled variable x^i − e, from which the worker's next τ steps start. Per τ
// minibatches one message and one reply travel, where easgd and eamsgd (easgd.cpp, every run kept
// on the server) send one of each per minibatch: the same iterates at τ times the traffic.
//
// In dsgd's momentum convention (async_rule.h), α = β/N (easgd.beta = β), δ = the run's momentum,
// d = g + λ·(the point g was computed at), and each gradient taken at the rate of the run it was
// computed in, worker i repeats
//   (exchange)   send x^i;  server: e = α(x^i − x̃),  x̃ ← x̃ + e;  reply x^i − e
//   x^i ← reply, then the step of the gradient held from the last run (computed at the sent x^i)
//   τ − 1 steps:  easgd-local   x^i ← x^i − η·d,            d at x^i
//                 eamsgd-local  v^i ← δv^i + η·d, x^i ← x^i − v^i,  d at x^i − δv^i (Nesterov)
//   the τ-th gradient, at the point the next message sends, is held
// so that, as in the paper, the elastic pull and the gradient of one step both start from the same
// x^i, and the exchange meets the centre as it is once that gradient is computed. With τ = 1 this
// is easgd and eamsgd at easgd.tau = 1 bit for bit (tested). With τ > 1 a worker's exchanges come
// before its steps τ, 2τ, 3τ, … (counted from 1); the paper's and easgd.tau's before steps 1,
// τ + 1, 2τ + 1, …: the first period is one step shorter. The worker's velocity and held gradient
// are its own state (checkpointed with it); the first run holds none (a zero gradient at rate 0,
// which moves nothing).
//
// The server keeps x̃ and each worker's last reply, so that what it sends a worker is a function of
// its checkpointed state (an MPI server resends it on resume); the paper's centre keeps x̃ alone.
#include "algos/async_algorithms.h"
#include "algos/async_util.h"

namespace dsgd {
namespace {

using namespace async_internal;  // NOLINT(build/namespaces): the helpers of async_util.h

// The centre x̃ (theta_) and the replies.
class ElasticCentre : public ThetaServer {
 public:
  ElasticCentre(const AsyncOptions& options, const torch::Tensor& theta0, int64_t workers)
      : ThetaServer(options, theta0, workers),
        alpha_(torch::full({}, options.values.number("easgd.beta") / static_cast<double>(workers),
                           theta_.options())) {
    replies_.block.copy_(theta_.view({1, -1}).expand_as(replies_.block));
  }

  // x^i as the worker's last exchange left it (θ0 before its first).
  void parameters_for(int64_t worker, torch::Tensor& out) override {
    check_worker(worker, workers_);
    out.copy_(replies_[worker]);
  }

  // The exchange with x = x^i: e = α(x − x̃);  reply x − e;  x̃ ← x̃ + e.
  void apply(int64_t worker, const torch::Tensor& x, double /*lr*/) override {
    check_call(worker, x);
    at::sub_out(push_, x, theta_).mul_(alpha_);
    at::sub_out(replies_[worker], x, push_);
    theta_.add_(push_);
  }

  std::string evaluated_name() const override { return "centre"; }
  int64_t state_bytes() const override {
    return bytes_of(theta_) + bytes_of(replies_.block) + bytes_of(push_);
  }
  NamedTensors state() override { return {{"theta", theta_}, {"easgd_replies", replies_.block}}; }

 private:
  torch::Tensor alpha_;  // α = β/N, 0-dim
  PerWorker replies_{theta_, workers_};
  torch::Tensor push_ = torch::empty_like(theta_);  // e, scratch
};

// Worker i's run between two exchanges (async_rule.h, LocalRun). Everything the run changes goes
// to running copies until commit(), so that a run computed ahead of its exchange leaves state()
// as it was.
template <bool kMomentum>
class ElasticWorker : public AsyncWorkerRule, public LocalRun {
 public:
  ElasticWorker(const AsyncOptions& options, const torch::Tensor& theta0)
      : steps_(options.values.integer("local.steps")),
        weight_decay_(options.weight_decay),
        momentum_(options.momentum),
        momentum_scalar_(torch::full({}, options.momentum, theta0.options())),
        x_(torch::empty_like(theta0)),
        held_(torch::zeros_like(theta0)),
        running_held_(torch::zeros_like(theta0)),
        held_lr_(torch::zeros({}, torch::kDouble)) {
    if (kMomentum) {
      require_lr_in_velocity(options, "eamsgd-local",
                             "the paper's Algorithm 2 has the rate inside the velocity");
      velocity_ = torch::zeros_like(theta0);
      running_velocity_ = torch::zeros_like(theta0);
      point_ = torch::empty_like(theta0);
    }
  }

  LocalRun* local_run() override { return this; }

  void begin(const torch::Tensor& received) override {
    x_.copy_(received);
    if (kMomentum) running_velocity_.copy_(velocity_);
    take_step(held_, *held_lr_.data_ptr<double>());
    taken_ = 0;
    update_point();
  }
  const torch::Tensor& point() const override { return kMomentum ? point_ : x_; }
  void step(torch::Tensor& gradient, double lr) override {
    // d = g + λ·point
    if (weight_decay_ != 0.0) gradient.add_(point(), weight_decay_);
    if (++taken_ == steps_) {
      running_held_.copy_(gradient);
      running_lr_ = lr;
      return;
    }
    take_step(gradient, lr);
    update_point();
  }
  // x^i, the variable the exchange pulls (the held gradient's point is x^i − δv^i for EAMSGD).
  const torch::Tensor& finish() override { return x_; }
  void commit() override {
    if (kMomentum) velocity_.copy_(running_velocity_);
    held_.copy_(running_held_);
    *held_lr_.data_ptr<double>() = running_lr_;
  }

  // x^i after a run of one step whatever τ, `gradient` standing for the one computed at point()
  // (async_util.h).
  torch::Tensor message(const torch::Tensor& gradient, const torch::Tensor& received,
                        double lr) override {
    return one_step_message(*this, gradient_copy_, gradient, received, lr);
  }

  int64_t state_bytes() const override {
    return bytes_of(x_) + bytes_of(point_) + bytes_of(velocity_) + bytes_of(running_velocity_) +
           bytes_of(held_) + bytes_of(running_held_) + bytes_of(held_lr_) +
           bytes_of(gradient_copy_);
  }
  NamedTensors state() override {
    NamedTensors state = {{"held", held_}, {"held_lr", held_lr_}};
    if (kMomentum) state.emplace_back("velocity", velocity_);
    return state;
  }

 private:
  // EASGD: x ← x − ηd.  EAMSGD: v ← δv + ηd, x ← x − v.
  void take_step(const torch::Tensor& d, double lr) {
    if (kMomentum) {
      running_velocity_.mul_(momentum_scalar_).add_(d, lr);
      x_.sub_(running_velocity_);
    } else {
      x_.add_(d, -lr);
    }
  }
  // EAMSGD's gradients are taken at x − δv.
  void update_point() {
    if (kMomentum) at::sub_out(point_, x_, running_velocity_, momentum_);
  }

  int64_t steps_;  // τ
  double weight_decay_;
  double momentum_;                 // δ
  torch::Tensor momentum_scalar_;   // δ, 0-dim
  torch::Tensor x_;                 // x^i of the run in progress
  torch::Tensor point_;             // x^i − δv^i (EAMSGD)
  torch::Tensor velocity_;          // v^i as of the last commit (EAMSGD)
  torch::Tensor running_velocity_;  // v^i of the run in progress
  torch::Tensor held_;              // d held for the next run, as of the last commit
  torch::Tensor running_held_;      // the run's last d
  torch::Tensor held_lr_;           // its rate, 0-dim double (checkpointed)
  torch::Tensor gradient_copy_;     // message()'s scratch (allocated there)
  double running_lr_ = 0.0;
  int64_t taken_ = 0;  // gradients taken in this run
};

std::vector<OptionSpec> elastic_local_options() {
  return {elastic_beta_option(), integer_option("local.steps", 4, kLocalStepsHelp, 1)};
}

}  // namespace

AsyncAlgorithm easgd_local_algorithm() {
  return rule_algorithm<ElasticCentre, ElasticWorker<false>>(
      "easgd-local",
      "asynchronous EASGD as published: workers keep their runs and exchange with the centre every "
      "local.steps steps (Zhang et al. 2015); momentum is not read",
      elastic_local_options());
}

AsyncAlgorithm eamsgd_local_algorithm() {
  return rule_algorithm<ElasticCentre, ElasticWorker<true>>(
      "eamsgd-local",
      "EAMSGD as published: easgd-local whose workers take Nesterov momentum steps (Zhang et al. "
      "2015)",
      elastic_local_options());
}

}  // namespace dsgd
