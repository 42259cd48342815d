// Asynchronous local SGD: each worker runs H = local.steps steps of its own from the parameters
// the server sent, with the run's optimizer (algos/local_optimizer.h: SGD with the run's momentum,
// weight decay and rate convention, or AdamW, the paper's; its state, velocity or moments and
// step count, kept from one exchange to the next) and sends the pseudo-gradient Δ = x_start −
// x_end; the server applies each Δ as it arrives with an outer optimizer (Liu et al. 2024,
// "Asynchronous Local-SGD Training for Language Modeling", arXiv 2401.09135). Every local step of
// an exchange takes the rate the server sent it with (async_rule.h). Three outer rules, at outer
// rate α = outer.lr and outer momentum β = outer.momentum:
//
//   async-local-sgd  outer SGD on each Δ as it lands: θ ← θ − αΔ (β = 0); u ← βu + Δ,
//                    θ ← θ − αu (heavy ball); θ ← θ − α(βu + Δ) (outer.nesterov: the paper's
//                    Eq. 4, DiLoCo's outer step applied asynchronously). It is the asgd, asgd-m
//                    and nag-asgd server fed Δ at rate α.
//   async-local-dn   Delayed Nesterov (the paper's Algorithm 3): the buffer moves once per N =
//                    dn.period arrivals (0: N = workers), on their mean, and θ takes plain steps
//                    in between; with c = dn.c, at arrival t
//                      Σ ← Σ + Δ_t
//                      t mod N = 0:  u ← βu + Σ/N;  θ ← θ − α((1 − cN + c)βu + Δ_t/N);  Σ ← 0
//                      otherwise:    θ ← θ − α(cβu + Δ_t/N)
//                    With c = 0 (the paper's default) N arrivals move θ exactly as one Nesterov
//                    step on their mean (tested).
//   dana-local       DANA-Zero's server as the outer rule: a velocity per worker, v_i ← βv_i + αΔ,
//                    θ ← θ − v_i, and every worker is sent the look-ahead θ − βΣ_j v_j, the
//                    parameters as they will be once the pseudo-gradients in flight have landed.
//                    With H = 1, no local momentum, α = 1 and β = the run's γ it is dana-zero
//                    (tested to rounding: Δ is a difference of parameters).
//
// With local.dylu (Dynamic Local Updates, the paper's Eq. 6; at least one step) worker i takes
// H_i = max(1, ⌊v_i / max_j v_j · H⌋) steps, v the worker speeds the config declares; the engines
// size the runs (train/local_steps.h), the rules are unchanged.
//
// The outer rate α is constant, so both rate conventions (lr_in_velocity) give the same outer
// steps; the local steps follow the run's convention. Weight decay is taken in the local steps
// only.
#include <fmt/format.h>

#include "algos/async_algorithms.h"
#include "algos/async_util.h"
#include "algos/dana_zero.h"
#include "algos/local_optimizer.h"
#include "algos/outer_optimizer.h"
#include "algos/server_sgd.h"

namespace dsgd {
namespace {

using namespace async_internal;  // NOLINT(build/namespaces): the helpers of async_util.h

LocalOptimizerOptions local_optimizer_options(const AsyncOptions& options) {
  LocalOptimizerOptions local(
      SgdOptions{options.momentum, false, options.weight_decay, options.lr_in_velocity});
  local.kind = options.optimizer;
  local.adamw = options.adamw;
  local.clip_norm = options.grad_clip;
  return local;
}

// A worker's local run (async_rule.h, LocalRun): the steps go to `point_` and a running copy of
// the optimizer's state (and step count); commit() keeps them.
class LocalStepsWorker : public AsyncWorkerRule, public LocalRun {
 public:
  LocalStepsWorker(const AsyncOptions& options, const torch::Tensor& theta0)
      : optimizer_(local_optimizer_options(options), theta0),
        start_(torch::empty_like(theta0)),
        point_(torch::empty_like(theta0)),
        steps_(torch::zeros({}, torch::kInt64)) {
    if (optimizer_.state().defined()) {
      state_ = torch::zeros_like(optimizer_.state());
      running_state_ = torch::zeros_like(optimizer_.state());
      optimizer_.keep_state_in(running_state_);
    }
  }

  LocalRun* local_run() override { return this; }

  void begin(const torch::Tensor& received) override {
    start_.copy_(received);
    point_.copy_(received);
    if (state_.defined()) running_state_.copy_(state_);
    running_steps_ = steps_.item<int64_t>();
  }
  const torch::Tensor& point() const override { return point_; }
  void step(torch::Tensor& gradient, double lr) override {
    optimizer_.step(point_, gradient, lr, ++running_steps_);
  }
  // Δ = x_start − x_end, in start_'s storage.
  const torch::Tensor& finish() override { return start_.sub_(point_); }
  void commit() override {
    if (state_.defined()) state_.copy_(running_state_);
    steps_.fill_(running_steps_);
  }

