// What run_job needs from an engine: build it on a Training (validating its own input before any
// run folder exists), optionally restore a checkpoint, run. Engines decide who computes which
// gradient when; everything else (data, model, schedule) is the training context's, and
// evaluation, files and the summary are the run's (run/training.h), reached through Training.
#pragma once

#include "core/checkpoint.h"
#include "train/training.h"

namespace dsgd {

class Engine {
 public:
  virtual ~Engine() = default;
  // Continues from a checkpoint (the run folder's, or one MPI rank 0 broadcast) instead of starting
  // afresh.
  virtual void restore(const TensorMap& checkpoint) = 0;
  virtual void run() = 0;
};

}  // namespace dsgd
