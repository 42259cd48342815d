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
#include "models/format_choice.h"
#include "models/model.h"
#include "models/task.h"
#include "train/clock_prices.h"
#include "train/compute_plan.h"
#include "train/config.h"
#include "train/lr_schedule.h"

namespace dsgd {

// A model replica: the network and its flat views. The context holds one; engines that compute
// gradients in parallel make more (TrainingContext::make_replica), each used by one thread at a
// time.
struct ModelReplica {
  std::shared_ptr<Model> net;
  std::unique_ptr<FlatModel> flat;
  // A run of the clock alone (run/clock_only.h): no forward or backward pass; a zero gradient
  // and a zero loss.
  bool clock_only = false;
  Task task;  // the loss it computes

  // Forward and backward of one batch at the replica's current parameters: fills flat->grads()
  // and returns the (detached) loss.
  torch::Tensor compute_gradient(const Batch& batch, torch::Device device);
};

// The dataset a config names (dataset, data_dir, seed, image_size; a token corpus: text.*).
DatasetPair load_run_dataset(const RunConfig& config);

// What the run's plan (run/run_plan.h) decided about the run's shape that the context needs; the
// context works none of it out from the algorithm's name or the engine's.
struct ContextShape {
  int64_t samples_per_update = 0;  // an update's samples (0: one minibatch, batch_size)
  int64_t compute_jobs = 1;        // gradients computable at once (simulated workers, learners)
  bool shared_batchnorm = false;   // simulated workers train one model's BatchNorm statistics
  bool asynchronous = false;       // a parameter server's workers (prices its link on a cluster)
  int64_t group_size = 0;          // learners of an in-group reduction (hier-avg), 0: none
};

// This process's share of its host, where processes share one (MPI ranks; one process has all).
struct HostShare {
  // Compute threads when the config leaves them to dsgd (threads = 0; MPI ranks pass their share
  // of the host's cores); 0: planned from the model's work (train/compute_plan.h).
  int64_t threads = 0;
  // The process's index among the host's: with device = "cuda" it takes GPU local_rank mod the
  // GPUs visible.
  int64_t local_rank = 0;
  // Why another rank of the job computes bf16 only by emulation ("" where every rank has it
  // natively): this rank then chooses its format as if it had no bf16 either, so that every rank
  // of a job on hosts with different CPUs computes in one format (run/mpi_launch.cpp).
  std::string bf16_slow_on_another_rank;
};

// The device a process computes on: a GPU is GPU local_rank mod the GPUs visible; throws
// ConfigError where LibTorch sees none.
torch::Device choose_device(DeviceKind device, int64_t local_rank);

class TrainingContext {
 public:
  // Validates everything that depends on input (device, dataset files, model for the data
  // shape): bad input fails here, before anything is written.
  TrainingContext(const RunConfig& config, const ContextShape& shape, const HostShare& share = {});
  // The same with data already in memory (tests, benchmarks, synthetic shapes).
  TrainingContext(const RunConfig& config, const ContextShape& shape, DatasetPair data,
                  const HostShare& share = {});

  // The user's config, as loaded: never written after (what the run resolved is below).
  const RunConfig& config() const { return config_; }
  // What the run records as its config.toml: the user's config with what the run resolved in its
  // keys (the chosen compute format, the prices a cluster set), so that a resume keeps them.
  const RunConfig& recorded_config() const { return recorded_; }
  // The prices of the simulated clock (the config's, or its cluster's).
  const ClockPrices& clock_prices() const { return prices_; }
  const DatasetPair& data() const { return data_; }
  // What the run learns, from its data: a token corpus is language modelling.
  const Task& task() const { return replica_.task; }
  ModelReplica& replica() { return replica_; }
  Model& net() { return *replica_.net; }
  FlatModel& model() { return *replica_.flat; }
  const FlatModel& model() const { return *replica_.flat; }
  torch::Device device() const { return device_; }
  int64_t threads() const { return plan_.threads; }  // compute threads of each replica
  // Threads per replica and, in the simulators, the replicas that compute gradients at once.
  const ComputePlan& compute_plan() const { return plan_; }

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
  torch::Tensor compute_gradient(const Batch& batch) {
    return replica_.compute_gradient(batch, device_);
  }

  // The model's compute format for the log ("compute: channels-last, bf16 mixed precision"), how
  // it was chosen, and a warning line when the device computes bf16 slowly.
  std::string compute_format_note() const;
  // The format's choice and the step times measured for it, for summary.json.
  const FormatChoice& format_choice() const { return format_choice_; }
  // What the cluster priced ("" without one), for the log.
  const std::string& cluster_note() const { return cluster_note_; }

  // Another replica of the model, with model()'s parameters and buffers. It draws nothing from
  // LibTorch's global generator, so making replicas changes no run.
  ModelReplica make_replica() const;

  // From now on no gradient is computed, here or on the replicas made after: each is zero, its
  // loss 0 (a run of the clock alone, run/clock_only.h).
  void compute_nothing() { replica_.clock_only = true; }

 private:
  InputShape input_shape() const;  // what the model is built for
  // A new network of the config's model in the run's compute format (the config's until chosen).
  std::shared_ptr<Model> make_net() const;
  ComputePlan make_compute_plan(int64_t default_threads) const;
  // Resolves "auto" formats (models/format_choice.h) and puts the replica in the chosen one.
  void choose_format();
  // Prices the run on config_.cluster (train/clock_prices.h), unless the config holds its prices
  // already (a resumed run's, or seconds_per_unit given); then the record of what was resolved.
  void price_clock();
  // Median seconds of a training step of a throwaway replica in `format`, on a batch of the run's
  // data, after a warm-up step: up to `steps` steps or about `seconds`, whichever ends first (the
  // format's choice compares several formats briefly; a cluster's clock rests on one). Draws
  // nothing from the global generator.
  double time_step(const ComputeFormat& format, size_t steps = 5, double seconds = 2.0) const;

  const RunConfig config_;
  ContextShape shape_;
  torch::Device device_;
  // Why this run cannot count on bf16 ("" where it is native here and on every other rank), and
  // whether the reason is this process's own device.
  std::string bf16_slow_;
  bool bf16_slow_here_ = false;
  DatasetPair data_;
  ModelReplica replica_;
  LrSchedule schedule_;
  int64_t updates_per_epoch_ = 0;
  int64_t total_updates_ = 0;
  ComputePlan plan_;
  FormatChoice format_choice_;
  ComputeFormat format_;
  ClockPrices prices_;
  RunConfig recorded_;
  std::string cluster_note_;
};

}  // namespace dsgd
