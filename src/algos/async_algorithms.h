// The factories of the asynchronous algorithms, one per file in src/algos/, collected by
// async_registry.cpp. Adding an algorithm: one new file, one line here, one line in the registry.
// Private to src/algos/.
#pragma once

#include "algos/async_rule.h"

namespace dsgd {

AsyncAlgorithm asgd_algorithm();                 // asgd.cpp
AsyncAlgorithm asgd_momentum_algorithm();        // asgd_momentum.cpp
AsyncAlgorithm nag_asgd_algorithm();             // nag_asgd.cpp
AsyncAlgorithm multi_asgd_algorithm();           // multi_asgd.cpp
AsyncAlgorithm dana_zero_algorithm();            // dana_zero.cpp
AsyncAlgorithm dana_slim_algorithm();            // dana_slim.cpp
AsyncAlgorithm dc_asgd_algorithm();              // dc_asgd.cpp
AsyncAlgorithm dana_dc_algorithm();              // dana_dc.cpp
AsyncAlgorithm delay_adaptive_asgd_algorithm();  // delay_adaptive_asgd.cpp

}  // namespace dsgd
