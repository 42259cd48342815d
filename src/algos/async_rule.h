// Asynchronous parameter-server algorithms as pure rules over flat float tensors.
//
// An algorithm is a server rule (state, message in, parameters out) plus a worker rule
// (gradient in, message out). Engines (the simulator, MPI) only move tensors between them and
// decide the order in which messages arrive; no rule includes an engine header. Every rule is
// element-wise, so an engine may also shard the flat vector and run one server rule per slice.
//
// Protocol, for each worker i:
//   server.parameters_for(i, lr, out)        -> worker computes g at `out` (called θ̂_i)
//   msg = worker_rule[i].message(g, θ̂_i)
//   server.apply(i, msg, lr)                 -> server state advances by one update
// `lr` is η at the server's current update count (schedules live in the engine).
#pragma once

#include <torch/torch.h>

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace dsgd {

struct AsyncOptions {
  double momentum = 0.9;      // γ
  double weight_decay = 0.0;  // λ, applied as d = g + λθ with the server's current θ
  double dc_lambda = 2.0;     // λ_dc of delay compensation (dc-asgd, dana-dc)
  bool dc_adaptive = false;   // DC-ASGD-a: λ_t = λ_dc / sqrt(MS_i + ε), element-wise
  double dc_ms_decay = 0.95;  // m in MS_i ← m·MS_i + (1−m)·g⊙g
  double dc_epsilon = 1e-7;   // ε
};

// Named tensors a rule must checkpoint to resume bit for bit. The tensors alias the rule's own
// state: saving reads them, restoring copies into them (tensor.copy_(saved)).
using NamedTensors = std::vector<std::pair<std::string, torch::Tensor>>;

class AsyncServerRule {
 public:
  virtual ~AsyncServerRule() = default;
  // Writes the parameters to send worker i into `out` (same shape as θ, preallocated).
  virtual void parameters_for(int64_t worker, double lr, torch::Tensor& out) = 0;
  // Applies worker i's message: one server update.
  virtual void apply(int64_t worker, const torch::Tensor& message, double lr) = 0;
  // The parameters to evaluate (θ, or Θ for dana-slim). A view of server state: do not modify.
  virtual const torch::Tensor& center() const = 0;
  // Bytes of server state (θ included): what the rule costs the server in memory.
  virtual int64_t state_bytes() const = 0;
  virtual NamedTensors state() = 0;
};

class AsyncWorkerRule {
 public:
  virtual ~AsyncWorkerRule() = default;
  // Turns the gradient g computed at the received parameters θ̂_i into the message to send.
  // The returned tensor may alias worker state; the engine sends (copies) it before the next call.
  virtual torch::Tensor message(const torch::Tensor& gradient, const torch::Tensor& received) = 0;
  virtual int64_t state_bytes() const = 0;
  virtual NamedTensors state() = 0;
};

// Worker rule for algorithms whose message is the raw gradient.
class GradientWorkerRule : public AsyncWorkerRule {
 public:
  torch::Tensor message(const torch::Tensor& gradient, const torch::Tensor&) override {
    return gradient;
  }
  int64_t state_bytes() const override { return 0; }
  NamedTensors state() override { return {}; }
};

struct AsyncAlgorithm {
  std::string name;
  std::string description;  // one line, for `dsgd list`
  // theta0: initial parameters (the rule keeps its own copy); workers: N.
  std::function<std::unique_ptr<AsyncServerRule>(const AsyncOptions&, const torch::Tensor& theta0,
                                                 int64_t workers)>
      make_server;
  std::function<std::unique_ptr<AsyncWorkerRule>(const AsyncOptions&, int64_t worker,
                                                 const torch::Tensor& theta0)>
      make_worker;
};

// All asynchronous algorithms, in the order `dsgd list` shows them.
const std::vector<AsyncAlgorithm>& async_algorithms();
// Throws ConfigError naming the closest algorithm for an unknown name.
const AsyncAlgorithm& find_async_algorithm(const std::string& name);

}  // namespace dsgd
