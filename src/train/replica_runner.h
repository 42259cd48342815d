// Model replicas that an engine computes gradients on, lent to the run's other work while the
// engine holds them. The simulators compute gradients on R replicas, one thread each; an
// evaluation on the run's own model left R - 1 of those cores idle for as long as the test pass
// took (on 2 cores, 7-8 s of each 86 s epoch of ResNet-20). Lent, the replicas run the test pass's
// batches in parallel. Which replica runs a task is not said, so a task loads what it reads.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "train/training_context.h"

namespace dsgd {

class ReplicaRunner {
 public:
  using Task = std::function<void(ModelReplica&)>;

  virtual ~ReplicaRunner() = default;
  // How many tasks run at once.
  virtual int64_t replicas() const = 0;
  // Runs every task, each on one replica, after the work queued before it, and returns when all
  // have finished; rethrows the first error a task threw. On the CPU only.
  virtual void run_each(std::vector<Task> tasks) = 0;
};

}  // namespace dsgd