  // Δ of one local step (async_util.h).
  torch::Tensor message(const torch::Tensor& gradient, const torch::Tensor& received,
                        double lr) override {
    return one_step_message(*this, gradient_copy_, gradient, received, lr);
  }

  int64_t state_bytes() const override {
    return bytes_of(start_) + bytes_of(point_) + bytes_of(state_) + bytes_of(running_state_) +
           bytes_of(gradient_copy_);
  }
  // The step count only for AdamW (its bias corrections), so SGD's checkpoints stay as they were.
  NamedTensors state() override {
    NamedTensors named;
    if (state_.defined()) named.push_back({"velocity", state_});
    if (optimizer_.is_adamw()) named.push_back({"local_steps", steps_});
    return named;
  }

 private:
  LocalOptimizer optimizer_;
  torch::Tensor start_;          // x_start, then Δ
  torch::Tensor point_;          // x
  torch::Tensor state_;          // the optimizer's state as of the last commit (velocity, [m | v])
  torch::Tensor running_state_;  // the state of the run in progress
  torch::Tensor steps_;          // local steps taken as of the last commit, 0-dim, on the host
  int64_t running_steps_ = 0;    // those of the run in progress
  torch::Tensor gradient_copy_;  // message()'s scratch (allocated there)
};

// local.steps, then the outer keys with this rule's defaults (the published ones where a paper
// gives them), then the rule's own.
std::vector<OptionSpec> local_keys(double outer_lr, double outer_momentum, bool with_nesterov,
                                   std::vector<OptionSpec> own) {
  std::vector<OptionSpec> keys = {
      integer_option("local.steps", 4, kLocalStepsHelp),
      boolean_option("local.dylu", false,
                     "Dynamic Local Updates: worker i takes floor(v_i / max v * H) steps, v the "
                     "declared speeds (timing.speeds, timing.spread), so that exchanges take "
                     "about equally long (Liu et al. 2024)")};
  return joined_options(
      joined_options(std::move(keys),
                     outer_optimizer_keys(outer_lr, outer_momentum, with_nesterov)),
      own);
}

// The options of the server rule an outer rule is made of: momentum β, no weight decay (the
// local steps take it), the given keys of its own resolved.
AsyncOptions outer_rule_options(const AsyncOptions& options,
                                const std::vector<OptionSpec>& rule_keys,
                                const OptionValues& rule_values) {
  AsyncOptions outer = options;
  outer.momentum = options.values.number("outer.momentum");
  outer.weight_decay = 0.0;
  outer.lr = options.values.number("outer.lr");
  outer.values = resolve_options(rule_keys, rule_values);
  return outer;
}

// A server rule applied to pseudo-gradients at the constant outer rate α instead of the schedule's.
class OuterRate : public AsyncServerRule {
 public:
  OuterRate(std::unique_ptr<AsyncServerRule> rule, double outer_lr)
      : rule_(std::move(rule)), outer_lr_(outer_lr) {}
  void parameters_for(int64_t worker, torch::Tensor& out) override {
    rule_->parameters_for(worker, out);
  }
  void apply(int64_t worker, const torch::Tensor& delta, double /*lr*/) override {
    rule_->apply(worker, delta, outer_lr_);
  }
  const torch::Tensor& center() const override { return rule_->center(); }
  const torch::Tensor& evaluated() const override { return rule_->evaluated(); }
  std::string evaluated_name() const override { return rule_->evaluated_name(); }
  int64_t state_bytes() const override { return rule_->state_bytes(); }
  NamedTensors state() override { return rule_->state(); }

 private:
  std::unique_ptr<AsyncServerRule> rule_;
  double outer_lr_;
};

// Delayed Nesterov; see the top of this file. u = momentum_, Σ = pending_, t = arrivals_.
class DelayedNesterovServer : public ThetaServer {
 public:
  DelayedNesterovServer(const AsyncOptions& options, const torch::Tensor& theta0, int64_t workers)
      : ThetaServer(outer_rule_options(options, convention_options(), {}), theta0, workers),
        outer_lr_(options.values.number("outer.lr")),
        period_(options.values.integer("dn.period") > 0 ? options.values.integer("dn.period")
                                                        : workers),
        c_(options.values.number("dn.c")),
        beta_(torch::full({}, momentum_, theta_.options())),
        u_(torch::zeros_like(theta_)),
        pending_(torch::zeros_like(theta_)),
        arrivals_(torch::zeros({}, torch::kLong)) {
    if (c_ > 1.0 / static_cast<double>(period_)) {
      throw ConfigError(fmt::format("dn.c = {} must be at most 1/N = 1/{} (dn.period, or the "
                                    "number of workers when dn.period = 0)",
                                    c_, period_),
                        "leave dn.c at 0, the paper's default");
    }
  }

