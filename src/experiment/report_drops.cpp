// The report's table of drops from named baselines (`[report] drops_from = [...]` in the sweep
// spec): each configuration's loss of final accuracy against each baseline, in points, with the
// 95 % interval of Welch's t over the seeds behind both, "resolved" or "not resolved", so that a
// claim such as "Hier-AVG loses less than K-AVG" is read from numbers that say whether the seeds
// decide it. See report_sections.h.
#include <fmt/format.h>

#include <sstream>

#include "experiment/report_sections.h"

namespace dsgd {
namespace report_internal {

std::string drops_section(const Experiment& experiment, const Layout& layout) {
  const std::vector<std::string>& baselines = experiment.layout.drops_from;
  if (baselines.empty() || layout.rows.empty()) return "";
  std::ostringstream md;
  const MainMetric& metric = experiment.metric();
  md << "\n## Drops from the baselines\n\n"
     << (metric.lower_is_better
             ? fmt::format("The final {} each configuration gained against each baseline "
                           "(negative: it lost): the configuration's mean over its seeds less "
                           "the baseline's, ",
                           metric.name)
             : fmt::format("Points of final {} each configuration lost against each baseline "
                           "(negative: it gained): the baseline's mean over its seeds less the "
                           "configuration's, ",
                           metric.name))
     << "over the seeds of each that have ended, once every one of "
        "them ended ok (a seed queued or still going joins when it ends), with its 95 % interval "
        "by Welch's t over the seeds of both, where both have two seeds or more: \"resolved\" "
        "where the interval leaves out 0, \"not resolved\" where it holds it; with one seed on "
        "a side no test is possible, and the cell says how many seeds there are. A baseline "
        "is the configuration of that name with the same other labels, or else the only one.\n\n";
  std::vector<std::string> headers;
  for (const std::string& b : baselines) headers.push_back("from " + b);
  md << table_head(experiment.dimensions, headers);
  for (const Configuration& c : experiment.configurations) {
    std::vector<std::string> cells;
    for (const std::string& b : baselines) {
      const Configuration* baseline = reference_for(experiment, layout, c, b);
      cells.push_back(
          baseline == &c ? "baseline"
          : baseline == nullptr
              ? "-"
              : measured_drop(finished_metric(*baseline), finished_metric(c), experiment.metric()));
    }
    md << table_row(c, experiment.dimensions, cells);
  }
  return md.str();
}

}  // namespace report_internal
}  // namespace dsgd
