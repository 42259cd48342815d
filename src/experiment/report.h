// `dsgd report`: a markdown report of run or sweep folders. One table with a row per
// configuration (final and best accuracy as mean ± std over seeds, diverged/collapsed marks, time
// to the target accuracy, staleness, gap, traffic), then, where the sweep names a `columns`
// dimension, the final accuracy pivoted the way the sweep was declared, and one figure per panel
// group (test accuracy and training loss against epochs and simulated time, staleness histograms,
// learner spread). <name>.csv next to <name>.md holds the first table for other tools. Commentary
// written below a `<!-- notes -->` line of an existing report is kept when the report is made
// again.
#pragma once

#include <string>
#include <vector>

namespace dsgd {

struct ReportOptions {
  std::vector<std::string> dirs;
  std::string out;      // the report's path; default: <first dir>/report.md
  double target = 0.0;  // overrides the sweep's report.target when > 0
  bool plots = true;
  std::string command;  // how the report was asked for, quoted at its top
  // Re-time the runs on these named clusters (experiment/retime.h): the first prices the tables and
  // figures, and with more than one a section sets every cluster's times side by side. None keeps
  // what the runs recorded.
  std::vector<std::string> clusters;
  std::string cluster_file;
  std::string device;  // the device re-timed runs compute on, "" for the cluster's own
};

// Writes the report (and <name>.csv and <name>-plots/ next to it); returns its path.
std::string write_report(const ReportOptions& options);

}  // namespace dsgd
