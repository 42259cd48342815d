// How a run uses the machine's cores: compute threads per model replica and, in the simulators,
// how many replicas compute workers' (or learners') gradients in parallel. Intra-op threads pay
// only when a step has enough work to split: on 2 cores, an epoch of lenet5-bn (0.1 GFLOP per
// forward of 128) took 12.7 s with two threads against 11.2 s with one, a ResNet-20 run (10
// GFLOP) 27.7 s against 40.0 s (docs/performance.md, "Threads and replicas"). So the plan gives
// each replica threads in proportion to its measured work, and fills the remaining cores with
// replicas, within a share of the free memory.
//
// The work is counted, not timed (LibTorch's profiler counts the FLOPs of one forward pass), so
// the choice is the same for every run of a config on a machine; results never depend on the
// number of replicas, and depend on the thread count only through float rounding.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <string>

#include "models/model.h"

namespace dsgd {

// What one training step of a model costs, per sample of the batch.
struct ModelCost {
  double forward_flops = 0.0;     // FLOPs of the forward pass that LibTorch's profiler counts
  double activation_bytes = 0.0;  // bytes the forward pass allocates (held for backward)
  int64_t parameters = 0;
};

// Counts the forward pass of `net` (train mode, gradients on) on a batch of two samples.
// The pass updates BatchNorm running statistics, so `net` should be a throwaway replica.
ModelCost measure_model_cost(Model& net, const InputShape& shape, torch::Device device);

struct Machine {
  int64_t cores = 1;            // this process's share of the host's cores
  int64_t available_bytes = 0;  // free memory (MemAvailable); 0: unknown
};
// This host: `cores` of its cores (the config's `cores`, which `dsgd sweep` sets to each run's
// share) when positive and fewer than it has, else every core; its free memory.
Machine this_machine(int64_t cores = 0);

struct ComputePlanRequest {
  int64_t threads = 0;   // the config's threads (0: choose)
  int64_t replicas = 0;  // the config's sim.replicas (0: choose)
  int64_t jobs = 1;      // gradients that can be computed at once (simulated workers, learners)
  int64_t batch_size = 128;
  bool replicas_allowed =
      true;          // false: one replica whatever is asked (e.g. BN without bn_batches)
  bool gpu = false;  // the replicas compute on one GPU
};

struct ComputePlan {
  int64_t threads = 1;        // intra-op threads of each replica
  int64_t replicas = 1;       // replicas computing gradients at once
  int64_t replica_bytes = 0;  // memory one replica needs: parameters, gradients, activations
  bool streams = false;       // on a GPU: each replica queues its kernels on a stream of its own
  std::string reason;         // why, in a few words, for the log
};

// Forward FLOPs of a batch that keep one intra-op thread busy enough to pay for itself.
constexpr double kFlopsPerThread = 2e9;
// At most this fraction of the free memory goes to the replicas the plan adds.
constexpr double kReplicaMemoryFraction = 0.5;
// On a GPU: at most this many replicas, each with a stream of its own. A replica's host thread
// spends its time queueing kernels; a few keep a GPU busy with a small model's kernels, and each
// costs a host core. (Not yet measured against 1, 2 and 4 streams: scripts/gpu-check.sh does.)
constexpr int64_t kMaxGpuStreams = 8;

// The plan for `cost` on `machine`: explicit requests are kept; threads = 0 gives each replica
// the largest power of two of threads, up to the cores, whose share of a batch's forward FLOPs is
// at least kFlopsPerThread; replicas = 0 fills the cores left (at most `jobs`, and within
// kReplicaMemoryFraction of the free memory). On a GPU (request.gpu) threads = 0 gives each
// replica one host thread (its kernels run on the device), and replicas = 0 gives as many
// replicas as there are gradients to compute at once, up to the cores and kMaxGpuStreams, each
// on its own stream; the GPU's memory is not consulted (sim.replicas caps it).
ComputePlan plan_compute(const ModelCost& cost, const ComputePlanRequest& request,
                         const Machine& machine);

}  // namespace dsgd
