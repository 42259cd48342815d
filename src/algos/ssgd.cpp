// SSGD: synchronous data-parallel SGD. Every step the learners all-reduce their gradients and
// take the same optimizer step, so the P learners act as one learner with batch P·B. The
// reference point of the synchronous family: most communication, no drift between learners.
#include "algos/sync_algorithms.h"

namespace dsgd {

SyncAlgorithm ssgd_algorithm() {
  return {"ssgd",
          "synchronous SGD: gradients all-reduced across all P learners every step",
          {},
          [](const OptionValues&, const SyncSetup& setup) {
            SyncPlan plan;
            plan.average_gradients = true;
            plan.levels = {{setup.learners, 0, std::nullopt}};
            return plan;
          }};
}

}  // namespace dsgd
