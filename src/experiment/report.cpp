// The markdown report, its CSV and its figures; see report.h. The layout and the groups are
// report_layout.h's, the sections report_sections.h's, the table of every configuration
// report_table.h's and the figures report_figures.h's; this file puts them together and writes
// the files.
#include "experiment/report.h"

#include <fmt/format.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "core/atomic_file.h"
#include "core/errors.h"
#include "core/fault_injection.h"
#include "core/interrupt.h"
#include "experiment/report_figures.h"
#include "experiment/report_layout.h"
#include "experiment/report_sections.h"
#include "experiment/report_table.h"
#include "experiment/retime.h"
#include "experiment/run_results.h"
#include "experiment/sync_reclock.h"

namespace dsgd {
namespace {

namespace fs = std::filesystem;
using namespace report_internal;  // NOLINT(build/namespaces): the report's parts

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

std::string write_report(const ReportOptions& options) {
  // A stop between files: each file written is whole (atomically), the report is then partial.
  InterruptScope interrupts;
  const auto stop_if_asked = [] {
    stop_if_interrupted("writing the report", "its files written so far whole",
                        "run the same command again to write the whole report");
  };
  Experiment experiment = load_experiment(options.dirs);
  for (const std::string& warning : experiment.warnings)
    std::cerr << "warning: " << warning << "\n";
  reclock_synchronous_runs(experiment);
  const Experiment before_retiming = options.clusters.size() > 1 ? experiment : Experiment{};
  if (!options.clusters.empty()) {
    retime_on_cluster(experiment, options.clusters.front(), options.cluster_file, options.device);
  }
  const Layout layout = resolve_layout(experiment, options);
  const std::vector<double> targets = targets_of(experiment, layout);
  std::vector<Row> rows;
  for (size_t i = 0; i < experiment.configurations.size(); ++i) {
    rows.push_back(summarise(experiment.configurations[i], targets[i]));
  }
  // The configuration whose final accuracy is the target, when exactly one is.
  const std::vector<size_t> references = reference_indices(experiment, layout);
  const Row* reference = references.size() == 1 ? &rows[references.front()] : nullptr;
  const std::vector<Column> columns =
      table_columns(experiment.dimensions, rows, experiment.metric(), layout.has_target(),
                    layout.target_name(), reference, layout.target_config);

  const fs::path report_path =
      options.out.empty() ? fs::path(options.dirs.front()) / "report.md" : fs::path(options.out);
  const fs::path folder = report_path.has_parent_path() ? report_path.parent_path() : ".";
  // Each report's figures in a folder of their own, so reports can share a folder.
  const std::string plots = report_path.stem().string() + "-plots";
  fs::create_directories(folder);

  std::string md = preamble(experiment, options) + claims_section(experiment, folder.string()) +
                   table_intro(layout, rows) +
                   markdown_table(columns, experiment.configurations, rows);
  if (!layout.columns.empty() && !layout.rows.empty()) md += pivot_section(experiment, layout);
  md += drops_section(experiment, layout);
  md += loss_section(experiment);
  md += accuracy_section(experiment);
  md += targets_section(experiment, layout);
  md += clusters_section(before_retiming, targets, layout, options);
  md += published_section(experiment);
  md += runs_section(experiment);
  std::vector<Figure> figures;
  if (options.plots) md += figure_section(experiment, layout, plots, figures);
  // Hand-written commentary below a `<!-- notes -->` line survives regenerating the report.
  if (fs::exists(report_path)) {
    const std::string previous = read_text(report_path);
    const size_t notes = previous.find("\n<!-- notes -->");
    if (notes != std::string::npos) md += previous.substr(notes);
  }
  fault_point("report");
  stop_if_asked();
  if (const int error = write_fault("report")) {
    throw Error(fmt::format("cannot write {}: {}", report_path.string(), std::strerror(error)),
                "free some space, or write the report elsewhere with --out");
  }
  write_file_atomically(report_path.string(), md);
  write_file_atomically((folder / (report_path.stem().string() + ".csv")).string(),
                        csv_table(columns, experiment.configurations, rows));
  if (!figures.empty()) fs::create_directories(folder / plots);
  for (const Figure& figure : figures) {
    stop_if_asked();
    draw_figure((folder / figure.base).string(), figure.title, figure.panels);
  }
  stop_if_asked();  // a stop during the last figure still ends the command as a stop
  return report_path.string();
}

}  // namespace dsgd
