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
    double widest_x = 0.0;
    double widest_y = 0.0;
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
      const Curve& curve = named;
      const size_t c = curve.style >= 0 ? static_cast<size_t>(curve.style) : place;
      std::ostringstream points;
      int count = 0;
      for (size_t i = 0; i < curve.x.size(); ++i) {
        if (std::isnan(curve.x[i]) || std::isnan(curve.mean[i])) continue;
        if (panel.log_y && !(curve.low[i] > 0.0)) continue;
        points << fmt::format("{} {} {} {}\n", curve.x[i], curve.mean[i], curve.low[i],
                              curve.high[i]);
        widest_x = std::max(widest_x, std::fabs(curve.x[i]));
        widest_y = std::max(widest_y, std::fabs(curve.high[i]));
        ++count;
      }
      if (count == 0) continue;
      data << "# " << curve.title << "\n" << points.str() << "\n\n";
      const std::string colour = kColours[c % kColourCount];
      const int dash = 1 + static_cast<int>((c + c / kColourCount) % kDashes);
      const int marker = 5 + static_cast<int>(c / kColourCount) * 2;  // filled square, circle, ...
      if (has_band(curve)) {
        parts.push_back(
            fmt::format("{} index {} using 1:3:4 with filledcurves fs transparent "
                        "solid 0.15 noborder lc rgb \"{}\" notitle",
                        quoted(name + ".dat"), block, colour));
      }
      if (curve.points_only) {
        parts.push_back(
            fmt::format("{} index {} using 1:2 with points pt {} ps 1.2 lc rgb \"{}\" title {}",
                        quoted(name + ".dat"), block, marker - 1, colour, quoted(curve.title)));
      } else {
        parts.push_back(fmt::format(
            "{} index {} using 1:2 with linespoints pt {} ps 0.45 lw 1.5 dt {} lc rgb \"{}\" "
            "title {}",
            quoted(name + ".dat"), block, marker, dash, colour, quoted(curve.title)));
      }
      ++block;
    }
    plots << "set title " << quoted(panel.title) << "\n";
    plots << "set xlabel " << quoted(panel.x_label) << "\n";
    plots << "set ylabel " << quoted(panel.y_label) << "\n";
    // Large values as 200k, 1.2M on either axis: their full digits ran into each other along x
    // and widened the margin beside y.
    plots << (panel.log_y       ? "set logscale y\nset format y \"%g\"\n"
              : widest_y >= 1e4 ? "unset logscale y\nset format y \"%.1s%c\"\n"
                                : "unset logscale y\nset format y \"% h\"\n");
    plots << (panel.log_x ? "set logscale x 2\nset xtics 2\n"
                          : "unset logscale x\nset xtics autofreq\n");
    plots << (widest_x >= 1e4 ? "set format x \"%.1s%c\"\n" : "set format x \"% h\"\n");
    plots << "set key outside right top vertical\n";
    // Points on the frame are half hidden by it: a margin inside the autoscaled ranges, above and
    // below, and left and right on a worker-count axis (elsewhere x starts at 0, where a margin
    // would only add negative epochs).
    plots << (panel.log_x ? "set offsets graph 0.04, graph 0.04, graph 0.06, graph 0.06\n"
                          : "set offsets 0, 0, graph 0.06, graph 0.06\n");
    if (parts.empty()) {
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
