// What this process may use of its host, and the check of every key that asks for a share of it
// (threads, sim.replicas, workers, servers, batch_size, bn_batches, eval_every, local.steps,
// hier.levels, a sweep's --jobs) before anything starts: a typo such as threads = 100000 stops the
// run with exit 2, naming the key, the limit and why, before a thread or a folder exists, instead
// of creating threads until the machine gives out. `check_limits = false` is the one override, for
// the rare user who means it.
//
// Cores are the ones the process may run on (its CPU affinity), within its cgroup's CPU quota;
// memory is what /proc/meminfo says is available, within its cgroup's limit (v1 or v2); open
// files are RLIMIT_NOFILE's soft limit.
#pragma once

#include <cstdint>
#include <string>

#include "train/config.h"

namespace dsgd {

struct HostLimits {
  int64_t cores = 1;
  std::string cores_source;  // "CPU affinity", "cgroup CPU quota", ...
  int64_t memory_bytes = 0;  // 0: unknown
  std::string memory_source;
  int64_t open_files = 0;  // 0: unlimited or unknown
};
HostLimits host_limits();

// Threads a process may run per core before more only slow it down: compute threads times
// replicas (or a sweep's jobs) above this many per core are refused.
constexpr int64_t kThreadsPerCore = 4;

// Throws ConfigError (exit 2) for the first key beyond `limits`: the key, its value, the limit,
// why, and the override. Checks only what the config alone determines; the memory a model and its
// data need is checked once they are known (Session::check_memory, the readers). Does nothing
// when config.check_limits is false.
void check_resource_keys(const RunConfig& config, const HostLimits& limits);

// A sweep's --jobs (each job a process with its log open): within the threads per core and the
// open files.
void check_sweep_jobs(int jobs, const HostLimits& limits);

// The limits as `dsgd list keys` shows them ("2 cores (CPU affinity), 23.4 GB (MemAvailable),
// 20000 open files").
std::string describe(const HostLimits& limits);

}  // namespace dsgd
