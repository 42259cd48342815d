// The asynchronous local-SGD family's workers and shared pieces; see async_local.h.
#include "algos/async_local.h"

#include "algos/async_util.h"
#include "algos/local_optimizer.h"
#include "algos/outer_optimizer.h"

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

// A server rule applied to pseudo-gradients at the constant outer rate α (at_outer_rate).
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

std::unique_ptr<AsyncWorkerRule> make_local_worker(const AsyncOptions& options, int64_t,
                                                   const torch::Tensor& theta0) {
  return std::make_unique<LocalStepsWorker>(options, theta0);
}

}  // namespace

AsyncAlgorithm local_algorithm(std::string name, std::string description,
                               std::vector<OptionSpec> keys,
                               decltype(AsyncAlgorithm::make_server) make_server) {
  AsyncAlgorithm algorithm{std::move(name), std::move(description), std::move(keys),
                           std::move(make_server), make_local_worker};
  algorithm.local_optimizer = true;
  return algorithm;
}

std::unique_ptr<AsyncServerRule> at_outer_rate(std::unique_ptr<AsyncServerRule> rule,
                                               double outer_lr) {
  return std::make_unique<OuterRate>(std::move(rule), outer_lr);
}

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

}  // namespace dsgd
