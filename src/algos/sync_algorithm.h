// Synchronous algorithms as plans: when learners communicate, and at which level. A plan is the
// whole definition of ssgd, kavg and hier-avg; sync_round.h carries one round out over any
// Communicator, so the simulator and the MPI engine follow the same plan.
//
// Every round each learner takes one local SGD step on its own minibatch. Step numbers count
// from 1; after step s the plan says whether parameters are averaged, and where.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "algos/communicator.h"
#include "algos/options.h"
#include "algos/outer_optimizer.h"

namespace dsgd {

// The simulator's price of one all-reduce: α + β·(ring volume in bytes), in its time unit.
struct LinkCost {
  double alpha = 0;
  double beta = 0;
};

// One level of averaging: groups of `group_size` consecutive learners average every `period`
// steps. Levels nest: a plan's levels go from the innermost out, each group size and period
// dividing the next, and the last level holds all P learners.
struct AveragingLevel {
  int64_t group_size = 1;
  int64_t period = 0;  // 0: never
  // The simulated link of this level; none: comm.group_* for inner levels, comm.global_* for
  // the outermost.
  std::optional<LinkCost> cost;
};

struct SyncPlan {
  // ssgd: gradients (and BatchNorm buffers) are all-reduced before every step, so every learner
  // takes the same step and parameters never need averaging.
  bool average_gradients = false;
  std::vector<AveragingLevel> levels;  // innermost first; the last spans all P learners
  // MPI: level 0's groups are the ranks of each host (MPI_Comm_split_type) instead of
  // consecutive ranks.
  bool groups_follow_hosts = false;
  // The step the global average takes (SlowMo, DiLoCo); plain averaging by default.
  OuterOptions outer;
  // BatchNorm running statistics travel with every exchange (bn_policy = "average"); otherwise
  // each learner keeps its own.
  bool average_buffers = true;
  // Post-local SGD (post_local.h): steps 1..this are SSGD's (gradients averaged, no parameter
  // averaging); the plan's own averaging starts after. 0: from the start.
  int64_t average_gradients_until = 0;

  // Whether gradients are averaged before step `step` (1-based).
  bool averages_gradients_at(int64_t step) const {
    return average_gradients || step <= average_gradients_until;
  }

  // The level averaged after step `step` (1-based): none in post-local SGD's SSGD phase (every
  // learner took the same step), else the outermost one due, since its average subsumes those of
  // the levels inside it. The engines' rounds (finish_round) and the simulated clock (SyncClock)
  // both ask here, so they agree on who waits for whom.
  std::optional<size_t> averaging_after(int64_t step) const;
  size_t global_level() const { return levels.size() - 1; }
  std::vector<int64_t> group_sizes() const;
};

// What a plan depends on besides the algorithm's options.
struct SyncSetup {
  int64_t learners = 1;         // P
  bool mpi = false;             // learners are MPI ranks (and so have hosts)
  int64_t steps_per_epoch = 0;  // rounds per epoch (0 when only checking a config)
};

struct SyncAlgorithm {
  std::string name;
  std::string description;
  std::vector<OptionSpec> options;  // its own config keys
  // The plan from the resolved options; throws ConfigError for a combination the algorithm
  // cannot run, naming the keys.
  std::function<SyncPlan(const OptionValues&, const SyncSetup&)> plan;
};

// The algorithm's plan from its resolved options: the run's config resolved them once
// (RunConfig::algo_options); options built by hand go through with_defaults. A plan that reads a
// key nobody resolved throws Error (OptionValues::number).
SyncPlan sync_plan(const SyncAlgorithm& algorithm, const OptionValues& options,
                   const SyncSetup& setup);
// `given` with the algorithm's own keys resolved: declared defaults filled in, ranges checked, an
// undeclared key refused (resolve_options). For plans made outside a run's config (tests).
OptionValues with_defaults(const SyncAlgorithm& algorithm, const OptionValues& given);

const std::vector<SyncAlgorithm>& sync_algorithms();
// Throws ConfigError naming the closest algorithm when `name` is unknown.
const SyncAlgorithm& find_sync_algorithm(const std::string& name);

}  // namespace dsgd
