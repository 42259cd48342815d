// Subcommands and exit codes; see cli.h.
#include "cli/cli.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "cli/list_command.h"
#include "core/error_report.h"
#include "core/errors.h"
#include "experiment/report.h"
#include "experiment/sweep_runner.h"
#include "run/clock_only.h"
#include "run/run_job.h"
#include "train/cluster.h"
#include "train/config.h"

namespace dsgd {
namespace {

void print_error(const std::string& what, const std::string& hint) {
  if (what.empty()) return;  // an MPI rank whose error another rank reports
  std::cerr << "dsgd: error: " << what << "\n";
  if (!hint.empty()) std::cerr << "  hint: " << hint << "\n";
}

// How the command was typed, for the report to quote.
std::string command_line(int argc, char** argv) {
  std::string out = "dsgd";
  for (int i = 1; i < argc; ++i) out += std::string(" ") + argv[i];
  return out;
}

int sweep_main(const std::string& spec_path, const std::string& out, bool dry_run,
               const std::vector<std::string>& only, SweepOptions options) {
  SweepSpec spec = load_sweep_spec(spec_path);
  if (!out.empty()) spec.out = out;
  check_point_dirs(spec, only);
  options.only = only;
  if (dry_run) {
    const char* const actions[] = {"done  ", "resume", "start "};
    for (const PlannedRun& run : plan_sweep(spec)) {
      if (!only.empty() && std::find(only.begin(), only.end(), run.point->dir) == only.end()) {
        continue;
      }
      std::cout << actions[run.action] << " " << run.point->dir << ":";
      for (const auto& o : run.point->overrides) std::cout << " " << o;
      std::cout << "\n";
    }
    std::cout << spec.points.size() << " runs in " << spec.out << "\n";
    return 0;
  }
  options.executable = std::filesystem::read_symlink("/proc/self/exe").string();
  const SweepOutcome outcome = run_sweep(spec, options);
  if (outcome.interrupted_by != 0) return 128 + outcome.interrupted_by;
  if (outcome.failed > 0) return 1;
  std::cout << "report: dsgd report " << spec.out << "\n";
  return 0;
}

}  // namespace

int cli_main(int argc, char** argv) {
  CLI::App app{"dsgd: distributed SGD (DANA, Hier-AVG and their baselines) on LibTorch"};
  app.set_version_flag("--version", DSGD_VERSION);
  app.require_subcommand(1);

  std::string config_path;
  std::vector<std::string> overrides;
  std::string out_dir;
  std::string engine;
  CLI::App* run =
      app.add_subcommand("run", "train: the default job, or the one a config describes");
  run->add_option("-c,--config", config_path, "TOML config file (keys: `dsgd list keys`)");
  run->add_option("--set", overrides, "override a config key: --set KEY=VALUE (repeatable)")
      ->take_all();
  run->add_option("--out", out_dir, "run folder (default: runs/<timestamp>-<algo>)");
  run->add_option("--engine", engine, "shorthand for --set engine=...");
  std::string resume_dir;
  run->add_option("--resume", resume_dir,
                  "continue the run in DIR from its last checkpoint (its config.toml, then --set)")
      ->excludes("--out")
      ->excludes("--config");

  CLI::App* estimate = app.add_subcommand(
      "estimate",
      "how long a run would take (on its cluster, in seconds): its clock alone, no gradient "
      "computed");
  estimate->add_option("-c,--config", config_path, "TOML config file (keys: `dsgd list keys`)");
  estimate->add_option("--set", overrides, "override a config key: --set KEY=VALUE (repeatable)")
      ->take_all();
  bool estimate_as_json = false;
  estimate->add_flag("--json", estimate_as_json,
                     "print the clock at each epoch's end as JSON (seconds where a cluster prices "
                     "it), for scripts");

  std::string list_what;
  CLI::App* list_cmd =
      app.add_subcommand("list", "algorithms, models, datasets; `list keys`: config keys");
  list_cmd->add_option("what", list_what, "algorithms, models, datasets, keys or clusters")
      ->check(CLI::IsMember({"algorithms", "models", "datasets", "keys", "clusters"}));
  std::string allreduce_shape;
  double allreduce_bytes = 0;
  list_cmd
      ->add_option("--allreduce", allreduce_shape,
                   "with clusters: price one all-reduce among WORKERS, or in each GROUP of them "
                   "(WORKERS/GROUP), on every cluster by every algorithm")
      ->check([](const std::string& text) {
        int64_t workers = 0, group = 0;
        return parse_allreduce_shape(text, workers, group)
                   ? std::string()
                   : std::string(
                         "expected WORKERS or WORKERS/GROUP with GROUP dividing "
                         "WORKERS, e.g. 16 or 16/4");
      });
  list_cmd->add_option("--bytes", allreduce_bytes, "with --allreduce: the vector's bytes")
      ->check(CLI::PositiveNumber);
  std::string list_cluster_file;
  list_cmd->add_option("--cluster-file", list_cluster_file,
                       "with clusters: a table of clusters of one's own beside the built-in one");

  std::string spec_path;
  SweepOptions sweep_options;
  std::string sweep_out;
  bool dry_run = false;
  CLI::App* sweep = app.add_subcommand(
      "sweep", "run every configuration of a sweep spec (docs/experiments.md); again: continue");
  sweep->add_option("spec", spec_path, "sweep spec (TOML)")->required();
  sweep->add_option("-j,--jobs", sweep_options.jobs, "runs at the same time (default 1)")
      ->check(CLI::Range(1, 1024));
  sweep
      ->add_option("--threads", sweep_options.threads_per_run,
                   "compute threads per model in each run (default: each run plans its threads and "
                   "replicas within the cores divided by --jobs)")
      ->check(CLI::Range(1, 1024));
  sweep->add_option("--out", sweep_out, "sweep folder (default: the spec's out)");
  sweep->add_flag("--dry-run", dry_run, "list the runs and their settings, run nothing");
  std::vector<std::string> sweep_only;
  sweep
      ->add_option("--only", sweep_only,
                   "run only the point in this folder (as --dry-run names it; repeatable), e.g. "
                   "for a queue of runs from several sweeps")
      ->take_all();

  ReportOptions report_options;
  bool no_plots = false;
  CLI::App* report = app.add_subcommand(
      "report", "markdown tables and plots of run or sweep folders (report.md, plots/)");
  report->add_option("dirs", report_options.dirs, "run folders, folders of runs, sweep folders")
      ->required()
      ->check(CLI::ExistingDirectory);
  report->add_option("-o,--out", report_options.out, "report file (default: DIR/report.md)");
  report
      ->add_option("--target", report_options.target,
                   "the main metric's value for the time-to-target column: a test accuracy in "
                   "(0, 1], or a language model's validation perplexity (default: the sweep's)")
      ->check(CLI::PositiveNumber);
  report->add_flag("--no-plots", no_plots, "tables only (no gnuplot needed)");
  report
      ->add_option("--cluster", report_options.clusters,
                   "re-time synchronous runs on this named cluster (`dsgd list clusters`); "
                   "repeated, a section sets each cluster's times side by side")
      ->take_all();
  report->add_option("--device", report_options.device,
                     "with --cluster: compute on this device (`dsgd list clusters`) in place of "
                     "the cluster's own");
  report->add_option("--cluster-file", report_options.cluster_file,
                     "a table of clusters of one's own beside the built-in one");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }

