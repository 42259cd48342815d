// The list of every runnable algorithm; see catalog.h.
#include "algos/catalog.h"

#include "algos/async_rule.h"
#include "algos/sync_algorithm.h"
#include "core/names.h"

namespace dsgd {

const std::vector<AlgorithmInfo>& algorithm_catalog() {
  static const std::vector<AlgorithmInfo> catalog = [] {
    std::vector<AlgorithmInfo> all = {
        {"sgd",
         AlgorithmFamily::kSingle,
         "single-worker SGD with momentum, Nesterov and weight decay, or AdamW (the baseline)",
         {},
         {},
         nullptr,
         nullptr,
         true},
    };
    for (const auto& a : async_algorithms()) {
      all.push_back({a.name,
                     AlgorithmFamily::kAsync,
                     a.description,
                     a.options,
                     {},
                     &a,
                     nullptr,
                     a.local_optimizer});
    }
    for (const auto& a : sync_algorithms()) {
      auto check = [&a](const OptionValues& values, int64_t workers, bool mpi) {
        sync_plan(a, values, {workers, mpi});
      };
      all.push_back(
          {a.name, AlgorithmFamily::kSync, a.description, a.options, check, nullptr, &a, true});
    }
    return all;
  }();
  return catalog;
}

const AlgorithmInfo& find_algorithm(const std::string& name) {
  return find_by_name(algorithm_catalog(), name, "algorithm");
}

}  // namespace dsgd
