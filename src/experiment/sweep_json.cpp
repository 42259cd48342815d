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
                       {"word", f.word}});
  }
  return {{"source", published.source}, {"baseline", published.baseline}, {"figures", figures}};
}

}  // namespace

void write_sweep_json(const SweepSpec& spec) {
  nlohmann::json points = nlohmann::json::array();
  for (const auto& p : spec.points) {
    nlohmann::json labels = nlohmann::json::array();
    for (const auto& [dimension, value] : p.labels) labels.push_back({dimension, value});
    points.push_back({{"dir", p.dir}, {"labels", labels}, {"overrides", p.overrides}});
  }
  nlohmann::json sweep = {{"base", spec.base_config},
                          {"dimensions", spec.dimensions},
                          {"report",
                           {{"title", spec.report.title},
                            {"notes", spec.report.notes},
                            {"rows", spec.report.rows},
                            {"columns", spec.report.columns},
                            {"target", spec.report.target},
                            {"target_config", spec.report.target_config},
                            {"key_dimensions", spec.report.key_dimensions},
                            {"loss_epochs", spec.report.loss_epochs},
                            {"accuracy_epochs", spec.report.accuracy_epochs},
                            {"accuracy_targets", spec.report.accuracy_targets},
                            {"drops_from", spec.report.drops_from},
                            {"published", published_json(spec.report.published)}}},
                          {"spec", spec.spec_path},
                          {"points", points}};
  fs::create_directories(spec.out);
  write_file_atomically((fs::path(spec.out) / "sweep.json").string(), sweep.dump(2) + "\n");
}

}  // namespace dsgd
