// The [report] table of a sweep spec; see sweep_layout.h.
#include "experiment/sweep_layout.h"

#include <fmt/format.h>
#include <fmt/ranges.h>  // fmt::join (in format.h before fmt 11)

#include <algorithm>
#include <limits>
#include <optional>
#include <vector>

#include "core/names.h"
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

// [report.published.unverified]: why = "..." and configs = [names of published figures], the
// figures a source gives that could not be checked against the paper.
void read_unverified(const toml::table& table, const std::string& source,
                     PublishedFigures& published) {
  const std::string expected =
      "report.published.unverified: expected why = \"...\" (why the figures are unverified) and "
      "configs = [...] (names of configurations with a published figure)";
  const toml::array* configs = table["configs"].as_array();
  const std::optional<std::string> why = table["why"].value<std::string>();
  if (configs == nullptr || configs->empty() || !why || why->empty() || table.size() != 2) {
    fail(source, expected);
  }
  published.unverified_why = *why;
  for (const toml::node& item : *configs) {
    const std::optional<std::string> name = item.value<std::string>();
    if (!name) fail(source, expected);
    const auto figure =
        std::find_if(published.figures.begin(), published.figures.end(),
                     [&](const PublishedFigures::Figure& f) { return f.config == *name; });
    if (figure == published.figures.end()) {
      fail(source, fmt::format("report.published.unverified names '{}', which has no figure in "
                               "[report.published.accuracy]",
                               *name));
    }
    figure->unverified = true;
  }
}

// [report.published]: source, baseline, the accuracy table keyed by configuration names, and the
// figures among them that are unverified.
void read_published(const toml::table& table, const std::string& source, SweepSpec& spec) {
  PublishedFigures& published = spec.report.published;
  std::vector<std::string> names;
  for (const SweepPoint& point : spec.points) {
    for (const auto& [dimension, value] : point.labels) {
      if (dimension == "config" && std::find(names.begin(), names.end(), value) == names.end()) {
        names.push_back(value);
      }
    }
  }
  if (names.empty()) fail(source, "report.published needs named configurations ([[configs]])");
  const toml::table* unverified = nullptr;  // read once every figure is
  for (const auto& [key, node] : table) {
    const std::string name(key.str());
    if ((name == "source" || name == "baseline") && node.is_string()) {
      (name == "source" ? published.source : published.baseline) = node.as_string()->get();
    } else if (name == "accuracy" && node.is_table()) {
      for (const auto& [config, figure] : *node.as_table()) {
        const std::string config_name(config.str());
        if (std::find(names.begin(), names.end(), config_name) == names.end()) {
          const std::string closest = closest_name(config_name, names);
          fail(source, fmt::format("report.published.accuracy names '{}', which is not a "
                                   "configuration of this sweep{}",
                                   config_name,
                                   closest.empty() ? "" : " (did you mean '" + closest + "'?)"));
        }
        PublishedFigures::Figure f{config_name, figure.value<double>(), "", false};
        if (figure.is_string()) {
          f.word = figure.as_string()->get();
        } else if (!f.accuracy || *f.accuracy < 0 || *f.accuracy > 1) {
          fail(source, fmt::format("report.published.accuracy.\"{}\" must be an accuracy in "
                                   "[0, 1] or a word such as \"fails\"",
                                   config_name));
        }
        published.figures.push_back(f);
      }
    } else if (name == "unverified" && node.is_table()) {
      unverified = node.as_table();
    } else {
      fail(source, "report.published." + name +
                       ": expected source = \"...\", baseline = \"...\" (strings), an "
                       "[report.published.accuracy] table and, optionally, an "
                       "[report.published.unverified] table");
    }
  }
  if (unverified != nullptr) read_unverified(*unverified, source, published);
  if (published.source.empty()) fail(source, "report.published.source is missing: cite the paper");
  const auto baseline = std::find_if(
      published.figures.begin(), published.figures.end(),
      [&](const auto& f) { return f.config == published.baseline && f.accuracy.has_value(); });
  if (baseline == published.figures.end()) {
    fail(source, fmt::format("report.published.baseline = \"{}\" must name a configuration with "
                             "a published accuracy: drops are measured from it",
                             published.baseline));
  }
}

