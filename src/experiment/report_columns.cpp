// The columns of the report's table, the one list its markdown and its CSV are written from; see
// report_table.h.
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "experiment/report_table.h"
#include "run/progress.h"

namespace dsgd {
namespace {

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

std::vector<Column> table_columns(const std::vector<std::string>& dimensions,
                                  const std::vector<Row>& rows, const MainMetric& metric,
                                  bool with_target, const std::string& target_name,
                                  const Row* reference, const std::string& reference_name) {
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
                                         std::to_string(row.final_metric.n)};
       }});
  // Headers and CSV names say the metric: "final test acc", final_acc_mean (a perplexity's ppl).
  const std::string a = metric.abbreviation;
  for (const auto& [header, name, field, stats] :
       {std::tuple{"final test " + a, "final_" + a, &RunResult::final_metric, &Row::final_metric},
        std::tuple{std::string("mean of the last 5 evaluations"), "last_five_" + a,
                   &RunResult::last_five_metric, &Row::last_five_metric},
        std::tuple{"best test " + a, "best_" + a, &RunResult::best_metric, &Row::best_metric}}) {
    columns.push_back(
        {header,
         {name + "_mean", name + "_std"},
         [field = field](const Configuration& c, const Row&) { return metric_cell(c, field); },
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
  if (any([](const Row& r) { return r.predicted_wall.has_value(); })) {
    columns.push_back(optional_column(
        "predicted wall time", "predicted_wall", [](const Row& r) { return r.predicted_wall; },
        [](double v) { return format_duration(v); }));
  }
  columns.push_back(optional_column(
      "wall time", "wall_time",
      [](const Row& r) { return r.wall.n ? std::optional<double>(r.wall.mean) : std::nullopt; },
      [](double v) { return format_duration(v); }));
  return columns;
}

}  // namespace dsgd
