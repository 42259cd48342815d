// The report's figures; see report_figures.h.
#include "experiment/report_figures.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace dsgd {
namespace {

// The curve of one metrics column against another, over the seeds of a configuration: row i of
// every seed that has one, the mean and the band from the lowest to the highest seed.
Curve seed_curve(const Configuration& c, const std::string& title, const std::string& x_column,
                 const std::string& y_column) {
  Curve curve{title, {}, {}, {}, {}};
  for (size_t i = 0;; ++i) {
    double x = 0.0;
    std::vector<double> ys;
    bool any_longer = false;
    for (const auto& run : c.runs) {
      auto xs = run.metrics.find(x_column);
      auto yc = run.metrics.find(y_column);
      if (xs == run.metrics.end() || yc == run.metrics.end() || i >= yc->second.size()) continue;
      any_longer = true;
      if (std::isnan(yc->second[i]) || std::isnan(xs->second[i])) continue;
      x += xs->second[i];
      ys.push_back(yc->second[i]);
    }
    if (!any_longer) break;
    if (ys.empty()) continue;
    curve.x.push_back(x / static_cast<double>(ys.size()));
    curve.mean.push_back(seed_stats(ys).mean);
    curve.low.push_back(*std::min_element(ys.begin(), ys.end()));
    curve.high.push_back(*std::max_element(ys.begin(), ys.end()));
  }
  return curve;
}

// The share of updates applied at each staleness τ, over the seeds.
Curve staleness_curve(const Configuration& c, const std::string& title) {
  std::vector<std::vector<double>> shares;
  size_t length = 0;
  for (const auto& run : c.runs) {
    double total = 0.0;
    for (double count : run.staleness_histogram) total += count;
    if (total <= 0.0) continue;
    std::vector<double> share;
    for (double count : run.staleness_histogram) share.push_back(count / total);
    length = std::max(length, share.size());
    shares.push_back(std::move(share));
  }
  Curve curve{title, {}, {}, {}, {}};
  for (size_t tau = 0; tau < length; ++tau) {
    std::vector<double> ys;
    for (const auto& share : shares) ys.push_back(tau < share.size() ? share[tau] : 0.0);
    curve.x.push_back(static_cast<double>(tau));
    curve.mean.push_back(seed_stats(ys).mean);
    curve.low.push_back(*std::min_element(ys.begin(), ys.end()));
    curve.high.push_back(*std::max_element(ys.begin(), ys.end()));
  }
  return curve;
}

// The clock of a part's time axes: seconds where every run that has evaluations counted them (made
// on a cluster, or re-timed on one by `dsgd report --cluster`), simulated time otherwise. A run
// not started yet has no metrics and decides nothing, so a campaign's page shows seconds while its
// queue is still running. Seconds are drawn in hours past two hours and in minutes past two
// minutes, so that the tick labels stay short.
struct Clock {
  std::string column;  // "seconds" or "sim_time"
  std::string name;    // in a panel's title
  std::string label;   // the axis's, with its unit
  double scale;        // from the column's values to the axis's unit
};

Clock clock_of(const std::vector<const Configuration*>& part) {
  const Clock simulated{"sim_time", "simulated time", "simulated time", 1.0};
  bool any = false;
  double longest = 0.0;
  for (const auto* c : part) {
    for (const auto& run : c->runs) {
      if (run.metrics.count("sim_time") == 0) continue;
      auto seconds = run.metrics.find("seconds");
      if (seconds == run.metrics.end()) return simulated;
      any = true;
      for (double s : seconds->second) {
        if (!std::isnan(s)) longest = std::max(longest, s);
      }
    }
  }
  if (!any) return simulated;
  const std::string name = "time on the cluster";
  if (longest >= 2 * 3600.0) return {"seconds", name, name + " (hours)", 1.0 / 3600.0};
  if (longest >= 2 * 60.0) return {"seconds", name, name + " (minutes)", 1.0 / 60.0};
  return {"seconds", name, name + " (seconds)", 1.0};
}

// `curve` with its x values multiplied by `x_scale` and its values (mean and band) by `y_scale`.
Curve scaled(Curve curve, double x_scale, double y_scale) {
  for (double& x : curve.x) x *= x_scale;
  for (auto* series : {&curve.mean, &curve.low, &curve.high}) {
    for (double& v : *series) v *= y_scale;
  }
  return curve;
}

// Whether the lines' largest values of `series` differ more than tenfold (a single worker's times
// beside sixteen learners'), where a linear axis would flatten every line but the largest.
bool spans_tenfold(const std::vector<Curve>& curves, std::vector<double> Curve::*series) {
  double shortest = INFINITY, longest = 0.0;  // of the lines' largest values
  for (const Curve& curve : curves) {
    double own = 0.0;
    for (double v : curve.*series) {
      if (!std::isnan(v)) own = std::max(own, v);
    }
    if (own <= 0.0) continue;
    shortest = std::min(shortest, own);
    longest = std::max(longest, own);
  }
  return longest > 10 * shortest;
}

// The main metric of a part's runs (one for the whole report: load_experiment checks it).
const MainMetric& metric_of(const std::vector<const Configuration*>& part) {
  for (const auto* c : part) {
    for (const auto& run : c->runs) {
      if (!run.status.empty()) return run.metric();
    }
  }
  return main_metric(TaskKind::kClassification);
}

// The time each configuration first reaches every value of the main metric on a grid over the
// last quarter of the way to the best any run reached (accuracies from 0.75 of the best up to it;
// perplexities from 1/0.75 of the best down to it): where one target decides a comparison (time to
// the reference's final accuracy), the curve shows whether a target a little higher or lower
// would have decided it otherwise. The grid and a linear time axis keep that end readable: values
// before it are reached within the first epochs, and a logarithmic axis would flatten the late
// crossings where comparisons are read; unless the lines' times differ more than tenfold (a
// single worker beside sixteen), where a linear axis would flatten all but the slowest. On the
// part's clock (clock_of). A target is drawn only where every seed got there (a seed still going
// beside ended ones waits for its end, as in the tables): the mean of their times, the band their
// range.
Panel time_to_accuracy(const std::vector<const Configuration*>& part, const SeriesName& name,
                       const Clock& clock) {
  const MainMetric& metric = metric_of(part);
  double best = metric.worst();
  for (const auto* c : part) {
    for (const auto& run : c->runs) {
      auto values = run.metrics.find(metric.column);
      if (values == run.metrics.end()) continue;
      for (double v : values->second) {
        if (!std::isnan(v) && metric.better(v, best)) best = v;
      }
    }
  }
  Panel panel{std::string("time to reach each ") + metric.name,
              std::string(metric.name) + " reached",
              clock.label,
              false,
              {}};
  constexpr int kTargets = 40;
  constexpr double kLowest = 0.75;  // of the best accuracy: the grid's start
  const double start = metric.lower_is_better ? 1.0 / kLowest : kLowest;
  const bool any = std::isfinite(best) && best > 0;
  for (const auto* c : part) {
    Curve curve{name(*c), {}, {}, {}, {}};
    for (int k = 0; k <= kTargets && any; ++k) {
      const double target = best * (start + (1.0 - start) * k / kTargets);
      std::vector<double> times;
      size_t seeds = 0;
      for (const auto& run : c->runs) {
        if (waits_for_its_end(*c, run)) continue;
        ++seeds;
        auto values = run.metrics.find(metric.column);
        auto time = run.metrics.find(clock.column);
        if (values == run.metrics.end() || time == run.metrics.end()) break;
        for (size_t i = 0; i < values->second.size() && i < time->second.size(); ++i) {
          if (metric.reaches(values->second[i], target)) {
            times.push_back(time->second[i]);
            break;
          }
        }
      }
      if (times.empty() || times.size() < seeds) continue;
      curve.x.push_back(target);
      curve.mean.push_back(seed_stats(times).mean);
      curve.low.push_back(*std::min_element(times.begin(), times.end()));
      curve.high.push_back(*std::max_element(times.begin(), times.end()));
    }
    panel.curves.push_back(scaled(std::move(curve), 1.0, clock.scale));
  }
  panel.log_y = spans_tenfold(panel.curves, &Curve::mean);
  return panel;
}

bool any_metric(const std::vector<const Configuration*>& group, const std::string& column) {
  for (const auto* c : group) {
    for (const auto& run : c->runs) {
      if (last_metric(run, column)) return true;
    }
  }
  return false;
}

// `items` cut into ceil(n / kMaxSeries) parts of nearly equal size, in order.
std::vector<std::vector<const Configuration*>> even_parts(
    const std::vector<const Configuration*>& items) {
  std::vector<std::vector<const Configuration*>> parts;
  if (items.empty()) return parts;
  const size_t count = (items.size() + kMaxSeries - 1) / kMaxSeries;
  for (size_t p = 0, start = 0; p < count; ++p) {
    const size_t size = items.size() / count + (p < items.size() % count ? 1 : 0);
    parts.emplace_back(items.begin() + static_cast<std::ptrdiff_t>(start),
                       items.begin() + static_cast<std::ptrdiff_t>(start + size));
    start += size;
  }
  return parts;
}

}  // namespace

