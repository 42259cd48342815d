// What `dsgd report` reads: the run folders under the given folders (a sweep's, with the labels
// and layout its sweep.json declares, or any folders holding runs), each run's summary.json and
// metrics.csv, and the runs grouped into configurations (the same labels but the seed), with the
// statistics over seeds that the tables and plots show.
#pragma once

#include <exception>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "experiment/sweep_spec.h"
#include "models/task.h"
#include "train/config.h"

namespace dsgd {

using Labels = std::vector<std::pair<std::string, std::string>>;

struct RunResult {
  std::string dir;
  Labels labels;       // including the seed, when the sweep has one
  std::string status;  // summary.json's, or "" when the run has not written one
  // What the run learned (summary.json's task; runs from before tasks are classification), and
  // so the metric it is judged by: test accuracy, or a language model's validation perplexity.
  TaskKind task = TaskKind::kClassification;
  const MainMetric& metric() const { return main_metric(task); }
  // The main metric's final and best values (summary.json's final_<metric>, best_<metric>).
  double final_metric = 0.0;
  double best_metric = 0.0;
  // The mean of the main metric over the last five evaluations (of as many as were made, when
  // fewer): a final value less at the mercy of one evaluation's noise.
  double last_five_metric = 0.0;
  double wall_time = 0.0;
  double epochs = 0.0;  // how far it got (a running or interrupted run's last evaluation)
  std::vector<double> staleness_histogram;
  std::map<std::string, double> traffic;  // sync family: bytes and reductions
  // How it computed: "channels-last, bf16" (summary.json's first compute record, else the
  // config's keys), with each later piece in another format ("; channels-last, fp32 from epoch
  // 52 (CPU)"); its measured step and CPU are the first piece's; "" where neither says.
  std::string compute_format;
  double step_seconds = 0.0;  // 0: not measured (runs from before step timing)
  std::string cpu;
  // metrics.csv by column: one value per evaluation; its header's order.
  std::map<std::string, std::vector<double>> metrics;
  std::vector<std::string> metric_columns;
  // summary.json as the run wrote it (null where it has none yet).
  nlohmann::json summary;
  // config.toml as the run recorded it (what it resolved in its keys), read once for every part
  // of the report that needs it (the compute format of old runs, re-clocking, re-timing): null
  // where a started run's folder has none, or where this dsgd cannot read it (`config_error`).
  std::shared_ptr<const RunConfig> config;
  std::exception_ptr config_error;
};

// The run's recorded config; throws ConfigError where it has none or it could not be read.
const RunConfig& recorded_config(const RunResult& run);

// The run in `folder` (summary.json, metrics.csv, its compute format), with the given labels. A
// folder without summary.json is a run not started: an empty status and no metrics. Throws
// ConfigError when its summary.json is damaged.
RunResult read_run(const std::string& folder, Labels labels);

// How a run computed when it started: summary.json's first compute record (a resumed run's
// earlier pieces are in compute_history, each piece timed again wherever it landed), else its
// compute; null where neither is.
const nlohmann::json& first_compute_record(const nlohmann::json& summary);

// A configuration: the runs with the same labels apart from the seed.
struct Configuration {
  Labels labels;                // without the seed
  std::vector<RunResult> runs;  // its seeds; those not started are left out once one has started
  int queued = 0;               // seeds of the sweep not started yet (left out of runs)
};

// Runs found under `dirs`, as configurations, with the dimensions and layout to report them by.
struct Experiment {
  std::vector<std::string> dimensions;  // without the seed
  ReportLayout layout;
  std::vector<std::string> specs;  // the sweep specs the runs came from
  std::vector<Configuration> configurations;
  // What a reader of the report must know that the tables cannot say: a sweep folder whose
  // spec's [report] was edited after the sweep wrote it, so that the report follows the old one.
  std::vector<std::string> warnings;
  // The runs' task, one for the whole report, and the metric its tables and figures show.
  TaskKind task = TaskKind::kClassification;
  const MainMetric& metric() const { return main_metric(task); }
};

// Reads every run below `dirs`; throws ConfigError where they hold runs of two tasks (images and
// a language model: their metrics do not compare). A folder with sweep.json contributes its points
// in declared order (points not run yet appear with an empty status); any other folder, every run
// folder below it, labelled by its path (a last component seed=N or seedN is taken as the seed).
// Throws ConfigError when a folder does not exist or holds no run.
Experiment load_experiment(const std::vector<std::string>& dirs);

// Statistics over the seeds of a configuration.
struct SeedStats {
  int n = 0;
  double mean = 0.0;
  double std = 0.0;  // sample standard deviation (n − 1); 0 for one seed
};
SeedStats seed_stats(const std::vector<double>& values);

// A run that has not ended (running, or interrupted): it may still evaluate again.
bool unfinished(const RunResult& run);

// Whether `run` waits for its end as a queued seed waits for its start: it has not ended while
// another seed of `c` has. Such a seed stays out of the configuration's figures over seeds (its
// final accuracy, drops, crossings and clock), which are the ended seeds' until it ends, so that a
// campaign's page keeps a row's finished figures while its next seed runs.
bool waits_for_its_end(const Configuration& c, const RunResult& run);

// The final main metric over a configuration's ended seeds when every one of them finished normally
// (seeds still going join when they end, as queued ones do when they start); n = 0 where none has
// ended, or one ended otherwise (diverged, collapsed: never averaged away).
SeedStats finished_metric(const Configuration& c);

// When a run's main metric first reached `target` (at or above an accuracy, at or below a
// perplexity): the metrics row's epoch, updates and simulated time; nullopt if it never did.
struct Reached {
  double epoch = 0.0;
  double updates = 0.0;
  double sim_time = 0.0;
  std::optional<double> seconds;  // on the run's cluster, where it was priced on one
};
std::optional<Reached> time_to_target(const RunResult& run, double target);

// The last value of a metrics column, if the run has one.
std::optional<double> last_metric(const RunResult& run, const std::string& column);

std::string label_of(const Labels& labels, const std::string& dimension);

}  // namespace dsgd
