// The report's figures: for each group of configurations, the curves of every run (test accuracy
// and training loss against epochs and against time: seconds on a cluster, simulated time
// otherwise; staleness histograms, learner spread), split so that no panel holds more than
// kMaxSeries lines; and, when the report's columns are numbers (workers), the final accuracy
// against them with one line per row (the DANA paper's figure).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "experiment/plots.h"
#include "experiment/run_results.h"

namespace dsgd {

// More lines than this in one panel are not told apart; larger groups are split (by family first).
constexpr size_t kMaxSeries = 8;

struct Figure {
  std::string base;  // path relative to the report's folder, without extension
  std::string title;
  std::vector<Panel> panels;
};

// A configuration's name in a legend.
using SeriesName = std::function<std::string(const Configuration&)>;

// The group's configurations in parts of at most kMaxSeries: names starting "dana" apart from the
// others (the family the studies compare against its baselines), each part then cut evenly.
std::vector<std::vector<const Configuration*>> series_parts(
    const std::vector<const Configuration*>& group, const SeriesName& name);

// Accuracy, loss, staleness and spread panels of one part.
std::vector<Panel> curve_panels(const std::vector<const Configuration*>& part,
                                const SeriesName& name);

// The final main metric (mean over finished seeds, the band across them) against the numeric
// `column` label, one line per value of `row`: a point for each configuration that finished.
Panel accuracy_against(const std::vector<const Configuration*>& group, const std::string& row,
                       const std::string& column, const PublishedFigures& published = {},
                       const MainMetric& metric = main_metric(TaskKind::kClassification));

// Gives every curve of every figure the style of its title, numbered in order of first
// appearance: a row (an algorithm, say) keeps its colour across a report's figures.
void style_by_title(std::vector<Figure>& figures);

// Whether every configuration's `column` label reads as a number.
bool numeric_labels(const std::vector<const Configuration*>& group, const std::string& column);

}  // namespace dsgd
