// Asynchronous parameter-server algorithms as pure rules over flat float tensors.
//
// An algorithm is a server rule (state, message in, parameters out) plus a worker rule
// (gradient in, message out). Engines (the simulator, MPI) only move tensors between them and
// decide the order in which messages arrive; no rule includes an engine header. Every rule is
// element-wise, so an engine may also shard the flat vector and run one server rule per slice.
//
// Protocol, for each worker i:
//   server.parameters_for(i, out)            -> worker computes g at `out` (called θ̂_i)
//   msg = worker_rule[i].message(g, θ̂_i, η)
//   server.apply(i, msg, η)                  -> server state advances by one update
//
// Momentum convention (docs/design/algorithms.md): the rate η sits inside the velocity, as in the
// DANA paper: v ← γv + η·d, θ ← θ − v, and the look-ahead is θ − γ·Σv. Weight decay belongs to
// the gradient at the point it was computed at: d = g + λ·θ̂_i. `η` of a message is the rate in
// force when its worker was sent θ̂_i (the schedule at that server update count), so a worker
// knows it when it builds its message and the server applies the same value. With these, DANA-Slim
// and DANA-Zero are one algorithm under any schedule and any weight decay.
#pragma once

#include <torch/torch.h>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "algos/local_adamw.h"
#include "algos/local_optimizer.h"
#include "algos/options.h"

namespace dsgd {

// What every asynchronous rule reads, plus the algorithm's own declared keys (AsyncAlgorithm::
// options). A rule is made from resolved options: every declared key holds its value, and every
// value is in range. The config resolves them once (RunConfig::algo_options, and the key table
// checks momentum and weight_decay); options built by hand go through with_defaults. A rule that
// reads a key nobody resolved throws Error (OptionValues::number).
struct AsyncOptions {
  double momentum = 0.9;      // γ
  double weight_decay = 0.0;  // λ, applied as d = g + λθ̂_i at the point g was computed at
  // v ← γv + ηd, θ ← θ − v; false: v ← γv + d, θ ← θ − ηv (PyTorch's SGD). Rules that cannot
  // take the rate outside their velocities refuse false (async_util.h).
  bool lr_in_velocity = true;
  // The run's base learning rate. Messages carry the scheduled rate η; a rule that tunes its own
  // rate (YellowFin) reads η / lr as the schedule's shape.
  double lr = 0.1;
  OptionValues values;  // the algorithm's own keys, e.g. dc.lambda
  // The local steps' optimizer, for the rules that take them (AsyncAlgorithm::local_optimizer):
  // SGD (momentum, weight_decay, lr_in_velocity above) or AdamW.
  LocalOptimizerKind optimizer = LocalOptimizerKind::kSgd;
  AdamWOptions adamw;
  double grad_clip = 0.0;  // the local steps' gradient norm limit (0: none)
};

// Named tensors a rule must checkpoint to resume bit for bit. The tensors alias the rule's own
// state: saving reads them, restoring copies into them (tensor.copy_(saved)).
using NamedTensors = std::vector<std::pair<std::string, torch::Tensor>>;

class AsyncServerRule {
 public:
  virtual ~AsyncServerRule() = default;
  // Writes the parameters to send worker i into `out` (same shape as θ, preallocated).
  virtual void parameters_for(int64_t worker, torch::Tensor& out) = 0;
  // Applies worker i's message, built at learning rate `lr`: one server update.
  virtual void apply(int64_t worker, const torch::Tensor& message, double lr) = 0;
  // The model's parameters θ the server holds (Θ for dana-slim, whose server holds nothing
  // else): what the gap telemetry measures messages against. A view of server state: do not
  // modify.
  virtual const torch::Tensor& center() const = 0;
  // The parameters evaluated for metrics.csv: θ, or the look-ahead Θ for the DANA family
  // (docs/design/algorithms.md#the-evaluation-point); evaluated_name() says which, in summary.json.
  virtual const torch::Tensor& evaluated() const { return center(); }
  virtual std::string evaluated_name() const { return "theta"; }
  // Bytes of server state (θ included): what the rule costs the server in memory.
  virtual int64_t state_bytes() const = 0;
  virtual NamedTensors state() = 0;
  // Scalars of the rule's own that each evaluation row of metrics.csv carries (YellowFin's tuned
  // momentum and rate). On MPI, server shard 0's rule reports.
  virtual void report(std::map<std::string, double>& /*columns*/) const {}
};

// A worker that takes local steps between exchanges (the local.steps key of the algorithms that
// declare it: async_local.h). For each exchange the engine calls
//   begin(received)                       the run starts at the parameters the server sent
//   H times: g at point(); step(g, lr)    on the worker's next H minibatches, at the rate of
//                                         the exchange (the one the server sent it with)
//   message = finish()                    what the worker sends
//   commit()                              once the server has the message
// Until commit() the rule's state() is what it was before begin(), so an engine may run the steps
// ahead of the exchange (the simulator does, in parallel) and a checkpoint in between still
// resumes exactly.
class LocalRun {
 public:
  virtual ~LocalRun() = default;
  virtual void begin(const torch::Tensor& received) = 0;
  // Where the next gradient is computed.
  virtual const torch::Tensor& point() const = 0;
  // One local step; `gradient` is used as scratch.
  virtual void step(torch::Tensor& gradient, double lr) = 0;
  // The message; it aliases worker state until the next begin().
  virtual const torch::Tensor& finish() = 0;
  virtual void commit() = 0;
};

class AsyncWorkerRule {
 public:
  virtual ~AsyncWorkerRule() = default;
  // Turns the gradient g computed at the received parameters θ̂_i into the message to send, at
  // the message's learning rate `lr`. The returned tensor may alias worker state or `gradient`;
  // the engine sends (copies) it before the next call.
  virtual torch::Tensor message(const torch::Tensor& gradient, const torch::Tensor& received,
                                double lr) = 0;
  virtual int64_t state_bytes() const = 0;
  virtual NamedTensors state() = 0;
  // For rules whose server keeps a look-ahead rather than the model's parameters θ (DANA-Slim):
  // follow_parameters moves `theta` as this worker's last message moved the model (θ ← θ − v_i),
  // so that an engine holding every worker (the simulator) can follow θ for the gap telemetry.
  virtual bool follows_parameters() const { return false; }
  virtual void follow_parameters(torch::Tensor& /*theta*/) const {}
  // Workers that take local steps: their run (engines then call it instead of message()).
  virtual LocalRun* local_run() { return nullptr; }
};

// Worker rule for algorithms whose message is the gradient of the regularised loss at the
// received parameters, d = g + λθ̂_i.
class GradientWorkerRule : public AsyncWorkerRule {
 public:
  // `like`: shaped like θ; the buffer for d is made here, so that messages never allocate.
  GradientWorkerRule(double weight_decay, const torch::Tensor& like) : weight_decay_(weight_decay) {
    if (weight_decay_ != 0.0) decayed_ = torch::empty(like.sizes(), like.options());
  }
  torch::Tensor message(const torch::Tensor& gradient, const torch::Tensor& received,
                        double /*lr*/) override {
    if (weight_decay_ == 0.0) return gradient;
    // d = g + λθ̂_i
    at::add_out(decayed_, gradient, received, weight_decay_);
    return decayed_;
  }
  int64_t state_bytes() const override {
    return decayed_.defined() ? decayed_.numel() * static_cast<int64_t>(decayed_.element_size())
                              : 0;
  }
  NamedTensors state() override { return {}; }

