// One run folder read as dsgd's reports and the Python package see it, and the statistics over
// runs and seeds that the tables take from it; see run_results.h.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/errors.h"
#include "experiment/run_results.h"
#include "train/config.h"

namespace dsgd {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> split(const std::string& line, char separator) {
  std::vector<std::string> parts;
  std::stringstream in(line);
  std::string part;
  while (std::getline(in, part, separator)) parts.push_back(part);
  if (!line.empty() && line.back() == separator) parts.emplace_back();
  return parts;
}

// metrics.csv by column into `run` (its header's order too); an empty cell (a column this kind of
// run does not fill) is NaN.
void read_metrics(const fs::path& file, RunResult& run) {
  std::map<std::string, std::vector<double>>& columns = run.metrics;
  std::ifstream in(file);
  std::string line;
  if (!std::getline(in, line)) return;
  const std::vector<std::string> header = split(line, ',');
  run.metric_columns = header;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const std::vector<std::string> cells = split(line, ',');
    for (size_t i = 0; i < header.size(); ++i) {
      double value = std::numeric_limits<double>::quiet_NaN();
      if (i < cells.size() && !cells[i].empty()) {
        try {
          value = std::stod(cells[i]);
        } catch (const std::exception&) {
          // A damaged cell: leave it out of the plots rather than refuse the report.
        }
      }
      columns[header[i]].push_back(value);
    }
  }
}

}  // namespace

const nlohmann::json& first_compute_record(const nlohmann::json& summary) {
  static const nlohmann::json none;
  if (!summary.is_object()) return none;
  const auto history = summary.find("compute_history");
  if (history != summary.end() && history->is_array() && !history->empty() &&
      history->front().is_object()) {
    return history->front();
  }
  const auto compute = summary.find("compute");
  return compute != summary.end() && compute->is_object() ? *compute : none;
}

namespace {

// A resumed run's later pieces that computed in another format than the piece before them (a
// recorded bf16 continues in fp32 on a machine that only emulates bf16: models/format_choice.h),
// each as "; fp32 from epoch 52 (CPU)", the epoch from the update the piece started at.
void append_format_changes(const nlohmann::json& summary, RunResult& run) {
  std::vector<const nlohmann::json*> pieces;
  const auto history = summary.find("compute_history");
  if (history != summary.end() && history->is_array()) {
    for (const nlohmann::json& piece : *history) pieces.push_back(&piece);
  }
  const auto compute = summary.find("compute");
  if (compute != summary.end()) pieces.push_back(&*compute);
  const auto epochs = run.metrics.find("epoch");
  const auto updates = run.metrics.find("updates");
  double epochs_per_update = 0.0;
  if (epochs != run.metrics.end() && updates != run.metrics.end() && !updates->second.empty() &&
      updates->second.back() > 0) {
    epochs_per_update = epochs->second.back() / updates->second.back();
  }
  auto format_of = [](const nlohmann::json& piece) {
    return piece.value("memory_format", "") + ", " + piece.value("precision", "");
  };
  for (size_t i = 1; i < pieces.size(); ++i) {
    if (!pieces[i]->is_object() || !pieces[i - 1]->is_object()) continue;
    if (format_of(*pieces[i]) == format_of(*pieces[i - 1])) continue;
    const double from_update = pieces[i]->value("from_update", 0.0);
    run.compute_format += fmt::format(
        "; {} from {}", format_of(*pieces[i]),
        epochs_per_update > 0 ? fmt::format("epoch {:.4g}", from_update * epochs_per_update)
                              : fmt::format("update {:.0f}", from_update));
    const std::string cpu = pieces[i]->value("cpu", "");
    if (!cpu.empty()) run.compute_format += " (" + cpu + ")";
  }
}

// How the run computed when it started: summary.json's first compute record (a resumed run's
// earlier pieces are in compute_history; each piece times its step again, on whatever machine
// and beside whatever load it lands, and a run made on a cluster keeps the seconds its first
// start priced), or for runs from before it, the format keys of its recorded config (which holds
// them resolved; read with the folder, RunResult::config).
void read_compute(const nlohmann::json& summary, RunResult& run) {
  std::string memory_format, precision;
  const nlohmann::json& c = first_compute_record(summary);
  if (c.is_object()) {
    memory_format = c.value("memory_format", "");
    precision = c.value("precision", "");
    run.step_seconds = c.value("step_seconds", 0.0);
    run.cpu = c.value("cpu", "");
  } else if (run.config) {
    memory_format = enum_name(run.config->memory_format);
    precision = enum_name(run.config->precision);
  }  // else a config of keys this dsgd no longer has: the format stays unknown ("?")
  if (memory_format.empty() || precision.empty()) return;
  run.compute_format = memory_format + ", " + precision;
  append_format_changes(summary, run);
}

// The mean main metric of a run's last `count` evaluations (rows without one skipped); its final
// value when the metrics have none.
double mean_of_last_evaluations(const RunResult& run, size_t count) {
  auto it = run.metrics.find(run.metric().column);
  if (it == run.metrics.end()) return run.final_metric;
  double sum = 0.0;
  size_t n = 0;
  for (auto v = it->second.rbegin(); v != it->second.rend() && n < count; ++v) {
    if (std::isnan(*v)) continue;
    sum += *v;
    ++n;
  }
  return n == 0 ? run.final_metric : sum / static_cast<double>(n);
}

}  // namespace

