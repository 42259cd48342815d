// This host's limits and the keys held against them; see host_limits.h.
#include "run/host_limits.h"

#include <fmt/format.h>
#include <sched.h>
#include <sys/resource.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <thread>

#include "core/errors.h"
#include "train/compute_plan.h"

namespace dsgd {
namespace {

const char* const kOverride =
    "or, if you mean it, set check_limits = false (docs/reliability.md, \"Resource limits\")";

std::string first_line_of(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// The process's cgroup path for a v1 controller, or the v2 path ("" for the root).
std::string cgroup_path(const std::string& controller) {
  std::ifstream in("/proc/self/cgroup");
  std::string line, unified;
  while (std::getline(in, line)) {
    // hierarchy-ID:controller-list:path
    const size_t first = line.find(':'), second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1);
    const std::string path = line.substr(second + 1);
    if (controllers.empty()) unified = path;
    std::stringstream list(controllers);
    for (std::string c; std::getline(list, c, ',');) {
      if (c == controller) return "/sys/fs/cgroup/" + controller + path;
    }
  }
  return "/sys/fs/cgroup" + unified;
}

// A cgroup's CPU quota in cores (v2 cpu.max "quota period", v1 cfs quota and period), or 0.
double cgroup_cpu_quota() {
  const std::string v2 = first_line_of(cgroup_path("") + "/cpu.max");
  if (!v2.empty() && v2.rfind("max", 0) != 0) {
    std::stringstream in(v2);
    double quota = 0, period = 0;
    if (in >> quota >> period && period > 0) return quota / period;
  }
  const std::string v1 = cgroup_path("cpu");
  const std::string quota = first_line_of(v1 + "/cpu.cfs_quota_us");
  const std::string period = first_line_of(v1 + "/cpu.cfs_period_us");
  if (!quota.empty() && !period.empty() && std::stod(quota) > 0 && std::stod(period) > 0) {
    return std::stod(quota) / std::stod(period);
  }
  return 0;
}

// A cgroup's memory limit in bytes (v2 memory.max, v1 memory.limit_in_bytes), or 0.
int64_t cgroup_memory_limit() {
  for (const std::string& file :
       {cgroup_path("") + "/memory.max", cgroup_path("memory") + "/memory.limit_in_bytes"}) {
    const std::string text = first_line_of(file);
    if (text.empty() || text == "max") continue;
    const double bytes = std::stod(text);
    // v1 writes "no limit" as a number near 2^63.
    if (bytes > 0 && bytes < 1e18) return static_cast<int64_t>(bytes);
  }
  return 0;
}

// "4 per core of the 2 cores this process may use (CPU affinity)".
std::string per_core(const HostLimits& limits) {
  return fmt::format("{} per core of the {} core{} this process may use ({})", kThreadsPerCore,
                     limits.cores, limits.cores == 1 ? "" : "s", limits.cores_source);
}

std::string gigabytes(int64_t bytes) {
  return fmt::format("{:.1f} GB", static_cast<double>(bytes) / 1e9);
}

}  // namespace

HostLimits host_limits() {
  HostLimits limits;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    limits.cores = CPU_COUNT(&set);
    limits.cores_source = "CPU affinity";
  } else {
    limits.cores = std::max(1u, std::thread::hardware_concurrency());
    limits.cores_source = "hardware";
  }
  const double quota = cgroup_cpu_quota();
  if (quota > 0 && quota < static_cast<double>(limits.cores)) {
    limits.cores = std::max<int64_t>(1, static_cast<int64_t>(quota + 0.5));
    limits.cores_source = "cgroup CPU quota";
  }
  limits.memory_bytes = this_machine().available_bytes;
  limits.memory_source = "MemAvailable";
  const int64_t cgroup = cgroup_memory_limit();
  if (cgroup > 0 && (limits.memory_bytes == 0 || cgroup < limits.memory_bytes)) {
    limits.memory_bytes = cgroup;
    limits.memory_source = "cgroup memory limit";
  }
  rlimit files{};
  if (getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur != RLIM_INFINITY) {
    limits.open_files = static_cast<int64_t>(files.rlim_cur);
  }
  return limits;
}

std::string describe(const HostLimits& limits) {
  std::string text = fmt::format("{} core{} ({})", limits.cores, limits.cores == 1 ? "" : "s",
                                 limits.cores_source);
  if (limits.memory_bytes > 0) {
    text +=
        fmt::format(", {} of memory ({})", gigabytes(limits.memory_bytes), limits.memory_source);
  }
  if (limits.open_files > 0) text += fmt::format(", {} open files", limits.open_files);
  return text;
}

void check_resource_keys(const RunConfig& config, const HostLimits& limits) {
  if (!config.check_limits) return;
  const int64_t most_threads = kThreadsPerCore * limits.cores;
  if (config.threads > most_threads) {
    throw ConfigError(
        fmt::format("threads = {} is more than this host can run: at most {}, {}", config.threads,
                    most_threads, per_core(limits)),
        fmt::format("leave threads = 0 (dsgd chooses from the model's work), or give at most {}; "
                    "{}",
                    limits.cores, kOverride));
  }
  if (config.sim_replicas > 0) {
    const int64_t threads = std::max<int64_t>(1, config.threads);
    if (config.sim_replicas * threads > most_threads) {
      throw ConfigError(
          fmt::format("sim.replicas = {} with {} thread{} each is {} compute threads, more than "
                      "this host can run: at most {}, {}",
                      config.sim_replicas, threads, threads == 1 ? "" : "s",
                      config.sim_replicas * threads, most_threads, per_core(limits)),
          fmt::format("leave sim.replicas = 0 (dsgd fills the cores, within half the free "
                      "memory), or give at most {}; {}",
                      std::max<int64_t>(1, limits.cores / threads), kOverride));
    }
  }
  if (config.servers > config.workers) {
    throw ConfigError(
        fmt::format("servers = {} is more than the {} workers: each shard serves the workers, "
                    "and a shard with none only costs a rank",
                    config.servers, config.workers),
        fmt::format("use at most servers = {}", config.workers));
  }
}

void check_sweep_jobs(int jobs, const HostLimits& limits) {
  const int64_t most = kThreadsPerCore * limits.cores;
  if (jobs > most) {
    throw ConfigError(fmt::format("--jobs {} is more than this host can run: at most {}, {}", jobs,
                                  most, per_core(limits)),
                      fmt::format("use --jobs {} or fewer", limits.cores));
  }
  // Each running job holds its log and the sweep's pipes; the sweep itself a few more.
  constexpr int64_t kFilesPerJob = 4, kFilesOfTheSweep = 32;
  if (limits.open_files > 0 && jobs * kFilesPerJob + kFilesOfTheSweep > limits.open_files) {
    throw ConfigError(fmt::format("--jobs {} needs about {} open files, more than this process's "
                                  "limit of {} (ulimit -n)",
                                  jobs, jobs * kFilesPerJob + kFilesOfTheSweep, limits.open_files),
                      "use fewer jobs, or raise the limit with ulimit -n");
  }
}

}  // namespace dsgd