  try {
    if (*list_cmd) {
      if (!allreduce_shape.empty()) {
        if (list_what != "clusters" || allreduce_bytes <= 0) {
          throw ConfigError("--allreduce prices an all-reduce on the named clusters",
                            "write `dsgd list clusters --allreduce 16/4 --bytes 1078888`");
        }
        int64_t workers = 0, group = 0;
        parse_allreduce_shape(allreduce_shape, workers, group);
        std::cout << describe_allreduce_prices(load_cluster_table(list_cluster_file), workers,
                                               group, allreduce_bytes);
        return 0;
      }
      if (!list_cluster_file.empty() && list_what != "clusters") {
        throw ConfigError("--cluster-file adds clusters to `dsgd list clusters`",
                          "write `dsgd list clusters --cluster-file my.toml`");
      }
      list(list_what, list_cluster_file);
      return 0;
    }
    if (*sweep) return sweep_main(spec_path, sweep_out, dry_run, sweep_only, sweep_options);
    if (*report) {
      report_options.plots = !no_plots;
      report_options.command = command_line(argc, argv);
      const std::string written = write_report(report_options);  // before a word is printed
      std::cout << "report: " << written << "\n";
      return 0;
    }
    if (*estimate) {
      overrides.push_back("engine=sim");  // the simulator prices a run, whatever its engine
      const ClockEstimate clock = estimate_clock(load_config(config_path, overrides));
      std::cout << (estimate_as_json ? estimate_json(clock) : describe_estimate(clock));
      return 0;
    }
    if (!engine.empty()) overrides.push_back("engine=" + engine);
    if (!resume_dir.empty()) {
      const RunConfig config = resume_config(resume_dir, overrides);
      std::string path = run_job(config, resume_dir, /*resume=*/true);
      if (!path.empty()) std::cout << "results: " << path << "\n";
      return 0;
    }
    RunConfig config = load_config(config_path, overrides);
    std::string path = run_job(config, out_dir);
    if (!path.empty()) std::cout << "results: " << path << "\n";  // MPI: rank 0 only
    return 0;
  } catch (...) {
    const ErrorReport error = report_error(std::current_exception());
    print_error(error.message, error.hint);
    return error.exit_code;
  }
}

}  // namespace dsgd
