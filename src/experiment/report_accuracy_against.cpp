// The figure of final accuracy against a number (the workers: the DANA paper's figure), one line
// per row, the paper's own figures beside it; see report_figures.h.
#include <algorithm>
#include <cstdlib>
#include <map>

#include "experiment/report_figures.h"

namespace dsgd {

bool numeric_labels(const std::vector<const Configuration*>& group, const std::string& column) {
  for (const auto* c : group) {
    const std::string value = label_of(c->labels, column);
    char* end = nullptr;
    std::strtod(value.c_str(), &end);
    if (value.empty() || end != value.c_str() + value.size()) return false;
  }
  return !group.empty();
}

Panel accuracy_against(const std::vector<const Configuration*>& group, const std::string& row,
                       const std::string& column, const PublishedFigures& published,
                       const MainMetric& metric) {
  const std::string final_metric = std::string("final ") + metric.name;
  Panel panel{
      final_metric + " against " + column, column, final_metric, metric.lower_is_better, {}};
  panel.log_x_base = 2;
  std::vector<std::string> rows;
  for (const auto* c : group) {
    const std::string r = label_of(c->labels, row);
    if (std::find(rows.begin(), rows.end(), r) == rows.end()) rows.push_back(r);
  }
  for (const std::string& r : rows) {
    std::map<double, std::vector<double>> finals;  // by column value, in order
    for (const auto* c : group) {
      if (label_of(c->labels, row) != r) continue;
      const double x = std::stod(label_of(c->labels, column));
      for (const auto& run : c->runs) {
        if (run.status == "ok") finals[x].push_back(run.final_metric);
      }
    }
    Curve curve{r, {}, {}, {}, {}};
    for (const auto& [x, ys] : finals) {
      if (ys.empty()) continue;
      curve.x.push_back(x);
      curve.mean.push_back(seed_stats(ys).mean);
      curve.low.push_back(*std::min_element(ys.begin(), ys.end()));
      curve.high.push_back(*std::max_element(ys.begin(), ys.end()));
    }
    panel.curves.push_back(std::move(curve));
    // The paper's figures for this row's configurations, as open markers at their columns; those
    // marked unverified as a curve of their own, in open triangles, so that the legend says so.
    for (const bool unverified : {false, true}) {
      Curve paper{r + (unverified ? " (published, unverified)" : " (published)"), {}, {}, {}, {}};
      paper.points_only = true;
      paper.triangles = unverified;
      for (const auto* c : group) {
        if (label_of(c->labels, row) != r) continue;
        for (const auto& figure : published.figures) {
          if (figure.accuracy && figure.unverified == unverified &&
              figure.config == label_of(c->labels, "config")) {
            paper.x.push_back(std::stod(label_of(c->labels, column)));
            paper.mean.push_back(*figure.accuracy);
          }
        }
      }
      paper.low = paper.high = paper.mean;
      if (!paper.x.empty()) panel.curves.push_back(std::move(paper));
    }
  }
  return panel;
}

}  // namespace dsgd
