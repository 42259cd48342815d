// The asynchronous parameter server, engine-neutral: the algorithm's server rule and everything a
// server keeps around it — the parameters each worker was sent and at which update, the learning
// rate of each worker's next message, staleness and gap telemetry, the recorded arrival order,
// messages a checkpoint collected but did not apply, and checkpoint save/restore. The simulator
// drives it with simulated arrivals and each MPI server shard with real ones; in both a message
// reaches the rule through AsyncServer::apply and nothing else, so the two engines run one server.
#pragma once

#include <torch/torch.h>

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "algos/async_rule.h"
#include "core/checkpoint.h"
#include "engine/async_telemetry.h"
#include "engine/trace.h"
#include "train/config.h"

namespace dsgd {

// The rules' options from the run's config (its algorithm keys already resolved): what both
// engines give the rules.
AsyncOptions async_options(const RunConfig& config);
// The traffic of an asynchronous run whose exchanges came from the workers in `order`, worker i
// computing steps[i] minibatches of `batch` samples per exchange, for a model of `params`
// parameters: `exchanges`; `global_bytes`, each exchange one message up and one set of
// parameters down, float32 (the loss and signal an MPI worker adds are left out), the synchronous
// engines' column for global traffic (docs/design/engines.md); and `samples`, the minibatches'
// samples. Cumulative.
std::map<std::string, double> exchange_traffic(const std::vector<int64_t>& order,
                                               const std::vector<int64_t>& steps, int64_t batch,
                                               int64_t params);

class AsyncServer {
 public:
  // The learning rate at a server update count (the run's schedule).
  using Schedule = std::function<double(int64_t updates)>;

  // theta0: the initial parameters (or an MPI shard's slice of them); gap_sample: see
  // AsyncTelemetry. Throws ConfigError for options the rule refuses.
  AsyncServer(const AsyncAlgorithm& algorithm, const AsyncOptions& options,
              const torch::Tensor& theta0, int64_t workers, Schedule lr_at, int64_t gap_sample);

  int64_t workers() const { return workers_; }

  // Gives worker i fresh parameters at server update count `updates`: writes them into its row
  // of the sent block and returns that row, which the engine may use as its send buffer until
  // the next send to i.
  torch::Tensor send(int64_t worker, int64_t updates);
  // θ̂_i: what worker i was last sent, and the update count when.
  const torch::Tensor& sent(int64_t worker) const { return sent_rows_[index(worker)]; }
  int64_t sent_at(int64_t worker) const { return sent_at_[index(worker)]; }
  // η of worker i's next message: the rate in force when it was sent its parameters
  // (algos/async_rule.h), so the worker and the server use one value.
  double lr_of(int64_t worker) const { return lr_at_(sent_at(worker)); }

  // Applies worker i's message as the server's update number `updates` + 1: records its
  // staleness, the gap between the model's parameters and θ̂_i, and the arrival; then the rule
  // applies it at lr_of(i).
  void apply(int64_t worker, const torch::Tensor& message, int64_t updates);

  // For rules whose server keeps a look-ahead rather than θ (DANA-Slim), an engine that holds
  // every worker rule (the simulator) can follow θ here (AsyncWorkerRule::follow_parameters);
  // the gap is then measured against it instead of against center().
  void follow_parameters() { actual_ = rule_->center().clone(); }
  bool following_parameters() const { return actual_.defined(); }
  torch::Tensor& actual_parameters() { return actual_; }

  // The parameters to evaluate (AsyncServerRule::evaluated: θ, or the DANA family's look-ahead).
  const torch::Tensor& evaluated() const { return rule_->evaluated(); }
  const AsyncServerRule& rule() const { return *rule_; }
  AsyncTelemetry& telemetry() { return telemetry_; }
  // The evaluation period's metrics columns: the telemetry's (which starts a new period) and the
  // rule's own (AsyncServerRule::report).
  std::map<std::string, double> end_period();
  const ArrivalTrace& recorded() const { return recorded_; }

  // A checkpoint collects the message every busy worker owes and keeps it, unapplied; after the
  // checkpoint (or a resume from it) those messages are applied first, in the order they came.
  void hold(int64_t worker, const torch::Tensor& message);
  bool holds(int64_t worker) const;
  // Moves the oldest held message (from `worker`, or from any worker when negative) into
  // `into`; returns its worker, or -1 when none matches.
  int64_t take_held(int64_t worker, torch::Tensor& into);

  // Everything above under `prefix`: rule state, sent parameters and times, held messages,
  // followed parameters, arrival order and telemetry.
  void save(TensorMap& out, const std::string& prefix) const;
  void restore(const TensorMap& in, const std::string& prefix);

 private:
  size_t index(int64_t worker) const;

  int64_t workers_;
  Schedule lr_at_;
  std::unique_ptr<AsyncServerRule> rule_;
  torch::Tensor sent_;                    // [N, P]: row i is θ̂_i
  std::vector<torch::Tensor> sent_rows_;  // θ̂_i, views made once
  std::vector<int64_t> sent_at_;          // update count when θ̂_i was sent
  torch::Tensor actual_;                  // θ, when following it (see follow_parameters)
  std::deque<std::pair<int64_t, torch::Tensor>> held_;
  ArrivalTrace recorded_;
  AsyncTelemetry telemetry_;
};

}  // namespace dsgd
