// Reading runs and grouping them into configurations; see run_results.h.
#include "experiment/run_results.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "core/errors.h"
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

// metrics.csv by column; an empty cell (a column this kind of run does not fill) is NaN.
std::map<std::string, std::vector<double>> read_metrics(const fs::path& file) {
  std::map<std::string, std::vector<double>> columns;
  std::ifstream in(file);
  std::string line;
  if (!std::getline(in, line)) return columns;
  const std::vector<std::string> header = split(line, ',');
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
  return columns;
}

// How the run computed: summary.json's compute record, or for runs from before it, the format
// keys of its config.toml (which holds them resolved), read as a run reads its config.
void read_compute(const fs::path& dir, const nlohmann::json& summary, RunResult& run) {
  std::string memory_format, precision;
  if (summary.contains("compute") && summary["compute"].is_object()) {
    const nlohmann::json& c = summary["compute"];
    memory_format = c.value("memory_format", "");
    precision = c.value("precision", "");
    run.step_seconds = c.value("step_seconds", 0.0);
    run.cpu = c.value("cpu", "");
  } else if (fs::exists(dir / "config.toml")) {
    try {
      const RunConfig config = load_config((dir / "config.toml").string(), {});
      memory_format = config.memory_format;
      precision = config.precision;
    } catch (const ConfigError&) {
      return;  // a config of keys this dsgd no longer has: the format stays unknown ("?")
    }
  }
  if (memory_format.empty() || precision.empty()) return;
  run.compute_format = memory_format + ", " + precision;
}

// The mean test accuracy of a run's last `count` evaluations (rows without one skipped); its final
// accuracy when the metrics have none.
double mean_of_last_evaluations(const RunResult& run, size_t count) {
  auto it = run.metrics.find("test_acc");
  if (it == run.metrics.end()) return run.final_acc;
  double sum = 0.0;
  size_t n = 0;
  for (auto v = it->second.rbegin(); v != it->second.rend() && n < count; ++v) {
    if (std::isnan(*v)) continue;
    sum += *v;
    ++n;
  }
  return n == 0 ? run.final_acc : sum / static_cast<double>(n);
}

RunResult read_run(const fs::path& dir, Labels labels) {
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
  run.final_acc = summary.value("final_test_acc", 0.0);
  run.best_acc = summary.value("best_test_acc", 0.0);
  run.wall_time = summary.value("wall_time", 0.0);
  run.epochs = summary.value("epochs", 0.0);
  run.staleness_histogram = summary.value("staleness_histogram", std::vector<double>{});
  if (summary.contains("traffic")) {
    for (const auto& [key, value] : summary["traffic"].items()) {
      if (value.is_number()) run.traffic[key] = value.get<double>();
    }
  }
  run.metrics = read_metrics(dir / "metrics.csv");
  run.last_five_acc = mean_of_last_evaluations(run, 5);
  read_compute(dir, summary, run);
  return run;
}

void add_to(std::vector<Configuration>& configurations, RunResult run) {
  Labels key;
  for (const auto& label : run.labels) {
    if (label.first != "seed") key.push_back(label);
  }
  for (Configuration& c : configurations) {
    if (c.labels == key) {
      c.runs.push_back(std::move(run));
      return;
    }
  }
  configurations.push_back({key, {std::move(run)}});
}

void read_sweep(const fs::path& dir, const nlohmann::json& sweep, Experiment& experiment);

void load_sweep(const fs::path& dir, Experiment& experiment) {
  try {
    std::ifstream in(dir / "sweep.json");
    read_sweep(dir, nlohmann::json::parse(in), experiment);
  } catch (const nlohmann::json::exception& e) {
    throw ConfigError(fmt::format("'{}' is not a sweep.json dsgd wrote: {}",
                                  (dir / "sweep.json").string(), e.what()),
                      "run the sweep again: it rewrites sweep.json");
  }
}

