// The prices of a run's simulated clock; see clock_prices.h.
#include "train/clock_prices.h"

#include <fmt/format.h>

#include "core/errors.h"

namespace dsgd {
namespace {

const char* const kLevelsKey = "hier.levels";

}  // namespace

ClockPrices prices_in(const RunConfig& config) {
  ClockPrices prices;
  prices.seconds_per_unit = config.seconds_per_unit;
  prices.group = {config.comm_group_alpha, config.comm_group_beta};
  prices.global = {config.comm_global_alpha, config.comm_global_beta};
  prices.core_sharing = config.timing_core_sharing;
  prices.overhead_scale = config.timing_overhead_scale;
  return prices;
}

ClockPrices prices_of(const ClusterCosts& costs, bool synchronous) {
  ClockPrices prices;
  prices.seconds_per_unit = costs.seconds_per_unit;
  prices.group = {costs.group_alpha, costs.group_beta};
  prices.global = {costs.global_alpha, costs.global_beta};
  for (const ClusterCosts::LevelPrice& level : costs.middle_levels) {
    prices.middle.push_back({level.alpha, level.beta});
  }
  if (synchronous) prices.core_sharing = costs.core_sharing;
  return prices;
}

ClockPrices price_on_its_cluster(const RunConfig& config, RunShape run,
                                 const std::function<double(int64_t threads)>& time_step_at,
                                 std::string& explanation) {
  // A deeper hierarchy (hier.levels of three or more levels): comm.group_* prices its first level
  // alone, so each level between the first and the global one is priced at its own group size.
  OptionTable levels;
  if (!run.asynchronous && config.algo_options.has(kLevelsKey)) {
    levels = config.algo_options.table(kLevelsKey);
  }
  for (size_t i = 0; i < levels.size(); ++i) {
    if (levels[i].size() == 4) {
      throw ConfigError(fmt::format("hier.levels level {} gives its link cost (alpha, beta) "
                                    "beside cluster = \"{}\", which prices every link itself",
                                    i + 1, config.cluster),
                        "give the level as [group size, period], or drop the cluster");
    }
    if (i > 0 && i + 1 < levels.size()) {
      run.middle_group_sizes.push_back(static_cast<int64_t>(levels[i][0]));
    }
  }
  const ClusterTable table = load_cluster_table(config.cluster_file);
  const ClusterProfile& cluster = table.cluster(config.cluster);
  const std::string& device =
      config.cluster_device.empty() ? cluster.device : config.cluster_device;
  const double own_step = run.measured_step_seconds;
  if (cluster.ranks_share_cores && device == "measured") {
    // Each rank's step on its share of the cores, as the MPI engine would compute it here.
    run.measured_step_seconds = time_step_at(core_share(cluster, run).threads);
  }
  const ClusterCosts costs = price_on_cluster(table, config.cluster, run, config.cluster_device);
  explanation = costs.explanation;
  ClockPrices prices = prices_of(costs, !run.asynchronous);
  // An evaluation or a checkpoint runs on the device as a step does: it takes the device's time
  // in the proportion the step does (a rule, not a measurement of the device's evaluation). On
  // ranks sharing the cores, synchronous learners wait for rank 0's evaluation: the step at its
  // share's threads, without the turns the ranks take on the cores (core_sharing's stretch);
  // asynchronous workers go on computing while the server evaluates, and the turns stay.
  const double device_step =
      run.asynchronous ? costs.step_seconds : costs.step_seconds / costs.core_sharing;
  if (own_step > 0 && device_step > 0) {
    prices.overhead_scale = device_step / own_step;
    explanation += fmt::format(
        "; evaluations and checkpoints priced at {:.3g} x this machine's time (the device's step "
        "over the run's own)",
        prices.overhead_scale);
  }
  return prices;
}

void record_prices(const ClockPrices& prices, bool synchronous, RunConfig& config) {
  config.seconds_per_unit = prices.seconds_per_unit;
  config.timing_overhead_scale = prices.overhead_scale;
  config.comm_group_alpha = prices.group.alpha;
  config.comm_group_beta = prices.group.beta;
  config.comm_global_alpha = prices.global.alpha;
  config.comm_global_beta = prices.global.beta;
  if (synchronous) config.timing_core_sharing = prices.core_sharing;
  if (prices.middle.empty()) return;
  OptionTable levels = config.algo_options.table(kLevelsKey);
  for (size_t i = 0; i < prices.middle.size(); ++i) {
    std::vector<double>& row = levels.at(i + 1);
    row = {row[0], row[1], prices.middle[i].alpha, prices.middle[i].beta};
  }
  config.algo_options.set_table(kLevelsKey, levels);
}

}  // namespace dsgd
