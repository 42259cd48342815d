// The factories of the synchronous algorithms, one per file in src/algos/ (x_algorithm() in
// x.cpp), collected by sync_registry.cpp. Adding an algorithm: one new file, one line here, one
// line in the registry.
// Private to src/algos/.
#pragma once

#include "algos/sync_algorithm.h"

namespace dsgd {

SyncAlgorithm ssgd_algorithm();
SyncAlgorithm kavg_algorithm();
SyncAlgorithm hier_avg_algorithm();

}  // namespace dsgd
