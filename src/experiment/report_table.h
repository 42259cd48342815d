// The report's numbers per configuration: a summary over its seeds (accuracies, time to the target,
// staleness, gap, traffic, wall time) and the one list of columns that both the markdown table
// and its CSV are written from, so the two cannot drift apart.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "experiment/run_results.h"

namespace dsgd {

// One configuration summarised over its seeds.
struct Row {
  SeedStats final_metric, best_metric, last_five_metric, wall;
  // Time to the target: the mean over the seeds that reached it, and how many did out of how
  // many had metrics; no target: with_metrics = 0.
  std::optional<Reached> reached_mean;
  int reached = 0;
  int with_metrics = 0;
  int may_still_reach = 0;  // seeds that have not reached it but are running or interrupted
  std::optional<double> staleness, gap;
  std::optional<double> sim_time;  // at the last evaluation, mean over the seeds
  std::optional<double> seconds;   // the same on the runs' cluster, where every seed has one
  // The clock's seconds with the runs' evaluations and checkpoints priced on the cluster's device
  // (metrics.csv's predicted_wall), where every seed has one.
  std::optional<double> predicted_wall;
  std::map<std::string, double> traffic;
  std::optional<double> traffic_value(const std::string& key) const;
};

// "0.8512" for one value, "0.8512 ± 0.0031" (the sample std) for more, "-" for none.
std::string mean_std(const SeedStats& s, int digits);

// How much worse than `baseline` the final metric `measured` is (negative: better): points of
// accuracy lost, or perplexity gained, with the 95 % interval of Welch's t over the seeds behind
// them (seed_test.h), "resolved" where it leaves out 0 and "not resolved" where it holds it;
// where either side has one seed, so no test is possible, "(one seed)" or "(2 seeds against 1)"
// (this configuration's against the baseline's); "-" where either has no clean result yet.
std::string measured_drop(const SeedStats& baseline, const SeedStats& measured,
                          const MainMetric& metric);

// `target` ≤ 0: no time-to-target column for this configuration.
Row summarise(const Configuration& c, double target);

// Mean ± std over the ended seeds when every one finished normally, with the seeds still going
// and queued named beside it ("0.8038 ± 0.0189 (+1 running: 0.6462 at epoch 57)"); otherwise each
// seed's outcome, so that a diverged or collapsed seed is never averaged away ("0.8512,
// collapsed") and a configuration none of whose seeds has ended says how far each got ("0.7728
// (running, epoch 6)").
std::string metric_cell(const Configuration& c, double RunResult::*field);

// One column of the table of every configuration: its markdown header and cell, and the CSV
// columns and cells (full precision) it contributes.
struct Column {
  std::string header;
  std::vector<std::string> csv_headers;
  std::function<std::string(const Configuration&, const Row&)> markdown;
  std::function<std::vector<std::string>(const Configuration&, const Row&)> csv;
};

// The columns for these rows: the dimensions, seeds, the main metric's final, last-five mean and
// best (accuracies, or perplexities), then time to `target_name`
// (when `with_target`), staleness and gap (asynchronous runs), traffic (synchronous runs) and
// wall time, each only when some row has it. With a `reference` row (the configuration whose
// final accuracy is the target), the time to the target also as a ratio to the reference's own,
// in simulated time and in epochs: how much sooner on the clock, and how much of that the
// algorithm's (epochs) rather than the clock's.
std::vector<Column> table_columns(const std::vector<std::string>& dimensions,
                                  const std::vector<Row>& rows, const MainMetric& metric,
                                  bool with_target, const std::string& target_name,
                                  const Row* reference = nullptr,
                                  const std::string& reference_name = "");

std::string markdown_table(const std::vector<Column>& columns,
                           const std::vector<Configuration>& configurations,
                           const std::vector<Row>& rows);
std::string csv_table(const std::vector<Column>& columns,
                      const std::vector<Configuration>& configurations,
                      const std::vector<Row>& rows);

}  // namespace dsgd
