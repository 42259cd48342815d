// The config's keys. The general keys are one table of typed specs (key_specs()): each knows its
// key, documentation, how to read, write and show its member, its range check, the family of
// algorithms it belongs to, and whether `dsgd run --resume` may change it. Adding a key is one
// line in the table; reading, writing, listing, errors and the resume policy follow from it.
// Keys of a single algorithm are not in the table: each algorithm declares its own
// (algos/options.h), and algorithm_keys() indexes them from the catalog without knowing any by
// name.
// Private to src/train/config*.
#pragma once

#include <toml++/toml.h>

#include <functional>
#include <string>
#include <vector>

#include "algos/catalog.h"
#include "algos/options.h"
#include "train/config.h"

namespace dsgd {

// The resume column: whether a resumed run may give the key another value. kMayChange is for
// keys that only say how long to go on, how often to evaluate, and how to compute; every other
// key is part of what the checkpoint was computed with.
enum class OnResume { kFixed, kMayChange };

struct KeySpec {
  std::string key;
  std::string type;
  std::string help;
  OnResume on_resume = OnResume::kFixed;
  std::function<void(RunConfig&, const toml::node&)> read;
  std::function<void(const RunConfig&, toml::table&)> write;
  std::function<std::string(const RunConfig&)> show;
  std::function<std::string(const RunConfig&)> check;  // "" when valid, else the reason
  std::function<bool(const AlgorithmInfo&)> applies;   // empty: every algorithm
  std::string applies_to;                              // for the error message

  bool belongs_to(const AlgorithmInfo& algo) const { return !applies || applies(algo); }
};

// The general keys, in the order `dsgd list keys` and config.toml show them.
const std::vector<KeySpec>& key_specs();
// The spec of `key`, or nullptr.
const KeySpec* find_spec(const std::string& key);

// A key some algorithm declares, once, with the algorithms that declare it (in catalog order).
struct AlgorithmKey {
  OptionSpec spec;
  std::vector<std::string> algorithms;
  std::string applies_to() const;  // "dc-asgd, dana-dc"
};

// Every algorithm's keys, in catalog order.
const std::vector<AlgorithmKey>& algorithm_keys();
// The algorithm key `key`, or nullptr.
const AlgorithmKey* find_algorithm_key(const std::string& key);
// "dc-asgd, dana-dc": every algorithm that declares `key`, whatever its default there.
std::string algorithms_declaring(const std::string& key);

// Every key a config may set: the table's, then the algorithms'. For "did you mean".
std::vector<std::string> all_keys();

}  // namespace dsgd
