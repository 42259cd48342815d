// What run_job needs from an engine: build it on a Session (validating its own input before any
// run folder exists), optionally restore a checkpoint, run. Engines decide who computes which
// gradient when; everything else (data, model, schedule, evaluation, files) is the Session's.
#pragma once

#include "run/checkpoint.h"
#include "run/session.h"

namespace dsgd {

class Engine {
 public:
  virtual ~Engine() = default;
  // Continues from a checkpoint (Session::resume_folder) instead of starting afresh.
  virtual void restore(const TensorMap& checkpoint) = 0;
  virtual void run() = 0;
};

}  // namespace dsgd
