// Config validation; see config_validation.h. The checks run in a fixed order, so that a config
// with several problems always reports the same one first.
#include "train/config_validation.h"

#include <fmt/format.h>

#include <tuple>

#include "algos/catalog.h"
#include "core/errors.h"
#include "train/cluster.h"
#include "train/config_keys.h"

namespace dsgd {
namespace {

ConfigError not_for_this_algorithm(const std::string& key, const std::string& applies_to,
                                   const std::string& algo) {
  return ConfigError(
      fmt::format("config key '{}' applies to {}, not to algo = \"{}\"", key, applies_to, algo),
      "remove it, or choose an algorithm it belongs to");
}

// Each key's own range check, from the key table.
void check_ranges(const RunConfig& c) {
  for (const auto& s : key_specs()) {
    if (!s.check) continue;
    std::string problem = s.check(c);
    if (!problem.empty()) {
      throw ConfigError(fmt::format("config key '{}' = {} {}", s.key, s.show(c), problem),
                        s.key + ": " + s.help);
    }
  }
}

// The general keys set must belong to the chosen algorithm's family.
void check_families(const RunConfig& c, const AlgorithmInfo& algo,
                    const std::set<std::string>& set_keys) {
  for (const auto& key : set_keys) {
    const KeySpec* s = find_spec(key);
    if (s != nullptr && !s->belongs_to(algo))
      throw not_for_this_algorithm(key, s->applies_to, c.algo);
  }
}

// Rules across keys: workers and the family, the schedule, normalisation, timing, BatchNorm.
void check_across_keys(const RunConfig& c, const AlgorithmInfo& algo) {
  if (algo.family == AlgorithmFamily::kSingle && c.workers != 1) {
    throw ConfigError(fmt::format("algo = \"sgd\" trains one worker, but workers = {}", c.workers),
                      "use workers = 1, or a distributed algorithm (e.g. dana-slim, hier-avg)");
  }
  for (size_t i = 0; i < c.lr_milestones.size(); ++i) {
    if (c.lr_milestones[i] <= 0 || (i > 0 && c.lr_milestones[i] <= c.lr_milestones[i - 1])) {
      throw ConfigError("config key 'lr_milestones' must be positive and increasing",
                        "for example: lr_milestones = [80, 120]");
    }
  }
  if (c.lr_schedule == LrScheduleKind::kMultistep && c.lr_milestones.empty()) {
    throw ConfigError("lr_schedule = \"multistep\" needs lr_milestones",
                      "for example: lr_milestones = [80, 120]");
  }
  for (double s : c.data_std) {
    if (!(s > 0)) {
      throw ConfigError(fmt::format("data.std = {}: every value must be > 0", s),
                        "give the per-channel standard deviations, e.g. [0.247, 0.243, 0.261]");
    }
  }
  if (!c.timing_speeds.empty()) {
    if (static_cast<int64_t>(c.timing_speeds.size()) != c.workers) {
      throw ConfigError(fmt::format("timing.speeds has {} entries but workers = {}",
                                    c.timing_speeds.size(), c.workers),
                        "give one speed factor per worker");
    }
    for (double s : c.timing_speeds) {
      if (!(s > 0)) throw ConfigError("timing.speeds must all be > 0", "for example: [1, 1, 0.5]");
    }
  }
  if (c.bn_policy == BnPolicy::kReestimate && c.bn_batches == 0) {
    throw ConfigError("bn_policy = \"reestimate\" needs bn_batches > 0",
                      "set bn_batches (e.g. 20), or bn_policy = \"average\"");
  }
}

// Each optimizer's own keys, and none of the other's: a key that would be ignored is refused.
// (A written config.toml holds every key: adam.* at their defaults are harmless beside sgd.)
void check_optimizer(const RunConfig& c) {
  if (c.optimizer == LocalOptimizerKind::kAdamw) {
    if (c.momentum != 0.0 || c.nesterov) {
      throw ConfigError(
          fmt::format("optimizer = \"adamw\" takes its momentum from adam.beta1, but {}",
                      c.nesterov ? "nesterov = true" : fmt::format("momentum = {}", c.momentum)),
          "set momentum = 0 and nesterov = false (or leave them out), and adam.beta1 if 0.9 "
          "does not suit");
    }
    return;
  }
  const RunConfig defaults;
  for (const auto& [key, value, default_value] :
       {std::tuple{"adam.beta1", c.adam_beta1, defaults.adam_beta1},
        std::tuple{"adam.beta2", c.adam_beta2, defaults.adam_beta2},
        std::tuple{"adam.eps", c.adam_eps, defaults.adam_eps}}) {
    if (value != default_value) {
      throw ConfigError(
          fmt::format("{} = {} is set, but optimizer = \"{}\"", key, value, enum_name(c.optimizer)),
          "set optimizer = \"adamw\" too, or drop the adam.* keys");
    }
  }
}

// What an MPI run cannot do: simulator replicas. (On a GPU its messages go through host memory:
// core/host_staging.h.)
void check_engine(const RunConfig& c) {
  if (!c.on_ranks()) return;
  if (c.sim_replicas > 1) {
    throw ConfigError(
        "sim.replicas parallelises the simulator; an MPI run has a process per worker",
        "drop sim.replicas, or use engine = \"sim\"");
  }
  if (c.allreduce && c.allreduce != AllreduceAlgorithm::kRankOrder && c.mpi_hang_timeout == 0) {
    throw ConfigError("allreduce = \"" + std::string(enum_name(c.allreduce)) +
                          "\" chooses the non-blocking all-reduce's algorithm, "
                          "which mpi.hang_timeout = 0 replaces by the blocking MPI_Allreduce (the "
                          "MPI's own choice)",
                      "keep mpi.hang_timeout > 0, or leave allreduce = \"auto\"");
  }
}

// A cluster to price (not yet priced: seconds_per_unit is 0 until the run starts) must exist, and
// sets the link costs itself: comm.* given beside it would be silently replaced.
void check_cluster(const RunConfig& c, const std::set<std::string>& set_keys) {
  if (c.cluster.empty() && !c.cluster_device.empty()) {
    throw ConfigError("cluster_device = \"" + c.cluster_device + "\" is set without a cluster",
                      "set cluster = \"NAME\" too (`dsgd list clusters`), or drop cluster_device");
  }
  if (c.on_ranks() && (!c.cluster.empty() || c.seconds_per_unit > 0)) {
    throw ConfigError(
        fmt::format("{} is set on the MPI engine, whose clock (sim_time) already counts the "
                    "seconds its ranks measured",
                    c.cluster.empty() ? "seconds_per_unit" : "cluster = \"" + c.cluster + "\""),
        "drop it; to predict this MPI run's time, run the same config on the simulator with the "
        "cluster set (\"this-machine\" for this machine)");
  }
  // rank-order is the simulator's own sum: a config that says it runs on either engine.
  if (!c.on_ranks() && c.cluster.empty() && c.allreduce &&
      c.allreduce != AllreduceAlgorithm::kRankOrder) {
    throw ConfigError("allreduce = \"" + std::string(enum_name(c.allreduce)) +
                          "\" on the simulator prices a cluster's "
                          "all-reduce, but no cluster is set (comm.* keys price every all-reduce "
                          "alike, in units)",
                      "set cluster = \"NAME\" too (`dsgd list clusters`), or engine = \"mpi\" "
                      "to run it, or drop allreduce");
  }
  if (c.cluster.empty() || c.seconds_per_unit > 0) return;
  for (const char* key : {"comm.group_alpha", "comm.group_beta", "comm.global_alpha",
                          "comm.global_beta", "timing.core_sharing", "timing.overhead_scale"}) {
    if (set_keys.count(key) != 0) {
      throw ConfigError(fmt::format("{} is set beside cluster = \"{}\", which prices every link "
                                    "itself",
                                    key, c.cluster),
                        "drop the comm.* keys, or the cluster (then sim_time stays in units, or "
                        "set seconds_per_unit)");
    }
  }
  const ClusterTable table = load_cluster_table(c.cluster_file);
  table.cluster(c.cluster);  // an unknown name fails here
  if (!c.cluster_device.empty() && c.cluster_device != "measured") table.device(c.cluster_device);
}

}  // namespace

void validate(const RunConfig& c, const std::set<std::string>& set_keys) {
  check_ranges(c);
  const AlgorithmInfo& algo = find_algorithm(c.algo);
  check_families(c, algo, set_keys);
  check_across_keys(c, algo);
  check_optimizer(c);
  check_engine(c);
  check_cluster(c, set_keys);
}

OptionValues resolve_algorithm_options(const RunConfig& c, const OptionValues& given) {
  const AlgorithmInfo& algo = find_algorithm(c.algo);
  for (const auto& key : given.keys()) {
    if (find_option(algo.options, key) == nullptr) {
      throw not_for_this_algorithm(key, algorithms_declaring(key), c.algo);
    }
  }
  OptionValues resolved = resolve_options(algo.options, given);
  if (algo.check) algo.check(resolved, c.workers, c.on_ranks());
  return resolved;
}

}  // namespace dsgd
