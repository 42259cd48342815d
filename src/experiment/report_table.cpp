// The summary of each configuration and the columns of the report's table; see report_table.h.
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
#include "run/progress.h"

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

std::string number(std::optional<double> v) { return v ? fmt::format("{}", *v) : ""; }

std::string stat(const SeedStats& s, bool deviation) {
  return s.n == 0 ? std::string() : fmt::format("{}", deviation ? s.std : s.mean);
}

// A column of one summary statistic: its markdown format and its CSV name.
Column optional_column(std::string header, std::string csv_name,
                       std::function<std::optional<double>(const Row&)> value,
                       std::function<std::string(double)> shown) {
  return {std::move(header),
          {std::move(csv_name)},
          [value, shown](const Configuration&, const Row& row) {
            const std::optional<double> v = value(row);
            return v ? shown(*v) : std::string("-");
          },
          [value](const Configuration&, const Row& row) {
            return std::vector<std::string>{number(value(row))};
          }};
}

}  // namespace

std::optional<double> Row::traffic_value(const std::string& key) const {
  auto it = traffic.find(key);
  if (it == traffic.end()) return std::nullopt;
  return it->second;
}

Row summarise(const Configuration& c, double target) {
  Row row;
  row.final_acc = seed_stats(values_of(c, &RunResult::final_acc));
  row.best_acc = seed_stats(values_of(c, &RunResult::best_acc));
  row.last_five_acc = seed_stats(values_of(c, &RunResult::last_five_acc));
  row.wall = seed_stats(values_of(c, &RunResult::wall_time));
  std::vector<double> staleness, gap, sim_time, seconds;
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

std::string measured_drop(const SeedStats& baseline, const SeedStats& measured) {
  if (baseline.n == 0 || measured.n == 0) return "-";
  const std::string points = fmt::format("{:.2f}", (baseline.mean - measured.mean) * 100.0);
  // With one seed on either side the spread of the difference is unknown: say how many there are.
  if (baseline.n == 1 && measured.n == 1) return points + " (one seed)";
  if (baseline.n < 2 || measured.n < 2) {
    return fmt::format("{} ({} seed{} against {})", points, measured.n, measured.n == 1 ? "" : "s",
                       baseline.n);
  }
  const DifferenceInterval drop = *welch_interval(baseline, measured);
  return fmt::format("{} [{:.2f}, {:.2f}], {}", points, drop.low * 100.0, drop.high * 100.0,
                     drop.resolved() ? "resolved" : "not resolved");
}

std::string accuracy_cell(const Configuration& c, double RunResult::*field) {
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

std::vector<Column> table_columns(const std::vector<std::string>& dimensions,
                                  const std::vector<Row>& rows, bool with_target,
                                  const std::string& target_name, const Row* reference,
                                  const std::string& reference_name) {
  auto any = [&rows](auto has) { return std::any_of(rows.begin(), rows.end(), has); };
  std::vector<Column> columns;
  for (const std::string& d : dimensions) {
    columns.push_back({d,
                       {d},
                       [d](const Configuration& c, const Row&) { return label_of(c.labels, d); },
                       [d](const Configuration& c, const Row&) {
                         return std::vector<std::string>{label_of(c.labels, d)};
                       }});
  }
  columns.push_back(
      {"seeds",
       {"seeds", "finished"},
       [](const Configuration& c, const Row&) { return std::to_string(c.runs.size()); },
       [](const Configuration& c, const Row& row) {
         return std::vector<std::string>{std::to_string(c.runs.size()),
                                         std::to_string(row.final_acc.n)};
       }});
  for (const auto& [header, name, field, stats] :
       {std::tuple{"final test acc", "final_acc", &RunResult::final_acc, &Row::final_acc},
        std::tuple{"mean of the last 5 evaluations", "last_five_acc", &RunResult::last_five_acc,
                   &Row::last_five_acc},
        std::tuple{"best test acc", "best_acc", &RunResult::best_acc, &Row::best_acc}}) {
    columns.push_back(
        {header,
         {std::string(name) + "_mean", std::string(name) + "_std"},
         [field = field](const Configuration& c, const Row&) { return accuracy_cell(c, field); },
         [stats = stats](const Configuration&, const Row& row) {
           return std::vector<std::string>{stat(row.*stats, false), stat(row.*stats, true)};
         }});
  }
  if (with_target) {
    columns.push_back(
        {"time to " + target_name,
         {"target_epoch", "target_updates", "target_sim_time"},
         [](const Configuration&, const Row& row) -> std::string {
           if (row.with_metrics == 0) return "-";
           // A run that has not ended may still get there: "never" only once none can.
           if (!row.reached_mean) return row.may_still_reach > 0 ? "not yet" : "never";
           const Reached& r = *row.reached_mean;
           std::string cell =
               fmt::format("{:.3g} / {:.0f} / {:.0f}", r.epoch, r.updates, r.sim_time);
           if (row.reached < row.with_metrics) {
             cell += fmt::format(" ({}/{})", row.reached, row.with_metrics);
           }
           return cell;
         },
         [](const Configuration&, const Row& row) {
           if (!row.reached_mean) return std::vector<std::string>{"", "", ""};
           const Reached& r = *row.reached_mean;
           return std::vector<std::string>{number(r.epoch), number(r.updates), number(r.sim_time)};
         }});
  }
  if (with_target && any([](const Row& r) { return r.reached_mean && r.reached_mean->seconds; })) {
    columns.push_back(optional_column(
        "time to " + target_name + " on the cluster", "target_seconds",
        [](const Row& r) {
          return r.reached_mean ? r.reached_mean->seconds : std::optional<double>();
        },
        [](double v) { return format_duration(v); }));
  }
  if (with_target && reference != nullptr && reference->reached_mean &&
      reference->reached_mean->sim_time > 0 && reference->reached_mean->epoch > 0) {
    const Reached own = *reference->reached_mean;
    // On a cluster the runs' simulated clocks need not share a unit (a run made on the cluster
    // counts its links' prices, one re-timed on it counted whatever link keys it had), so the
    // time ratio is taken in seconds on the cluster wherever every run that got there has them.
    const bool in_seconds =
        own.seconds && *own.seconds > 0 && std::all_of(rows.begin(), rows.end(), [](const Row& r) {
          return !r.reached_mean || r.reached_mean->seconds.has_value();
        });
    auto ratios = [own, in_seconds](const Row& row) -> std::optional<std::pair<double, double>> {
      if (!row.reached_mean) return std::nullopt;
      const double time = in_seconds ? *row.reached_mean->seconds / *own.seconds
                                     : row.reached_mean->sim_time / own.sim_time;
      return std::pair{time, row.reached_mean->epoch / own.epoch};
    };
    columns.push_back(
        {"time to it / " + reference_name + "'s (" +
             (in_seconds ? "seconds on the cluster" : "simulated time") + " / epochs)",
         {in_seconds ? "target_seconds_ratio" : "target_sim_time_ratio", "target_epoch_ratio"},
         [ratios](const Configuration&, const Row& row) -> std::string {
           const auto r = ratios(row);
           return r ? fmt::format("{:.2f} / {:.2f}", r->first, r->second) : "-";
         },
         [ratios](const Configuration&, const Row& row) {
           const auto r = ratios(row);
           return r ? std::vector<std::string>{number(r->first), number(r->second)}
                    : std::vector<std::string>{"", ""};
         }});
  }
  if (any([](const Row& r) { return r.staleness.has_value(); })) {
    columns.push_back(optional_column(
        "staleness", "staleness_mean", [](const Row& r) { return r.staleness; },
        [](double v) { return fmt::format("{:.1f}", v); }));
  }
  if (any([](const Row& r) { return r.gap.has_value(); })) {
    columns.push_back(optional_column(
        "gap RMS", "gap_rms", [](const Row& r) { return r.gap; },
        [](double v) { return fmt::format("{:.2e}", v); }));
  }
  if (any([](const Row& r) { return !r.traffic.empty(); })) {
    auto megabytes = [](double v) { return fmt::format("{:.1f}", v / 1e6); };
    auto count = [](double v) { return fmt::format("{:.0f}", v); };
    for (const auto& [header, key, megabyte] :
         {std::tuple{"global MB", "global_bytes", true},
          std::tuple{"local MB", "local_bytes", true},
          std::tuple{"global reductions", "global_reductions", false},
          std::tuple{"local reductions", "local_reductions", false},
          std::tuple{"exchanges", "exchanges", false},
          std::tuple{"compute time", "compute_time", false},
          std::tuple{"comm time", "comm_time", false}}) {
      const std::string name = key;
      columns.push_back(optional_column(
          header, name, [name](const Row& r) { return r.traffic_value(name); },
          megabyte ? std::function<std::string(double)>(megabytes) : count));
    }
  }
  if (any([](const Row& r) { return r.sim_time.has_value(); })) {
    columns.push_back(optional_column(
        "simulated time", "sim_time", [](const Row& r) { return r.sim_time; },
        [](double v) { return fmt::format("{:.0f}", v); }));
  }
  if (any([](const Row& r) { return r.seconds.has_value(); })) {
    columns.push_back(optional_column(
        "time on the cluster", "seconds", [](const Row& r) { return r.seconds; },
        [](double v) { return format_duration(v); }));
  }
  columns.push_back(optional_column(
      "wall time", "wall_time",
      [](const Row& r) { return r.wall.n ? std::optional<double>(r.wall.mean) : std::nullopt; },
      [](double v) { return format_duration(v); }));
  return columns;
}

}  // namespace dsgd
