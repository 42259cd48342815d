// The synchronous learners' compute clock; see sync_clock.h.
#include "engine/sim/sync_clock.h"

#include <algorithm>

namespace dsgd {

SyncClock::SyncClock(const RunConfig& config, const SyncPlan& plan, double core_sharing)
    : timing_(config, config.workers),
      plan_(plan),
      core_sharing_(core_sharing),
      clocks_(static_cast<size_t>(config.workers), 0.0) {}

int64_t SyncClock::group_after(int64_t step) const {
  const int64_t learners = static_cast<int64_t>(clocks_.size());
  // As finish_round: the gradient all-reduce before the step, then the level the plan averages
  // after it; a global wait subsumes a group's.
  if (plan_.averages_gradients_at(step)) return learners;
  const std::optional<size_t> level = plan_.averaging_after(step);
  return level ? std::min(plan_.levels[*level].group_size, learners) : 1;
}

void SyncClock::advance(int64_t round) {
  const size_t learners = clocks_.size();
  if (core_sharing_ > 1) {
    double slowest = 0.0, total = 0.0;
    for (size_t i = 0; i < learners; ++i) {
      const double duration = timing_.duration(static_cast<int64_t>(i), round);
      slowest = std::max(slowest, duration);
      total += duration;
    }
    const double round_time =
        std::max(total / static_cast<double>(learners), slowest / core_sharing_);
    for (double& clock : clocks_) clock += round_time;
  } else {
    for (size_t i = 0; i < learners; ++i) {
      clocks_[i] += timing_.duration(static_cast<int64_t>(i), round);
    }
    const size_t group = static_cast<size_t>(group_after(round + 1));
    for (size_t start = 0; group > 1 && start < learners; start += group) {
      const auto first = clocks_.begin() + static_cast<std::ptrdiff_t>(start);
      const auto last =
          clocks_.begin() + static_cast<std::ptrdiff_t>(std::min(start + group, learners));
      std::fill(first, last, *std::max_element(first, last));
    }
  }
  rounds_ = round + 1;
}

void SyncClock::advance_to(int64_t rounds) {
  while (rounds_ < rounds) advance(rounds_);
}

double SyncClock::compute_time() const {
  return clocks_.empty() ? 0.0 : *std::max_element(clocks_.begin(), clocks_.end());
}

}  // namespace dsgd
