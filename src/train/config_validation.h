// What the config checks once every key is read: each key's range, keys set for an algorithm
// they do not belong to, rules across keys, the MPI and device rules, and the chosen algorithm's
// own keys resolved (defaults, ranges, the run's shape): the one resolution a run's rules and
// plans are made from.
// Private to src/train/config*.
#pragma once

#include <set>
#include <string>

#include "algos/options.h"
#include "train/config.h"

namespace dsgd {

// Throws ConfigError, naming the key, for the first problem found; `set_keys` are the keys the
// file and the overrides set (the general keys' family rules apply only to those).
void validate(const RunConfig& config, const std::set<std::string>& set_keys);

// The chosen algorithm's own keys: each one given must be declared by it; then every declared
// key resolved (defaults, ranges) and checked against the run's shape (workers, MPI).
OptionValues resolve_algorithm_options(const RunConfig& config, const OptionValues& given);

}  // namespace dsgd
