// ga-asgd and dana-ga: Gap-Aware (gap_aware.h) in front of ASGD-M's server, as the paper runs it,
// and in front of DANA-Zero's, the combination the Gap-Aware paper reports (Barkai, Hakimi,
// Schuster, ICLR 2020). With one worker ga-asgd sees no gap and is asgd-m, operation for operation.
#include "algos/async_algorithms.h"
#include "algos/dana_zero.h"
#include "algos/gap_aware.h"
#include "algos/server_sgd.h"

namespace dsgd {

using namespace async_internal;  // NOLINT(build/namespaces): the helpers of async_util.h

std::vector<OptionSpec> gap_aware_options() {
  return {number_option("ga.beta", 0.999,
                        "decay β of Gap-Aware's running mean of the squared step (Barkai et al.)",
                        0.0, 1.0),
          number_option("ga.epsilon", 1e-8,
                        "ε added to Gap-Aware's typical step sqrt(r̂), so a coordinate that never "
                        "moved still has one (at least 1e-12: a zero gap over a zero step is 0/0)",
                        1e-12)};
}

AsyncAlgorithm gap_aware_asgd_algorithm() {
  return gradient_algorithm<GapAware<ServerSgd<ServerMomentum::kHeavyBall>>>(
      "ga-asgd",
      "Gap-Aware ASGD: each message divided by 1 + gap / typical step, per coordinate "
      "(Barkai et al. 2020), server momentum",
      joined_options(gap_aware_options(), convention_options()));
}

AsyncAlgorithm dana_gap_aware_algorithm() {
  return gradient_algorithm<GapAware<DanaZeroServer>>(
      "dana-ga",
      "DANA-GA: DANA-Zero with Gap-Aware's penalty on stale messages (Barkai et al. 2020)",
      joined_options(gap_aware_options(), dana_options()));
}

}  // namespace dsgd
