// The list of every runnable algorithm; see catalog.h.
#include "algos/catalog.h"

#include "algos/async_rule.h"
#include "algos/sync_algorithm.h"
#include "core/names.h"

namespace dsgd {

const std::vector<AlgorithmInfo>& algorithm_catalog() {
  static const std::vector<AlgorithmInfo> catalog = [] {
    std::vector<AlgorithmInfo> all = {
        {"sgd", AlgorithmFamily::kSingle,
         "single-worker SGD with momentum, Nesterov and weight decay (the baseline)"},
    };
    for (const auto& a : async_algorithms()) {
      all.push_back({a.name, AlgorithmFamily::kAsync, a.description});
    }
    for (const auto& a : sync_algorithms()) {
      all.push_back({a.name, AlgorithmFamily::kSync, a.description});
    }
    return all;
  }();
  return catalog;
}

const AlgorithmInfo& find_algorithm(const std::string& name) {
  std::vector<std::string> names;
  for (const auto& a : algorithm_catalog()) {
    if (a.name == name) return a;
    names.push_back(a.name);
  }
  throw unknown_name("algorithm", name, names);
}

}  // namespace dsgd
