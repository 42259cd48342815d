// What an engine sees of a run: the training context it computes with, and the run it reports
// each update to. Engines depend on this interface only; run/session.h implements it (evaluation,
// metrics rows, checkpoint files, progress, summary.json), so engines never include run/.
#pragma once

#include <torch/torch.h>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "algos/catalog.h"
#include "core/checkpoint.h"
#include "train/replica_runner.h"
#include "train/training_context.h"

namespace dsgd {

// What an engine tells summary.json about itself, typed; unset fields are left out.
struct EngineReport {
  std::optional<std::string> evaluated;      // async: the point evaluated ("theta", "look-ahead")
  std::optional<int64_t> server_bytes;       // async: the server rule's state, all shards
  std::optional<int64_t> worker_rule_bytes;  // async simulator: every worker rule's state
  std::optional<int64_t> servers;            // async MPI: server shards
  std::optional<std::vector<int64_t>> staleness_histogram;  // async: count per staleness
  std::optional<std::map<std::string, double>>
      traffic;  // sync: reductions, bytes, times; async: exchanges, bytes
};

class Training {
 public:
  virtual ~Training() = default;

  virtual TrainingContext& context() = 0;
  virtual const TrainingContext& context() const = 0;
  // The run's algorithm, resolved once from its config's name (run/run_plan.h): its catalog
  // entry, with the asynchronous rule or synchronous plan the engine runs.
  virtual const AlgorithmInfo& algorithm() const = 0;

  // Updates already done, and the time reached: 0, or where a resumed run continues.
  virtual int64_t updates_done() const = 0;
  virtual double sim_time() const = 0;
  // Whether after_update(updates, ...) will evaluate: engines whose evaluation parameters cost
  // something to assemble (an average over learners) build them only then.
  virtual bool evaluation_due(int64_t updates) const = 0;
  // Records one finished update. When an evaluation is due, `eval_params` (a flat vector) is
  // evaluated and a metrics row written with the `extra` columns. Throws CollapsedError after an
  // evaluation period that learned nothing, DivergedError when the training loss is no longer
  // finite, InterruptedError (after a checkpoint, where this process writes them) when a stop was
  // requested: a SIGINT, SIGTERM or SIGUSR1 to this process, or request_stop.
  virtual void after_update(int64_t updates, const torch::Tensor& loss, double sim_time,
                            const torch::Tensor& eval_params,
                            const std::function<std::map<std::string, double>()>& extra = {}) = 0;
  // A stop the engine's ranks agreed on (MPI: every rank stops after the same update, whichever
  // rank the signal reached); the next after_update honours it. Engines in one process need not
  // call it: the session watches that process's signals itself unless told not to.
  virtual void request_stop(int signal) = 0;
  // The engine's part of each checkpoint.
  virtual void set_engine_checkpoint(std::function<void(TensorMap&)> save) = 0;
  // Engine facts for summary.json, kept current by the engine.
  virtual EngineReport& report() = 0;
  // The engine's gradient replicas, lent to the run's evaluations (nullptr: taken back). Lend
  // them with ReplicaLoan, for as long as the engine's run() holds them.
  virtual void lend_replicas(ReplicaRunner* replicas) = 0;

  // The context's, for brevity in engines.
  const RunConfig& config() const { return context().config(); }
  FlatModel& model() { return context().model(); }
  int64_t total_updates() const { return context().total_updates(); }
  double lr_at(int64_t updates) const { return context().lr_at(updates); }
  WorkerStream make_stream(int64_t worker) const { return context().make_stream(worker); }
  torch::Tensor compute_gradient(const Batch& batch) { return context().compute_gradient(batch); }
};

// Lends an engine's replicas to its run for the life of the loan.
class ReplicaLoan {
 public:
  ReplicaLoan(Training& training, ReplicaRunner* replicas) : training_(training) {
    training_.lend_replicas(replicas);
  }
  ~ReplicaLoan() { training_.lend_replicas(nullptr); }
  ReplicaLoan(const ReplicaLoan&) = delete;
  ReplicaLoan& operator=(const ReplicaLoan&) = delete;

 private:
  Training& training_;
};

}  // namespace dsgd
