// Small helpers shared by the asynchronous rule files: checks done once at construction and
// cheap checks per call, the copy of θ a server keeps, and per-worker state blocks.
// Private to src/algos/.
#pragma once

#include <torch/torch.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "algos/async_rule.h"
#include "core/errors.h"

namespace dsgd {
namespace async_internal {

// Checks what every server rule assumes about θ0 and N.
inline void check_setup(const torch::Tensor& theta0, int64_t workers) {
  if (!theta0.defined() || !theta0.is_floating_point() || theta0.numel() == 0) {
    throw Error("async rule: initial parameters must be a non-empty floating-point tensor");
  }
  if (workers < 1) {
    throw ConfigError("workers must be >= 1, got " + std::to_string(workers),
                      "set workers to the number of asynchronous workers");
  }
}

// Engine bugs, not user errors: a worker index or message that does not fit the rule.
inline void check_worker(int64_t worker, int64_t workers) {
  if (worker < 0 || worker >= workers) {
    throw Error("async rule: worker " + std::to_string(worker) + " out of range for " +
                std::to_string(workers) + " workers");
  }
}

inline void check_message(const torch::Tensor& message, const torch::Tensor& theta) {
  if (message.numel() != theta.numel()) {
    throw Error("async rule: message has " + std::to_string(message.numel()) +
                " elements, parameters have " + std::to_string(theta.numel()));
  }
}

// The server's own contiguous copy of θ0.
inline torch::Tensor copy_parameters(const torch::Tensor& theta0) {
  return theta0.detach().clone(at::MemoryFormat::Contiguous);
}

// One zero vector per worker, as a single [N, P] block (one allocation, one checkpoint entry).
inline torch::Tensor zeros_per_worker(const torch::Tensor& theta, int64_t workers) {
  return torch::zeros({workers, theta.numel()}, theta.options());
}

// Views of the block's rows shaped like θ, made once so the hot path creates no views.
inline std::vector<torch::Tensor> rows_of(const torch::Tensor& block, const torch::Tensor& theta) {
  std::vector<torch::Tensor> rows;
  rows.reserve(block.size(0));
  for (int64_t i = 0; i < block.size(0); ++i) rows.push_back(block[i].view(theta.sizes()));
  return rows;
}

inline int64_t bytes_of(const torch::Tensor& t) {
  return t.defined() ? t.numel() * static_cast<int64_t>(t.element_size()) : 0;
}

// The message of a rule with local steps driven as one without (tests and benchmarks drive every
// rule alike; engines call the run): one step from `received`, at which `gradient` was computed.
// The step uses its gradient as scratch, so `gradient` is copied into `scratch` first, allocated
// on first use (engines never come here: no P floats per worker for them).
inline torch::Tensor one_step_message(LocalRun& run, torch::Tensor& scratch,
                                      const torch::Tensor& gradient, const torch::Tensor& received,
                                      double lr) {
  if (!scratch.defined()) scratch = torch::empty_like(gradient);
  scratch.copy_(gradient);
  run.begin(received);
  run.step(scratch, lr);
  torch::Tensor message = run.finish();
  run.commit();
  return message;
}

// The two conventions in which published implementations of the same rule differ
// (docs/design/algorithms.md, "Conventions"):
//   lr_in_velocity   (a run key, AsyncOptions) true (dsgd's, the DANA paper's equations):
//                    v ← γv + ηd, θ ← θ − v; false (PyTorch's SGD, the DANA authors' simulator):
//                    v ← γv + d, θ ← θ − ηv. Equal under a constant rate; under a schedule the
//                    first keeps each step at the rate it was computed at.
//   decay_at_server  (declared by the rules whose server holds θ: convention_options) false
//                    (dsgd's): weight decay at θ̂_i, the parameters the gradient was computed at,
//                    folded in by the worker (d = g + λθ̂_i); true (PyTorch's SGD on a server, the
//                    DANA authors' simulator, MXNet's DCASGD): at the server's θ when the message
//                    is applied (d = g + λθ).
std::vector<OptionSpec> convention_options();
// easgd.beta, the key of every elastic-averaging rule (easgd.cpp, easgd_local.cpp).
OptionSpec elastic_beta_option();
// local.steps's help, one text for every rule that declares it (`dsgd list keys` shows one row).
inline constexpr const char* kLocalStepsHelp =
    "steps a worker takes on its own between two exchanges with the server (H of local SGD, tau "
    "of elastic averaging)";
// The keys of `first` then those of `second`: a rule declaring two families of keys.
inline std::vector<OptionSpec> joined_options(std::vector<OptionSpec> first,
                                              const std::vector<OptionSpec>& second) {
  first.insert(first.end(), second.begin(), second.end());
  return first;
}
// For rules whose equations only exist with the rate inside the velocity.
inline void require_lr_in_velocity(const AsyncOptions& options, const std::string& algo,
                                   const std::string& why) {
  if (options.lr_in_velocity) return;
  throw ConfigError("lr_in_velocity = false is not defined for algo = \"" + algo + "\": " + why,
                    "leave lr_in_velocity at true for " + algo);
}
inline bool decay_at_server(const AsyncOptions& options) {
  return options.values.has("decay_at_server") && options.values.flag("decay_at_server");
}

// What every server rule holds: θ (its own contiguous copy of θ0), γ, N, and the per-call
// checks. parameters_for sends θ itself; rules that send something else override it. Weight
// decay is the workers' (they fold it into their messages, async_rule.h) unless decay_at_server.
class ThetaServer : public AsyncServerRule {
 public:
  ThetaServer(const AsyncOptions& options, const torch::Tensor& theta0, int64_t workers)
      : options_(options),
        momentum_(options.momentum),
        workers_(workers),
        lr_in_velocity_(options.lr_in_velocity),
        theta_(copy_parameters(theta0)),
        momentum_scalar_(torch::full({}, options.momentum, theta_.options())),
        server_decay_(decay_at_server(options) ? options.weight_decay : 0.0) {
    if (server_decay_ != 0.0) decayed_ = torch::empty_like(theta_);
  }

