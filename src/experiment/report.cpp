// The markdown report, its CSV and its figures; see report.h. The parts: the layout (which
// dimension goes down the rows, which across, the target), the groups of configurations that
// share every other label, and then each section in the order the report shows them.
#include "experiment/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/atomic_file.h"
#include "experiment/report_figures.h"
#include "experiment/report_table.h"
#include "experiment/run_results.h"

namespace dsgd {
namespace {

namespace fs = std::filesystem;

// "config" and "run" name a configuration on their own; other dimensions read better as k = v.
std::string shown(const std::string& dimension, const std::string& value) {
  return dimension == "config" || dimension == "run" ? value : dimension + "=" + value;
}

std::string joined(const Labels& labels, const char* separator) {
  std::string out;
  for (const auto& [dimension, value] : labels) {
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

using Group = std::pair<Labels, std::vector<const Configuration*>>;

// What the report is laid out by, resolved once from the sweep's layout and the options.
struct Layout {
  std::string rows;     // the dimension down the rows ("" when there is none)
  std::string columns;  // the dimension across the pivot ("" when none)
  // Labels that do not tell groups apart: `config` when rows or columns are config keys (it is
  // then only each configuration's name).
  std::vector<std::string> names_only;
  double target = 0.0;        // a fixed accuracy, or
  std::string target_config;  // a value of `rows` whose final accuracy is the target

  bool relative_target() const { return target <= 0.0 && !target_config.empty() && !rows.empty(); }
  bool has_target() const { return target > 0.0 || relative_target(); }
  std::string target_name() const {
    return relative_target() ? target_config + "'s final acc" : fmt::format("{}", target);
  }
};

Layout resolve_layout(const Experiment& experiment, const ReportOptions& options) {
  const ReportLayout& given = experiment.layout;
  Layout layout{given.rows, given.columns, {}, given.target, given.target_config};
  if (options.target > 0.0) {
    layout.target = options.target;
    layout.target_config.clear();
  }
  if (layout.rows.empty() && experiment.dimensions.size() == 1) {
    layout.rows = experiment.dimensions.front();
  }
  if (!given.key_dimensions.empty()) layout.names_only.push_back("config");
  return layout;
}

// The configurations that share every label but `free` (and the layout's name-only labels), in
// the order the sweep declared them.
std::vector<Group> group_by(const Experiment& experiment, const Layout& layout,
                            std::vector<std::string> free) {
  free.insert(free.end(), layout.names_only.begin(), layout.names_only.end());
  std::vector<Group> groups;
  for (const auto& c : experiment.configurations) {
    Labels key;
    for (const auto& label : c.labels) {
      if (std::find(free.begin(), free.end(), label.first) == free.end()) key.push_back(label);
    }
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&key](const Group& g) { return g.first == key; });
    if (it == groups.end()) {
      groups.push_back({key, {&c}});
    } else {
      it->second.push_back(&c);
    }
  }
  return groups;
}

double finished_mean(const Configuration& c) {
  std::vector<double> finals;
  for (const auto& run : c.runs) {
    if (run.status == "ok") finals.push_back(run.final_acc);
  }
  return finals.size() == c.runs.size() && !finals.empty() ? seed_stats(finals).mean : 0.0;
}

// Each configuration's target: the fixed one, or the final accuracy of the reference row in its
// group, or, when its group has none, of the one configuration anywhere with that row value
// (sgd at N = 1 for every N); 0 where the reference has no clean result yet.
std::vector<double> targets_of(const Experiment& experiment, const Layout& layout) {
  std::vector<double> targets;
  std::vector<const Configuration*> references;
  for (const auto& c : experiment.configurations) {
    if (label_of(c.labels, layout.rows) == layout.target_config) references.push_back(&c);
  }
  for (const auto& c : experiment.configurations) {
    if (!layout.relative_target()) {
      targets.push_back(layout.target);
      continue;
    }
    const Configuration* reference = references.size() == 1 ? references.front() : nullptr;
    for (const auto* r : references) {
      bool same_group = true;
      for (const auto& [dimension, value] : c.labels) {
        const bool compared = dimension != layout.rows &&
                              std::find(layout.names_only.begin(), layout.names_only.end(),
                                        dimension) == layout.names_only.end();
        if (compared) same_group = same_group && label_of(r->labels, dimension) == value;
      }
      if (same_group) reference = r;
    }
    targets.push_back(reference != nullptr ? finished_mean(*reference) : 0.0);
  }
  return targets;
}

std::string preamble(const Experiment& experiment, const ReportOptions& options) {
  std::ostringstream md;
  const ReportLayout& given = experiment.layout;
  int runs = 0;
  for (const auto& c : experiment.configurations) {
    for (const auto& run : c.runs) runs += run.status.empty() ? 0 : 1;
  }
  md << "# " << (given.title.empty() ? "dsgd report" : given.title) << "\n\n";
  for (const auto& spec : experiment.specs) md << fmt::format("Runs: `dsgd sweep {}`. ", spec);
  md << fmt::format("Generated by `{}` on {} from {} runs in {} configurations.\n\n",
                    options.command, today(), runs, experiment.configurations.size());
  if (!given.notes.empty()) md << given.notes << (given.notes.back() == '\n' ? "" : "\n") << "\n";
  return md.str();
}

std::string table_intro(const Layout& layout, const std::vector<Row>& rows) {
  std::ostringstream md;
  md << "## Every configuration\n\nAccuracies: mean ± std over seeds when every seed finished; "
        "otherwise each seed's outcome (a running or interrupted run: its accuracy so far and "
        "epoch). ";
  if (layout.has_target()) {
    md << fmt::format(
        "Time to {}: the first evaluation at or above it, as epoch / updates / simulated time, "
        "mean over the seeds that got there (k/n when not all did){}. ",
        layout.target_name(),
        layout.relative_target()
            ? fmt::format("; the reference is the {} {} with the same other labels, or the only "
                          "one",
                          layout.rows, layout.target_config)
            : "");
  }
  if (std::any_of(rows.begin(), rows.end(), [](const Row& r) { return r.staleness || r.gap; })) {
    md << "Staleness and gap: the last evaluation period's. ";
  }
  if (std::any_of(rows.begin(), rows.end(), [](const Row& r) { return !r.traffic.empty(); })) {
    md << "Traffic: what all learners sent together, mean over seeds. ";
  }
  return md.str() + "\n\n";
}

// The values of `dimension` in a group, in declared order, or numerically when all are numbers.
std::vector<std::string> values_in(const std::vector<const Configuration*>& group,
                                   const std::string& dimension) {
  std::vector<std::string> values;
  for (const auto* c : group) {
    const std::string v = label_of(c->labels, dimension);
    if (std::find(values.begin(), values.end(), v) == values.end()) values.push_back(v);
  }
  if (numeric_labels(group, dimension)) {
    std::sort(values.begin(), values.end(), [](const std::string& a, const std::string& b) {
      return std::stod(a) < std::stod(b);
    });
  }
  return values;
}

// The final accuracy pivoted, rows against columns, one table per group.
std::string pivot_section(const Experiment& experiment, const Layout& layout) {
  std::ostringstream md;
  md << fmt::format("\n## Final test accuracy: {} against {}\n", layout.rows, layout.columns);
  for (const auto& [key, group] : group_by(experiment, layout, {layout.rows, layout.columns})) {
    const std::vector<std::string> columns = values_in(group, layout.columns);
    md << "\n";
    if (!key.empty()) md << "### " << joined(key, ", ") << "\n\n";
    md << "| " << layout.rows << " |";
    for (const auto& col : columns) md << " " << shown(layout.columns, col) << " |";
    md << "\n|---|";
    for (size_t i = 0; i < columns.size(); ++i) md << "---|";
    md << "\n";
    std::vector<std::string> row_values;
    for (const auto* c : group) {
      const std::string r = label_of(c->labels, layout.rows);
      if (std::find(row_values.begin(), row_values.end(), r) == row_values.end()) {
        row_values.push_back(r);
      }
    }
    for (const auto& r : row_values) {
      md << "| " << r << " |";
      for (const auto& col : columns) {
        std::string cell = "-";
        for (const auto* c : group) {
          if (label_of(c->labels, layout.rows) == r && label_of(c->labels, layout.columns) == col) {
            cell = accuracy_cell(*c, &RunResult::final_acc);
          }
        }
        md << " " << cell << " |";
      }
      md << "\n";
    }
  }
  return md.str();
}

// The figures and the markdown that shows them: the final accuracy against a numeric columns
// dimension, then the curves of each group, in parts of at most kMaxSeries lines.
std::string figure_section(const Experiment& experiment, const Layout& layout,
                           const std::string& plots, std::vector<Figure>& figures) {
  std::ostringstream md;
  const SeriesName name = [&layout](const Configuration& c) {
    const std::string value = label_of(c.labels, layout.rows);
    return layout.rows.empty() || value.empty() ? joined(c.labels, ", ") : value;
  };
  if (!layout.columns.empty() && !layout.rows.empty()) {
    for (const auto& [key, group] : group_by(experiment, layout, {layout.rows, layout.columns})) {
      if (!numeric_labels(group, layout.columns)) continue;
      const std::string title = "final test accuracy against " + layout.columns +
                                (key.empty() ? "" : ", " + joined(key, ", "));
      const std::string base = plots + "/accuracy-against-" + slug(layout.columns) +
                               (key.empty() ? "" : "_" + slug(joined(key, "_")));
      md << fmt::format("\n## {}\n\n![{}]({}.png) ([SVG]({}.svg))\n",
                        "Final test accuracy against " + layout.columns, title, base, base);
      figures.push_back({base, title, {accuracy_against(group, layout.rows, layout.columns)}});
    }
  }
  md << "\n## Curves\n\nOne line per " << (layout.rows.empty() ? "configuration" : layout.rows)
     << ", a point per evaluation; the band spans the seeds (lowest to highest); at most "
     << kMaxSeries << " lines a figure. Each figure also exists as SVG.\n";
  std::vector<std::string> free;
  if (!layout.rows.empty()) free.push_back(layout.rows);
  for (const auto& [key, group] : group_by(experiment, layout, free)) {
    const auto parts = series_parts(group, name);
    for (size_t p = 0; p < parts.size(); ++p) {
      std::string title = key.empty() ? "every configuration" : joined(key, ", ");
      std::string base = plots + "/" + slug(joined(key, "_"));
      if (parts.size() > 1) {
        title += fmt::format(" ({} of {})", p + 1, parts.size());
        base += fmt::format("-{}", p + 1);
      }
      md << "\n### " << title << "\n\n"
         << fmt::format("![{}]({}.png) ([SVG]({}.svg))\n", title, base, base);
      figures.push_back(
          {base, key.empty() && parts.size() == 1 ? "" : title, curve_panels(parts[p], name)});
    }
  }
  return md.str();
}

}  // namespace

std::string write_report(const ReportOptions& options) {
  const Experiment experiment = load_experiment(options.dirs);
  const Layout layout = resolve_layout(experiment, options);
  const std::vector<double> targets = targets_of(experiment, layout);
  std::vector<Row> rows;
  for (size_t i = 0; i < experiment.configurations.size(); ++i) {
    rows.push_back(summarise(experiment.configurations[i], targets[i]));
  }
  const std::vector<Column> columns =
      table_columns(experiment.dimensions, rows, layout.has_target(), layout.target_name());

  const fs::path report_path =
      options.out.empty() ? fs::path(options.dirs.front()) / "report.md" : fs::path(options.out);
  const fs::path folder = report_path.has_parent_path() ? report_path.parent_path() : ".";
  // Each report's figures in a folder of their own, so reports can share a folder.
  const std::string plots = report_path.stem().string() + "-plots";
  fs::create_directories(folder);

  std::string md = preamble(experiment, options) + table_intro(layout, rows) +
                   markdown_table(columns, experiment.configurations, rows);
  if (!layout.columns.empty() && !layout.rows.empty()) md += pivot_section(experiment, layout);
  std::vector<Figure> figures;
  if (options.plots) md += figure_section(experiment, layout, plots, figures);
  // Hand-written commentary below a `<!-- notes -->` line survives regenerating the report.
  if (fs::exists(report_path)) {
    const std::string previous = read_text(report_path);
    const size_t notes = previous.find("\n<!-- notes -->");
    if (notes != std::string::npos) md += previous.substr(notes);
  }
  write_file_atomically(report_path.string(), md);
  write_file_atomically((folder / (report_path.stem().string() + ".csv")).string(),
                        csv_table(columns, experiment.configurations, rows));
  if (!figures.empty()) fs::create_directories(folder / plots);
  for (const Figure& figure : figures) {
    draw_figure((folder / figure.base).string(), figure.title, figure.panels);
  }
  return report_path.string();
}

}  // namespace dsgd