// A list of increasing numbers in (0, `most`], or fail with `expected`.
void read_increasing(const toml::node& node, const std::string& source, double most,
                     const std::string& expected, std::vector<double>& values) {
  const toml::array* list = node.as_array();
  if (list == nullptr || list->empty()) fail(source, expected);
  for (const toml::node& item : *list) {
    const std::optional<double> value = item.value<double>();
    if (!value || *value <= 0 || *value > most || (!values.empty() && *value <= values.back())) {
      fail(source, expected);
    }
    values.push_back(*value);
  }
}

}  // namespace

void read_report_layout(const toml::table* report, const std::string& source,
                        const std::string& spec_dir, SweepSpec& spec) {
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
      if (name == "claims") {
        read_claims(node, source, spec_dir, spec);
        continue;
      }
      if (name == "published" && node.is_table()) {
        read_published(*node.as_table(), source, spec);
        continue;
      }
      if (name == "loss_epochs" || name == "accuracy_epochs") {
        read_increasing(
            node, source, std::numeric_limits<double>::infinity(),
            "report." + name + " must be a list of increasing epochs > 0, e.g. [10, 20, 40, 80]",
            name == "loss_epochs" ? layout.loss_epochs : layout.accuracy_epochs);
        continue;
      }
      if (name == "accuracy_targets") {
        read_increasing(node, source, 1.0,
                        "report.accuracy_targets must be a list of increasing test accuracies "
                        "in (0, 1], e.g. [0.85, 0.87, 0.875]",
                        layout.accuracy_targets);
        continue;
      }
      if (name == "perplexity_targets") {
        const toml::array* list = node.as_array();
        const std::string expected =
            "report.perplexity_targets must be a list of decreasing validation perplexities, "
            "each at least 1, e.g. [8, 6, 5]";
        if (list == nullptr || list->empty()) fail(source, expected);
        for (const toml::node& item : *list) {
          const std::optional<double> value = item.value<double>();
          const auto& before = layout.accuracy_targets;
          if (!value || *value < 1 || (!before.empty() && *value >= before.back())) {
            fail(source, expected);
          }
          layout.accuracy_targets.push_back(*value);
        }
        continue;
      }
      if (name == "drops_from") {
        const toml::array* list = node.as_array();
        if (list == nullptr || list->empty() || !list->is_homogeneous(toml::node_type::string)) {
          fail(source, "report.drops_from must be a list of configurations, e.g. [\"sgd n1\"]");
        }
        for (const toml::node& item : *list)
          layout.drops_from.push_back(*item.value<std::string>());
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
             "unknown key report." + name +
                 " (known: title, notes, rows, columns, target, published, claims, loss_epochs, "
                 "accuracy_epochs, accuracy_targets, perplexity_targets, drops_from)");
      }
    }
  }
  if (!layout.columns.empty() && layout.columns == layout.rows) {
    fail(source, "report.rows and report.columns must be different dimensions");
  }
  auto is_row_value = [&](const std::string& wanted) {
    return std::any_of(spec.points.begin(), spec.points.end(), [&](const auto& p) {
      for (const auto& [dimension, value] : p.labels) {
        if (dimension == layout.rows && value == wanted) return true;
      }
      return false;
    });
  };
  if (!layout.target_config.empty() && !is_row_value(layout.target_config)) {
    fail(source, fmt::format("report.target = \"{}\" is not a value of the row dimension '{}' "
                             "(give an accuracy, or a {} of this sweep)",
                             layout.target_config, layout.rows, layout.rows));
  }
  for (const std::string& baseline : layout.drops_from) {
    if (!is_row_value(baseline)) {
      fail(source, fmt::format("report.drops_from: \"{}\" is not a value of the row dimension "
                               "'{}' (name a {} of this sweep)",
                               baseline, layout.rows, layout.rows));
    }
  }
}

}  // namespace sweep_internal
}  // namespace dsgd
