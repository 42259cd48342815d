// The markdown report, its CSV and its figures; see report.h.
#include "experiment/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <sstream>

#include "core/atomic_file.h"
#include "core/errors.h"
#include "experiment/plots.h"
#include "experiment/run_results.h"
#include "run/progress.h"

namespace dsgd {
namespace {

namespace fs = std::filesystem;

// "config" and "run" name a configuration on their own; other dimensions read better as k = v.
std::string shown(const std::string& dimension, const std::string& value) {
  return dimension == "config" || dimension == "run" ? value : dimension + "=" + value;
}

std::string joined(const Labels& labels, const std::string& skip, const char* separator) {
  std::string out;
  for (const auto& [dimension, value] : labels) {
    if (dimension == skip) continue;
    out += (out.empty() ? "" : separator) + shown(dimension, value);
  }
  return out;
}

std::string slug(const std::string& text) {
  std::string out;
  for (char c : text) {
    const bool keep =
        std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '=' || c == '-';
    out += keep ? c : '_';
  }
  return out.empty() ? "all" : out;
}

bool ok(const RunResult& run) { return run.status == "ok"; }

std::string mean_std(const SeedStats& s, int digits) {
  if (s.n == 0) return "-";
  if (s.n == 1) return fmt::format("{:.{}f}", s.mean, digits);
  return fmt::format("{:.{}f} ± {:.{}f}", s.mean, digits, s.std, digits);
}

std::vector<double> values_of(const Configuration& c, double RunResult::*field) {
  std::vector<double> values;
  for (const auto& run : c.runs) {
    if (ok(run)) values.push_back(run.*field);
  }
  return values;
}

// Mean ± std over the seeds when every seed finished normally; otherwise each seed's outcome, so
// that a diverged or collapsed seed is never averaged away ("0.8512, collapsed").
std::string accuracy_cell(const Configuration& c, double RunResult::*field) {
  bool all_ok = true;
  bool any_run = false;
  for (const auto& run : c.runs) {
    all_ok = all_ok && ok(run);
    any_run = any_run || !run.status.empty();
  }
  if (!any_run) return "-";
  if (all_ok) return mean_std(seed_stats(values_of(c, field)), 4);
  std::string out;
  for (const auto& run : c.runs) {
    const std::string one =
        ok(run) ? fmt::format("{:.4f}", run.*field) : (run.status.empty() ? "-" : run.status);
    out += (out.empty() ? "" : ", ") + one;
  }
  return out;
}

struct Row {
  std::string target;  // time to target, as shown
  std::optional<Reached> reached_mean;
  int reached = 0;
  std::optional<double> staleness, gap;
  std::map<std::string, double> traffic;
  SeedStats final_acc, best_acc, wall;
};

std::optional<double> mean_of(const std::vector<double>& values) {
  if (values.empty()) return std::nullopt;
  return seed_stats(values).mean;
}

Row summarise(const Configuration& c, double target) {
  Row row;
  row.final_acc = seed_stats(values_of(c, &RunResult::final_acc));
  row.best_acc = seed_stats(values_of(c, &RunResult::best_acc));
  row.wall = seed_stats(values_of(c, &RunResult::wall_time));
  std::vector<double> staleness;
  std::vector<double> gap;
  std::map<std::string, std::vector<double>> traffic;
  std::vector<Reached> reached;
  int with_metrics = 0;
  for (const auto& run : c.runs) {
    if (run.status.empty()) continue;
    if (auto s = last_metric(run, "staleness_mean")) staleness.push_back(*s);
    if (auto g = last_metric(run, "gap_rms")) gap.push_back(*g);
    for (const auto& [key, value] : run.traffic) traffic[key].push_back(value);
    if (target > 0.0) {
      ++with_metrics;
      if (auto r = time_to_target(run, target)) reached.push_back(*r);
    }
  }
  row.staleness = mean_of(staleness);
  row.gap = mean_of(gap);
  for (const auto& [key, values] : traffic) row.traffic[key] = seed_stats(values).mean;
  row.reached = static_cast<int>(reached.size());
  if (target > 0.0 && with_metrics > 0) {
    if (reached.empty()) {
      row.target = "never";
    } else {
      Reached mean;
      for (const auto& r : reached) {
        mean.epoch += r.epoch / reached.size();
        mean.updates += r.updates / reached.size();
        mean.sim_time += r.sim_time / reached.size();
      }
      row.reached_mean = mean;
      row.target = fmt::format("{:.3g} / {:.0f} / {:.0f}", mean.epoch, mean.updates, mean.sim_time);
      if (row.reached < with_metrics)
        row.target += fmt::format(" ({}/{})", row.reached, with_metrics);
    }
  }
  return row;
}

// A CSV field, quoted where it holds a comma or a quote (RFC 4180).
std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string csv_number(std::optional<double> v) { return v ? fmt::format("{}", *v) : ""; }

// The curve of one metrics column against another, over the seeds of a configuration: row i of
// every seed that has one, the mean and the band from the lowest to the highest seed.
Curve seed_curve(const Configuration& c, const std::string& title, const std::string& x_column,
                 const std::string& y_column) {
  Curve curve{title, {}, {}, {}, {}};
  for (size_t i = 0;; ++i) {
    double x = 0.0;
    std::vector<double> ys;
    for (const auto& run : c.runs) {
      auto xs = run.metrics.find(x_column);
      auto yc = run.metrics.find(y_column);
      if (xs == run.metrics.end() || yc == run.metrics.end() || i >= yc->second.size()) continue;
      if (std::isnan(yc->second[i]) || std::isnan(xs->second[i])) continue;
      x += xs->second[i];
      ys.push_back(yc->second[i]);
    }
    bool any_longer = false;
    for (const auto& run : c.runs) {
      auto yc = run.metrics.find(y_column);
      any_longer = any_longer || (yc != run.metrics.end() && i < yc->second.size());
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

bool any_metric(const std::vector<const Configuration*>& group, const std::string& column) {
  for (const auto* c : group) {
    for (const auto& run : c->runs) {
      if (last_metric(run, column)) return true;
    }
  }
  return false;
}

std::vector<Panel> figure_panels(const std::vector<const Configuration*>& group,
                                 const std::string& row_dimension) {
  auto name = [&](const Configuration& c) {
    const std::string value = label_of(c.labels, row_dimension);
    return row_dimension.empty() || value.empty() ? joined(c.labels, "", ", ") : value;
  };
  std::vector<Panel> panels = {
      {"test accuracy", "epoch", "test accuracy", false, "bottom right", false, {}},
      {"test accuracy against simulated time",
       "simulated time",
       "test accuracy",
       false,
       "bottom right",
       false,
       {}},
      {"training loss", "epoch", "training loss", true, "top right", false, {}},
      {"training loss against simulated time",
       "simulated time",
       "training loss",
       true,
       "top right",
       false,
       {}}};
  for (const auto* c : group) {
    panels[0].curves.push_back(seed_curve(*c, name(*c), "epoch", "test_acc"));
    panels[1].curves.push_back(seed_curve(*c, name(*c), "sim_time", "test_acc"));
    panels[2].curves.push_back(seed_curve(*c, name(*c), "epoch", "train_loss"));
    panels[3].curves.push_back(seed_curve(*c, name(*c), "sim_time", "train_loss"));
  }
  bool histograms = false;
  for (const auto* c : group) {
    for (const auto& run : c->runs) histograms = histograms || !run.staleness_histogram.empty();
  }
  if (histograms) {
    Panel panel{"staleness of the applied messages",
                "staleness (server updates)",
                "share of updates",
                true,
                "top right",
                true,
                {}};
    for (const auto* c : group) panel.curves.push_back(staleness_curve(*c, name(*c)));
    panels.push_back(std::move(panel));
  }
  if (any_metric(group, "learner_spread")) {
    Panel panel{
        "learner spread at each evaluation", "epoch", "spread", true, "top right", false, {}};
    for (const auto* c : group) {
      panel.curves.push_back(seed_curve(*c, name(*c), "epoch", "learner_spread"));
    }
    panels.push_back(std::move(panel));
  }
  return panels;
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string today() {
  std::time_t now = std::time(nullptr);
  char text[16];
  std::strftime(text, sizeof(text), "%Y-%m-%d", std::gmtime(&now));
  return text;
}

}  // namespace

std::string write_report(const ReportOptions& options) {
  Experiment experiment = load_experiment(options.dirs);
  ReportLayout& layout = experiment.layout;
  if (options.target > 0.0) {
    layout.target = options.target;
    layout.target_config.clear();
  }
  std::string row_dimension = layout.rows;
  if (row_dimension.empty() && experiment.dimensions.size() == 1) {
    row_dimension = experiment.dimensions.front();
  }
  // Each configuration's target: the fixed one, or the final accuracy of the reference row in
  // its group (0 where that reference has no clean result).
  const bool relative_target =
      layout.target <= 0.0 && !layout.target_config.empty() && !row_dimension.empty();
  const bool has_target = layout.target > 0.0 || relative_target;
  std::vector<double> targets;
  for (const auto& c : experiment.configurations) {
    double target = layout.target;
    if (relative_target) {
      target = 0.0;
      for (const auto& reference : experiment.configurations) {
        bool same_group = label_of(reference.labels, row_dimension) == layout.target_config;
        for (const auto& [dimension, value] : c.labels) {
          if (dimension == row_dimension) continue;
          same_group = same_group && label_of(reference.labels, dimension) == value;
        }
        const std::vector<double> finals = values_of(reference, &RunResult::final_acc);
        if (same_group && !finals.empty() && finals.size() == reference.runs.size()) {
          target = seed_stats(finals).mean;
        }
      }
    }
    targets.push_back(target);
  }
  const std::string target_name =
      relative_target ? layout.target_config + "'s final acc" : fmt::format("{}", layout.target);
  const fs::path report_path =
      options.out.empty() ? fs::path(options.dirs.front()) / "report.md" : fs::path(options.out);
  const fs::path folder = report_path.has_parent_path() ? report_path.parent_path() : ".";
  // Each report's figures in a folder of their own, so reports can share a folder.
  const std::string plots = report_path.stem().string() + "-plots";
  fs::create_directories(folder);

  int runs = 0;
  for (const auto& c : experiment.configurations) {
    for (const auto& run : c.runs) runs += run.status.empty() ? 0 : 1;
  }
  std::vector<Row> rows;
  bool staleness = false;
  bool gap = false;
  bool traffic = false;
  for (size_t i = 0; i < experiment.configurations.size(); ++i) {
    rows.push_back(summarise(experiment.configurations[i], targets[i]));
    staleness = staleness || rows.back().staleness.has_value();
    gap = gap || rows.back().gap.has_value();
    traffic = traffic || !rows.back().traffic.empty();
  }

  std::ostringstream md;
  md << "# " << (layout.title.empty() ? "dsgd report" : layout.title) << "\n\n";
  for (const auto& spec : experiment.specs) md << fmt::format("Runs: `dsgd sweep {}`. ", spec);
  md << fmt::format("Generated by `{}` on {} from {} runs in {} configurations.\n\n",
                    options.command, today(), runs, experiment.configurations.size());
  if (!layout.notes.empty())
    md << layout.notes << (layout.notes.back() == '\n' ? "" : "\n") << "\n";

  // The table of every configuration.
  md << "## Every configuration\n\n";
  md << "Accuracies: mean ± std over seeds when every seed finished; otherwise each seed's "
        "outcome. ";
  if (has_target) {
    md << fmt::format(
        "Time to {}: the first evaluation at or above it, as epoch / updates / simulated time, "
        "mean over the seeds that got there (k/n when not all did){}. ",
        target_name,
        relative_target ? fmt::format("; the reference is the {} {} with the same other labels",
                                      row_dimension, layout.target_config)
                        : "");
  }
  if (staleness || gap) md << "Staleness and gap: the last evaluation period's. ";
  if (traffic) md << "Traffic: what all learners sent together, mean over seeds. ";
  md << "\n\n|";
  std::vector<std::string> header;
  for (const auto& d : experiment.dimensions) header.push_back(d);
  header.insert(header.end(), {"seeds", "final test acc", "best test acc"});
  if (has_target) header.push_back("time to " + target_name);
  if (staleness) header.push_back("staleness");
  if (gap) header.push_back("gap RMS");
  if (traffic) {
    header.insert(header.end(), {"global MB", "local MB", "global reductions", "local reductions",
                                 "compute time", "comm time"});
  }
  header.push_back("wall time");
  for (const auto& h : header) md << " " << h << " |";
  md << "\n|";
  for (size_t i = 0; i < header.size(); ++i) md << "---|";
  md << "\n";
  std::ostringstream csv;
  for (const auto& d : experiment.dimensions) csv << csv_field(d) << ",";
  csv << "seeds,finished,final_acc_mean,final_acc_std,best_acc_mean,best_acc_std,target_epoch,"
         "target_updates,target_sim_time,staleness_mean,gap_rms,global_bytes,local_bytes,"
         "global_reductions,local_reductions,wall_time\n";
  for (size_t i = 0; i < experiment.configurations.size(); ++i) {
    const Configuration& c = experiment.configurations[i];
    const Row& row = rows[i];
    auto traffic_value = [&row](const char* key) -> std::optional<double> {
      auto it = row.traffic.find(key);
      if (it == row.traffic.end()) return std::nullopt;
      return it->second;
    };
    md << "|";
    for (const auto& d : experiment.dimensions) md << " " << label_of(c.labels, d) << " |";
    md << " " << c.runs.size() << " | " << accuracy_cell(c, &RunResult::final_acc) << " | "
       << accuracy_cell(c, &RunResult::best_acc) << " |";
    if (has_target) md << " " << (row.target.empty() ? "-" : row.target) << " |";
    if (staleness)
      md << " " << (row.staleness ? fmt::format("{:.1f}", *row.staleness) : "-") << " |";
    if (gap) md << " " << (row.gap ? fmt::format("{:.2e}", *row.gap) : "-") << " |";
    if (traffic) {
      auto mb = [](std::optional<double> v) { return v ? fmt::format("{:.1f}", *v / 1e6) : "-"; };
      auto count = [](std::optional<double> v) { return v ? fmt::format("{:.0f}", *v) : "-"; };
      md << " " << mb(traffic_value("global_bytes")) << " | " << mb(traffic_value("local_bytes"))
         << " | " << count(traffic_value("global_reductions")) << " | "
         << count(traffic_value("local_reductions")) << " | "
         << count(traffic_value("compute_time")) << " | " << count(traffic_value("comm_time"))
         << " |";
    }
    md << " " << (row.wall.n ? format_duration(row.wall.mean) : "-") << " |\n";

    for (const auto& d : experiment.dimensions) csv << csv_field(label_of(c.labels, d)) << ",";
    auto stat = [](const SeedStats& s, bool std) {
      return s.n == 0 ? std::string() : fmt::format("{}", std ? s.std : s.mean);
    };
    csv << c.runs.size() << "," << row.final_acc.n << "," << stat(row.final_acc, false) << ","
        << stat(row.final_acc, true) << "," << stat(row.best_acc, false) << ","
        << stat(row.best_acc, true) << ",";
    if (row.reached_mean) {
      csv << row.reached_mean->epoch << "," << row.reached_mean->updates << ","
          << row.reached_mean->sim_time << ",";
    } else {
      csv << ",,,";
    }
    csv << csv_number(row.staleness) << "," << csv_number(row.gap) << ","
        << csv_number(traffic_value("global_bytes")) << ","
        << csv_number(traffic_value("local_bytes")) << ","
        << csv_number(traffic_value("global_reductions")) << ","
        << csv_number(traffic_value("local_reductions")) << ","
        << (row.wall.n ? fmt::format("{}", row.wall.mean) : "") << "\n";
  }

  // Groups: the configurations that share every label but the row dimension's (and, for the
  // pivot, the column dimension's), in the order the sweep declared them.
  auto group_by = [&](const std::vector<std::string>& free) {
    std::vector<std::pair<Labels, std::vector<const Configuration*>>> groups;
    for (const auto& c : experiment.configurations) {
      Labels key;
      for (const auto& label : c.labels) {
        if (std::find(free.begin(), free.end(), label.first) == free.end()) key.push_back(label);
      }
      auto it = std::find_if(groups.begin(), groups.end(),
                             [&key](const auto& g) { return g.first == key; });
      if (it == groups.end()) {
        groups.push_back({key, {&c}});
      } else {
        it->second.push_back(&c);
      }
    }
    return groups;
  };

  if (!layout.columns.empty() && !row_dimension.empty()) {
    md << fmt::format("\n## Final test accuracy: {} against {}\n", row_dimension, layout.columns);
    for (const auto& [key, group] : group_by({row_dimension, layout.columns})) {
      std::vector<std::string> row_values;
      std::vector<std::string> column_values;
      for (const auto* c : group) {
        const std::string r = label_of(c->labels, row_dimension);
        const std::string col = label_of(c->labels, layout.columns);
        if (std::find(row_values.begin(), row_values.end(), r) == row_values.end()) {
          row_values.push_back(r);
        }
        if (std::find(column_values.begin(), column_values.end(), col) == column_values.end()) {
          column_values.push_back(col);
        }
      }
      md << "\n";
      if (!key.empty()) md << "### " << joined(key, "", ", ") << "\n\n";
      md << "| " << row_dimension << " |";
      for (const auto& col : column_values) md << " " << shown(layout.columns, col) << " |";
      md << "\n|---|";
      for (size_t i = 0; i < column_values.size(); ++i) md << "---|";
      md << "\n";
      for (const auto& r : row_values) {
        md << "| " << r << " |";
        for (const auto& col : column_values) {
          std::string cell = "-";
          for (const auto* c : group) {
            if (label_of(c->labels, row_dimension) == r &&
                label_of(c->labels, layout.columns) == col) {
              cell = accuracy_cell(*c, &RunResult::final_acc);
            }
          }
          md << " " << cell << " |";
        }
        md << "\n";
      }
    }
  }

  struct Figure {
    std::string base;  // relative to the report's folder
    std::string title;
    std::vector<Panel> panels;
  };
  std::vector<Figure> figures;
  if (options.plots) {
    md << "\n## Curves\n\nOne line per "
       << (row_dimension.empty() ? "configuration" : row_dimension)
       << "; the band spans the seeds (lowest to highest). Each figure also exists as SVG.\n";
    std::vector<std::string> free;
    if (!row_dimension.empty()) free.push_back(row_dimension);
    for (const auto& [key, group] : group_by(free)) {
      const std::string title = key.empty() ? "every configuration" : joined(key, "", ", ");
      const std::string base = plots + "/" + slug(joined(key, "", "_"));
      md << "\n### " << title << "\n\n"
         << fmt::format("![{}]({}.png) ([SVG]({}.svg))\n", title, base, base);
      figures.push_back({base, key.empty() ? "" : title, figure_panels(group, row_dimension)});
    }
  }
  // Hand-written commentary below a `<!-- notes -->` line survives regenerating the report.
  if (fs::exists(report_path)) {
    const std::string previous = read_text(report_path);
    const size_t notes = previous.find("\n<!-- notes -->");
    if (notes != std::string::npos) md << previous.substr(notes);
  }
  write_file_atomically(report_path.string(), md.str());
  write_file_atomically((folder / (report_path.stem().string() + ".csv")).string(), csv.str());
  if (!figures.empty()) fs::create_directories(folder / plots);
  for (const Figure& figure : figures) {
    draw_figure((folder / figure.base).string(), figure.title, figure.panels);
  }
  return report_path.string();
}

}  // namespace dsgd
