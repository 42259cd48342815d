// Post-local SGD (Lin, Stich, Patel, Jaggi, ICLR 2020, "Don't Use Large Mini-Batches, Use Local
// SGD", arXiv 1808.07217): the learners first train as SSGD, averaging gradients before every
// step, and switch to local SGD (kavg, hier-avg: local steps and periodic averages) at a given
// epoch, typically the first learning-rate decay. Early training, where local SGD hurts most, gets
// SSGD's exact steps; later, local SGD's noise and cheaper communication. The switch is the key
// post_local.switch_epoch; 0 (the default) is local SGD from the start.
#pragma once

#include <vector>

#include "algos/options.h"
#include "algos/sync_algorithm.h"

namespace dsgd {

// `own` followed by the key post_local.switch_epoch (kavg and hier-avg declare it so).
std::vector<OptionSpec> with_post_local_switch(std::vector<OptionSpec> own);

// Sets plan.average_gradients_until: the last step (1-based) taken as SSGD.
void apply_post_local_switch(const OptionValues& values, const SyncSetup& setup, SyncPlan& plan);

}  // namespace dsgd
