// The report's section that sets a paper's published figures beside the sweep's own
// ([report.published] of the spec): each configuration's published and measured final accuracy,
// and each one's drop from its own baseline, so that a reproduction on other data (CIFAR-10
// re-encoded through JPEG, say) is read by how much accuracy each algorithm loses, not by where
// the absolute numbers sit.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "experiment/report_sections.h"

namespace dsgd {
namespace report_internal {
namespace {

// An accuracy not known (yet): NaN, which every comparison and drop passes over.
constexpr double kUnknown = std::numeric_limits<double>::quiet_NaN();

// How much worse a published figure is than the published baseline: points of accuracy lost, or
// perplexity gained.
std::string drop(double baseline, double value, const MainMetric& metric) {
  if (std::isnan(baseline) || std::isnan(value)) return "-";
  return fmt::format("{:.2f}", metric.shown_difference(metric.shortfall(value, baseline)));
}

}  // namespace

std::string published_section(const Experiment& experiment) {
  const PublishedFigures& published = experiment.layout.published;
  if (published.empty()) return "";
  auto figure_of = [&](const std::string& config) -> const PublishedFigures::Figure* {
    for (const auto& f : published.figures) {
      if (f.config == config) return &f;
    }
    return nullptr;
  };
  const Configuration* measured_baseline = nullptr;
  for (const auto& c : experiment.configurations) {
    if (label_of(c.labels, "config") == published.baseline) measured_baseline = &c;
  }
  const double published_base = figure_of(published.baseline)->accuracy.value_or(kUnknown);
  const SeedStats measured_base =
      measured_baseline != nullptr ? finished_metric(*measured_baseline) : SeedStats{};

  const MainMetric& metric = experiment.metric();
  std::ostringstream md;
  md << "\n## Published and measured\n\n"
     << fmt::format(
            "Published: {}. Each drop is {} the "
            "configuration's own baseline, {}: the published figures' from the published "
            "{:.4f}, the measured ones' from the measured {}. A measured drop is taken over "
            "the seeds of each side that have ended, once every one of them ended ok (a seed "
            "queued or still going joins when it ends), with its 95 % interval by Welch's t over "
            "the seeds of both, where both have two seeds or more: \"resolved\" where the "
            "interval leaves out 0, \"not resolved\" where it holds it; with one seed on a side "
            "no test is possible, and the cell says how many seeds there are.\n\n",
            published.source,
            metric.fraction ? fmt::format("in points of final {} below", metric.name)
                            : fmt::format("the final {} above", metric.name),
            published.baseline, published_base,
            measured_base.n == 0 ? std::string("(not yet)")
                                 : fmt::format("{:.4f}", measured_base.mean));
  if (!published.unverified_why.empty()) {
    md << "Figures marked unverified: " << published.unverified_why << "\n\n";
  }
  md << "| configuration | published | measured | published drop | measured drop |\n"
     << "|---|---|---|---|---|\n";
  for (const auto& c : experiment.configurations) {
    const std::string name = label_of(c.labels, "config");
    const PublishedFigures::Figure* figure = figure_of(name);
    std::string published_cell = "-";
    double published_accuracy = kUnknown;
    if (figure != nullptr) {
      published_accuracy = figure->accuracy.value_or(kUnknown);
      published_cell = figure->accuracy ? fmt::format("{:.4f}", *figure->accuracy) : figure->word;
      if (figure->unverified) published_cell += " (unverified)";
    }
    const bool baseline = name == published.baseline;
    // The configuration's name, and the labels of grid dimensions beside it (those of config
    // keys, such as algo and workers, only repeat what the name says).
    Labels shown_labels;
    for (const auto& label : c.labels) {
      const auto& keys = experiment.layout.key_dimensions;
      if (std::find(keys.begin(), keys.end(), label.first) == keys.end()) {
        shown_labels.push_back(label);
      }
    }
    md << fmt::format(
        "| {} | {} | {} | {} | {} |\n", joined(shown_labels, ", "), published_cell,
        metric_cell(c, &RunResult::final_metric),
        baseline ? "baseline" : drop(published_base, published_accuracy, metric),
        baseline ? "baseline" : measured_drop(measured_base, finished_metric(c), metric));
  }
  return md.str();
}

}  // namespace report_internal
}  // namespace dsgd
