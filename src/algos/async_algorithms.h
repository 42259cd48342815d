// The factories of the asynchronous algorithms, one per file in src/algos/ (x_algorithm() in
// x.cpp; asgd, asgd-m and nag-asgd share server_sgd.cpp), collected by async_registry.cpp. Adding
// an algorithm: one new file, one line here, one line in the registry (async-local-sgd,
// async-local-dn and dana-local each have theirs, sharing the local-steps family's async_local.h;
// easgd-local and eamsgd-local share easgd_local.cpp). Private to src/algos/.
#pragma once

#include "algos/async_rule.h"

namespace dsgd {

AsyncAlgorithm asgd_algorithm();
AsyncAlgorithm asgd_momentum_algorithm();
AsyncAlgorithm nag_asgd_algorithm();
AsyncAlgorithm multi_asgd_algorithm();
AsyncAlgorithm dana_zero_algorithm();
AsyncAlgorithm dana_slim_algorithm();
AsyncAlgorithm dc_asgd_algorithm();
AsyncAlgorithm dana_dc_algorithm();
AsyncAlgorithm delay_adaptive_asgd_algorithm();
AsyncAlgorithm gap_aware_asgd_algorithm();
AsyncAlgorithm dana_gap_aware_algorithm();
AsyncAlgorithm yellowfin_algorithm();
AsyncAlgorithm easgd_algorithm();
AsyncAlgorithm eamsgd_algorithm();
AsyncAlgorithm dana_easgd_algorithm();
AsyncAlgorithm easgd_local_algorithm();
AsyncAlgorithm eamsgd_local_algorithm();
AsyncAlgorithm async_local_sgd_algorithm();
AsyncAlgorithm async_local_dn_algorithm();
AsyncAlgorithm dana_local_algorithm();

}  // namespace dsgd
