// How many minibatches each asynchronous worker computes between two exchanges with the server:
// H (local.steps) for the rules whose workers take local steps, H_i per worker with Dynamic Local
// Updates. Worked out from the configuration alone (its algorithm keys and declared speeds),
// beside it, so that both engines, the run's plan and the launchers read the same numbers; the
// engine-neutral server (engine/async_server.h) only applies what arrives.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "train/config.h"

namespace dsgd {

// H, the minibatches a worker computes between two exchanges: the algorithm's local.steps, for
// the rules whose workers take local steps (algos/async_rule.h, LocalRun), else 1.
int64_t local_steps(const RunConfig& config);
// H_i for each worker: H, or with Dynamic Local Updates (local.dylu, Liu et al. 2024) H in
// proportion to the worker's speed, H_i = max(1, ⌊v_i / max_j v_j · H⌋), the speeds v those the
// config declares (timing.speeds, or timing.spread's even spread), so that every worker's
// exchange takes about the fastest one's time.
std::vector<int64_t> local_steps_per_worker(const RunConfig& config);
// The minibatches of the average exchange, the mean of H_i: an epoch's samples over it are the
// epoch's exchanges. With every worker exchanging at about the same rate (DyLU's purpose) the
// samples a run consumes are its epochs' to within the spread of the workers' exchange counts
// (reported: `samples` under summary.json's traffic).
double mean_local_steps(const RunConfig& config);
// What a launcher prints about the workers' runs when they differ (DyLU): each H_i (up to 32
// workers; beyond, the least, mean and most) and the mean. Empty when every H_i is the same.
std::string describe_local_steps(const RunConfig& config);

}  // namespace dsgd