RunResult read_run(const std::string& folder, Labels labels) {
  const fs::path dir(folder);
  RunResult run;
  run.dir = dir.string();
  run.labels = std::move(labels);
  std::ifstream in(dir / "summary.json");
  if (!in) return run;
  nlohmann::json summary;
  try {
    summary = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw ConfigError(
        fmt::format("'{}' is not valid JSON: {}", (dir / "summary.json").string(), e.what()),
        "the run's summary is damaged; rerun it or leave its folder out");
  }
  run.status = summary.value("status", "");
  if (summary.contains("task")) {
    const std::string task = summary["task"].is_string() ? summary["task"].get<std::string>() : "";
    const std::optional<TaskKind> kind = find_enum<TaskKind>(task);
    if (!kind) {
      throw ConfigError(fmt::format("'{}' names the task '{}', which this dsgd does not know",
                                    (dir / "summary.json").string(), task),
                        fmt::format("report it with the dsgd that made it (tasks: {})",
                                    fmt::join(enum_names<TaskKind>(), ", ")));
    }
    run.task = *kind;
  }
  const std::string metric = run.metric().column;
  run.final_metric = summary.value("final_" + metric, run.metric().worst());
  run.best_metric = summary.value("best_" + metric, run.metric().worst());
  run.wall_time = summary.value("wall_time", 0.0);
  run.epochs = summary.value("epochs", 0.0);
  run.staleness_histogram = summary.value("staleness_histogram", std::vector<double>{});
  if (summary.contains("traffic")) {
    for (const auto& [key, value] : summary["traffic"].items()) {
      if (value.is_number()) run.traffic[key] = value.get<double>();
    }
  }
  run.summary = summary;
  if (fs::exists(dir / "config.toml")) {
    try {
      run.config =
          std::make_shared<const RunConfig>(load_config((dir / "config.toml").string(), {}));
    } catch (const ConfigError&) {
      run.config_error = std::current_exception();
    }
  }
  read_metrics(dir / "metrics.csv", run);
  run.last_five_metric = mean_of_last_evaluations(run, 5);
  read_compute(summary, run);
  return run;
}

const RunConfig& recorded_config(const RunResult& run) {
  if (run.config_error) std::rethrow_exception(run.config_error);
  if (!run.config) {
    throw ConfigError(fmt::format("run '{}' has no config.toml", run.dir),
                      "a run folder holds the config.toml its run wrote; restore it, or leave the "
                      "folder out");
  }
  return *run.config;
}

SeedStats seed_stats(const std::vector<double>& values) {
  SeedStats stats;
  stats.n = static_cast<int>(values.size());
  if (values.empty()) return stats;
  double sum = 0.0;
  for (double v : values) sum += v;
  stats.mean = sum / stats.n;
  if (stats.n > 1) {
    double squares = 0.0;
    for (double v : values) squares += (v - stats.mean) * (v - stats.mean);
    stats.std = std::sqrt(squares / (stats.n - 1));
  }
  return stats;
}

bool unfinished(const RunResult& run) {
  return run.status == "running" || run.status == "interrupted";
}

bool waits_for_its_end(const Configuration& c, const RunResult& run) {
  return unfinished(run) && std::any_of(c.runs.begin(), c.runs.end(), [](const RunResult& other) {
           return !other.status.empty() && !unfinished(other);
         });
}

SeedStats finished_metric(const Configuration& c) {
  std::vector<double> finals;
  for (const auto& run : c.runs) {
    if (waits_for_its_end(c, run)) continue;
    if (run.status != "ok") return SeedStats{};
    finals.push_back(run.final_metric);
  }
  return seed_stats(finals);
}

std::optional<Reached> time_to_target(const RunResult& run, double target) {
  auto column = [&run](const char* name) -> const std::vector<double>* {
    auto it = run.metrics.find(name);
    return it == run.metrics.end() ? nullptr : &it->second;
  };
  const auto* acc = column(run.metric().column);
  const auto* epoch = column("epoch");
  const auto* updates = column("updates");
  const auto* sim_time = column("sim_time");
  if (acc == nullptr || epoch == nullptr || updates == nullptr || sim_time == nullptr) {
    return std::nullopt;
  }
  const auto* seconds = column("seconds");
  for (size_t i = 0; i < acc->size(); ++i) {
    if (run.metric().reaches((*acc)[i], target)) {
      Reached reached{(*epoch)[i], (*updates)[i], (*sim_time)[i], std::nullopt};
      if (seconds != nullptr && i < seconds->size()) reached.seconds = (*seconds)[i];
      return reached;
    }
  }
  return std::nullopt;
}

std::optional<double> last_metric(const RunResult& run, const std::string& column) {
  auto it = run.metrics.find(column);
  if (it == run.metrics.end()) return std::nullopt;
  for (auto v = it->second.rbegin(); v != it->second.rend(); ++v) {
    if (!std::isnan(*v)) return *v;
  }
  return std::nullopt;
}

std::string label_of(const Labels& labels, const std::string& dimension) {
  for (const auto& [name, value] : labels) {
    if (name == dimension) return value;
  }
  return "";
}

}  // namespace dsgd
