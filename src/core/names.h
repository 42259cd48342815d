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

}  // namespace dsgd