  void parameters_for(int64_t worker, torch::Tensor& out) override {
    check_worker(worker, workers_);
    out.copy_(theta_);
  }
  const torch::Tensor& center() const override { return theta_; }

 protected:
  void check_call(int64_t worker, const torch::Tensor& message) const {
    check_worker(worker, workers_);
    check_message(message, theta_);
  }
  // The message with weight decay at the server's θ when decay_at_server (d + λθ, in a scratch
  // buffer), else the message itself.
  const torch::Tensor& decayed(const torch::Tensor& message) {
    if (server_decay_ == 0.0) return message;
    at::add_out(decayed_, message, theta_, server_decay_);
    return decayed_;
  }
  // v ← γv + ηd (lr_in_velocity), or v ← γv + d. γ multiplies as a 0-dim tensor:
  // Tensor::mul_(double) wraps the double in a freshly allocated tensor on every call, and an
  // update must not allocate.
  void accumulate(torch::Tensor& v, const torch::Tensor& d, double lr) const {
    v.mul_(momentum_scalar_).add_(d, lr_in_velocity_ ? lr : 1.0);
  }
  // θ ← θ − v (lr_in_velocity), or θ ← θ − ηv: the heavy-ball step along a velocity.
  void step_along(const torch::Tensor& v, double lr) { theta_.sub_(v, lr_in_velocity_ ? 1.0 : lr); }
  int64_t decay_bytes() const { return bytes_of(decayed_); }

  AsyncOptions options_;  // resolved: the algorithm's own keys have their values
  double momentum_;       // γ
  int64_t workers_;       // N
  bool lr_in_velocity_;   // the convention (convention_options)
  torch::Tensor theta_;   // θ

