// K-AVG: local SGD with periodic model averaging (Zhou & Cong 2018, "On the convergence
// properties of a K-step averaging stochastic gradient descent algorithm"). Each learner takes
// K local steps, then all P learners' parameters are averaged. K = 1 with plain SGD is SSGD.
// With outer.lr / outer.momentum the average is an outer optimizer's step: SlowMo, DiLoCo
// (outer_optimizer.h); with post_local.switch_epoch it starts as SSGD (post_local.h).
#include "algos/post_local.h"
#include "algos/sync_algorithms.h"

namespace dsgd {

SyncAlgorithm kavg_algorithm() {
  return {"kavg", "K-AVG: K local SGD steps (kavg.period), then a global parameter average",
          with_post_local_switch(with_outer_optimizer(
              {integer_option("kavg.period", 1, "K local steps between global averages")})),
          [](const OptionValues& o, const SyncSetup& setup) {
            SyncPlan plan;
            plan.levels = {{setup.learners, o.integer("kavg.period"), std::nullopt}};
            plan.outer = outer_options(o);
            apply_post_local_switch(o, setup, plan);
            return plan;
          }};
}

}  // namespace dsgd
