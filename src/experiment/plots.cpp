// Figures through gnuplot; see plots.h.
#include "experiment/plots.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "core/atomic_file.h"
#include "core/errors.h"
#include "core/fault_injection.h"
#include "core/interrupt.h"

extern char** environ;

namespace dsgd {
namespace {

namespace fs = std::filesystem;

// Eight colours that stay apart for every kind of colour vision (Okabe and Ito, with a darker
// yellow and grey for the eighth), and four dash patterns cycling against them, so that each of a
// panel's lines (at most eight: report_figures.h) differs from every other in colour and most in
// dash too; a ninth line would reuse a colour with another dash and marker.
const char* const kColours[] = {"#0072b2", "#d55e00", "#009e73", "#cc79a7",
                                "#000000", "#e69f00", "#56b4e9", "#777777"};
constexpr size_t kColourCount = sizeof(kColours) / sizeof(kColours[0]);
constexpr int kDashes = 4;

std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

bool has_band(const Curve& curve) {
  for (size_t i = 0; i < curve.mean.size(); ++i) {
    if (curve.low[i] != curve.high[i]) return true;
  }
  return false;
}

// The settings of a linear axis over [low, high] with `margin` (a share of it) at either end:
// values below 10^4 as they are; larger ones (a simulated clock, bytes) as 200k, 1.5M, their full
// digits having run into each other along x and widened the margin beside y. Then the marks are
// placed here, at most six at a step of 1, 2 or 5 times a power of ten (gnuplot's own choice put
// ten "100.0M"s side by side), each label with as few decimals as tell its mark apart (1.5M needs
// one, 2M none).
std::string linear_axis(char axis, double low, double high, double margin) {
  const double widest = std::max(std::fabs(low), std::fabs(high));
  if (!(widest >= 1e4) || !std::isfinite(widest)) {
    return fmt::format("set {}tics autofreq\nset format {} \"% h\"\n", axis, axis);
  }
  const double span = std::max(high - low, widest / 10);
  const double power = std::pow(10.0, std::floor(std::log10(span / 5)));
  double step = 10 * power;
  for (double m : {1.0, 2.0, 5.0}) {
    if (m * power * 5 >= span) {
      step = m * power;
      break;
    }
  }
  int decimals = 0;
  // The marks gnuplot may draw: multiples of the step over the range, widened by the panel's
  // margin (a share of the range: draw_figure's offsets) and then out to a mark, as autoscaling
  // does.
  margin *= high - low;
  for (double k = std::floor((low - margin) / step); k <= std::ceil((high + margin) / step); ++k) {
    const double mark = std::fabs(k * step);
    if (mark == 0) continue;
    const double mantissa = mark / std::pow(1000.0, std::floor(std::log10(mark) / 3));
    while (decimals < 3) {
      const double scaled = mantissa * std::pow(10.0, decimals);
      if (std::fabs(scaled - std::round(scaled)) < 1e-6 * std::max(1.0, scaled)) break;
      ++decimals;
    }
  }
  return fmt::format("set {}tics {}\nset format {} \"%.{}s%c\"\n", axis, step, axis, decimals);
}

// Runs `gnuplot script` in the script's folder (the script names its files relative to it, so
// the folder can move), its messages into script.log; throws with them on failure. gnuplot
// writes NAME.tmp.png and NAME.tmp.svg (the script's `out`, set here), moved into place only
// once both are whole, so a stop or a failure never leaves half a figure under the real name.
// A signal that stops dsgd reaches gnuplot too (the terminal's process group): the figure is
// then dropped and the stop reported as such, not as gnuplot's failure.
void run_gnuplot(const std::string& script, const std::string& name) {
  const std::string log = script + ".log";
  const fs::path folder = fs::path(script).parent_path();
  const std::string temporary = name + ".tmp";
  const std::vector<std::string> extensions = {"png", "svg"};
  const auto drop_temporaries = [&] {
    std::error_code ignored;
    for (const std::string& extension : extensions) {
      fs::remove(folder / (temporary + "." + extension), ignored);
    }
  };
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addchdir_np(&actions, folder.c_str());
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  std::string program = "gnuplot", option = "-e", out = "out = " + quoted(temporary);
  std::string argument = fs::path(script).filename().string();
  char* argv[] = {program.data(), option.data(), out.data(), argument.data(), nullptr};
  pid_t pid = 0;
  const int error = posix_spawnp(&pid, "gnuplot", &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  if (error != 0) {
    throw Error(fmt::format("cannot run gnuplot: {}", std::strerror(error)),
                "install it (Debian: apt-get install gnuplot-nox; scripts/setup.sh does), or "
                "pass --no-plots");
  }
  fault_point("figure");
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    drop_temporaries();
    stop_if_interrupted("drawing " + name, "the files written before it whole",
                        "run the same command again to write the whole report");
    std::ifstream in(log);
    std::stringstream messages;
    messages << in.rdbuf();
    throw Error(fmt::format("gnuplot failed on '{}':\n{}", script, messages.str()));
  }
  for (const std::string& extension : extensions) {
    fs::rename(folder / (temporary + "." + extension), folder / (name + "." + extension));
  }
  fs::remove(log);
}

}  // namespace

void draw_figure(const std::string& base, const std::string& title,
                 const std::vector<Panel>& panels) {
  const std::string absolute = fs::absolute(base).string();
  const std::string name = fs::path(base).filename().string();  // what the script calls its files
  std::ostringstream data;
  std::ostringstream plots;
  int block = 0;
  for (const Panel& panel : panels) {
    std::vector<std::string> parts;
    double lowest_x = 0.0, highest_x = 0.0;
    double lowest_y = INFINITY, highest_y = -INFINITY;
    int drawn = 0;  // lines with a point on the chart
    for (size_t place = 0; place < panel.curves.size(); ++place) {
      Curve named = panel.curves[place];
      // A line drawn exactly over an earlier one would hide it: the legend says so.
      for (size_t earlier = 0; earlier < place; ++earlier) {
        const Curve& e = panel.curves[earlier];
        if (e.x == named.x && e.mean == named.mean && !named.x.empty()) {
          named.title += " (identical to " + e.title + ")";
          break;
        }
      }
      std::ostringstream points;
      int count = 0;
      int off_chart = 0;
      for (size_t i = 0; i < named.x.size(); ++i) {
        if (std::isnan(named.x[i]) || std::isnan(named.mean[i])) continue;
        if (panel.log_y && !(named.low[i] > 0.0)) continue;
        if (panel.log_x_base != 0 && !(named.x[i] > 0.0)) continue;
        if (named.mean[i] > panel.y_ceiling) {
          ++off_chart;
          continue;
        }
        const double high = std::min(named.high[i], panel.y_ceiling);
        points << fmt::format("{} {} {} {}\n", named.x[i], named.mean[i], named.low[i], high);
        lowest_x = std::min(lowest_x, named.x[i]);
        highest_x = std::max(highest_x, named.x[i]);
        lowest_y = std::min(lowest_y, named.low[i]);
        highest_y = std::max(highest_y, high);
        ++count;
      }
      if (off_chart > 0) {
        named.title += fmt::format(" ({} point{} {})", off_chart, off_chart == 1 ? "" : "s",
                                   panel.past_ceiling);
      }
      const Curve& curve = named;
      const size_t c = curve.style >= 0 ? static_cast<size_t>(curve.style) : place;
      const std::string colour = kColours[c % kColourCount];
      const int dash = 1 + static_cast<int>((c + c / kColourCount) % kDashes);
      const int marker = 5 + static_cast<int>(c / kColourCount) * 2;  // filled square, circle, ...
      if (count == 0) {
        // Every point off the chart: the line is named in the legend all the same.
        if (off_chart > 0) {
          parts.push_back(fmt::format(
              "keyentry with linespoints pt {} ps 0.45 lw 1.5 dt {} lc rgb \"{}\" title {}", marker,
              dash, colour, quoted(curve.title)));
        }
        continue;
      }
      data << "# " << curve.title << "\n" << points.str() << "\n\n";
      if (has_band(curve)) {
        parts.push_back(
            fmt::format("{} index {} using 1:3:4 with filledcurves fs transparent "
                        "solid 0.15 noborder lc rgb \"{}\" notitle",
                        quoted(name + ".dat"), block, colour));
      }
      if (curve.points_only) {
        constexpr int kOpenTriangle = 8;
        parts.push_back(
            fmt::format("{} index {} using 1:2 with points pt {} ps {} lc rgb \"{}\" title {}",
                        quoted(name + ".dat"), block, curve.triangles ? kOpenTriangle : marker - 1,
                        curve.triangles ? 1.5 : 1.2, colour, quoted(curve.title)));
      } else {
        parts.push_back(fmt::format(
            "{} index {} using 1:2 with linespoints pt {} ps 0.45 lw 1.5 dt {} lc rgb \"{}\" "
            "title {}",
            quoted(name + ".dat"), block, marker, dash, colour, quoted(curve.title)));
      }
      ++block;
      ++drawn;
    }
    plots << "set title " << quoted(panel.title) << "\n";
    plots << "set xlabel " << quoted(panel.x_label) << "\n";
    plots << "set ylabel " << quoted(panel.y_label) << "\n";
    // Points on the frame are half hidden by it: a margin inside the autoscaled ranges, above and
    // below, and left and right on a logarithmic x axis (on a linear one x starts at 0, where a
    // margin would only add negative epochs).
    const double x_margin = panel.log_x_base != 0 ? 0.04 : 0.0;
    constexpr double kYMargin = 0.06;
    plots << (panel.log_y ? "set logscale y\nset ytics autofreq\nset format y \"%g\"\n"
                          : "unset logscale y\n" + linear_axis('y', lowest_y, highest_y, kYMargin));
    if (panel.log_x_base == 2) {
      plots << "set logscale x 2\nset xtics 2\nset format x \"% h\"\n";
    } else if (panel.log_x_base == 10) {
      plots << "set logscale x 10\nset xtics autofreq\nset format x \"%g\"\n";
    } else {
      plots << "unset logscale x\n" + linear_axis('x', lowest_x, highest_x, x_margin);
    }
    plots << "set key outside right top vertical\n";
    plots << fmt::format("set offsets graph {0}, graph {0}, graph {1}, graph {1}\n", x_margin,
                         kYMargin);
    // Values of zero or more near zero (times): the margin below would draw negative ones.
    const bool from_zero =
        !panel.log_y && lowest_y >= 0 && lowest_y <= kYMargin * (highest_y - lowest_y);
    plots << (from_zero ? "set yrange [0:*]\n" : "set yrange [*:*]\n");
    if (drawn == 0) {
      // Keeps the grid's places: an empty panel says that nothing was there to draw.
      plots << "unset logscale xy\nset label 1 \"no data\" at graph 0.5, graph 0.5 center\n"
            << "plot [0:1] [0:1] NaN notitle\nunset label 1\n";
      continue;
    }
    plots << "plot ";
    for (size_t i = 0; i < parts.size(); ++i) plots << (i ? ", \\\n     " : "") << parts[i];
    plots << "\n";
  }
  const int rows = static_cast<int>((panels.size() + 1) / 2);
  const int columns = panels.size() > 1 ? 2 : 1;
  const int width = 720 * columns;  // each panel keeps its legend beside it
  const int height = 380 * rows + 40;
  // A figure of one panel named as the figure would say its name twice, one line above the other.
  const bool title_once = panels.size() == 1 && panels.front().title == title;
  const std::string layout_title = title_once ? "" : " title " + quoted(title);
  std::ostringstream script;
  script << "# Made by dsgd report; `gnuplot " << name << ".gp` in this folder draws it again.\n"
         << "set key font \",8\" samplen 2\n"
         << "set grid lc rgb \"#dddddd\"\n";
  // `out` names the files; dsgd sets it to draw under temporary names (run_gnuplot). Each
  // terminal is set noenhanced (a `set terminal` resets the option), so "sgd_n1" stays as it is.
  script << "if (!exists(\"out\")) out = " << quoted(name) << "\n";
  for (const auto& [terminal, extension] :
       {std::pair<std::string, std::string>{"pngcairo", "png"}, {"svg dynamic", "svg"}}) {
    script << fmt::format("set terminal {} noenhanced size {},{} font \"sans,10\"\n", terminal,
                          width, height)
           << "set output out." << quoted("." + extension) << "\n"
           << fmt::format("set multiplot layout {},{}{}\n", rows, columns, layout_title)
           << plots.str() << "unset multiplot\nset output\n";
  }
  write_file_atomically(absolute + ".dat", data.str());
  write_file_atomically(absolute + ".gp", script.str());
  run_gnuplot(absolute + ".gp", name);
}

}  // namespace dsgd
