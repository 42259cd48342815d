// A run of the clock alone: the run's own simulator on its own clock (the workers' arrival order,
// the server's queues, the learners' waits, every all-reduce and its price), with no forward or
// backward pass, no evaluation, no checkpoint and no folder. The seconds a run takes on a cluster
// do not depend on its gradients' values (no engine's order of events reads them), so the clock
// comes out exactly as the run's would, in a small part of its time: `dsgd estimate` answers "how
// long would this run take on my cluster?" before it trains. The simulator still applies its rule
// to the zero gradients, so the cost is the rule's arithmetic and the batches' assembly.
#pragma once

#include <string>
#include <vector>

#include "train/config.h"

namespace dsgd {

struct ClockEstimate {
  std::string algo;
  int64_t workers = 1;
  int64_t updates = 0;  // the run's updates
  double updates_per_epoch = 0;
  std::vector<double> epoch_ends;  // the epochs at which the clock was read: 1, 2, ..., the end
  std::vector<double> sim_time;    // simulated time there
  double seconds_per_unit = 0.0;   // 0: no cluster prices the run
  std::string compute_note;        // the compute format, and what a cluster priced
  // The step timed when the estimate started, as a device table keys it ("MODEL BATCH FORMAT":
  // configs/clusters.toml), and its median seconds (0: not timed, as on MPI).
  std::string step_key;
  double step_seconds = 0.0;
  double wall_seconds = 0.0;  // what the estimate itself took
};

// The clock of `config`'s run (on the simulator, whatever its engine: the simulator is what
// prices a run on a cluster). Throws ConfigError as a run would for bad input.
ClockEstimate estimate_clock(const RunConfig& config);

// The estimate for the terminal: the run's length in simulated time and, on a cluster, in
// seconds, with the time of the first epoch, a typical epoch and the last.
std::string describe_estimate(const ClockEstimate& estimate);

// The same for a script: one JSON object of the fields above, and `seconds` at each epoch's end
// (where a cluster prices the run).
std::string estimate_json(const ClockEstimate& estimate);

}  // namespace dsgd
