// Figures for `dsgd report`, drawn by gnuplot (Debian's gnuplot-nox, which scripts/setup.sh
// installs): a figure is a grid of panels, each with one line per configuration and, where the
// configuration has several seeds, a band from the lowest to the highest seed. Next to the PNG and
// SVG the figure's data (.dat) and gnuplot script (.gp) stay, so a figure can be restyled by hand.
#pragma once

#include <cmath>
#include <string>
#include <vector>

namespace dsgd {

struct Curve {
  std::string title;
  std::vector<double> x;
  std::vector<double> mean;
  std::vector<double> low;  // the band; equal to mean for one seed
  std::vector<double> high;
  // The colour, dash and marker: the style's index when >= 0 (a report gives each row one index
  // in every figure), else the curve's place in its panel.
  int style = -1;
  bool points_only = false;  // figures that were not measured (published ones): open markers
  // Open triangles in place of the row's open marker (published figures nobody could check), so
  // that one drawn at nearly the place of another row's stays visible.
  bool triangles = false;
};

// Every line marks its points (one per evaluation), has a colour and a dash of its own among the
// panel's lines, and the legend sits outside the data, right of the panel.
struct Panel {
  std::string title;
  std::string x_label;
  std::string y_label;
  bool log_y = false;
  std::vector<Curve> curves;
  // A logarithmic x axis: base 2 for worker counts (marks at 1, 2, 4, ...), base 10 for times
  // that differ more than tenfold between lines; 0 for a linear one.
  int log_x_base = 0;
  // Points above it are left off the chart and their line's legend says how many, with
  // `past_ceiling` saying what the ceiling is: a diverged run's perplexity of 1e25 would otherwise
  // flatten every other line against the frame.
  double y_ceiling = INFINITY;
  std::string past_ceiling = "above the chart";
};

// Writes base.png, base.svg, base.dat and base.gp. Throws Error when gnuplot is missing or fails,
// with its message.
void draw_figure(const std::string& base, const std::string& title,
                 const std::vector<Panel>& panels);

}  // namespace dsgd
