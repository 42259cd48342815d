// Runs sweep points as child processes; see sweep_runner.h.
#include "experiment/sweep_runner.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "core/atomic_file.h"
#include "core/errors.h"
#include "core/fault_injection.h"
#include "core/interrupt.h"
#include "experiment/sweep_json.h"
#include "run/host_limits.h"
#include "run/progress.h"
#include "run/run_folder.h"
#include "train/config.h"

extern char** environ;

namespace dsgd {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

bool finished(const std::string& status) {
  return status == "ok" || status == "diverged" || status == "collapsed";
}

// The config lines two runs may differ in without being different experiments.
bool result_neutral(const std::string& line) {
  for (const char* key : {"cores ", "threads ", "sim.replicas ", "data_dir "}) {
    if (line.rfind(key, 0) == 0) return true;
  }
  return false;
}

// Where the finished run in `dir` was made with another config than the point asks for: the first
// line that differs, "" when they agree.
std::string config_difference(const std::string& dir, const RunConfig& wanted) {
  const RunConfig had = load_config((fs::path(dir) / "config.toml").string(), {});
  RunConfig asked = wanted;
  keep_resolved_choices(had, asked);  // "auto" asks for whatever the run chose
  std::istringstream a(to_toml(had));
  std::istringstream b(to_toml(asked));
  std::string line_a;
  std::string line_b;
  while (true) {
    bool more_a = static_cast<bool>(std::getline(a, line_a));
    while (more_a && result_neutral(line_a)) more_a = static_cast<bool>(std::getline(a, line_a));
    bool more_b = static_cast<bool>(std::getline(b, line_b));
    while (more_b && result_neutral(line_b)) more_b = static_cast<bool>(std::getline(b, line_b));
    if (!more_a && !more_b) return "";
    if (!more_a || !more_b || line_a != line_b) {
      return fmt::format("the run has `{}`, the sweep asks for `{}`", more_a ? line_a : "",
                         more_b ? line_b : "");
    }
  }
}

// Starts `dsgd run` for the job with its output appended to <dir>.log; returns its pid.
pid_t launch(const PlannedRun& job, const SweepSpec& spec, const SweepOptions& options,
             int cores_per_run) {
  std::vector<std::string> args = {options.executable, "run"};
  if (job.action == PlannedRun::kResume) {
    args.insert(args.end(), {"--resume", job.dir});
  } else {
    if (!spec.base_config.empty()) args.insert(args.end(), {"--config", spec.base_config});
    args.insert(args.end(), {"--out", job.dir});
  }
  // First, so that a point's own threads setting wins.
  if (options.threads_per_run > 0) {
    args.insert(args.end(), {"--set", fmt::format("threads={}", options.threads_per_run)});
  }
  // The run plans its threads and replicas within its share of the cores (train/compute_plan.h).
  args.insert(args.end(), {"--set", fmt::format("cores={}", cores_per_run)});
  for (const auto& o : job.point->overrides) args.insert(args.end(), {"--set", o});
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  const std::string log = job.dir + ".log";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(),
                                   O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  // A process group of its own: a terminal's Ctrl-C (or `kill -- -PGID` of the sweep's group)
  // reaches the sweep, which passes it on once. Reaching the run twice would be the second
  // request that ends it at once, without its checkpoint (core/interrupt.h).
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);
  pid_t pid = 0;
  const int error =
      posix_spawn(&pid, options.executable.c_str(), &actions, &attributes, argv.data(), environ);
  posix_spawnattr_destroy(&attributes);
  posix_spawn_file_actions_destroy(&actions);
  if (error != 0) {
    throw Error(fmt::format("cannot start '{}' for sweep point '{}': {}", options.executable,
                            job.point->dir, std::strerror(error)));
  }
  return pid;
}

}  // namespace

std::string run_status(const std::string& run_dir) {
  std::ifstream in(fs::path(run_dir) / "summary.json");
  if (!in) return "";
  try {
    return nlohmann::json::parse(in).value("status", "");
  } catch (const nlohmann::json::exception&) {
    return "";
  }
}

std::vector<PlannedRun> plan_sweep(const SweepSpec& spec) {
  const std::vector<RunConfig> configs = check_sweep_points(spec);
  std::vector<PlannedRun> plan;
  for (size_t i = 0; i < spec.points.size(); ++i) {
    const SweepPoint& point = spec.points[i];
    const std::string dir = (fs::path(spec.out) / point.dir).string();
    if (finished(run_status(dir))) {
      const std::string difference = config_difference(dir, configs[i]);
      if (!difference.empty()) {
        throw ConfigError(fmt::format("run folder '{}' holds a finished run of another config: {}",
                                      dir, difference),
                          "remove that folder, or give the sweep another out");
      }
      plan.push_back({&point, dir, PlannedRun::kFinished});
      continue;
    }
    const bool resumable = has_checkpoint(dir);
    plan.push_back({&point, dir, resumable ? PlannedRun::kResume : PlannedRun::kStart});
  }
  return plan;
}

