// A synchronous simulator run's clock derived from its config. The learners' compute clock
// (engine/sim/sync_clock.h) is a pure function of the config and the rounds done, and a
// synchronous run's trajectory does not depend on it, so a report can derive it at each
// evaluation rather than read it: runs recorded under an earlier clock (before learners ran free
// between averages, every local step waited for the slowest learner) then read like new ones,
// and re-timing on a cluster (retime.h) prices the clock of that cluster's core sharing.
#pragma once

#include <vector>

#include "experiment/run_results.h"
#include "train/config.h"

namespace dsgd {

// The compute time (simulated units) at each of the run's metrics rows (after its `updates`
// rounds), with its learners sharing cores `core_sharing` times over.
std::vector<double> replayed_compute_time(const RunResult& run, const RunConfig& config,
                                          double core_sharing);

// Every synchronous run made on the simulator gets compute_time and sim_time (and seconds, where
// it was made on a cluster) at each evaluation from its config's clock, and its total compute time
// with them. Left as recorded: runs of other engines and families, runs not started, runs whose
// folder has no config.toml, and runs made on a cluster whose ranks share cores (their rounds
// were timed in step, as they still are). Throws ConfigError for a damaged config.
void reclock_synchronous_runs(Experiment& experiment);

}  // namespace dsgd
