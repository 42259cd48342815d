// Re-timing finished runs on a named cluster (dsgd report --cluster). A synchronous run's
// trajectory does not depend on its clock, so its seconds on any cluster follow exactly from its
// config and what it recorded at each evaluation: the learners' compute clock (simulated units,
// replayed from the config at the cluster's core sharing: sync_reclock.h) and, per level, its
// reductions and the bytes they moved. Priced as train/cluster.h prices a run
// made with the cluster set, the two agree; an MPI run re-timed reads as its config made on the
// simulator with the cluster set (the seconds its ranks measured are this machine's, not the
// cluster's). An asynchronous run's order of arrivals depends on its
// clock: it is refused, with the command that reruns it on the cluster.
#pragma once

#include <string>

#include "experiment/run_results.h"

namespace dsgd {

// Puts a "seconds" column into every run's metrics (replacing one recorded on another cluster),
// computing on `device` ("" for the cluster's own). A run made on that cluster and device keeps
// the seconds it recorded, asynchronous or not. Throws ConfigError for an asynchronous run made
// elsewhere, a run of more than two averaging levels, or one whose metrics lack the clock's
// columns.
void retime_on_cluster(Experiment& experiment, const std::string& cluster,
                       const std::string& cluster_file, const std::string& device = "");

}  // namespace dsgd
