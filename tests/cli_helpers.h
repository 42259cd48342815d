// Helpers for tests that drive the dsgd executable: run it, read its files, compare metrics.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace dsgd::testing {

namespace fs = std::filesystem;

struct CliResult {
  int exit_code;
  std::string output;  // stdout and stderr together
};

inline std::string read_file(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A path under the temp folder, unique to this process, removed if it exists.
inline fs::path fresh_dir(const std::string& name) {
  fs::path dir =
      fs::temp_directory_path() / ("dsgd_test_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  return dir;
}

// Whether gnuplot, which draws the report's figures, is installed (scripts/setup.sh installs it; a
// GPU machine built with scripts/gpu-check.sh may have none): tests of figures skip without it,
// and tests of tables ask for --no-plots.
inline bool have_gnuplot() { return std::system("command -v gnuplot > /dev/null 2>&1") == 0; }

inline CliResult run_dsgd(const std::string& args) {
  fs::path log = fresh_dir("log");
  std::string command = std::string(DSGD_BINARY) + " " + args + " > " + log.string() + " 2>&1";
  int status = std::system(command.c_str());
  CliResult r{WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_file(log)};
  fs::remove(log);
  return r;
}

// `dsgd <args> --out <out>`, which must succeed.
inline void run_ok(const std::string& args, const fs::path& out) {
  CliResult r = run_dsgd(args + " --out " + out.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
}

// metrics.csv as rows of cells, header included.
inline std::vector<std::vector<std::string>> read_csv(const fs::path& path) {
  std::vector<std::vector<std::string>> rows;
  std::stringstream in(read_file(path));
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> cells;
    std::stringstream l(line);
    for (std::string c; std::getline(l, c, ',');) cells.push_back(c);
    rows.push_back(cells);
  }
  return rows;
}

// The CSV with the named columns blanked (e.g. wall_time, which no run reproduces).
inline std::vector<std::vector<std::string>> without_columns(
    std::vector<std::vector<std::string>> rows, const std::vector<std::string>& names) {
  if (rows.empty()) return rows;
  std::vector<size_t> drop;
  for (size_t i = 0; i < rows[0].size(); ++i) {
    for (const auto& n : names) {
      if (rows[0][i] == n) drop.push_back(i);
    }
  }
  for (auto& row : rows) {
    for (size_t i : drop) {
      if (i < row.size()) row[i] = "";
    }
  }
  return rows;
}

// The CSV without the columns whose names start with `prefix` (e.g. "level": the per-level
// telemetry a hierarchy of two levels or more adds).
inline std::vector<std::vector<std::string>> without_columns_starting(
    std::vector<std::vector<std::string>> rows, const std::string& prefix) {
  if (rows.empty()) return rows;
  const std::vector<std::string> header = rows[0];
  for (auto& row : rows) {
    std::vector<std::string> kept;
    for (size_t i = 0; i < row.size() && i < header.size(); ++i) {
      if (header[i].rfind(prefix, 0) != 0) kept.push_back(row[i]);
    }
    row = kept;
  }
  return rows;
}

// The value of `column` in the last row of metrics.csv.
inline double last_metric(const fs::path& metrics, const std::string& column) {
  auto rows = read_csv(metrics);
  for (size_t i = 0; i < rows[0].size(); ++i) {
    if (rows[0][i] == column) return std::stod(rows.back()[i]);
  }
  return std::nan("");
}

// Two links with round numbers, "fast" and "slow", for a test's own cluster table (cluster_file).
inline const std::string kTestLinks = R"(
[links.fast]
latency = 1e-6
bandwidth = 1e11
source = "test"
[links.slow]
latency = 1e-3
bandwidth = 1e9
source = "test"
)";

// A CSV's cell of `column` in its first data row (a report's CSV: its first configuration).
inline std::string csv_cell(const fs::path& csv, const std::string& column) {
  const auto rows = read_csv(csv);
  const auto& header = rows.front();
  const size_t at = std::find(header.begin(), header.end(), column) - header.begin();
  EXPECT_LT(at, header.size()) << column;
  return at < header.size() && rows.size() > 1 ? rows[1][at] : "";
}

// A one-epoch run (`base` + `algo_args`) stopped half-way and resumed from its checkpoint ends with
// exactly the metrics of an uninterrupted run: every piece of state (rules, workers, event queue,
// streams) was saved.
inline void expect_resume_matches(const std::string& base, const std::string& algo_args,
                                  int64_t updates) {
  fs::path full = fresh_dir("full"), part = fresh_dir("part");
  std::string job = "run " + base + algo_args + " --set eval_every=0.25 ";
  ASSERT_EQ(run_dsgd(job + "--out " + full.string()).exit_code, 0);
  ASSERT_EQ(run_dsgd(job + "--set epochs=0.5 --out " + part.string()).exit_code, 0);
  CliResult r = run_dsgd("run --resume " + part.string() + " --set epochs=1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("resuming"), std::string::npos) << r.output;
  auto resumed = read_csv(part / "metrics.csv");
  EXPECT_EQ(resumed.size(), 5u);  // header + evaluations at 0.25, 0.5, 0.75, 1
  EXPECT_EQ(without_columns(resumed, {"wall_time"}),
            without_columns(read_csv(full / "metrics.csv"), {"wall_time"}));
  auto summary = nlohmann::json::parse(read_file(part / "summary.json"));
  EXPECT_EQ(summary["status"], "ok");
  EXPECT_EQ(summary["updates"], updates);
  fs::remove_all(full);
  fs::remove_all(part);
}

}  // namespace dsgd::testing
