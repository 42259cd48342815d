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

nlohmann::json claims_json(const std::vector<Claim>& claims) {
  nlohmann::json out = nlohmann::json::array();
  for (const Claim& c : claims) {
    out.push_back({{"claim", c.text},
                   {"published", c.published},
                   {"test", c.test},
                   {"config", c.config},
                   {"against", c.against},
                   {"margin", c.margin},
                   {"measured", c.measured},
                   {"verdict", c.verdict}});
  }
  return out;
}

}  // namespace

nlohmann::json report_layout_json(const ReportLayout& report) {
  nlohmann::json layout = {{"title", report.title},
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
  // Only where there are claims: sweep.json written before claims existed stays equal to its
  // spec's layout, so the report does not warn of an edit nobody made.
  if (!report.claims.empty()) layout["claims"] = claims_json(report.claims);
  return layout;
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
