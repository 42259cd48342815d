// The [report] table of a sweep spec; see sweep_layout.h.
#include "experiment/sweep_layout.h"

#include <fmt/format.h>
#include <fmt/ranges.h>  // fmt::join (in format.h before fmt 11)

#include <algorithm>
#include <optional>
#include <vector>

#include "experiment/sweep_toml.h"

namespace dsgd {
namespace sweep_internal {
namespace {

// A config key every point sets (in [set], [grid] or its [[configs]] entry) as a report
// dimension of its own: each point gets the label key = its value (strings without quotes), and
// the key joins spec.dimensions after the others. So a sweep of named configurations can be
// tabled and plotted by, say, algo against workers. False, changing nothing, when a point does
// not set the key.
bool label_by_key(SweepSpec& spec, const std::string& key) {
  std::vector<std::string> values;
  for (const SweepPoint& point : spec.points) {
    std::optional<std::string> value;
    for (const std::string& o : point.overrides) {
      const size_t equals = o.find('=');
      if (equals != std::string::npos && o.compare(0, equals, key) == 0 && equals == key.size()) {
        value = o.substr(equals + 1);
      }
    }
    if (!value) return false;
    if (value->size() >= 2 && value->front() == '\'' && value->back() == '\'') {
      *value = value->substr(1, value->size() - 2);
    }
    values.push_back(*value);
  }
  for (size_t i = 0; i < spec.points.size(); ++i)
    spec.points[i].labels.emplace_back(key, values[i]);
  spec.dimensions.push_back(key);
  spec.report.key_dimensions.push_back(key);
  return true;
}

}  // namespace

void read_report_layout(const toml::table* report, const std::string& source, SweepSpec& spec) {
  ReportLayout& layout = spec.report;
  layout.rows =
      std::find(spec.dimensions.begin(), spec.dimensions.end(), "config") != spec.dimensions.end()
          ? "config"
          : "";
  if (report != nullptr) {
    for (const auto& [key, node] : *report) {
      const std::string name(key.str());
      if (name == "target" && node.is_number()) {
        layout.target = *node.value<double>();
        continue;
      }
      if (!node.is_string()) fail(source, "report." + name + " must be a string");
      const std::string value = node.as_string()->get();
      if (name == "title") {
        layout.title = value;
      } else if (name == "notes") {
        layout.notes = value;
      } else if (name == "target") {
        layout.target_config = value;
      } else if (name == "rows" || name == "columns") {
        const bool known_dimension = std::find(spec.dimensions.begin(), spec.dimensions.end(),
                                               value) != spec.dimensions.end();
        if (value == "seed" || (!known_dimension && !label_by_key(spec, value))) {
          fail(source, fmt::format("report.{} = \"{}\" is neither a dimension of this sweep "
                                   "other than seed ({}) nor a config key every run sets",
                                   name, value, fmt::join(spec.dimensions, ", ")));
        }
        (name == "rows" ? layout.rows : layout.columns) = value;
      } else {
        fail(source,
             "unknown key report." + name + " (known: title, notes, rows, columns, target)");
      }
    }
  }
  if (!layout.columns.empty() && layout.columns == layout.rows) {
    fail(source, "report.rows and report.columns must be different dimensions");
  }
  if (!layout.target_config.empty()) {
    const bool found = std::any_of(spec.points.begin(), spec.points.end(), [&](const auto& p) {
      for (const auto& [dimension, value] : p.labels) {
        if (dimension == layout.rows && value == layout.target_config) return true;
      }
      return false;
    });
    if (!found) {
      fail(source, fmt::format("report.target = \"{}\" is not a value of the row dimension '{}' "
                               "(give an accuracy, or a {} of this sweep)",
                               layout.target_config, layout.rows, layout.rows));
    }
  }
}

}  // namespace sweep_internal
}  // namespace dsgd
