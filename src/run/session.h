// One run's reporting around its training context: progress on the terminal, evaluation with
// BatchNorm re-estimation, train-loss, divergence and collapse tracking, metrics rows, checkpoint
// files and summary.json in the run folder. Implements train/training.h, which is all an engine
// sees: engines decide who computes which gradient when, and call after_update() once per update.
#pragma once

#include <torch/torch.h>

#include <chrono>
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/checkpoint.h"
#include "data/worker_stream.h"
#include "run/progress.h"
#include "run/run_folder.h"
#include "run/run_plan.h"
#include "train/training.h"

namespace dsgd {

class Session : public Training {
 public:
  // Resolves the run's plan and builds the training context, which validates everything that
  // depends on input: bad input fails here and leaves no run folder behind.
  // `share`: see TrainingContext.
  explicit Session(const RunConfig& config, const HostShare& share = {});
  // The same with data already in memory (tests, benchmarks, synthetic shapes).
  Session(const RunConfig& config, DatasetPair data, const HostShare& share = {});

  // Creates the run folder and writes the resolved config. Call once, after construction.
  void open_folder(const std::string& path);
  // Reopens the folder of an interrupted run and restores the session's counters from its
  // checkpoint (resume_from); returns the checkpoint so the engine can restore its own state.
  TensorMap resume_folder(const std::string& path);

  // Refuses to start (ConfigError, exit 2) when the file system of the run folder `path` lacks
  // room for the checkpoints the run will keep: a write needs the previous, the current and the
  // new one at once. Their size is the existing checkpoint's on a resume; otherwise the engine's
  // state as it stands (in one process), or a lower bound from the model and the server's state
  // (under MPI, where the other ranks' state is not here). Call once the engine is built, before
  // open_folder (a refused run leaves no folder).
  void check_free_space(const std::string& path);
  // Continues from a checkpoint already read (resume_folder reads the folder's; MPI ranks get
  // the one rank 0 broadcast): restores the counters and, where this process reports, reopens
  // the folder.
  void resume_from(const std::string& path, const TensorMap& checkpoint);
  // Refuses to start (ConfigError, exit 2) a run whose estimated memory (run_plan.h) exceeds what
  // this machine has free. Call before the engine is built: the engine allocates the state. An
  // MPI rank passes its rank and how many ranks share its host (each is taken to need as much).
  void check_memory(int rank = 0, int ranks_on_host = 1) const;
  // Whether this process evaluates, prints progress and writes the run folder: true, except on
  // the MPI ranks that only compute. Non-reporting sessions still count updates and stop on a
  // non-finite loss, so every rank agrees on when evaluations and divergence happen.
  void set_reporting(bool reporting) { reporting_ = reporting; }
  bool reporting() const { return reporting_; }
  const RunFolder* folder() const { return folder_ ? &*folder_ : nullptr; }
  // "mpirun -n P " for an MPI run ("" otherwise), for the commands the log suggests.
  std::string launch_prefix() const;
  // Whether this process's own SIGINT/SIGTERM/SIGUSR1 stop the run (the simulator), or only an
  // engine's request_stop does (MPI ranks, which must agree on the update they stop at).
  void set_watch_signals(bool watch) { watch_signals_ = watch; }

  const RunPlan& plan() const { return plan_; }
  const AlgorithmInfo& algorithm() const override { return *plan_.algorithm; }

  // Training.
  TrainingContext& context() override { return context_; }
  const TrainingContext& context() const override { return context_; }
  int64_t updates_done() const override { return updates_done_; }
  double sim_time() const override { return sim_time_; }
  bool evaluation_due(int64_t updates) const override;
  void after_update(int64_t updates, const torch::Tensor& loss, double sim_time,
                    const torch::Tensor& eval_params,
                    const std::function<std::map<std::string, double>()>& extra = {}) override;
  void set_engine_checkpoint(std::function<void(TensorMap&)> save) override {
    engine_checkpoint_ = std::move(save);
  }
  EngineReport& report() override { return report_; }
  void lend_replicas(ReplicaRunner* replicas) override { lent_replicas_ = replicas; }
  void request_stop(int signal) override { requested_stop_ = signal; }

