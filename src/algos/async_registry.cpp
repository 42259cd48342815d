// The table of asynchronous algorithms, in the order `dsgd list` shows them, and lookup by name.
#include <string>
#include <vector>

#include "algos/async_algorithms.h"
#include "algos/async_rule.h"
#include "core/names.h"

namespace dsgd {

const std::vector<AsyncAlgorithm>& async_algorithms() {
  // One line per algorithm; the comment after each keeps clang-format from packing them.
  static const std::vector<AsyncAlgorithm> algorithms = {
      asgd_algorithm(),                 // asgd
      asgd_momentum_algorithm(),        // asgd-m
      nag_asgd_algorithm(),             // nag-asgd
      multi_asgd_algorithm(),           // multi-asgd
      dana_zero_algorithm(),            // dana-zero
      dana_slim_algorithm(),            // dana-slim
      dc_asgd_algorithm(),              // dc-asgd
      dana_dc_algorithm(),              // dana-dc
      delay_adaptive_asgd_algorithm(),  // asgd-da
  };
  return algorithms;
}

const AsyncAlgorithm& find_async_algorithm(const std::string& name) {
  return find_by_name(async_algorithms(), name, "algorithm");
}

}  // namespace dsgd
