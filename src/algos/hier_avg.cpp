// Hier-AVG: hierarchical local SGD (Zhou & Cong 2019, "A Distributed Hierarchical SGD Algorithm
// with Sparse Global Reduction"). Learners form groups of S consecutive ranks; every K1 local
// steps parameters are averaged inside each group over fast local links, every K2 steps (a
// multiple of K1) across all P learners instead. Frequent cheap reductions keep the learners
// close, so global reductions can be rare. S = 1 or S = P is K-AVG. With outer.lr /
// outer.momentum the global average is an outer optimizer's step (outer_optimizer.h); with
// post_local.switch_epoch the run starts as SSGD (post_local.h).
#include <fmt/format.h>

#include "algos/post_local.h"
#include "algos/sync_algorithms.h"
#include "core/errors.h"

namespace dsgd {

SyncAlgorithm hier_avg_algorithm() {
  return {"hier-avg",
          "Hier-AVG: group average every K1 steps (hier.local_period) among S learners "
          "(hier.group_size), global average every K2 (hier.global_period)",
          with_post_local_switch(with_outer_optimizer(
              {integer_option("hier.group_size", 1, "S learners per group"),
               integer_option("hier.local_period", 1, "K1 local steps between group averages"),
               integer_option("hier.global_period", 1,
                              "K2 local steps between global averages (a multiple of K1)"),
               boolean_option("hier.node_groups", false,
                              "MPI engine: one group per node (ranks sharing memory) instead of S "
                              "consecutive ranks")})),
          [](const OptionValues& o, const SyncSetup& setup) {
            SyncPlan plan;
            plan.group_size = o.integer("hier.group_size");
            plan.group_period = o.integer("hier.local_period");
            plan.global_period = o.integer("hier.global_period");
            plan.groups_follow_hosts = o.flag("hier.node_groups");
            plan.outer = outer_options(o);
            apply_post_local_switch(o, setup, plan);
            if (plan.global_period % plan.group_period != 0) {
              throw ConfigError(
                  fmt::format("hier.global_period = {} is not a multiple of hier.local_period = {}",
                              plan.global_period, plan.group_period),
                  "K2 must be a multiple of K1, e.g. local_period = 4, global_period = 16");
            }
            if (plan.groups_follow_hosts && !setup.mpi) {
              throw ConfigError(
                  "hier.node_groups needs engine = \"mpi\": simulated learners have no nodes",
                  "drop hier.node_groups, or run under mpirun with --engine mpi");
            }
            if (!plan.groups_follow_hosts && setup.learners % plan.group_size != 0) {
              throw ConfigError(
                  fmt::format("workers = {} is not a multiple of hier.group_size = {}",
                              setup.learners, plan.group_size),
                  "groups are S consecutive learners: choose S dividing P");
            }
            return plan;
          }};
}

}  // namespace dsgd
