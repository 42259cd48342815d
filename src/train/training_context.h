// One run's training context: the resolved config, the compute device and thread count, the data,
// the model replica as flat tensors, the LR schedule and the run's length in updates, each
// worker's stream of batches, and one gradient computation. It is what every engine computes
// with, and it knows nothing of run folders, metrics, evaluation or checkpoints (run/session.h
// reports; train/training.h is what an engine sees of both).
#pragma once

#include <torch/torch.h>

#include <memory>

#include "core/flat_model.h"
#include "data/dataset.h"
#include "data/worker_stream.h"
#include "models/model.h"
#include "train/config.h"
#include "train/lr_schedule.h"

namespace dsgd {

class TrainingContext {
 public:
  // Validates everything that depends on input (device, dataset files, model for the data
  // shape): bad input fails here, before anything is written.
  explicit TrainingContext(const RunConfig& config);
  // The same with data already in memory (tests, benchmarks, synthetic shapes).
  TrainingContext(const RunConfig& config, DatasetPair data);

  const RunConfig& config() const { return config_; }
  const DatasetPair& data() const { return data_; }
  Model& net() { return *net_; }
  FlatModel& model() { return *flat_; }
  const FlatModel& model() const { return *flat_; }
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

 private:
  RunConfig config_;
  torch::Device device_;
  DatasetPair data_;
  std::shared_ptr<Model> net_;
  std::unique_ptr<FlatModel> flat_;
  LrSchedule schedule_;
  int64_t updates_per_epoch_ = 0;
  int64_t total_updates_ = 0;
};

}  // namespace dsgd