  void apply(int64_t worker, const torch::Tensor& delta, double /*lr*/) override {
    check_call(worker, delta);
    // t, counted in the checkpointed tensor itself (no allocation per update)
    const int64_t t = ++*arrivals_.data_ptr<int64_t>();
    const double n = static_cast<double>(period_);
    const double beta = momentum_;
    pending_.add_(delta);
    if (t % period_ == 0) {
      // u ← βu + Σ/N;  θ ← θ − α((1 − cN + c)βu + Δ_t/N);  Σ ← 0
      u_.mul_(beta_).add_(pending_, 1.0 / n);
      theta_.add_(u_, -outer_lr_ * (1.0 - c_ * n + c_) * beta).add_(delta, -outer_lr_ / n);
      pending_.zero_();
    } else {
      // θ ← θ − α(cβu + Δ_t/N)
      if (c_ != 0.0) theta_.add_(u_, -outer_lr_ * c_ * beta);
      theta_.add_(delta, -outer_lr_ / n);
    }
  }

  int64_t state_bytes() const override {
    return bytes_of(theta_) + bytes_of(u_) + bytes_of(pending_);
  }
  NamedTensors state() override {
    return {{"theta", theta_}, {"u", u_}, {"pending", pending_}, {"arrivals", arrivals_}};
  }

 private:
  double outer_lr_;  // α
  int64_t period_;   // N
  double c_;
  torch::Tensor beta_;      // β, 0-dim: Tensor::mul_(double) would allocate
  torch::Tensor u_;         // u
  torch::Tensor pending_;   // Σ, the pseudo-gradients since the buffer last moved
  torch::Tensor arrivals_;  // t, 0-dim
};

std::unique_ptr<AsyncWorkerRule> make_local_worker(const AsyncOptions& options, int64_t,
                                                   const torch::Tensor& theta0) {
  return std::make_unique<LocalStepsWorker>(options, theta0);
}

AsyncAlgorithm local_algorithm(std::string name, std::string description,
                               std::vector<OptionSpec> keys,
                               decltype(AsyncAlgorithm::make_server) make_server) {
  AsyncAlgorithm algorithm{std::move(name), std::move(description), std::move(keys),
                           std::move(make_server), make_local_worker};
  algorithm.local_optimizer = true;
  return algorithm;
}

}  // namespace

AsyncAlgorithm async_local_sgd_algorithm() {
  return local_algorithm(
      "async-local-sgd",
      "asynchronous local SGD: H local steps, the pseudo-gradient applied by outer SGD (Liu et al. "
      "2024; outer.nesterov: async DiLoCo)",
      local_keys(1.0, 0.0, true, {}),
      [](const AsyncOptions& options, const torch::Tensor& theta0, int64_t workers) {
        check_setup(theta0, workers);
        const AsyncOptions outer = outer_rule_options(options, convention_options(), {});
        std::unique_ptr<AsyncServerRule> rule;
        if (outer.momentum == 0.0) {
          rule = std::make_unique<ServerSgd<ServerMomentum::kNone>>(outer, theta0, workers);
        } else if (options.values.flag("outer.nesterov")) {
          rule = std::make_unique<ServerSgd<ServerMomentum::kNesterov>>(outer, theta0, workers);
        } else {
          rule = std::make_unique<ServerSgd<ServerMomentum::kHeavyBall>>(outer, theta0, workers);
        }
        return std::make_unique<OuterRate>(std::move(rule), outer.lr);
      });
}

AsyncAlgorithm async_local_dn_algorithm() {
  return local_algorithm(
      "async-local-dn",
      "asynchronous local SGD with Delayed Nesterov: the outer buffer moves once per N "
      "pseudo-gradients (Liu et al. 2024)",
      // DiLoCo's outer rate and momentum, which the paper's outer rules start from.
      local_keys(0.7, 0.9, false,
                 {integer_option("dn.period", 0,
                                 "N: pseudo-gradients per move of the outer buffer (0: the "
                                 "number of workers)",
                                 0),
                  number_option("dn.c", 0.0,
                                "c in [0, 1/N]: the share of the buffer applied at every "
                                "arrival (the paper's default 0)",
                                0.0)}),
      [](const AsyncOptions& options, const torch::Tensor& theta0, int64_t workers) {
        check_setup(theta0, workers);
        return std::make_unique<DelayedNesterovServer>(options, theta0, workers);
      });
}

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
        return std::make_unique<OuterRate>(std::make_unique<DanaZeroServer>(outer, theta0, workers),
                                           outer.lr);
      });
}

}  // namespace dsgd
