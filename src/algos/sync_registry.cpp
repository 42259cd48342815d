// The table of synchronous algorithms, in the order `dsgd list` shows them, lookup by name, and
// the one piece of logic every plan shares: which averaging follows a step.
#include "algos/sync_algorithms.h"
#include "core/names.h"

namespace dsgd {

std::optional<size_t> SyncPlan::averaging_after(int64_t step) const {
  if (step <= average_gradients_until) return std::nullopt;
  for (size_t level = levels.size(); level-- > 0;) {
    const int64_t period = levels[level].period;
    if (period > 0 && step % period == 0) return level;
  }
  return std::nullopt;
}

std::vector<int64_t> SyncPlan::group_sizes() const {
  std::vector<int64_t> sizes;
  for (const auto& level : levels) sizes.push_back(level.group_size);
  return sizes;
}

SyncPlan sync_plan(const SyncAlgorithm& algorithm, const OptionValues& options,
                   const SyncSetup& setup) {
  return algorithm.plan(options, setup);
}

OptionValues with_defaults(const SyncAlgorithm& algorithm, const OptionValues& given) {
  return resolve_options(algorithm.options, given);
}

const std::vector<SyncAlgorithm>& sync_algorithms() {
  // One line per algorithm, in the order `dsgd list` shows them.
  // clang-format off
  static const std::vector<SyncAlgorithm> algorithms = {
      ssgd_algorithm(),
      kavg_algorithm(),
      hier_avg_algorithm(),
  };
  // clang-format on
  return algorithms;
}

const SyncAlgorithm& find_sync_algorithm(const std::string& name) {
  return find_by_name(sync_algorithms(), name, "algorithm");
}

}  // namespace dsgd
