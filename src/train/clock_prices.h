// The prices of a run's simulated clock (docs/time.md): what one simulated time unit is in
// seconds, what each reduction level's all-reduce and the asynchronous server's link cost in those
// units, and how many times over synchronous learners share their cores. They come from the
// config's keys (comm.*, seconds_per_unit, timing.core_sharing; hier.levels' own link costs stay
// the plan's), or from the cluster that priced the run when it started (train/cluster.h). The
// engines read them here, never from the config: the user's config is not written after loading,
// and the run's recorded config.toml holds the prices (record_prices) so that a resume keeps them.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "algos/sync_algorithm.h"
#include "train/cluster.h"
#include "train/config.h"

namespace dsgd {

struct ClockPrices {
  double seconds_per_unit = 0.0;  // 0: the clock stays in simulated units
  LinkCost group;                 // in-group reductions (the first of two levels or more)
  LinkCost global;                // the outermost reduction; the asynchronous server's link
  // A deeper hierarchy's levels between the first and the global one, innermost first, where a
  // cluster priced them; none: hier.levels' own costs, else group's.
  std::vector<LinkCost> middle;
  // Synchronous learners taking turns on shared cores (engine/sim/sync_clock.h); 1: a core each.
  double core_sharing = 1.0;
  // Device seconds per second of this machine's evaluations and checkpoints; 0: not priced.
  double overhead_scale = 0.0;
};

// The prices `config`'s keys give.
ClockPrices prices_in(const RunConfig& config);

// The prices a cluster gave (train/cluster.h); core sharing only for `synchronous` learners.
ClockPrices prices_of(const ClusterCosts& costs, bool synchronous);

// The prices of `config`'s run on its (unpriced) cluster. `run`: the run's shape (its chosen
// format, family, group size and measured step filled in); `time_step_at(threads)` times the run's
// step at a rank's share of the host's cores, for a cluster whose ranks share them and whose
// device is "measured". The overhead scale is the device's step (or, on ranks sharing the cores,
// the step at a rank's share) over the run's own measured step. `explanation` gets the log's line.
// Throws ConfigError for hier.levels rows that give their own link costs beside the cluster.
ClockPrices price_on_its_cluster(const RunConfig& config, RunShape run,
                                 const std::function<double(int64_t threads)>& time_step_at,
                                 std::string& explanation);

// `config` with `prices` in its keys, as a run records what its cluster priced: comm.*,
// seconds_per_unit, timing.overhead_scale, timing.core_sharing (`synchronous` runs: the
// asynchronous family's learners share no clock) and each middle level's (alpha, beta) as
// hier.levels' third and fourth columns.
void record_prices(const ClockPrices& prices, bool synchronous, RunConfig& config);

}  // namespace dsgd