SweepOutcome run_sweep(const SweepSpec& spec, const SweepOptions& options) {
  const HostLimits limits = host_limits();
  check_sweep_jobs(options.jobs, limits);  // before a folder or a process exists
  SweepOutcome outcome;
  std::deque<PlannedRun> pending;
  const std::vector<std::string>& only = options.only;
  for (const PlannedRun& run : plan_sweep(spec)) {
    if (!only.empty() && std::find(only.begin(), only.end(), run.point->dir) == only.end()) {
      continue;
    }
    if (run.action == PlannedRun::kFinished) {
      ++outcome.skipped;
    } else {
      pending.push_back(run);
    }
  }
  // Only once every finished run has passed its check: a run that stopped before its first
  // checkpoint has nothing worth keeping.
  for (const PlannedRun& run : pending) {
    if (run.action == PlannedRun::kStart) fs::remove_all(run.dir);
  }
  write_sweep_json(spec);

  const int jobs = std::max(1, options.jobs);
  // The cores this process may use (affinity, cgroup quota), not all the host has: a container
  // given 2 of 16 would otherwise run each job on 8 threads.
  const int cores = static_cast<int>(std::max<int64_t>(1, limits.cores));
  const int cores_per_run = std::max(1, cores / jobs);
  const int total = outcome.skipped + static_cast<int>(pending.size());
  const bool terminal = ::isatty(STDERR_FILENO) != 0;
  std::printf(
      "sweep: %d runs in %s: %d finished before, %zu to run, %d at a time, %d core%s each%s\n",
      total, spec.out.c_str(), outcome.skipped, pending.size(), jobs, cores_per_run,
      cores_per_run == 1 ? "" : "s",
      options.threads_per_run > 0
          ? fmt::format(" ({} threads per model)", options.threads_per_run).c_str()
          : "");
  std::fflush(stdout);

  // Passed on to the runs by the loop below, which polls for both.
  InterruptScope interrupts(/*restart_interrupted_calls=*/false);
  std::map<pid_t, std::pair<PlannedRun, Clock::time_point>> running;
  double seconds_done = 0.0;
  int ended = 0;
  const Clock::time_point start = Clock::now();
  Clock::time_point last_draw = start;
  auto draw = [&](bool force) {
    if (!terminal) return;
    const Clock::time_point now = Clock::now();
    if (!force && now - last_draw < std::chrono::milliseconds(500)) return;
    last_draw = now;
    const double left = static_cast<double>(pending.size()) + 0.5 * running.size();
    const std::string eta =
        ended > 0 ? format_duration(seconds_done / ended * left / jobs) : std::string("?");
    std::fprintf(stderr, "\r\033[Ksweep: %d/%d done, %zu running, %d failed, %s elapsed, ETA %s",
                 outcome.skipped + ended, total, running.size(), outcome.failed,
                 format_duration(std::chrono::duration<double>(now - start).count()).c_str(),
                 eta.c_str());
    std::fflush(stderr);
  };
  auto say = [&](const std::string& line) {
    if (terminal) std::fprintf(stderr, "\r\033[K");
    std::printf("%s\n", line.c_str());
    std::fflush(stdout);
  };

  while (!pending.empty() || !running.empty()) {
    if (const int signal = pending_interrupt(); signal != 0 && outcome.interrupted_by == 0) {
      outcome.interrupted_by = signal;
      say(fmt::format("sweep: stopping: passing the signal to {} running runs, which checkpoint",
                      running.size()));
      for (const auto& [pid, job] : running) ::kill(pid, signal);
      pending.clear();
    }
    while (static_cast<int>(running.size()) < jobs && !pending.empty()) {
      PlannedRun job = pending.front();
      pending.pop_front();
      fs::create_directories(fs::path(job.dir).parent_path());
      say(fmt::format("{} {}", job.action == PlannedRun::kResume ? "resume" : "start",
                      job.point->dir));
      const pid_t pid = launch(job, spec, options, cores_per_run);
      running.emplace(pid, std::make_pair(job, Clock::now()));
      ++outcome.started;
    }
    int wait_status = 0;
    // Polled, not a blocking wait: a signal that came just before a blocking waitpid would wait
    // for a run to end before the loop passed it on.
    const pid_t pid = ::waitpid(-1, &wait_status, WNOHANG);
    if (pid <= 0) {
      fault_point("sweep");
      draw(false);
      std::this_thread::sleep_for(std::chrono::milliseconds(terminal ? 50 : 100));
      continue;
    }
    auto it = running.find(pid);
    if (it == running.end()) continue;
    const auto [job, started_at] = it->second;
    running.erase(it);
    const double seconds = std::chrono::duration<double>(Clock::now() - started_at).count();
    const std::string status = run_status(job.dir);
    std::string shown = status.empty() ? "failed" : status;
    if (status == "ok") {
      ++outcome.ok;
    } else if (status == "diverged" || status == "collapsed") {
      ++outcome.stopped;
    } else if (outcome.interrupted_by != 0) {
      shown = "interrupted";
    } else {
      ++outcome.failed;
      shown = fmt::format(
          "failed (exit {}; see {}.log)",
          WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : 128 + WTERMSIG(wait_status), job.dir);
    }
    if (shown != "interrupted") {
      seconds_done += seconds;
      ++ended;
    }
    say(fmt::format("{} {} ({})", shown, job.point->dir, format_duration(seconds)));
    draw(true);
  }
  if (terminal) std::fprintf(stderr, "\r\033[K");
  std::printf(
      "sweep: %d ok, %d diverged or collapsed, %d failed, %d finished before%s\n", outcome.ok,
      outcome.stopped, outcome.failed, outcome.skipped,
      outcome.interrupted_by ? "; interrupted: run the same command again to continue" : "");
  std::fflush(stdout);
  return outcome;
}

}  // namespace dsgd
