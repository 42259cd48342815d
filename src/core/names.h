// Spelling help for names a user types: config keys, algorithms, models, datasets.
// An unknown name is answered with the closest valid one, so that a typo costs one retry.
#pragma once

#include <string>
#include <vector>

#include "core/errors.h"

namespace dsgd {

// Levenshtein distance between two strings.
size_t edit_distance(const std::string& a, const std::string& b);

// The candidate closest to `name`, or "" when none is reasonably close.
std::string closest_name(const std::string& name, const std::vector<std::string>& candidates);

// A ConfigError "unknown <kind> 'name'" with a hint naming the closest candidate and the list.
ConfigError unknown_name(const std::string& kind, const std::string& name,
                         const std::vector<std::string>& candidates);

// The entry of `entries` (anything with a `name`) called `name`; throws unknown_name otherwise.
template <class Entry>
const Entry& find_by_name(const std::vector<Entry>& entries, const std::string& name,
                          const std::string& kind) {
  std::vector<std::string> names;
  for (const auto& entry : entries) {
    if (entry.name == name) return entry;
    names.push_back(entry.name);
  }
  throw unknown_name(kind, name, names);
}

}  // namespace dsgd
