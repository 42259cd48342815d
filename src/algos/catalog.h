// Every algorithm a run can name, with its family, its own config keys and its entry in its
// family's registry, so that config validation, `dsgd list` and the engines agree on one list.
// Async rules and sync plans come from their own registries; this is the one place that joins
// them: a run resolves its name here once (run/run_plan.h), and the engines take the entry.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "algos/options.h"

namespace dsgd {

enum class AlgorithmFamily { kSingle, kAsync, kSync };

struct AsyncAlgorithm;  // algos/async_rule.h
struct SyncAlgorithm;   // algos/sync_algorithm.h

struct AlgorithmInfo {
  std::string name;
  AlgorithmFamily family;
  std::string description;
  std::vector<OptionSpec> options;  // the keys only this algorithm (and its kin) reads
  // Checks the resolved options against the run's shape (workers, whether it runs on MPI);
  // throws ConfigError naming the keys. Empty: nothing beyond each key's own range.
  std::function<void(const OptionValues&, int64_t workers, bool mpi)> check;
  // The family registry's entry: the asynchronous rule or the synchronous plan (null for sgd).
  const AsyncAlgorithm* async = nullptr;
  const SyncAlgorithm* sync = nullptr;
  // Whether its worker or learners step with algos/local_optimizer.h, whose `optimizer` key then
  // applies: sgd, the synchronous family, and the asynchronous rules with local steps.
  bool local_optimizer = false;
};

const std::vector<AlgorithmInfo>& algorithm_catalog();
// Throws ConfigError naming the closest algorithm when `name` is unknown.
const AlgorithmInfo& find_algorithm(const std::string& name);

}  // namespace dsgd
