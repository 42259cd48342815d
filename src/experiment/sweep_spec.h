// A sweep: one TOML file that names many runs. It declares a base config, settings for every
// run, a grid of values (every combination), a list of named configurations (crossed with the
// grid) and seeds; expanding it gives one point per run, each an ordinary `dsgd run` with its
// own folder and --set overrides. The dimensions keep their declared order so that the report
// can lay its tables out the way the sweep was written. The format, with an example, is in
// docs/experiments.md.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "train/config.h"

namespace dsgd {

// Published figures to set beside a sweep's own ([report.published]): final test accuracy as a
// paper reports it for some of the sweep's named configurations, where it comes from, and the
// configuration (the single-worker baseline, say) whose accuracy each drop is measured from, in
// the paper's numbers and in the sweep's. A figure is a number, or a word ("fails"); figures the
// source gives but nobody could check against the paper are marked unverified, with the reason.
struct PublishedFigures {
  std::string source;
  std::string baseline;        // a configuration name with a published figure
  std::string unverified_why;  // why the figures marked unverified are ("" when none is)
  struct Figure {
    std::string config;  // the [[configs]] name
    std::optional<double> accuracy;
    std::string word;  // when the paper gives no number
    bool unverified = false;
  };
  std::vector<Figure> figures;  // in the order the spec writes them
  bool empty() const { return figures.empty(); }
};

// A paper's claim that the report decides from the runs ([[report.claims]]): that the final main
// metric of `config` is at most `margin` worse than ("near"), better than ("exceeds") or more than `margin`
// worse than ("below") the best of `against` (the strongest baseline, not a strawman). Each side is
// a configuration of this sweep, or a folder of another sweep's committed runs (a name with a
// '/', held here as an absolute path; the spec writes it relative to its own folder). A claim the
// runs cannot decide (one about time, say) states its `measured` figures and `verdict` instead.
struct Claim {
  std::string text;       // the claim, in the paper's words
  std::string published;  // what the paper gives for it: a figure, or its words
  std::string test;       // "near", "exceeds" or "below"; "" for a claim stated, not tested
  std::string config;
  std::vector<std::string> against;
  double margin = 0.0;  // in the metric's shown units (points of accuracy); near and below only
  std::string measured;
  std::string verdict;
};

// How `dsgd report` lays a sweep out: which dimension runs down the rows, which (optional) across
// the columns, and the accuracy whose time-to-reach the tables show: a number, or the final
// accuracy (mean over seeds) of the row named target_config in the same group, e.g. "ssgd".
struct ReportLayout {
  std::string title;
  std::string notes;  // markdown kept at the top of the report: what was run and why
  // The dimensions the report's table goes down and across: sweep dimensions, or config keys
  // every run sets (key_dimensions), e.g. rows = "algo", columns = "workers".
  std::string rows;
  std::string columns;
  double target = 0.0;  // 0: none
  // A value of `rows` whose final accuracy is the target: the configuration with that value and
  // the same other labels, or, when there is none, the one configuration with that value.
  std::string target_config;
  // Config keys made report dimensions (rows or columns that are not sweep dimensions). The
  // `config` dimension is then only a name: groups are formed without it.
  std::vector<std::string> key_dimensions;
  PublishedFigures published;
  std::vector<Claim> claims;  // in the order the spec writes them
  // Epochs at which the report tables each configuration's training loss (its first evaluation at
  // or after each), increasing; empty: no such table.
  std::vector<double> loss_epochs;
  // Epochs at which the report tables each configuration's main metric (test accuracy, or a
  // language model's validation perplexity), likewise.
  std::vector<double> accuracy_epochs;
  // Values of the main metric at which the report tables each configuration's time to reach
  // them, from the easiest: increasing test accuracies (accuracy_targets), or decreasing
  // perplexities (perplexity_targets); empty: no such table. sweep.json keeps them as
  // accuracy_targets whichever they are.
  std::vector<double> accuracy_targets;
  // Values of `rows` (configurations) from which the report measures every configuration's drop
  // in final accuracy, with the spread of the seeds; empty: no such table.
  std::vector<std::string> drops_from;
};

struct SweepPoint {
  std::string dir;  // relative to the sweep folder
  // Dimension → value shown in reports, one entry per dimension in SweepSpec::dimensions order.
  std::vector<std::pair<std::string, std::string>> labels;
  std::vector<std::string> overrides;  // KEY=VALUE, applied after the base config
};

struct SweepSpec {
  std::string base_config;  // absolute path, or "" for the built-in defaults
  std::string out;          // the sweep folder
  // Grid keys in declared order, then "config" (with named configurations), then "seed".
  std::vector<std::string> dimensions;
  std::vector<SweepPoint> points;
  ReportLayout report;
  std::string spec_path;  // the file it came from, quoted by the report
};

// Parses and expands a spec. Relative paths in it (base, out) are taken from `spec_dir`. Throws
// ConfigError naming the problem: malformed TOML, an unknown top-level key, an empty grid, a value
// that is not a scalar, two points sharing a folder. Config keys and their values are checked by
// check_sweep_points, which builds each point's config.
SweepSpec parse_sweep_spec(const std::string& text, const std::string& source,
                           const std::string& spec_dir);
SweepSpec load_sweep_spec(const std::string& path);

// Throws ConfigError when one of `dirs` is no point's folder (sweep --only), listing the spec's.
void check_point_dirs(const SweepSpec& spec, const std::vector<std::string>& dirs);

// Builds every point's config as `dsgd run` would, so that an unknown key or a value of the wrong
// type stops the sweep before any run starts; the error names the point. Returns the configs, one
// per point in order.
std::vector<RunConfig> check_sweep_points(const SweepSpec& spec);

}  // namespace dsgd
