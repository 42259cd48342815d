// Hier-AVG: hierarchical local SGD (Zhou & Cong 2019, "A Distributed Hierarchical SGD Algorithm
// with Sparse Global Reduction"). Learners form groups of S consecutive ranks; every K1 local
// steps parameters are averaged inside each group over fast local links, every K2 steps (a
// multiple of K1) across all P learners instead. Frequent cheap reductions keep the learners
// close, so global reductions can be rare. S = 1 or S = P is K-AVG. hier.levels generalises the
// two levels to any depth, as PyTorch's HierarchicalModelAverager does with its (period, group
// size) pairs: e.g. 4 learners every 2 steps, 16 every 8, all every 32; a level's groups are
// consecutive learners, so they nest in the next level's. With outer.lr /
// outer.momentum the global average is an outer optimizer's step (outer_optimizer.h); with
// post_local.switch_epoch the run starts as SSGD (post_local.h).
#include <fmt/format.h>

#include <cmath>

#include "algos/post_local.h"
#include "algos/sync_algorithms.h"
#include "core/errors.h"

namespace dsgd {
namespace {

constexpr const char* kLevelsHint =
    "hier.levels lists [group size, period] (or [group size, period, alpha, beta]) from the "
    "innermost level out, each group size and period dividing the next, the last level holding "
    "every learner, e.g. [[4, 2], [16, 8], [64, 32]] for 64 workers";

ConfigError level_error(const std::string& what) { return ConfigError(what, kLevelsHint); }

bool is_whole(double v) { return v >= 1 && v == std::floor(v) && v < 9.0e15; }

// hier.levels (not empty) checked and turned into a plan's levels. With `hosts` (hier.node_groups),
// level 1 is the ranks of each host, whatever size it lists; the MPI engine checks that the hosts
// nest.
std::vector<AveragingLevel> levels_from_table(const OptionTable& rows, const SyncSetup& setup,
                                              bool hosts) {
  std::vector<AveragingLevel> levels;
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& row = rows[i];
    const size_t number = i + 1;  // as the user counts them
    if (!is_whole(row[0]) || !is_whole(row[1])) {
      throw level_error(fmt::format(
          "hier.levels level {}: group size {} and period {} must be whole numbers >= 1", number,
          row[0], row[1]));
    }
    AveragingLevel level{static_cast<int64_t>(row[0]), static_cast<int64_t>(row[1]), std::nullopt};
    if (row.size() == 4) {
      if (row[2] < 0 || row[3] < 0) {
        throw level_error(
            fmt::format("hier.levels level {}: link cost alpha = {}, beta = {} must be >= 0",
                        number, row[2], row[3]));
      }
      level.cost = LinkCost{row[2], row[3]};
    }
    const bool follows_hosts = hosts && i == 0;
    if (level.group_size > setup.learners && !follows_hosts) {
      throw level_error(
          fmt::format("hier.levels level {}: group size {} is larger than workers = {}", number,
                      level.group_size, setup.learners));
    }
    if (setup.learners % level.group_size != 0 && !follows_hosts) {
      throw level_error(
          fmt::format("hier.levels level {}: workers = {} is not a multiple of its group size {}",
                      number, setup.learners, level.group_size));
    }
    if (i > 0) {
      const AveragingLevel& inner = levels.back();
      if (level.group_size % inner.group_size != 0 && !(hosts && i == 1)) {
        throw level_error(fmt::format(
            "hier.levels level {}: group size {} is not a multiple of level {}'s {}, so its groups "
            "would split level {}'s",
            number, level.group_size, number - 1, inner.group_size, number - 1));
      }
      if (level.period % inner.period != 0) {
        throw level_error(
            fmt::format("hier.levels level {}: period {} is not a multiple of level {}'s period {}",
                        number, level.period, number - 1, inner.period));
      }
    }
    levels.push_back(level);
  }
  if (levels.back().group_size != setup.learners) {
    throw level_error(fmt::format(
        "hier.levels level {} (the outermost) has groups of {}, not all workers = {}, so the "
        "groups would never mix",
        levels.size(), levels.back().group_size, setup.learners));
  }
  return levels;
}

// The two-level shorthand: S learners every K1 steps, all every K2.
std::vector<AveragingLevel> shorthand_levels(const OptionValues& o, const SyncSetup& setup,
                                             bool hosts) {
  const int64_t group_size = o.integer("hier.group_size");
  const int64_t local_period = o.integer("hier.local_period");
  const int64_t global_period = o.integer("hier.global_period");
  if (global_period % local_period != 0) {
    throw ConfigError(
        fmt::format("hier.global_period = {} is not a multiple of hier.local_period = {}",
                    global_period, local_period),
        "K2 must be a multiple of K1, e.g. local_period = 4, global_period = 16");
  }
  if (!hosts && setup.learners % group_size != 0) {
    throw ConfigError(fmt::format("workers = {} is not a multiple of hier.group_size = {}",
                                  setup.learners, group_size),
                      "groups are S consecutive learners: choose S dividing P");
  }
  return {{group_size, local_period, std::nullopt}, {setup.learners, global_period, std::nullopt}};
}

}  // namespace

SyncAlgorithm hier_avg_algorithm() {
  return {"hier-avg",
          "Hier-AVG: group average every K1 steps (hier.local_period) among S learners "
          "(hier.group_size), global average every K2 (hier.global_period); any depth with "
          "hier.levels",
          with_post_local_switch(with_outer_optimizer(
              {integer_option("hier.group_size", 1, "S learners per group"),
               integer_option("hier.local_period", 1, "K1 local steps between group averages"),
               integer_option("hier.global_period", 1,
                              "K2 local steps between global averages (a multiple of K1)"),
               table_option("hier.levels", {2, 4},
                            "a hierarchy of any depth instead of the three keys above: [group "
                            "size, period] per level from the innermost out, each dividing the "
                            "next, the last holding every learner; [group size, period, alpha, "
                            "beta] also prices the level's simulated link (default: "
                            "comm.group_* inside, comm.global_* for the last; a cluster prices "
                            "every level itself), e.g. [[4, 2], [16, 8], [64, 32]]"),
               boolean_option("hier.node_groups", false,
                              "MPI engine: the innermost groups are the ranks of each node "
                              "(sharing memory) instead of consecutive ranks")})),
          [](const OptionValues& o, const SyncSetup& setup) {
            SyncPlan plan;
            plan.groups_follow_hosts = o.flag("hier.node_groups");
            plan.outer = outer_options(o);
            apply_post_local_switch(o, setup, plan);
            if (plan.groups_follow_hosts && !setup.mpi) {
              throw ConfigError(
                  "hier.node_groups needs engine = \"mpi\": simulated learners have no nodes",
                  "drop hier.node_groups, or run under mpirun with --engine mpi");
            }
            const OptionTable& table = o.table("hier.levels");
            if (table.empty()) {
              plan.levels = shorthand_levels(o, setup, plan.groups_follow_hosts);
              return plan;
            }
            for (const char* key : {"hier.group_size", "hier.local_period", "hier.global_period"}) {
              if (o.integer(key) != 1) {
                throw ConfigError(fmt::format("{} and hier.levels are both given", key),
                                  fmt::format("hier.levels replaces hier.group_size, "
                                              "hier.local_period and hier.global_period: drop {}",
                                              key));
              }
            }
            plan.levels = levels_from_table(table, setup, plan.groups_follow_hosts);
            return plan;
          }};
}

}  // namespace dsgd
