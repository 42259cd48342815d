// The sections of the markdown report, in the order it shows them: the preamble (title, how the
// runs and the report were made, the sweep's notes), the introduction to the table of every
// configuration, the final accuracy pivoted rows against columns, the drops from named baselines,
// the training loss by epoch, the time to each test accuracy, the times on several clusters, the
// published figures beside the measured ones, each run's folder and format, and the figures with
// the markdown that shows them. Private to src/experiment/.
#pragma once

#include <string>
#include <vector>

#include "experiment/report.h"
#include "experiment/report_figures.h"
#include "experiment/report_layout.h"
#include "experiment/report_table.h"
#include "experiment/run_results.h"

namespace dsgd {
namespace report_internal {

// The title, the commands that made the runs and the report, the date, and the sweep's notes.
std::string preamble(const Experiment& experiment, const ReportOptions& options);

// What the table of every configuration holds: how accuracies, the time to the target, staleness,
// gap and traffic are read (each only when some row has it).
std::string table_intro(const Layout& layout, const std::vector<Row>& rows);

// The final accuracy pivoted, rows against columns, one table per group.
std::string pivot_section(const Experiment& experiment, const Layout& layout);

// With `[report] drops_from`: each configuration's drop in final accuracy from each of those
// configurations, with the spread of the seeds (report_drops.cpp); "" otherwise.
std::string drops_section(const Experiment& experiment, const Layout& layout);

// With `[report] loss_epochs`: each configuration's training loss at its first evaluation at or
// after each of those epochs, mean ± std over its seeds (report_by_epoch.cpp); "" otherwise.
std::string loss_section(const Experiment& experiment);

// With `[report] accuracy_epochs`: the same table of test accuracy (report_by_epoch.cpp).
std::string accuracy_section(const Experiment& experiment);

// With `[report] accuracy_targets`: each configuration's time to reach each of those test
// accuracies, on the report's clock, with its epoch and its ratio to the target configuration's
// (report_targets.cpp); "" otherwise.
std::string targets_section(const Experiment& experiment, const Layout& layout);

// Where the device the clusters price with (`--device`, else each cluster's own) has steps derived
// rather than measured: a paragraph naming them and the rule (no page passes one off as
// measured); "" otherwise (report_clusters.cpp).
std::string derived_steps_note(const ReportOptions& options);

// With more than one cluster asked for: every run re-timed on each, each configuration's time to
// the target and whole run per cluster (report_clusters.cpp); "" otherwise. `targets`: each
// configuration's target accuracy, as the table above used.
std::string clusters_section(const Experiment& experiment, const std::vector<double>& targets,
                             const Layout& layout, const ReportOptions& options);

// With `[[report.claims]]`: each claim of the paper with its published words, each side's final
// metric and the verdict with the test behind it (report_claims.cpp, claim_verdict.h); ""
// otherwise. Folders of other sweeps' runs are named from `page_folder`, where the report is
// written.
std::string claims_section(const Experiment& experiment, const std::string& page_folder);

// The paper's published figures beside the measured ones, each with its drop from its own
// baseline (report_published.cpp); "" when the sweep states none.
std::string published_section(const Experiment& experiment);

// Each run's folder, status, epochs, wall time and how it computed (format, measured step, CPU):
// a campaign's runs may land on different machines.
std::string runs_section(const Experiment& experiment);

// The figures and the markdown that shows them: the final accuracy against a numeric columns
// dimension, then the curves of each group, in parts of at most kMaxSeries lines. `plots`: the
// figures' folder relative to the report; the figures to draw are appended to `figures`.
std::string figure_section(const Experiment& experiment, const Layout& layout,
                           const std::string& plots, std::vector<Figure>& figures);

}  // namespace report_internal
}  // namespace dsgd
