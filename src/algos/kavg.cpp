// K-AVG: local SGD with periodic model averaging (Zhou & Cong 2018, "On the convergence
// properties of a K-step averaging stochastic gradient descent algorithm"). Each learner takes
// K local steps, then all P learners' parameters are averaged. K = 1 with plain SGD is SSGD.
#include "algos/sync_algorithms.h"

namespace dsgd {

SyncAlgorithm kavg_algorithm() {
  return {"kavg", "K-AVG: K local SGD steps (kavg.period), then a global parameter average",
          [](const SyncOptions& o) {
            SyncPlan plan;
            plan.group_size = o.learners;
            plan.global_period = o.kavg_period;
            return plan;
          }};
}

}  // namespace dsgd
