// The grid expansion of a sweep spec; see sweep_grid.h.
#include "experiment/sweep_grid.h"

#include <fmt/format.h>
#include <fmt/ranges.h>  // fmt::join (in format.h before fmt 11)

#include <map>
#include <set>

#include "experiment/path_names.h"
#include "experiment/sweep_toml.h"

namespace dsgd {
namespace sweep_internal {
namespace {

// A folder name from a label: letters, digits and . _ = + - kept, anything else becomes _.
std::string path_component(const std::string& text) {
  std::string out = path_safe(text, "._=+-");
  if (out.empty() || out == "." || out == "..") out = "_" + out;
  return out;
}

// "{model}/n{workers}/{config}/seed{seed}" with the point's labels filled in.
std::string expand_dir(const std::string& source, const std::string& pattern,
                       const std::map<std::string, std::string>& labels) {
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '{') {
      out += pattern[i];
      continue;
    }
    const size_t close = pattern.find('}', i);
    if (close == std::string::npos) fail(source, "dir = \"" + pattern + "\" has an unclosed {");
    const std::string name = pattern.substr(i + 1, close - i - 1);
    auto it = labels.find(name);
    if (it == labels.end()) {
      std::string known;
      for (const auto& [dimension, value] : labels)
        known += (known.empty() ? "" : ", ") + dimension;
      fail(source, fmt::format("dir uses {{{}}}, which is not a dimension of this sweep ({})", name,
                               known));
    }
    out += path_component(it->second);
    i = close;
  }
  return out;
}

}  // namespace

std::string default_dir_pattern(const std::vector<Dimension>& dimensions) {
  std::string pattern;
  for (const auto& d : dimensions) {
    if (!pattern.empty()) pattern += "/";
    pattern += d.name == "config" ? "{config}" : d.name + "={" + d.name + "}";
  }
  return pattern.empty() ? "run" : pattern;
}

std::vector<SweepPoint> expand_points(const std::vector<Dimension>& dimensions,
                                      const std::vector<std::string>& common,
                                      const std::string& dir_pattern, const std::string& source) {
  std::vector<std::string> names;
  for (const auto& d : dimensions) names.push_back(d.name);
  std::vector<SweepPoint> points;
  std::vector<size_t> index(dimensions.size(), 0);
  std::set<std::string> dirs;
  while (true) {
    SweepPoint point;
    point.overrides = common;
    std::map<std::string, std::string> labels;
    for (size_t d = 0; d < dimensions.size(); ++d) {
      const auto& [label, overrides] = dimensions[d].values[index[d]];
      point.labels.emplace_back(dimensions[d].name, label);
      labels[dimensions[d].name] = label;
      point.overrides.insert(point.overrides.end(), overrides.begin(), overrides.end());
    }
    point.dir = expand_dir(source, dir_pattern, labels);
    if (!dirs.insert(point.dir).second) {
      fail(source, fmt::format("two runs would share the folder '{}': dir = \"{}\" must use "
                               "every dimension that varies ({})",
                               point.dir, dir_pattern, fmt::join(names, ", ")));
    }
    points.push_back(std::move(point));
    size_t d = dimensions.size();
    while (d > 0 && ++index[d - 1] == dimensions[d - 1].values.size()) index[--d] = 0;
    if (d == 0) break;
  }
  return points;
}

}  // namespace sweep_internal
}  // namespace dsgd
