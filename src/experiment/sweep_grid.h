// The grid expansion of a sweep spec: its dimensions (grid keys, named configurations, seeds),
// each value with the overrides it brings, crossed into one point per run with its own folder.
// Private to src/experiment/.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "experiment/sweep_spec.h"

namespace dsgd {
namespace sweep_internal {

struct Dimension {
  std::string name;
  // Each value: its label, and the KEY=VALUE overrides it brings.
  std::vector<std::pair<std::string, std::vector<std::string>>> values;
};

// The folder pattern when the spec gives no `dir`: "key={key}" per dimension ("{config}" for the
// named configurations), joined by "/"; "run" when there is no dimension.
std::string default_dir_pattern(const std::vector<Dimension>& dimensions);

// Every combination of the dimensions' values, the first dimension outermost (the last one
// changes fastest): each point has the `common` overrides then those of its values, and the folder
// `dir_pattern` names with its labels. Fails (sweep_toml.h) when two points would share a folder
// or the pattern names no dimension.
std::vector<SweepPoint> expand_points(const std::vector<Dimension>& dimensions,
                                      const std::vector<std::string>& common,
                                      const std::string& dir_pattern, const std::string& source);

}  // namespace sweep_internal
}  // namespace dsgd