 private:
  double weight_decay_;    // λ
  torch::Tensor decayed_;  // d, when λ ≠ 0
};

struct AsyncAlgorithm {
  std::string name;
  std::string description;          // one line, for `dsgd list`
  std::vector<OptionSpec> options;  // its own config keys
  // options: resolved (AsyncOptions); theta0: initial parameters (the rule keeps its own copy);
  // workers: N.
  std::function<std::unique_ptr<AsyncServerRule>(const AsyncOptions&, const torch::Tensor& theta0,
                                                 int64_t workers)>
      make_server;
  std::function<std::unique_ptr<AsyncWorkerRule>(const AsyncOptions&, int64_t worker,
                                                 const torch::Tensor& theta0)>
      make_worker;
  // Whether the server rule works coordinate by coordinate, so that an engine may split θ into
  // slices and run one rule per slice (servers > 1). A rule that reads global quantities (norms,
  // medians: YellowFin) would tune each slice apart, and refuses servers > 1.
  bool element_wise = true;
  // Whether its workers take local steps with algos/local_optimizer.h (the `optimizer` key).
  bool local_optimizer = false;
};

// `options` with the algorithm's own keys resolved: declared defaults filled in, ranges checked,
// an undeclared key refused (resolve_options, ConfigError naming the key). For rules made outside
// a run's config (tests, benchmarks): a run's config has already resolved its options.
inline AsyncOptions with_defaults(const AsyncAlgorithm& algorithm, AsyncOptions options) {
  options.values = resolve_options(algorithm.options, options.values);
  return options;
}

// All asynchronous algorithms, in the order `dsgd list` shows them.
const std::vector<AsyncAlgorithm>& async_algorithms();
// Throws ConfigError naming the closest algorithm for an unknown name.
const AsyncAlgorithm& find_async_algorithm(const std::string& name);
// Throws ConfigError when `servers` shards would split a rule that is not element-wise. Both
// engines call it, so that a configuration one refuses the other refuses too.
void check_server_shards(const AsyncAlgorithm& algorithm, int64_t servers);

}  // namespace dsgd