void read_sweep(const fs::path& dir, const nlohmann::json& sweep, Experiment& experiment) {
  for (const auto& d : sweep.at("dimensions")) {
    const std::string name = d.get<std::string>();
    if (name != "seed" && std::find(experiment.dimensions.begin(), experiment.dimensions.end(),
                                    name) == experiment.dimensions.end()) {
      experiment.dimensions.push_back(name);
    }
  }
  const auto& report = sweep.at("report");
  ReportLayout& layout = experiment.layout;
  if (layout.title.empty()) layout.title = report.value("title", "");
  if (layout.notes.empty()) layout.notes = report.value("notes", "");
  if (layout.rows.empty()) layout.rows = report.value("rows", "");
  if (layout.columns.empty()) layout.columns = report.value("columns", "");
  if (layout.target == 0.0) layout.target = report.value("target", 0.0);
  if (layout.target_config.empty()) layout.target_config = report.value("target_config", "");
  for (const auto& key : report.value("key_dimensions", std::vector<std::string>{})) {
    if (std::find(layout.key_dimensions.begin(), layout.key_dimensions.end(), key) ==
        layout.key_dimensions.end()) {
      layout.key_dimensions.push_back(key);
    }
  }
  if (layout.published.empty() && report.contains("published")) {
    const auto& published = report.at("published");
    layout.published.source = published.value("source", "");
    layout.published.baseline = published.value("baseline", "");
    for (const auto& f : published.at("figures")) {
      PublishedFigures::Figure figure{f.at("config").get<std::string>(), std::nullopt,
                                      f.value("word", "")};
      if (f.at("accuracy").is_number()) figure.accuracy = f.at("accuracy").get<double>();
      layout.published.figures.push_back(figure);
    }
  }
  if (!sweep.value("spec", "").empty()) experiment.specs.push_back(sweep.value("spec", ""));
  for (const auto& point : sweep.at("points")) {
    Labels labels;
    for (const auto& pair : point.at("labels")) {
      labels.emplace_back(pair.at(0).get<std::string>(), pair.at(1).get<std::string>());
    }
    add_to(experiment.configurations, read_run(dir / point.at("dir").get<std::string>(), labels));
  }
}

void load_loose_runs(const fs::path& dir, Experiment& experiment) {
  std::vector<fs::path> found;
  if (fs::exists(dir / "summary.json")) found.push_back(dir);
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file() && entry.path().filename() == "summary.json" &&
        entry.path().parent_path() != dir) {
      found.push_back(entry.path().parent_path());
    }
  }
  if (found.empty()) {
    throw ConfigError("no runs in '" + dir.string() + "' (no summary.json below it)",
                      "give run folders, folders holding them, or a sweep folder");
  }
  std::sort(found.begin(), found.end());
  if (std::find(experiment.dimensions.begin(), experiment.dimensions.end(), "run") ==
      experiment.dimensions.end()) {
    experiment.dimensions.push_back("run");
  }
  static const std::regex seed_pattern("seed=?([0-9]+)");
  for (const fs::path& run_dir : found) {
    fs::path name = run_dir == dir ? run_dir.filename() : run_dir.lexically_relative(dir);
    Labels labels;
    std::smatch match;
    const std::string last = run_dir.filename().string();
    if (std::regex_match(last, match, seed_pattern)) {
      // A seed folder given by itself or straight below the folder given (sgd_n1/seed1 from
      // `dsgd report sgd_n1`) is named by the folder above it: two such runs of different
      // configurations must not become two seeds of one.
      const fs::path above =
          name.has_parent_path() ? name.parent_path() : run_dir.parent_path().filename();
      labels = {{"run", above.string()}, {"seed", match[1].str()}};
    } else {
      labels = {{"run", name.string()}};
    }
    add_to(experiment.configurations, read_run(run_dir, labels));
  }
}

}  // namespace

Experiment load_experiment(const std::vector<std::string>& dirs) {
  Experiment experiment;
  for (const std::string& d : dirs) {
    const fs::path dir(d);
    if (!fs::is_directory(dir)) {
      throw ConfigError("'" + d + "' is not a folder", "give run folders or sweep folders");
    }
    if (fs::exists(dir / "sweep.json")) {
      load_sweep(dir, experiment);
    } else {
      load_loose_runs(dir, experiment);
    }
  }
  // A seed a sweep has not started yet is queued, not part of its configuration's numbers: a
  // campaign's page keeps its finished seeds' figures while later seeds wait their turn.
  for (Configuration& c : experiment.configurations) {
    const auto not_started = [](const RunResult& run) { return run.status.empty(); };
    const auto queued = std::count_if(c.runs.begin(), c.runs.end(), not_started);
    if (queued == static_cast<std::ptrdiff_t>(c.runs.size())) continue;
    c.runs.erase(std::remove_if(c.runs.begin(), c.runs.end(), not_started), c.runs.end());
    c.queued = static_cast<int>(queued);
  }
  return experiment;
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

std::optional<Reached> time_to_target(const RunResult& run, double target) {
  auto column = [&run](const char* name) -> const std::vector<double>* {
    auto it = run.metrics.find(name);
    return it == run.metrics.end() ? nullptr : &it->second;
  };
  const auto* acc = column("test_acc");
  const auto* epoch = column("epoch");
  const auto* updates = column("updates");
  const auto* sim_time = column("sim_time");
  if (acc == nullptr || epoch == nullptr || updates == nullptr || sim_time == nullptr) {
    return std::nullopt;
  }
  const auto* seconds = column("seconds");
  for (size_t i = 0; i < acc->size(); ++i) {
    if ((*acc)[i] >= target) {
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
