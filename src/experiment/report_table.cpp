// The summary of each configuration over its seeds and its cells; see report_table.h (the table's
// columns are report_columns.cpp).
#include "experiment/report_table.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <sstream>
#include <tuple>
#include <utility>

#include "experiment/seed_test.h"

namespace dsgd {
namespace {

bool ok(const RunResult& run) { return run.status == "ok"; }

std::vector<double> values_of(const Configuration& c, double RunResult::*field) {
  std::vector<double> values;
  for (const auto& run : c.runs) {
    if (ok(run)) values.push_back(run.*field);
  }
  return values;
}

std::optional<double> mean_of(const std::vector<double>& values) {
  if (values.empty()) return std::nullopt;
  return seed_stats(values).mean;
}

// Two decimals: a stopped run's epoch is a fraction (6.05641), a finished evaluation's not.
std::string epoch_text(double epochs) {
  return fmt::format("{:g}", std::round(epochs * 100.0) / 100.0);
}

}  // namespace

std::optional<double> Row::traffic_value(const std::string& key) const {
  auto it = traffic.find(key);
  if (it == traffic.end()) return std::nullopt;
  return it->second;
}

Row summarise(const Configuration& c, double target) {
  Row row;
  row.final_metric = seed_stats(values_of(c, &RunResult::final_metric));
  row.best_metric = seed_stats(values_of(c, &RunResult::best_metric));
  row.last_five_metric = seed_stats(values_of(c, &RunResult::last_five_metric));
  row.wall = seed_stats(values_of(c, &RunResult::wall_time));
  std::vector<double> staleness, gap, sim_time, seconds, predicted_wall;
  std::map<std::string, std::vector<double>> traffic;
  std::vector<Reached> reached;
  // A seed still going has moved part of its bytes and clock: the means are the ended seeds'
  // once one has ended, and the running ones' (how far they got) only while none has.
  for (const auto& run : c.runs) {
    if (run.status.empty()) continue;
    if (!waits_for_its_end(c, run)) {
      if (auto s = last_metric(run, "staleness_mean")) staleness.push_back(*s);
      if (auto g = last_metric(run, "gap_rms")) gap.push_back(*g);
      if (auto t = last_metric(run, "sim_time")) sim_time.push_back(*t);
      if (auto t = last_metric(run, "seconds")) seconds.push_back(*t);
      if (auto t = last_metric(run, "predicted_wall")) predicted_wall.push_back(*t);
      for (const auto& [key, value] : run.traffic) traffic[key].push_back(value);
    }
    if (target > 0.0) {
      ++row.with_metrics;
      if (auto r = time_to_target(run, target)) {
        reached.push_back(*r);
      } else if (unfinished(run)) {
        ++row.may_still_reach;
      }
    }
  }
  row.staleness = mean_of(staleness);
  row.gap = mean_of(gap);
  row.sim_time = mean_of(sim_time);
  if (seconds.size() == sim_time.size()) row.seconds = mean_of(seconds);
  if (predicted_wall.size() == sim_time.size()) row.predicted_wall = mean_of(predicted_wall);
  for (const auto& [key, values] : traffic) row.traffic[key] = seed_stats(values).mean;
  row.reached = static_cast<int>(reached.size());
  if (!reached.empty()) {
    Reached mean;
    mean.seconds = 0.0;
    for (const auto& r : reached) {
      mean.epoch += r.epoch / reached.size();
      mean.updates += r.updates / reached.size();
      mean.sim_time += r.sim_time / reached.size();
      if (r.seconds && mean.seconds) {
        *mean.seconds += *r.seconds / reached.size();
      } else {
        mean.seconds.reset();  // in seconds only where every seed was priced
      }
    }
    row.reached_mean = mean;
  }
  return row;
}

std::string mean_std(const SeedStats& s, int digits) {
  if (s.n == 0) return "-";
  if (s.n == 1) return fmt::format("{:.{}f}", s.mean, digits);
  return fmt::format("{:.{}f} ± {:.{}f}", s.mean, digits, s.std, digits);
}

std::string measured_drop(const SeedStats& baseline, const SeedStats& measured,
                          const MainMetric& metric) {
  if (baseline.n == 0 || measured.n == 0) return "-";
  // A drop is how much worse than the baseline: lower for an accuracy, higher for a perplexity.
  const double sign = metric.lower_is_better ? -1.0 : 1.0;
  const std::string points =
      fmt::format("{:.2f}", metric.shown_difference(sign * (baseline.mean - measured.mean)));
  // With one seed on either side the spread of the difference is unknown: say how many there are.
  if (baseline.n == 1 && measured.n == 1) return points + " (one seed)";
  if (baseline.n < 2 || measured.n < 2) {
    return fmt::format("{} ({} seed{} against {})", points, measured.n, measured.n == 1 ? "" : "s",
                       baseline.n);
  }
  const DifferenceInterval drop = *welch_interval(baseline, measured);
  const double low = metric.shown_difference(sign * (sign > 0 ? drop.low : drop.high));
  const double high = metric.shown_difference(sign * (sign > 0 ? drop.high : drop.low));
  return fmt::format("{} [{:.2f}, {:.2f}], {}", points, low, high,
                     drop.resolved() ? "resolved" : "not resolved");
}

std::string metric_cell(const Configuration& c, double RunResult::*field) {
  bool ended_ok = true;  // every seed that has ended, ended normally
  bool any_run = false;
  std::vector<std::string> waiting;  // the seeds still going beside ended ones, then the queued
  for (const auto& run : c.runs) {
    any_run = any_run || !run.status.empty();
    if (waits_for_its_end(c, run)) {
      waiting.push_back(run.epochs <= 0 ? fmt::format("+1 {}, no evaluation yet", run.status)
                                        : fmt::format("+1 {}: {:.4f} at epoch {}", run.status,
                                                      run.*field, epoch_text(run.epochs)));
    } else {
      ended_ok = ended_ok && ok(run);
    }
  }
  if (!any_run) return "-";
  if (c.queued > 0) waiting.push_back(fmt::format("+{} queued", c.queued));
  const std::string beside = waiting.empty() ? "" : fmt::format(" ({})", fmt::join(waiting, "; "));
  if (ended_ok) return mean_std(seed_stats(values_of(c, field)), 4) + beside;
  std::string out;
  for (const auto& run : c.runs) {
    std::string one = run.status.empty() ? "-" : run.status;
    if (ok(run)) {
      one = fmt::format("{:.4f}", run.*field);
    } else if (unfinished(run) && run.epochs <= 0) {
      one = fmt::format("- ({}, no evaluation yet)", run.status);
    } else if (unfinished(run)) {
      one = fmt::format("{:.4f} ({}, epoch {})", run.*field, run.status, epoch_text(run.epochs));
    }
    out += (out.empty() ? "" : ", ") + one;
  }
  return out + (c.queued > 0 ? fmt::format(" (+{} queued)", c.queued) : "");
}

}  // namespace dsgd
