// Deriving a synchronous run's clock from its config; see sync_reclock.h.
#include "experiment/sync_reclock.h"

#include <cmath>

#include "algos/catalog.h"
#include "engine/sim/sync_clock.h"
#include "engine/sync_learners.h"
#include "train/cluster.h"

namespace dsgd {
namespace {

const std::vector<double>* column(const RunResult& run, const std::string& name) {
  auto it = run.metrics.find(name);
  return it == run.metrics.end() ? nullptr : &it->second;
}

// Rounds an epoch as the run counted them (only post-local SGD's switch needs them): its
// updates over its epochs at its last evaluation.
int64_t steps_per_epoch(const RunResult& run) {
  const auto* epochs = column(run, "epoch");
  const auto* updates = column(run, "updates");
  if (epochs == nullptr || updates == nullptr || epochs->empty() || !(epochs->back() > 0)) return 1;
  return std::max<int64_t>(1, std::llround(updates->back() / epochs->back()));
}

// The clock after each of `rounds` (nondecreasing) rounds.
std::vector<double> compute_times(const RunResult& run, const RunConfig& config,
                                  double core_sharing, const std::vector<double>& rounds) {
  SyncClock clock(config,
                  sync_plan(*find_algorithm(config.algo).sync, config, steps_per_epoch(run)),
                  core_sharing);
  std::vector<double> times;
  for (double r : rounds) {
    clock.advance_to(std::llround(r));
    times.push_back(clock.compute_time());
  }
  return times;
}

}  // namespace

std::vector<double> replayed_compute_time(const RunResult& run, const RunConfig& config,
                                          double core_sharing) {
  const auto* updates = column(run, "updates");
  return updates ? compute_times(run, config, core_sharing, *updates) : std::vector<double>{};
}

void reclock_synchronous_runs(Experiment& experiment) {
  for (Configuration& configuration : experiment.configurations) {
    for (RunResult& run : configuration.runs) {
      if (run.status.empty() || (!run.config && !run.config_error) || !run.summary.is_object() ||
          find_enum<EngineKind>(run.summary.value("engine", "")) != EngineKind::kSim) {
        continue;
      }
      const RunConfig& config = recorded_config(run);
      if (find_algorithm(config.algo).family != AlgorithmFamily::kSync) continue;
      if (!config.cluster.empty() &&
          load_cluster_table(config.cluster_file).cluster(config.cluster).ranks_share_cores) {
        continue;
      }
      const double core_sharing = config.cluster.empty() ? config.timing_core_sharing : 1.0;
      const auto* comm = column(run, "comm_time");
      const auto* sim_time = column(run, "sim_time");
      if (comm == nullptr || sim_time == nullptr || column(run, "updates") == nullptr) continue;
      // One replay: the rows' rounds, then the run's last round (its total), in order.
      std::vector<double> rounds = *column(run, "updates");
      const bool total = run.traffic.count("compute_time") != 0 && run.summary.contains("updates");
      if (total) rounds.push_back(run.summary["updates"].get<double>());
      std::vector<double> compute = compute_times(run, config, core_sharing, rounds);
      if (total) {
        run.traffic["compute_time"] = compute.back();
        compute.pop_back();
      }
      std::vector<double> clock(compute.size());
      for (size_t i = 0; i < compute.size(); ++i) clock[i] = compute[i] + (*comm)[i];
      // Made on a cluster: its seconds are its simulated time at the cluster's price per unit.
      auto seconds = run.metrics.find("seconds");
      if (seconds != run.metrics.end() && !sim_time->empty() && sim_time->back() > 0) {
        const double per_unit = seconds->second.back() / sim_time->back();
        for (size_t i = 0; i < clock.size(); ++i) seconds->second[i] = clock[i] * per_unit;
      }
      run.metrics["compute_time"] = compute;
      run.metrics["sim_time"] = clock;
    }
  }
}

}  // namespace dsgd
