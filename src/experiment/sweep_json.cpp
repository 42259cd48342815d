// Writing sweep.json; see sweep_json.h.
#include "experiment/sweep_json.h"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/atomic_file.h"

namespace dsgd {

namespace fs = std::filesystem;

namespace {

nlohmann::json published_json(const PublishedFigures& published) {
  nlohmann::json figures = nlohmann::json::array();
  for (const auto& f : published.figures) {
    figures.push_back({{"config", f.config},
                       {"accuracy", f.accuracy ? nlohmann::json(*f.accuracy) : nlohmann::json()},
                       {"word", f.word},
                       {"unverified", f.unverified}});
  }
  return {{"source", published.source},
          {"baseline", published.baseline},
          {"unverified_why", published.unverified_why},
          {"figures", figures}};
}

}  // namespace

nlohmann::json report_layout_json(const ReportLayout& report) {
  return {{"title", report.title},
          {"notes", report.notes},
          {"rows", report.rows},
          {"columns", report.columns},
          {"target", report.target},
          {"target_config", report.target_config},
          {"key_dimensions", report.key_dimensions},
          {"loss_epochs", report.loss_epochs},
          {"accuracy_epochs", report.accuracy_epochs},
          {"accuracy_targets", report.accuracy_targets},
          {"drops_from", report.drops_from},
          {"published", published_json(report.published)}};
}

void write_sweep_json(const SweepSpec& spec) {
  nlohmann::json points = nlohmann::json::array();
  for (const auto& p : spec.points) {
    nlohmann::json labels = nlohmann::json::array();
    for (const auto& [dimension, value] : p.labels) labels.push_back({dimension, value});
    points.push_back({{"dir", p.dir}, {"labels", labels}, {"overrides", p.overrides}});
  }
  nlohmann::json sweep = {{"base", spec.base_config},
                          {"dimensions", spec.dimensions},
                          {"report", report_layout_json(spec.report)},
                          {"spec", spec.spec_path},
                          {"points", points}};
  fs::create_directories(spec.out);
  write_file_atomically((fs::path(spec.out) / "sweep.json").string(), sweep.dump(2) + "\n");
}

}  // namespace dsgd
