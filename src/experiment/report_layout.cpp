// The report's layout, groups and targets; see report_layout.h.
#include "experiment/report_layout.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/errors.h"

namespace dsgd {
namespace report_internal {
std::string Layout::target_name() const {
  return relative_target() ? target_config + "'s final " + metric : fmt::format("{}", target);
}

Layout resolve_layout(const Experiment& experiment, const ReportOptions& options) {
  const ReportLayout& given = experiment.layout;
  Layout layout{given.rows,   given.columns,       {},
                given.target, given.target_config, experiment.metric().abbreviation};
  if (options.target > 0.0) {
    layout.target = options.target;
    layout.target_config.clear();
  }
  const MainMetric& metric = experiment.metric();
  if (layout.target > 0.0 && (metric.fraction ? layout.target > 1.0 : layout.target < 1.0)) {
    throw ConfigError(fmt::format("the target {:g} is no {}", layout.target, metric.name),
                      metric.fraction
                          ? "give a test accuracy in (0, 1], e.g. --target 0.9"
                          : "give a validation perplexity of at least 1, e.g. --target 5");
  }
  if (layout.rows.empty() && experiment.dimensions.size() == 1) {
    layout.rows = experiment.dimensions.front();
  }
  if (!given.key_dimensions.empty()) layout.names_only.push_back("config");
  // A run folder given by itself is named by its folder, which says nothing shared with others:
  // such runs go on one figure with the sweep's configurations they are given beside.
  layout.names_only.push_back("run");
  return layout;
}

std::vector<Group> group_by(const Experiment& experiment, const Layout& layout,
                            std::vector<std::string> free) {
  free.insert(free.end(), layout.names_only.begin(), layout.names_only.end());
  std::vector<Group> groups;
  for (const auto& c : experiment.configurations) {
    Labels key;
    for (const auto& label : c.labels) {
      if (std::find(free.begin(), free.end(), label.first) == free.end()) key.push_back(label);
    }
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&key](const Group& g) { return g.first == key; });
    if (it == groups.end()) {
      groups.push_back({key, {&c}});
    } else {
      it->second.push_back(&c);
    }
  }
  return groups;
}

std::vector<size_t> reference_indices(const Experiment& experiment, const Layout& layout) {
  std::vector<size_t> indices;
  for (size_t i = 0; layout.relative_target() && i < experiment.configurations.size(); ++i) {
    if (label_of(experiment.configurations[i].labels, layout.rows) == layout.target_config) {
      indices.push_back(i);
    }
  }
  return indices;
}

const Configuration* reference_for(const Experiment& experiment, const Layout& layout,
                                   const Configuration& c, const std::string& row_value) {
  const Configuration* only = nullptr;
  int with_value = 0;
  for (const Configuration& r : experiment.configurations) {
    if (layout.rows.empty() || label_of(r.labels, layout.rows) != row_value) continue;
    bool same_group = true;
    for (const auto& [dimension, value] : c.labels) {
      const bool compared =
          dimension != layout.rows && std::find(layout.names_only.begin(), layout.names_only.end(),
                                                dimension) == layout.names_only.end();
      if (compared) same_group = same_group && label_of(r.labels, dimension) == value;
    }
    if (same_group) return &r;
    only = &r;
    ++with_value;
  }
  return with_value == 1 ? only : nullptr;
}

std::vector<double> targets_of(const Experiment& experiment, const Layout& layout) {
  std::vector<double> targets;
  for (const auto& c : experiment.configurations) {
    if (!layout.relative_target()) {
      targets.push_back(layout.target);
      continue;
    }
    const Configuration* reference = reference_for(experiment, layout, c, layout.target_config);
    const SeedStats finished = reference != nullptr ? finished_metric(*reference) : SeedStats{};
    targets.push_back(finished.n > 0 ? finished.mean : 0.0);
  }
  return targets;
}

std::string shown(const std::string& dimension, const std::string& value) {
  return dimension == "config" || dimension == "run" ? value : dimension + "=" + value;
}

std::string table_head(const std::vector<std::string>& dimensions,
                       const std::vector<std::string>& headers) {
  std::string head = "|", line = "|";
  for (const auto* names : {&dimensions, &headers}) {
    for (const std::string& name : *names) {
      head += " " + name + " |";
      line += "---|";
    }
  }
  return head + "\n" + line + "\n";
}

std::string table_row(const Configuration& c, const std::vector<std::string>& dimensions,
                      const std::vector<std::string>& cells) {
  std::string row = "|";
  for (const std::string& d : dimensions) row += " " + label_of(c.labels, d) + " |";
  for (const std::string& cell : cells) row += " " + cell + " |";
  return row + "\n";
}

std::string joined(const Labels& labels, const char* separator) {
  std::string out;
  for (const auto& [dimension, value] : labels) {
    out += (out.empty() ? "" : separator) + shown(dimension, value);
  }
  return out;
}

}  // namespace report_internal
}  // namespace dsgd
