// The factories of the synchronous algorithms, one per file in src/algos/, collected by
// sync_registry.cpp. Adding an algorithm: one new file, one line here, one line in the registry.
// Private to src/algos/.
#pragma once

#include "algos/sync_algorithm.h"

namespace dsgd {

SyncAlgorithm ssgd_algorithm();      // ssgd.cpp
SyncAlgorithm kavg_algorithm();      // kavg.cpp
SyncAlgorithm hier_avg_algorithm();  // hier_avg.cpp

}  // namespace dsgd
