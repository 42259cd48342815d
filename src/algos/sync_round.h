// One round of a synchronous algorithm, the same in every engine: after the engine has put each
// local learner's minibatch gradient into `Learner::grad`, finish_round follows the plan —
// all-reduce gradients (ssgd), take every learner's local SGD step, then average parameters,
// BatchNorm buffers and (optionally) momentum buffers at the plan's level that is due, where the
// global average may take an outer optimizer's step (outer_optimizer.h). The communicator's
// levels are the plan's (Communicator(plan.group_sizes())).
#pragma once

#include <torch/torch.h>

#include <functional>
#include <optional>
#include <vector>

#include "algos/communicator.h"
#include "algos/local_optimizer.h"
#include "algos/outer_optimizer.h"
#include "algos/sync_algorithm.h"

namespace dsgd {

// One learner's replica: the gradient of its current minibatch, floating-point BatchNorm
// buffers, parameters and its optimizer's state (SGD's velocity, or AdamW's [m | v]), all in one
// flat block laid out [grad | buffers | params | state], so that every exchange of a round is one
// contiguous slice and one collective: SSGD's [grad | buffers], an average's [buffers | params]
// or, with average_momentum, [buffers | params | state]; without the buffers when the plan keeps
// them local (bn_policy).
struct Learner {
  Learner(const LocalOptimizerOptions& optimizer_options, const torch::Tensor& params0,
          const torch::Tensor& buffers0, const OuterOptions& outer = {});
  torch::Tensor state;  // the block
  torch::Tensor grad;   // views of it
  torch::Tensor buffers;
  torch::Tensor params;
  LocalOptimizer optimizer;  // its state, when it has one, is the block's tail
  // The step of each global average, unless it is plain averaging. Every learner holds the same
  // one (the same anchor and momentum), so none needs another's.
  std::optional<OuterOptimizer> outer;

  // The slices one collective moves.
  torch::Tensor gradient_and_buffers(bool with_buffers = true) const {
    return state.narrow(0, 0, grad.numel() + (with_buffers ? buffers.numel() : 0));
  }
  // [buffers | params (| state)], or [params (| state)] without the buffers.
  torch::Tensor averaged(bool with_state, bool with_buffers = true) const;
};

// The collective a round ended with, for telemetry and the communication-cost model.
struct RoundTraffic {
  std::optional<size_t> level;         // none: no communication this round
  int64_t learners_per_reduction = 0;  // n of the all-reduce: the level's group size
  int64_t bytes_per_learner = 0;       // payload each learner contributes
};

// Finishes step `step` (1-based) at learning rate `lr` for the learners this process holds.
// A reduction among a single learner is skipped: it would change nothing and cost nothing.
// `before_averaging`, when given, runs once after the local steps and just before parameters are
// averaged (when they are), so that an engine can measure how far the learners drifted apart at
// its largest (on MPI every rank calls it, so it may run collectives).
RoundTraffic finish_round(const SyncPlan& plan, int64_t step, double lr, bool average_momentum,
                          std::vector<Learner>& learners, Communicator& communicator,
                          const std::function<void()>& before_averaging = {});

}  // namespace dsgd
