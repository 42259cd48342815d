// The compute clock of P synchronous learners in simulated units. Each learner has a clock of its
// own that runs through its Gamma minibatch times (timing.h); only a reduction waits: SSGD's
// gradient all-reduce makes every learner wait for the slowest, and a K-AVG or Hier-AVG average
// makes its group's members wait for the group's slowest, while between averages each learner
// steps on as soon as its own minibatch is done. So local steps save the wait for stragglers that
// SSGD pays every step, as they do on a real cluster. The run's compute time is the latest clock
// (an evaluation needs every learner's round done). Communication is not on these clocks: every
// group of a level reduces in the same round at the same price, which moves every clock alike,
// so a run's simulated time is this compute time plus its communication time, and a finished run
// can be re-timed on a cluster from its columns (experiment/retime.h).
//
// Learners that share cores (timing.core_sharing = s > 1) take turns on them, so the scheduler,
// not the averages, sets the pace: every round lasts the mean draw stretched by s, unless one
// learner's own draw, run alone at the end, is longer (max(mean, slowest / s)), all in step.
//
// Every draw is a pure function of (seed, learner, round), so the clock after any number of
// rounds follows from the config alone: a resumed run replays it, and a report derives it for a
// run recorded under an earlier clock.
#pragma once

#include <cstdint>
#include <vector>

#include "algos/sync_algorithm.h"
#include "engine/sim/timing.h"

namespace dsgd {

class SyncClock {
 public:
  // `config`'s workers and timing keys; `plan`'s reductions; learners sharing cores
  // `core_sharing` times over (the run's clock prices, train/clock_prices.h).
  SyncClock(const RunConfig& config, const SyncPlan& plan, double core_sharing);

  // Round `round` (0-based: each learner's minibatch `round`, then the plan's reduction after
  // step round + 1).
  void advance(int64_t round);
  // Advances from where the clock is through round `rounds` - 1.
  void advance_to(int64_t rounds);
  // The latest learner's clock.
  double compute_time() const;

 private:
  // The learners that wait for one another after step `step`: groups of this many consecutive
  // learners, or 1 when none do.
  int64_t group_after(int64_t step) const;

  TimingModel timing_;
  SyncPlan plan_;
  double core_sharing_;
  std::vector<double> clocks_;
  int64_t rounds_ = 0;
};

}  // namespace dsgd
