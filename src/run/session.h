// One training run's shared machinery, used by every engine: the resolved config, data, the
// model replica (as flat tensors), the LR schedule, evaluation with BatchNorm re-estimation,
// train-loss and divergence tracking, progress output and the run folder. Engines only decide
// who computes which gradient when, and call after_update() once per server update.
#pragma once

#include <torch/torch.h>

#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "core/flat_model.h"
#include "data/dataset.h"
#include "data/worker_stream.h"
#include "models/model.h"
#include "run/checkpoint.h"
#include "run/config.h"
#include "run/lr_schedule.h"
#include "run/progress.h"
#include "run/run_folder.h"

namespace dsgd {

class Session {
 public:
  // Validates everything that depends on input (device, dataset files, model for the data
  // shape) before anything is written: bad input fails here and leaves no run folder behind.
  explicit Session(const RunConfig& config);
  // The same with data already in memory (tests, benchmarks, synthetic shapes).
  Session(const RunConfig& config, DatasetPair data);

  // Creates the run folder and writes the resolved config. Call once, after construction.
  void open_folder(const std::string& path);
  // Reopens the folder of an interrupted run and restores the session's counters from its
  // checkpoint; returns the checkpoint so the engine can restore its own state from it.
  TensorMap resume_folder(const std::string& path);

  // Reopens an interrupted run's folder after restore_counters (resume_folder does both).
  void reopen_folder(const std::string& path);
  // Restores the session's counters from a checkpoint (resume_folder does this; MPI ranks that
  // do not own the run folder call it with the checkpoint the owner broadcast).
  void restore_counters(const TensorMap& checkpoint);
  // Whether this process evaluates, prints progress and writes the run folder: true, except on
  // the MPI ranks that only compute. Non-reporting sessions still count updates and stop on a
  // non-finite loss, so every rank agrees on when evaluations and divergence happen.
  void set_reporting(bool reporting) { reporting_ = reporting; }
  bool reporting() const { return reporting_; }

  // The engine's part of each checkpoint, written after every evaluation.
  void set_engine_checkpoint(std::function<void(TensorMap&)> save) {
    engine_checkpoint_ = std::move(save);
  }
  // Updates already done: 0, or where a resumed run continues.
  int64_t updates_done() const { return updates_done_; }
  double sim_time() const { return sim_time_; }
  const RunFolder* folder() const { return folder_ ? &*folder_ : nullptr; }

  const RunConfig& config() const { return config_; }
  const DatasetPair& data() const { return data_; }
  Model& net() { return *net_; }
  FlatModel& model() { return *flat_; }
  torch::Device device() const { return device_; }

  // Updates (async server updates, or synchronous rounds of P minibatches) per epoch.
  int64_t updates_per_epoch() const { return updates_per_epoch_; }
  int64_t total_updates() const { return total_updates_; }
  double epoch_of(int64_t updates) const {
    return static_cast<double>(updates) / static_cast<double>(updates_per_epoch_);
  }
  double lr_at(int64_t updates) const { return schedule_.at(epoch_of(updates)); }

  // Worker i's stream of training batches (the same for every engine).
  WorkerStream make_stream(int64_t worker) const;

  // Forward and backward of one batch on the replica at its current parameters: fills
  // model().grads() and returns the (detached) loss.
  torch::Tensor compute_gradient(const Batch& batch);

  // Records one finished update. When an evaluation is due, `eval_params` (a flat vector) is
  // evaluated and a metrics row written with `extra` columns. Throws CollapsedError after an
  // evaluation period that learned nothing (period_collapsed), and DivergedError when the
  // training loss is no longer finite.
  void after_update(int64_t updates, const torch::Tensor& loss, double sim_time,
                    const torch::Tensor& eval_params,
                    const std::function<std::map<std::string, double>()>& extra = {});

  // Whether after_update(updates, ...) will evaluate: engines whose evaluation parameters cost
  // something to assemble (an average over learners) build them only then.
  bool evaluation_due(int64_t updates) const;

  // Fields engines add to summary.json (server bytes, staleness histogram, ...).
  nlohmann::json& summary_extra() { return summary_extra_; }
  // Writes summary.json with status "ok", "diverged", "collapsed" or "failed".
  void write_summary(const std::string& status, const std::string& error = "");

 private:
  void check_finite(int64_t updates);
  // Whether the evaluation period ending now collapsed: it started after the warm-up, and its
  // training loss (the mean over the period, metrics.csv's train_loss) was at least
  // ln(classes) − kCollapseTolerance: no better than predicting every class alike.
  bool period_collapsed() const;
  static constexpr double kCollapseTolerance = 0.01;
  void write_checkpoint();
  void evaluate_now(int64_t updates, double sim_time, const torch::Tensor& eval_params,
                    const std::map<std::string, double>& extra);

  RunConfig config_;
  torch::Device device_;
  DatasetPair data_;
  std::shared_ptr<Model> net_;
  std::unique_ptr<FlatModel> flat_;
  LrSchedule schedule_;
  int64_t updates_per_epoch_ = 0;
  int64_t total_updates_ = 0;
  std::optional<RunFolder> folder_;
  std::unique_ptr<WorkerStream> bn_stream_;
  Progress progress_;

  torch::Tensor loss_sum_;  // on device, since the last evaluation
  int64_t loss_count_ = 0;
  int64_t period_start_ = 0;  // updates at the last evaluation (or the start or resume)
  int64_t last_checked_ = 0;
  int64_t next_eval_index_ = 1;
  int64_t evaluations_ = 0;
  int64_t updates_done_ = 0;
  double sim_time_ = 0.0;
  double last_train_loss_ = 0.0;
  double final_acc_ = 0.0;
  double best_acc_ = 0.0;
  double last_lr_ = 0.0;
  std::chrono::steady_clock::time_point start_;
  nlohmann::json summary_extra_ = nlohmann::json::object();
  double wall_offset_ = 0.0;  // wall time of the runs this one resumes
  std::function<void(TensorMap&)> engine_checkpoint_;
  bool reporting_ = true;
};

}  // namespace dsgd