 private:
  torch::Tensor momentum_scalar_;  // γ, 0-dim
  double server_decay_;            // λ when decay_at_server, else 0
  torch::Tensor decayed_;          // d + λθ, scratch (decay_at_server only)
};

// One vector per worker: a single [N, P] block (one allocation, one checkpoint entry) and views
// of its rows shaped like θ, made once so the hot path creates no views.
struct PerWorker {
  PerWorker(const torch::Tensor& theta, int64_t workers)
      : block(zeros_per_worker(theta, workers)), rows(rows_of(block, theta)) {}
  torch::Tensor& operator[](int64_t worker) { return rows[static_cast<size_t>(worker)]; }
  torch::Tensor block;
  std::vector<torch::Tensor> rows;
};

// A server rule whose messages are corrected before it applies them, by how far θ moved since the
// message's worker was sent its parameters: the base of DelayCompensated and GapAware. It keeps
// θ̂_i, what it last sent worker i (checkpointed as "theta_hat"); a subclass says how d becomes d'
// (correct) and may look at the step the inner rule took (applied).
template <class Server>
class CorrectedMessages : public Server {
 public:
  using Server::Server;

  void parameters_for(int64_t worker, torch::Tensor& out) override {
    // out = what the inner rule sends;  θ̂_i ← out
    Server::parameters_for(worker, out);
    sent_[worker].copy_(out);
  }
  // d = message, d' = corrected_: the inner rule applies d'.
  void apply(int64_t worker, const torch::Tensor& message, double lr) final {
    this->check_call(worker, message);
    correct(worker, message, lr, corrected_);
    Server::apply(worker, corrected_, lr);
    applied(lr);
  }
  // d' is rebuilt on every update: counted, not checkpointed.
  int64_t state_bytes() const override {
    return Server::state_bytes() + bytes_of(sent_.block) + bytes_of(corrected_);
  }
  NamedTensors state() override {
    NamedTensors state = Server::state();
    state.emplace_back("theta_hat", sent_.block);
    return state;
  }

 protected:
  // out = d', from d (built at rate `lr`) and θ̂_i = sent_[worker] (which may serve as scratch:
  // it is recorded again before the worker's next message).
  virtual void correct(int64_t worker, const torch::Tensor& message, double lr,
                       torch::Tensor& out) = 0;
  // After the inner rule's update at rate `lr`.
  virtual void applied(double /*lr*/) {}

  PerWorker sent_{this->theta_, this->workers_};               // θ̂_1..θ̂_N
  torch::Tensor corrected_ = torch::empty_like(this->theta_);  // d', scratch
};

// The registry entry of an algorithm from its server and worker rule classes, each constructed
// as (options, θ0, N) and (options, θ0); `specs` are the algorithm's own keys. The options come
// resolved (AsyncOptions): the config resolved and range-checked them once.
template <class Server, class Worker>
AsyncAlgorithm rule_algorithm(std::string name, std::string description,
                              std::vector<OptionSpec> specs = {}) {
  AsyncAlgorithm algorithm{std::move(name), std::move(description), std::move(specs), {}, {}};
  algorithm.make_server = [](const AsyncOptions& options, const torch::Tensor& theta0,
                             int64_t workers) -> std::unique_ptr<AsyncServerRule> {
    check_setup(theta0, workers);
    return std::make_unique<Server>(options, theta0, workers);
  };
  algorithm.make_worker = [](const AsyncOptions& options, int64_t,
                             const torch::Tensor& theta0) -> std::unique_ptr<AsyncWorkerRule> {
    return std::make_unique<Worker>(options, theta0);
  };
  return algorithm;
}

// Workers that send d = g + λθ̂_i, or the bare gradient g when the server takes the decay
// (decay_at_server).
struct DecayedGradientWorker : GradientWorkerRule {
  DecayedGradientWorker(const AsyncOptions& options, const torch::Tensor& theta0)
      : GradientWorkerRule(decay_at_server(options) ? 0.0 : options.weight_decay, theta0) {}
};

// Workers that send the bare gradient g: rules whose server needs g itself (delay compensation
// squares it) and applies the decay on its own.
struct BareGradientWorker : GradientWorkerRule {
  BareGradientWorker(const AsyncOptions&, const torch::Tensor& theta0)
      : GradientWorkerRule(0.0, theta0) {}
};

// The registry entry of an algorithm whose workers send d = g + λθ̂_i.
template <class Server>
AsyncAlgorithm gradient_algorithm(std::string name, std::string description,
                                  std::vector<OptionSpec> specs = {}) {
  return rule_algorithm<Server, DecayedGradientWorker>(std::move(name), std::move(description),
                                                       std::move(specs));
}

}  // namespace async_internal
}  // namespace dsgd
