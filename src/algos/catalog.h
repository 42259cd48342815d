// Every algorithm a run can name, with its family, so that config validation, `dsgd list` and
// the run dispatcher agree on one list. Async rules come from their own registry.
#pragma once

#include <string>
#include <vector>

namespace dsgd {

enum class AlgorithmFamily { kSingle, kAsync, kSync };

struct AlgorithmInfo {
  std::string name;
  AlgorithmFamily family;
  std::string description;
};

const std::vector<AlgorithmInfo>& algorithm_catalog();
// Throws ConfigError naming the closest algorithm when `name` is unknown.
const AlgorithmInfo& find_algorithm(const std::string& name);

}  // namespace dsgd
