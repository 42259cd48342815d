// Hier-AVG: hierarchical local SGD (Zhou & Cong 2019, "A Distributed Hierarchical SGD Algorithm
// with Sparse Global Reduction"). Learners form groups of S consecutive ranks; every K1 local
// steps parameters are averaged inside each group over fast local links, every K2 steps (a
// multiple of K1) across all P learners instead. Frequent cheap reductions keep the learners
// close, so global reductions can be rare. S = 1 or S = P is K-AVG.
#include "algos/sync_algorithms.h"

namespace dsgd {

SyncAlgorithm hier_avg_algorithm() {
  return {"hier-avg",
          "Hier-AVG: group average every K1 steps (hier.local_period) among S learners "
          "(hier.group_size), global average every K2 (hier.global_period)",
          [](const SyncOptions& o) {
            SyncPlan plan;
            plan.group_size = o.group_size;
            plan.group_period = o.local_period;
            plan.global_period = o.global_period;
            return plan;
          }};
}

}  // namespace dsgd
