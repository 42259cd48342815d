// The table of asynchronous algorithms, in the order `dsgd list` shows them, and lookup by name.
#include <string>
#include <vector>

#include "algos/async_algorithms.h"
#include "algos/async_rule.h"
#include "core/names.h"

namespace dsgd {

const std::vector<AsyncAlgorithm>& async_algorithms() {
  // One line per algorithm, in the order `dsgd list` shows them.
  // clang-format off
  static const std::vector<AsyncAlgorithm> algorithms = {
      asgd_algorithm(),
      asgd_momentum_algorithm(),
      nag_asgd_algorithm(),
      multi_asgd_algorithm(),
      dana_zero_algorithm(),
      dana_slim_algorithm(),
      dc_asgd_algorithm(),
      dana_dc_algorithm(),
      delay_adaptive_asgd_algorithm(),
      gap_aware_asgd_algorithm(),
      dana_gap_aware_algorithm(),
  };
  // clang-format on
  return algorithms;
}

const AsyncAlgorithm& find_async_algorithm(const std::string& name) {
  return find_by_name(async_algorithms(), name, "algorithm");
}

}  // namespace dsgd
