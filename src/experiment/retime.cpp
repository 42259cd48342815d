// Re-timing on a named cluster; see retime.h.
#include "experiment/retime.h"

#include <fmt/format.h>

#include "algos/catalog.h"
#include "core/errors.h"
#include "engine/sync_learners.h"
#include "experiment/sync_reclock.h"
#include "train/cluster.h"
#include "train/config.h"

namespace dsgd {
namespace {

const std::vector<double>& column_of(const RunResult& run, const std::string& name) {
  auto it = run.metrics.find(name);
  if (it == run.metrics.end()) {
    throw ConfigError(fmt::format("run '{}' has no {} column to re-time from", run.dir, name),
                      "runs made before the column existed cannot be re-timed; rerun them");
  }
  return it->second;
}

// Which parts of the run's compute format "auto" chose when it started (its first compute
// record: a resumed run's config names the format chosen). Runs recorded before the parts were
// ("auto" missing) had both left to auto when chosen_by says so.
void mark_auto_format(const nlohmann::json& summary, RunShape& shape) {
  const nlohmann::json& first = first_compute_record(summary);
  if (!first.is_object() || first.value("chosen_by", "") != "auto") return;
  const nlohmann::json parts =
      first.value("auto", nlohmann::json::array({"memory_format", "precision"}));
  for (const auto& part : parts) {
    if (part == "memory_format") shape.memory_format_auto = true;
    if (part == "precision") shape.precision_auto = true;
  }
}

void retime_run(RunResult& run, const ClusterTable& table, const std::string& cluster,
                const std::string& device) {
  const RunConfig& config = recorded_config(run);
  // The algorithm's entry, not a plan of the run: what the run recorded is the rest.
  const AlgorithmInfo& algo = find_algorithm(config.algo);
  const ClusterProfile& profile = table.cluster(cluster);
  // Made on this cluster: its own clock is the answer where it cannot be derived (an asynchronous
  // run's, or one whose ranks shared cores and timed their step so); a synchronous simulator
  // run's is derived again below, to the same seconds for a run of this clock.
  if (config.cluster == cluster && config.cluster_device == device &&
      run.metrics.count("seconds") != 0 &&
      (algo.family != AlgorithmFamily::kSync || profile.ranks_share_cores ||
       config.engine != EngineKind::kSim)) {
    return;
  }
  if (algo.family == AlgorithmFamily::kAsync) {
    throw ConfigError(
        fmt::format("run '{}' is asynchronous ({}): the order its workers' messages arrive in "
                    "depends on its clock, so it cannot be re-timed on another cluster",
                    run.dir, config.algo),
        fmt::format("rerun it with the cluster set: dsgd run --resume is not enough; dsgd run -c "
                    "{}/config.toml --set cluster={}{} --out NEW_FOLDER",
                    run.dir, cluster, device.empty() ? "" : " --set cluster_device=" + device));
  }
  if (profile.ranks_share_cores && (device.empty() ? profile.device : device) == "measured") {
    throw ConfigError(fmt::format("cluster '{}' shares a host's cores among its ranks: its step is "
                                  "timed at each rank's share of them when a run starts, which "
                                  "run '{}' did not record",
                                  cluster, run.dir),
                      fmt::format("rerun it with the cluster set (--set cluster={}), or name a "
                                  "device with --device",
                                  cluster));
  }
  RunShape shape = run_shape(config);
  shape.measured_step_seconds = run.step_seconds;
  mark_auto_format(run.summary, shape);
  size_t levels = 1;
  if (algo.family == AlgorithmFamily::kSync) {
    const SyncPlan plan = sync_plan(*algo.sync, config, /*steps_per_epoch=*/1);
    levels = plan.levels.size();
    if (levels >= 2) shape.group_size = plan.levels.front().group_size;
    for (size_t l = 1; l + 1 < levels; ++l) {
      shape.middle_group_sizes.push_back(plan.levels[l].group_size);
    }
  }
  const ClusterCosts costs = price_on_cluster(table, cluster, shape, device);
  const double unit = costs.seconds_per_unit;
  std::vector<double> seconds;
  if (algo.family == AlgorithmFamily::kSingle) {
    // One worker, no links: its clock is its compute.
    for (double t : column_of(run, "sim_time")) seconds.push_back(t * unit);
  } else {
    // What sync_sim adds up: the learners' compute clock (sync_clock.h, at the cluster's core
    // sharing), and per reduction alpha + beta x its ring volume; bytes count every learner's
    // volume. The clock is replayed from the config, for an MPI run too: its compute_time column
    // holds the seconds its ranks measured on their machine, not the worker model's units, and
    // its rounds are the simulator's (the trajectory does not depend on the clock).
    const bool has_rounds = run.metrics.count("updates") != 0;
    if (!has_rounds && config.engine != EngineKind::kSim) {
      throw ConfigError(fmt::format("run '{}' ran on MPI and has no updates column: its clock "
                                    "cannot be replayed, and the seconds it measured are not a "
                                    "cluster's",
                                    run.dir),
                        fmt::format("run the same config on the simulator with the cluster set "
                                    "(--set cluster={}), or leave out --cluster",
                                    cluster));
    }
    const std::vector<double> compute = has_rounds
                                            ? replayed_compute_time(run, config, costs.core_sharing)
                                            : column_of(run, "compute_time");
    // The counts the run recorded at each level: level<l>_* with three levels or more, else the
    // in-group total local_* (zero with one level) and the global one.
    const size_t priced_levels = std::max<size_t>(levels, 2);
    const ReductionPrices price(priced_levels, prices_of(costs, /*synchronous=*/true));
    std::vector<const std::vector<double>*> reductions, bytes;
    for (size_t l = 0; l + 1 < priced_levels; ++l) {
      reductions.push_back(&column_of(
          run, levels > 2 ? level_column(l, "reductions") : std::string("local_reductions")));
      bytes.push_back(&column_of(run, levels > 2 ? level_column(l, "bytes") : "local_bytes"));
    }
    reductions.push_back(&column_of(run, "global_reductions"));
    bytes.push_back(&column_of(run, "global_bytes"));
    const double learners = static_cast<double>(config.workers);
    for (size_t i = 0; i < compute.size(); ++i) {
      // The global level first, then the inner ones from the innermost out.
      double units = compute[i];
      for (size_t k = 0; k < priced_levels; ++k) {
        const size_t l = (k + priced_levels - 1) % priced_levels;
        units = price.add(units, l, (*reductions[l])[i], (*bytes[l])[i], learners);
      }
      seconds.push_back(units * unit);
    }
  }
  run.metrics["seconds"] = seconds;
  // Its evaluations were priced on the cluster it was made on, not this one.
  run.metrics.erase("predicted_wall");
}

}  // namespace

void retime_on_cluster(Experiment& experiment, const std::string& cluster,
                       const std::string& cluster_file, const std::string& device) {
  const ClusterTable table = load_cluster_table(cluster_file);
  table.cluster(cluster);  // unknown names fail before any run is read
  if (!device.empty() && device != "measured") table.device(device);
  for (Configuration& configuration : experiment.configurations) {
    for (RunResult& run : configuration.runs) {
      // A run started but not evaluated yet has no row to re-time; it reads as such.
      if (!run.status.empty() && !run.metrics.empty()) retime_run(run, table, cluster, device);
    }
  }
}

}  // namespace dsgd
