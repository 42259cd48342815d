// One round of a synchronous algorithm, the same in every engine: after the engine has put each
// local learner's minibatch gradient into `Learner::grad`, finish_round follows the plan —
// all-reduce gradients (ssgd), take every learner's local SGD step, then average parameters,
// BatchNorm buffers and (optionally) momentum buffers in groups or globally.
#pragma once

#include <torch/torch.h>

#include <optional>
#include <vector>

#include "algos/communicator.h"
#include "algos/local_sgd.h"
#include "algos/sync_algorithm.h"

namespace dsgd {

// One learner's replica: parameters, floating-point BatchNorm buffers, the gradient of its
// current minibatch and its optimizer (whose momentum buffer is its own).
struct Learner {
  Learner(const SgdOptions& sgd, const torch::Tensor& params0, const torch::Tensor& buffers0)
      : params(params0.clone()),
        buffers(buffers0.clone()),
        grad(torch::zeros_like(params0)),
        optimizer(sgd, params0) {}
  torch::Tensor params;
  torch::Tensor buffers;
  torch::Tensor grad;
  LocalSgd optimizer;
};

// The collective a round ended with, for telemetry and the communication-cost model.
struct RoundTraffic {
  std::optional<AverageLevel> level;   // none: no communication this round
  int64_t learners_per_reduction = 0;  // n of the all-reduce: S or P
  int64_t bytes_per_learner = 0;       // payload each learner contributes
};

// Finishes step `step` (1-based) at learning rate `lr` for the learners this process holds.
// A reduction among a single learner is skipped: it would change nothing and cost nothing.
RoundTraffic finish_round(const SyncPlan& plan, int64_t step, double lr, bool average_momentum,
                          std::vector<Learner>& learners, Communicator& communicator);

}  // namespace dsgd
