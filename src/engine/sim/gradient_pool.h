// Gradients computed ahead, in parallel, on R model replicas. In both simulators a gradient is
// fully determined as soon as its inputs are (a worker's parameters once the server sends them; a
// learner's state at the start of a round), and it is needed only later, when its event comes up
// or the round ends. The pool computes such jobs on R threads, each with a replica of its own and
// LibTorch's per-thread compute thread count, while the engine still consumes results strictly in
// its own order. A job's result does not depend on R or on which thread ran it, so a run with R
// replicas is bit for bit the run with one. The engines lend the pool to their run's
// evaluations (train/replica_runner.h), whose tasks queue behind the gradients already submitted.
//
// On a GPU each replica's thread queues its kernels on a CUDA stream of its own, so that the
// replicas' small kernels overlap on the device instead of waiting in one queue. Events order the
// streams, with no wait on the host: a job starts on its stream after the work its submitter had
// queued (the parameters it was sent), and the thread that waits for a job continues on its own
// stream after the job's kernels. (The stream API is LibTorch's device-generic one, c10::Stream
// and c10::Event: dsgd links no CUDA library.)
#pragma once

#include <c10/core/Event.h>
#include <c10/core/Stream.h>
#include <torch/torch.h>

#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "train/replica_runner.h"
#include "train/training_context.h"

namespace dsgd {

class GradientPool : public ReplicaRunner {
 public:
  // A job computes on the replica it is given and returns a loss.
  using Job = std::function<torch::Tensor(ModelReplica&)>;

  // `replicas` threads, each with a replica of `context`'s model; `slots` jobs may be pending
  // at once, one per slot (a worker, a learner).
  GradientPool(const TrainingContext& context, int64_t replicas, int64_t slots);
  ~GradientPool() override;
  GradientPool(const GradientPool&) = delete;
  GradientPool& operator=(const GradientPool&) = delete;

  // Queues `job` in slot `slot`, which must be free (never submitted, or waited for since).
  void submit(int64_t slot, Job job);
  // Waits for slot `slot`'s job and returns its loss; rethrows what the job threw.
  torch::Tensor wait(int64_t slot);

  int64_t replicas() const override { return static_cast<int64_t>(replicas_.size()); }
  void run_each(std::vector<Task> tasks) override;

 private:
  struct Slot {
    bool busy = false;  // submitted and not yet waited for
    bool done = false;
    torch::Tensor loss;
    std::exception_ptr error;
    std::shared_ptr<c10::Event> finished;  // on a GPU: after the job's kernels, on its stream
  };
  // The tasks of one run_each, counted down as they finish.
  struct Errand {
    size_t remaining = 0;
    std::exception_ptr error;  // the first
  };
  struct Queued {
    int64_t slot;
    Job job;
    std::shared_ptr<c10::Event> ready;  // on a GPU: after the submitter's kernels so far
    Errand* errand = nullptr;           // a task of run_each (no slot), or null
  };
  void serve(ModelReplica& replica, std::optional<c10::Stream> stream);
  // On a GPU, an event recorded now on this thread's current stream; null on the CPU.
  std::shared_ptr<c10::Event> record_on_current_stream() const;

  torch::Device device_;
  std::vector<ModelReplica> replicas_;
  std::vector<Slot> slots_;
  std::deque<Queued> queue_;
  std::mutex mutex_;
  std::condition_variable work_;      // a job was queued, or the pool stops
  std::condition_variable finished_;  // a job finished
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace dsgd
