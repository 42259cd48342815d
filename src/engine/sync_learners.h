// What both synchronous engines (the P-learner simulator and the MPI learners) do the same way
// around finish_round: computing a learner's gradient on the shared model replica, counting
// traffic and pricing it with the communication-cost model, and checkpointing learners under the
// same names, so that a checkpoint of one engine reads like the other's.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "algos/sync_algorithm.h"
#include "algos/sync_round.h"
#include "train/clock_prices.h"
#include "train/training.h"

namespace dsgd {

// Ring all-reduce volume: the bytes each of n learners sends to all-reduce M bytes.
inline double ring_allreduce_bytes(int64_t n, int64_t bytes) {
  return n <= 1 ? 0.0
                : 2.0 * static_cast<double>(n - 1) / static_cast<double>(n) *
                      static_cast<double>(bytes);
}

// The run's synchronous algorithm's plan (for `steps_per_epoch` rounds an epoch, with the config's
// options and bn_policy), and the learners' optimizer, from the config.
SyncPlan sync_plan(const SyncAlgorithm& algorithm, const RunConfig& config,
                   int64_t steps_per_epoch);
LocalOptimizerOptions local_optimizer_options(const RunConfig& config);

// What the synchronous family's reductions cost in simulated units: at each averaging level, α per
// all-reduce plus β per byte of each learner's ring volume. The one formula of the synchronous
// clock's communication: the simulator prices each round's reduction with it, and re-timing a
// finished run on a cluster (experiment/retime.h) prices the counts the run recorded with it.
class ReductionPrices {
 public:
  // Levels innermost first, the last the global one: level l at `own[l]` where given (hier.levels'
  // own link costs), else at `prices`' for its place: the global link for the last, the
  // in-group link for the first of two or more, a middle level's price between (the in-group
  // link's where the prices have none).
  ReductionPrices(size_t levels, const ClockPrices& prices,
                  const std::vector<std::optional<LinkCost>>& own = {});
  // `plan`'s levels, with the costs its levels give.
  ReductionPrices(const SyncPlan& plan, const ClockPrices& prices);

  // `units` and the price of `reductions` all-reduces at `level` in which `senders` learners
  // sent `bytes` together (each its share, at ring volume): α added first, then β, so that the
  // simulator and re-timing round alike.
  double add(double units, size_t level, double reductions, double bytes,
             double senders = 1) const {
    const LinkCost& cost = levels_.at(level);
    units += cost.alpha * reductions;
    return units + cost.beta * bytes / senders;
  }
  size_t levels() const { return levels_.size(); }

 private:
  std::vector<LinkCost> levels_;
};

// Totals since the start of the run (cumulative, so that a metrics row says what reaching its
// accuracy cost), per averaging level. Bytes are what all learners send together, at ring
// all-reduce volume.
class SyncTraffic {
 public:
  explicit SyncTraffic(size_t levels) : levels_(levels) {}

  // Counts a round's reduction among `learners` learners in all, which took `seconds` (simulated
  // or measured) of communication.
  void record(const RoundTraffic& round, int64_t learners, double seconds);
  // Ring volume each learner sends in the round's reduction.
  static double volume(const RoundTraffic& round);

  double compute_time = 0;
  double comm_time = 0;

  // local_* (every level inside the outermost, summed) and global_* (the outermost), compute and
  // communication time; with two levels or more, also level<l>_reductions, _bytes and
  // _comm_time for each level l = 1 (innermost) .. L.
  std::map<std::string, double> columns() const;
  void save(TensorMap& checkpoint) const;
  void restore(const TensorMap& checkpoint);

 private:
  struct Link {
    double reductions = 0;
    double bytes = 0;
    double comm_time = 0;
  };
  // Every figure of a level with its column suffix: the one list columns, save and restore use.
  static constexpr std::pair<const char*, double Link::*> kLinkFields[] = {
      {"reductions", &Link::reductions}, {"bytes", &Link::bytes}, {"comm_time", &Link::comm_time}};
  std::vector<Link> levels_;
};

// The metrics column (and checkpoint name) of one level's figure (SyncTraffic's "reductions",
// "bytes", "comm_time"): level<l>_<what>, `level` counted from 0 and l from 1.
std::string level_column(size_t level, const char* what);

// Loads the learner into `replica`, computes the gradient of `batch` into learner.grad, keeps the
// BatchNorm statistics the forward pass updated; returns the loss.
torch::Tensor learner_gradient(ModelReplica& replica, torch::Device device, Learner& learner,
                               const Batch& batch);

// The model a user would take away, into `model`: the mean of every learner's parameters and
// BatchNorm buffers (what a global reduction would produce; with `average_buffers` false, the
// buffers of this process's first learner, learner 0 on rank 0). `learners` are this process's
// (all P in the simulator, one per MPI rank); the communicator's global average takes in the
// others, so both engines compute it the same way.
void average_learners_into(FlatModel& model, std::vector<Learner>& learners,
                           Communicator& communicator, bool average_buffers = true);

// How far the learners have drifted from their group's mean at `level`:
// sqrt(mean over learners of mean((θ_j − θ̄_group(j))²)).
double learner_spread(std::vector<Learner>& learners, Communicator& communicator, size_t level);

// The spread columns: learner_spread (around the global mean) and, with two levels or more,
// level<l>_spread for every level. The engines measure them just before an evaluation round's
// averaging (finish_round's before_averaging), where the learners are furthest apart, or at the
// evaluation when that round does not average.
std::map<std::string, double> spread_columns(std::vector<Learner>& learners,
                                             Communicator& communicator);

// The evaluation row of a synchronous engine: the traffic columns and the spread columns.
std::map<std::string, double> evaluation_row(const SyncTraffic& traffic,
                                             const std::map<std::string, double>& spreads);

// Checkpoint entries of learner `index`: engine/learner/<index>/{params,buffers,velocity}.
void save_learner(TensorMap& checkpoint, int64_t index, Learner& learner);
void restore_learner(const TensorMap& checkpoint, int64_t index, Learner& learner);

}  // namespace dsgd