std::vector<std::vector<const Configuration*>> series_parts(
    const std::vector<const Configuration*>& group, const SeriesName& name) {
  if (group.size() <= kMaxSeries) return {group};
  std::vector<const Configuration*> dana, others;
  for (const auto* c : group) (name(*c).rfind("dana", 0) == 0 ? dana : others).push_back(c);
  std::vector<std::vector<const Configuration*>> parts = even_parts(others);
  for (auto& part : even_parts(dana)) parts.push_back(std::move(part));
  return parts;
}

namespace {
// A language model's vocabulary, from its runs' summaries (the largest, should they differ): a
// uniform guess's perplexity, whose logarithm is its loss. 0 where no run names one (a classifier).
double vocabulary_of(const std::vector<const Configuration*>& part) {
  double vocabulary = 0.0;
  for (const auto* c : part) {
    for (const auto& run : c->runs) {
      const auto tokens = run.summary.find("tokens");
      if (tokens == run.summary.end()) continue;
      const auto size = tokens->find("vocabulary");
      if (size != tokens->end() && size->is_number()) {
        vocabulary = std::max(vocabulary, size->get<double>());
      }
    }
  }
  return vocabulary;
}
}  // namespace

std::vector<Panel> curve_panels(const std::vector<const Configuration*>& part,
                                const SeriesName& name) {
  const Clock clock = clock_of(part);
  const MainMetric& metric = metric_of(part);
  const std::string shown = metric.name;
  // A perplexity falls over orders of magnitude early on: a logarithmic axis, as the loss's.
  const bool log_metric = metric.lower_is_better;
  std::vector<Panel> panels = {
      {shown, "epoch", shown, log_metric, {}},
      {shown + " against " + clock.name, clock.label, shown, log_metric, {}},
      {"training loss", "epoch", "training loss", true, {}},
      {"training loss against " + clock.name, clock.label, "training loss", true, {}}};
  // A language model's diverged runs reach perplexities of 1e25: what lies past a uniform guess
  // (the vocabulary's size, its loss the logarithm of it) is left off the chart, so that the
  // other lines keep the panel's height.
  const double vocabulary = vocabulary_of(part);
  if (vocabulary > 1.0) {
    for (size_t i = 0; i < panels.size(); ++i) {
      panels[i].y_ceiling = i < 2 ? vocabulary : std::log(vocabulary);
      panels[i].past_ceiling = "past chance";
    }
  }
  for (const auto* c : part) {
    panels[0].curves.push_back(seed_curve(*c, name(*c), "epoch", metric.column));
    panels[1].curves.push_back(
        scaled(seed_curve(*c, name(*c), clock.column, metric.column), clock.scale, 1.0));
    panels[2].curves.push_back(seed_curve(*c, name(*c), "epoch", "train_loss"));
    panels[3].curves.push_back(
        scaled(seed_curve(*c, name(*c), clock.column, "train_loss"), clock.scale, 1.0));
  }
  // As the time to each accuracy below: lines whose times differ more than tenfold on a
  // logarithmic axis, lest the slowest flatten the others against the frame.
  if (spans_tenfold(panels[1].curves, &Curve::x)) panels[1].log_x_base = panels[3].log_x_base = 10;
  if (any_metric(part, metric.column)) panels.push_back(time_to_accuracy(part, name, clock));
  bool histograms = false;
  for (const auto* c : part) {
    for (const auto& run : c->runs) histograms = histograms || !run.staleness_histogram.empty();
  }
  if (histograms) {
    Panel panel{"staleness of the applied messages",
                "staleness (server updates)",
                "share of updates",
                true,
                {}};
    for (const auto* c : part) panel.curves.push_back(staleness_curve(*c, name(*c)));
    panels.push_back(std::move(panel));
  }
  // What reaching an accuracy cost in communication: the asynchronous runs' exchanges and the
  // synchronous runs' global reductions, in bytes moved (docs/design/engines.md).
  if (any_metric(part, "global_bytes")) {
    Panel panel{shown + " against bytes moved", "bytes moved", shown, log_metric, {}};
    if (vocabulary > 1.0) {
      panel.y_ceiling = vocabulary;
      panel.past_ceiling = "past chance";
    }
    for (const auto* c : part) {
      panel.curves.push_back(seed_curve(*c, name(*c), "global_bytes", metric.column));
    }
    panels.push_back(std::move(panel));
  }
  if (any_metric(part, "learner_spread")) {
    Panel panel{
        "learner spread before the last average of each period", "epoch", "spread", true, {}};
    for (const auto* c : part) {
      panel.curves.push_back(seed_curve(*c, name(*c), "epoch", "learner_spread"));
    }
    panels.push_back(std::move(panel));
  }
  return panels;
}

void style_by_title(std::vector<Figure>& figures) {
  std::map<std::string, int> styles;
  for (Figure& figure : figures) {
    for (Panel& panel : figure.panels) {
      for (Curve& curve : panel.curves) {
        // A row's published figures ("dana (published)") and the reference drawn beside
        // another group ("ssgd (workers=32)") keep the row's colour.
        std::string key = curve.title;
        const size_t qualified = key.find(" (");
        if (qualified != std::string::npos) key.erase(qualified);
        curve.style = styles.emplace(key, static_cast<int>(styles.size())).first->second;
      }
    }
  }
}

}  // namespace dsgd
