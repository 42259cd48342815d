// Spelling help for user-typed names; see names.h.
#include "core/names.h"

#include <algorithm>

namespace dsgd {

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string closest_name(const std::string& name, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_distance = std::string::npos;
  for (const auto& candidate : candidates) {
    size_t d = edit_distance(name, candidate);
    if (d < best_distance) {
      best_distance = d;
      best = candidate;
    }
  }
  // Beyond about half the name's length the "suggestion" is noise.
  size_t limit = std::max<size_t>(2, (name.size() + 1) / 2);
  return best_distance <= limit ? best : "";
}

ConfigError unknown_name(const std::string& kind, const std::string& name,
                         const std::vector<std::string>& candidates) {
  std::string list;
  for (const auto& c : candidates) list += (list.empty() ? "" : ", ") + c;
  std::string suggestion = closest_name(name, candidates);
  std::string hint =
      suggestion.empty() ? "valid: " + list : "did you mean '" + suggestion + "'? valid: " + list;
  return ConfigError("unknown " + kind + " '" + name + "'", hint);
}

}  // namespace dsgd