  // The context's, for tests and run_job.
  const DatasetPair& data() const { return context_.data(); }
  Model& net() { return context_.net(); }
  torch::Device device() const { return context_.device(); }
  int64_t updates_per_epoch() const { return context_.updates_per_epoch(); }
  double epoch_of(int64_t updates) const { return context_.epoch_of(updates); }

  // Writes summary.json with status "running", "ok", "diverged", "collapsed", "interrupted",
  // "hung" or "failed": the run's facts, the engine's report and how it ended.
  void write_summary(const std::string& status, const std::string& error = "");
  // Runs the engine and records how it ended in summary.json (where this process owns the
  // folder); a failure is recorded and rethrown.
  void run(Engine& engine);

 private:
  void restore_counters(const TensorMap& checkpoint);
  void check_finite(int64_t updates);
  // Throws InterruptedError when a stop was requested, after a checkpoint where this process
  // writes them.
  void stop_if_requested(int64_t updates);
  // Whether the evaluation period ending now collapsed: it started after the warm-up, and its
  // training loss (the mean over the period, metrics.csv's train_loss) was at least
  // ln(classes) − kCollapseTolerance: no better than predicting every class (or token) alike.
  bool period_collapsed() const;
  static constexpr double kCollapseTolerance = 0.01;
  void write_checkpoint();
  // The bytes of a checkpoint of this run, as check_free_space describes.
  int64_t checkpoint_bytes_estimate(const std::string& checkpoint_file);
  void evaluate_now(int64_t updates, double sim_time, const torch::Tensor& eval_params,
                    const std::map<std::string, double>& extra);
  // What an evaluation at `updates` runs between its batches: a stop requested during it lets it
  // finish within kEvaluationFinishSeconds (the run then checkpoints at this update, as after
  // any evaluation); a longer one is abandoned with InterruptedError, and the run stops at its
  // last checkpoint, which --resume continues from exactly. Not under MPI (watch_signals_ off),
  // where every rank must stop after the same update: there the evaluation finishes (or the
  // grace timer ends the job).
  std::function<void()> evaluation_stop_check(int64_t updates) const;
  static constexpr double kEvaluationFinishSeconds = 10;

  RunPlan plan_;
  TrainingContext context_;
  std::optional<RunFolder> folder_;
  std::unique_ptr<WorkerStream> bn_stream_;
  Progress progress_;

  torch::Tensor loss_sum_;  // on device, since the last evaluation
  int64_t loss_count_ = 0;
  int64_t period_start_ = 0;  // updates at the last evaluation (or the start or resume)
  int64_t last_checked_ = 0;
  int64_t checkpointed_at_ = -1;  // the update of the last checkpoint this session wrote
  int64_t next_eval_index_ = 1;
  int64_t evaluations_ = 0;
  int64_t updates_done_ = 0;
  double sim_time_ = 0.0;
  double last_train_loss_ = 0.0;
  double final_acc_ = 0.0;
  double best_acc_ = 0.0;
  // A language model's validation perplexity (its main metric: lower is better).
  double final_ppl_ = HUGE_VAL;
  double best_ppl_ = HUGE_VAL;
  torch::Tensor validation_windows_;  // a token corpus's, read by every evaluation
  double last_lr_ = 0.0;
  std::chrono::steady_clock::time_point start_;
  EngineReport report_;
  ReplicaRunner* lent_replicas_ = nullptr;             // the engine's, while its run() holds them
  nlohmann::json outcome_ = nlohmann::json::object();  // where a run diverged or collapsed
  double wall_offset_ = 0.0;                           // wall time of the runs this one resumes
  // Wall seconds this machine spent in evaluations and their checkpoints, over the whole run:
  // priced on the cluster's device (timing.overhead_scale) into the predicted wall time.
  double overhead_wall_ = 0.0;
  double predicted_wall(double sim_time, double overhead_wall) const;
  int64_t resumed_at_update_ = 0;  // where this process's piece of the run began
  std::function<void(TensorMap&)> engine_checkpoint_;
  bool reporting_ = true;
  bool watch_signals_ = true;
  int requested_stop_ = 0;
};

}  // namespace dsgd
