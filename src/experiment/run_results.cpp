// Finding the runs below the folders given and grouping them into configurations; see
// run_results.h (one run's folder is read in run_result.cpp).
#include "experiment/run_results.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "core/errors.h"
#include "experiment/sweep_json.h"

namespace dsgd {
namespace {

namespace fs = std::filesystem;

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

// The report follows the layout sweep.json recorded; a spec whose [report] was edited since (a
// table or a drop added) would otherwise be ignored without a word. A spec that is gone, moved, or
// no longer parses says nothing: the folder stands on its own.
void warn_of_an_edited_report(const fs::path& dir, const nlohmann::json& sweep,
                              Experiment& experiment) {
  const std::string spec_path = sweep.value("spec", "");
  if (spec_path.empty() || !fs::exists(spec_path)) return;
  nlohmann::json now;
  try {
    now = report_layout_json(load_sweep_spec(spec_path).report);
  } catch (const std::exception&) {
    return;
  }
  if (now == sweep.at("report")) return;
  experiment.warnings.push_back(fmt::format(
      "the [report] of {} has changed since {} was written, and this report follows the old "
      "one: run `dsgd sweep {} --out {}` (it runs nothing new once every run has finished; while "
      "some run, add --only with a finished run's folder) to take the new one",
      spec_path, (dir / "sweep.json").string(), spec_path, dir.string()));
}

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
  if (layout.loss_epochs.empty()) {
    layout.loss_epochs = report.value("loss_epochs", std::vector<double>{});
  }
  if (layout.accuracy_epochs.empty()) {
    layout.accuracy_epochs = report.value("accuracy_epochs", std::vector<double>{});
  }
  if (layout.accuracy_targets.empty()) {
    layout.accuracy_targets = report.value("accuracy_targets", std::vector<double>{});
  }
  if (layout.drops_from.empty()) {
    layout.drops_from = report.value("drops_from", std::vector<std::string>{});
  }
  if (layout.published.empty() && report.contains("published")) {
    const auto& published = report.at("published");
    layout.published.source = published.value("source", "");
    layout.published.baseline = published.value("baseline", "");
    layout.published.unverified_why = published.value("unverified_why", "");
    for (const auto& f : published.at("figures")) {
      PublishedFigures::Figure figure{f.at("config").get<std::string>(), std::nullopt,
                                      f.value("word", ""), f.value("unverified", false)};
      if (f.at("accuracy").is_number()) figure.accuracy = f.at("accuracy").get<double>();
      layout.published.figures.push_back(figure);
    }
  }
  if (layout.claims.empty() && report.contains("claims")) {
    for (const auto& c : report.at("claims")) {
      layout.claims.push_back(
          {c.at("claim").get<std::string>(), c.at("published").get<std::string>(),
           c.at("test").get<std::string>(), c.at("config").get<std::string>(),
           c.at("against").get<std::vector<std::string>>(), c.at("margin").get<double>(),
           c.at("measured").get<std::string>(), c.at("verdict").get<std::string>()});
    }
  }
  if (!sweep.value("spec", "").empty()) experiment.specs.push_back(sweep.value("spec", ""));
  warn_of_an_edited_report(dir, sweep, experiment);
  for (const auto& point : sweep.at("points")) {
    Labels labels;
    for (const auto& pair : point.at("labels")) {
      labels.emplace_back(pair.at(0).get<std::string>(), pair.at(1).get<std::string>());
    }
    add_to(experiment.configurations,
           read_run((dir / point.at("dir").get<std::string>()).string(), labels));
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
    add_to(experiment.configurations, read_run(run_dir.string(), labels));
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
  // One task for the report: the first started run's, which every other started run must share.
  const RunResult* first = nullptr;
  for (const Configuration& c : experiment.configurations) {
    for (const RunResult& run : c.runs) {
      if (run.status.empty()) continue;
      if (first == nullptr) first = &run;
      if (run.task != first->task) {
        throw ConfigError(
            fmt::format("'{}' is a {} run and '{}' a {} run: their metrics do not compare",
                        first->dir, enum_name(first->task), run.dir, enum_name(run.task)),
            "report each task's runs on a page of their own");
      }
    }
  }
  if (first != nullptr) experiment.task = first->task;
  return experiment;
}

}  // namespace dsgd
