// How `dsgd report` lays the runs out, resolved once from the sweep's [report] table and the
// command line: the dimension down the rows, the one across the pivot, the target accuracy (a
// number, or a reference row's final accuracy in each group), and the groups of configurations
// that share every other label. Private to src/experiment/.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "experiment/report.h"
#include "experiment/run_results.h"

namespace dsgd {
namespace report_internal {

struct Layout {
  std::string rows;     // the dimension down the rows ("" when there is none)
  std::string columns;  // the dimension across the pivot ("" when none)
  // Labels that do not tell groups apart: `config` when rows or columns are config keys (it is
  // then only each configuration's name), and `run`, a loose run folder's name.
  std::vector<std::string> names_only;
  double target = 0.0;         // a fixed value of the main metric (an accuracy, a perplexity), or
  std::string target_config;   // a value of `rows` whose final main metric is the target
  std::string metric = "acc";  // the main metric's abbreviation, for the target's name

  bool relative_target() const { return target <= 0.0 && !target_config.empty() && !rows.empty(); }
  bool has_target() const { return target > 0.0 || relative_target(); }
  std::string target_name() const;
};

// The sweep's layout, with the command line's target (when > 0) instead of the sweep's, and the
// only dimension as the rows when the sweep names none.
Layout resolve_layout(const Experiment& experiment, const ReportOptions& options);

// A group's shared labels, and its configurations.
using Group = std::pair<Labels, std::vector<const Configuration*>>;

// The configurations that share every label but `free` (and the layout's name-only labels), in
// the order the sweep declared them.
std::vector<Group> group_by(const Experiment& experiment, const Layout& layout,
                            std::vector<std::string> free);

// The configurations (indices into experiment.configurations) whose row value is the layout's
// target configuration, e.g. every ssgd row; empty when the target is a fixed accuracy.
std::vector<size_t> reference_indices(const Experiment& experiment, const Layout& layout);

// The configuration whose `rows` value is `row_value` and that shares every other label of `c`
// (but the name-only ones), or, when none does, the one configuration anywhere with that value;
// nullptr when there is neither.
const Configuration* reference_for(const Experiment& experiment, const Layout& layout,
                                   const Configuration& c, const std::string& row_value);

// Each configuration's target: the fixed one, or the final accuracy of the reference row in its
// group, or, when its group has none, of the one configuration anywhere with that row value
// (sgd at N = 1 for every N); 0 where the reference has no clean result yet.
std::vector<double> targets_of(const Experiment& experiment, const Layout& layout);

// A label as the report shows it: "config" and "run" name a configuration on their own; other
// dimensions read better as k = v.
std::string shown(const std::string& dimension, const std::string& value);
// A markdown table of configurations: the header (each dimension, then `headers`) with its
// separator line, and one configuration's row (its label in each dimension, then `cells`).
std::string table_head(const std::vector<std::string>& dimensions,
                       const std::vector<std::string>& headers);
std::string table_row(const Configuration& c, const std::vector<std::string>& dimensions,
                      const std::vector<std::string>& cells);

// The labels shown, joined by `separator`.
std::string joined(const Labels& labels, const char* separator);

}  // namespace report_internal
}  // namespace dsgd
