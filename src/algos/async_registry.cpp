// The table of asynchronous algorithms, in the order `dsgd list` shows them, and lookup by name.
#include <string>
#include <vector>

#include "algos/async_algorithms.h"
#include "algos/async_rule.h"
#include "core/errors.h"
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
      yellowfin_algorithm(),
      easgd_algorithm(),
      eamsgd_algorithm(),
      dana_easgd_algorithm(),
      easgd_local_algorithm(),
      eamsgd_local_algorithm(),
      async_local_sgd_algorithm(),
      async_local_dn_algorithm(),
      dana_local_algorithm(),
  };
  // clang-format on
  return algorithms;
}

const AsyncAlgorithm& find_async_algorithm(const std::string& name) {
  return find_by_name(async_algorithms(), name, "algorithm");
}

void check_server_shards(const AsyncAlgorithm& algorithm, int64_t servers) {
  if (servers > 1 && !algorithm.element_wise) {
    throw ConfigError(
        "algo = \"" + algorithm.name + "\" tunes on statistics of the whole " +
            "parameter vector, so it cannot be split over servers = " + std::to_string(servers),
        "set servers = 1 for " + algorithm.name);
  }
}

}  // namespace dsgd
