// The index of the keys algorithms declare for themselves (algos/catalog.h's options), joined
// by key, and the list of every key name for suggestions; see config_keys.h.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "train/config_keys.h"

namespace dsgd {

std::string AlgorithmKey::applies_to() const {
  return fmt::format("{}", fmt::join(algorithms, ", "));
}

const std::vector<AlgorithmKey>& algorithm_keys() {
  static const std::vector<AlgorithmKey> keys = [] {
    std::vector<AlgorithmKey> all;
    for (const auto& algorithm : algorithm_catalog()) {
      for (const auto& spec : algorithm.options) {
        // One row per key and default: `dsgd list keys` shows each algorithm its own default
        // (outer.momentum is 0 for kavg, 0.9 for async-local-dn).
        auto same = std::find_if(all.begin(), all.end(), [&](const AlgorithmKey& k) {
          return k.spec.key == spec.key && k.spec.default_text() == spec.default_text();
        });
        if (same == all.end()) {
          all.push_back({spec, {algorithm.name}});
        } else {
          same->algorithms.push_back(algorithm.name);
        }
      }
    }
    return all;
  }();
  return keys;
}

const AlgorithmKey* find_algorithm_key(const std::string& key) {
  for (const auto& k : algorithm_keys()) {
    if (k.spec.key == key) return &k;
  }
  return nullptr;
}

std::string algorithms_declaring(const std::string& key) {
  std::vector<std::string> names;
  for (const auto& k : algorithm_keys()) {
    if (k.spec.key == key) names.insert(names.end(), k.algorithms.begin(), k.algorithms.end());
  }
  return fmt::format("{}", fmt::join(names, ", "));
}

std::vector<std::string> all_keys() {
  std::vector<std::string> keys;
  for (const auto& s : key_specs()) keys.push_back(s.key);
  for (const auto& k : algorithm_keys()) keys.push_back(k.spec.key);
  return keys;
}

}  // namespace dsgd
