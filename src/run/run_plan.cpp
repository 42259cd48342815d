// The run plan and the per-family table; see run_plan.h.
#include "run/run_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/errors.h"
#include "engine/async_server.h"
#include "engine/ranks/rank_engines.h"
#include "engine/sim/simulators.h"
#include "engine/sync_learners.h"
#include "run/session.h"
#include "train/local_steps.h"

namespace dsgd {
namespace {

// What the algorithm's family decides about a run, for every family: the only place that
// branches on it outside the algorithms themselves.
struct FamilyEntry {
  AlgorithmFamily family;
  std::function<std::unique_ptr<Engine>(Training&)> build_simulator;
  std::function<std::unique_ptr<Engine>(Training&, World&)> build_ranks;  // empty: none
  int64_t (*ranks)(const RunConfig&);
  const char* ranks_are;
  // The mean over updates: with DyLU workers' exchanges differ in size (train/local_steps.h).
  double (*minibatches_per_update)(const RunConfig&);
  int64_t (*simulated_gradients)(const RunConfig&);  // computed at once in the simulator
  bool shared_batchnorm;  // simulated workers train one model's BatchNorm statistics
};

int64_t one(const RunConfig&) { return 1; }
double one_minibatch(const RunConfig&) { return 1.0; }
double one_per_learner(const RunConfig& c) { return static_cast<double>(c.workers); }
int64_t workers(const RunConfig& c) { return c.workers; }
int64_t workers_and_servers(const RunConfig& c) { return c.workers + c.servers; }

const std::vector<FamilyEntry>& family_table() {
  static const std::vector<FamilyEntry> table = {
      {AlgorithmFamily::kSingle,
       [](Training& t) { return make_single_worker(t); },
       {},
       one,
       "one",
       one_minibatch,
       one,
       false},
      // An asynchronous update applies one worker's message: one minibatch's gradient, or H
      // local steps' pseudo-gradient; N workers compute at once.
      {AlgorithmFamily::kAsync, [](Training& t) { return make_async_simulator(t); },
       make_async_ranks_engine, workers_and_servers, "one per worker and per server shard",
       mean_local_steps, workers, true},
      // A synchronous round takes one minibatch per learner.
      {AlgorithmFamily::kSync, [](Training& t) { return make_sync_simulator(t); },
       make_sync_ranks_engine, workers, "one per learner", one_per_learner, workers, false},
  };
  return table;
}

const FamilyEntry& entry_of(AlgorithmFamily family) {
  for (const FamilyEntry& entry : family_table()) {
    if (entry.family == family) return entry;
  }
  throw Error("run plan: an algorithm family without a table entry", "this is a dsgd bug");
}

// The bytes a rule holds as a function of the parameters P and workers N, measured on four tiny
// probes: every rule's state is bilinear in (P, N) (vectors of P per worker and shared), so the
// fit is exact up to a constant. Nothing of size P·N is allocated.
template <class Measure>
int64_t bilinear_bytes(Measure measure, int64_t params, int64_t n) {
  constexpr int64_t p0 = 64, n0 = 2;
  const double b11 = static_cast<double>(measure(p0, n0)), b21 = measure(2 * p0, n0),
               b12 = measure(p0, 2 * n0), b22 = measure(2 * p0, 2 * n0);
  const double per_pn = (b22 - b21 - b12 + b11) / static_cast<double>(p0 * n0);
  const double per_p = (b21 - b11) / static_cast<double>(p0) - per_pn * static_cast<double>(n0);
  const double per_n = (b12 - b11) / static_cast<double>(n0) - per_pn * static_cast<double>(p0);
  const double constant = b11 - per_p * p0 - per_n * n0 - per_pn * p0 * n0;
  const double p = static_cast<double>(params), w = static_cast<double>(n);
  return static_cast<int64_t>(std::max(0.0, constant + per_p * p + per_n * w + per_pn * p * w));
}

int64_t float_bytes(int64_t count) { return count * static_cast<int64_t>(sizeof(float)); }

// Floats of a learner's optimizer state for `params` parameters (SGD's velocity, AdamW's two
// moments, nothing for plain SGD), asked of the optimizer itself on a one-parameter probe.
int64_t optimizer_state_floats(const RunConfig& c, int64_t params) {
  LocalOptimizer probe(local_optimizer_options(c), torch::zeros({1}));
  return probe.state().defined() ? probe.state().numel() * params : 0;
}

}  // namespace

RunPlan plan_run(const RunConfig& config) {
  RunPlan plan;
  plan.algorithm = &find_algorithm(config.algo);
  plan.family = plan.algorithm->family;
  plan.on_ranks = config.on_ranks();
  const FamilyEntry& entry = entry_of(plan.family);
  if (plan.on_ranks && !entry.build_ranks) {
    throw ConfigError(
        fmt::format("algo = \"{}\" trains one worker; it has no MPI engine", config.algo),
        "use engine = \"sim\", or a distributed algorithm");
  }
  plan.ranks = plan.on_ranks ? entry.ranks(config) : 1;
  plan.ranks_are = entry.ranks_are;
  plan.shape.samples_per_update =
      std::llround(static_cast<double>(config.batch_size) * entry.minibatches_per_update(config));
  plan.shape.compute_jobs = plan.on_ranks ? 1 : entry.simulated_gradients(config);
  plan.shape.shared_batchnorm = !plan.on_ranks && entry.shared_batchnorm;
  plan.shape.asynchronous = plan.family == AlgorithmFamily::kAsync;
  if (plan.family == AlgorithmFamily::kSync) {
    // The innermost level's groups, where there is more than one level: what a cluster prices on
    // the link inside a host when they fit in one.
    const SyncPlan sync = sync_plan(*plan.algorithm->sync, config, /*steps_per_epoch=*/1);
    if (sync.levels.size() >= 2) plan.shape.group_size = sync.levels.front().group_size;
  }
  plan.build_simulator = entry.build_simulator;
  plan.build_ranks = entry.build_ranks;
  return plan;
}

MemoryEstimate estimate_memory(const RunPlan& plan, const TrainingContext& context, int rank) {
  const RunConfig& c = context.config();
  const int64_t params = context.model().num_params();
  MemoryEstimate estimate;
  const ComputePlan& compute = context.compute_plan();
  // The context's own model, plus the replicas the plan adds.
  estimate.replicas = compute.replica_bytes * std::max<int64_t>(1, compute.replicas);
  const DatasetPair& data = context.data();
  if (data.is_text()) {
    estimate.dataset =
        static_cast<int64_t>(data.text->train.nbytes() + data.text->validation.nbytes());
  } else {
    for (const Dataset* split : {&data.train, &data.test}) {
      estimate.dataset += static_cast<int64_t>(split->images.nbytes() + split->labels.nbytes());
    }
  }
  if (plan.family == AlgorithmFamily::kAsync) {
    const AsyncAlgorithm& algorithm = *plan.algorithm->async;
    const AsyncOptions options = async_options(c);
    const int64_t shards = plan.on_ranks ? c.servers : 1;
    const bool server_rank = !plan.on_ranks || rank < c.servers;
    if (server_rank) {
      // The rule's state, and what the server keeps per worker (θ̂_i and when it was sent).
      const int64_t rule = bilinear_bytes(
          [&](int64_t p, int64_t n) {
            return algorithm.make_server(options, torch::zeros({p}), n)->state_bytes();
          },
          params, c.workers);
      estimate.server = (rule + float_bytes(c.workers * params)) / shards;
    }
    const int64_t worker_rules = plan.on_ranks ? (server_rank ? 0 : 1) : c.workers;
    const int64_t per_worker = bilinear_bytes(
        [&](int64_t p, int64_t) {
          return algorithm.make_worker(options, 0, torch::zeros({p}))->state_bytes();
        },
        params, 1);
    // Each worker's rule state; an MPI worker's message buffer; in the simulator with several
    // replicas, each worker's gradient computed ahead.
    const bool ahead = !plan.on_ranks && compute.replicas > 1;
    estimate.workers = worker_rules * (per_worker + float_bytes(plan.on_ranks ? params : 0)) +
                       (ahead ? float_bytes(c.workers * params) : 0);
  } else if (plan.family == AlgorithmFamily::kSync) {
    // Each learner: [grad | buffers | params | optimizer state].
    const int64_t learner =
        float_bytes(2 * params + context.model().num_buffers() + optimizer_state_floats(c, params));
    estimate.workers = (plan.on_ranks ? 1 : c.workers) * learner;
  } else {
    estimate.workers = float_bytes(optimizer_state_floats(c, params));
  }
  return estimate;
}

void check_memory(const MemoryEstimate& estimate, int64_t available_bytes,
                  const RunConfig& config) {
  if (available_bytes <= 0 || estimate.total() <= available_bytes) return;
  auto gb = [](int64_t bytes) { return static_cast<double>(bytes) / 1e9; };
  throw ConfigError(
      fmt::format("this run needs about {:.2f} GB of memory and {:.2f} GB are available: server "
                  "state {:.2f} GB, workers' state {:.2f} GB, model replicas {:.2f} GB, dataset "
                  "{:.2f} GB",
                  gb(estimate.total()), gb(available_bytes), gb(estimate.server),
                  gb(estimate.workers), gb(estimate.replicas), gb(estimate.dataset)),
      fmt::format(
          "lower workers (now {}){}{}", config.workers,
          config.sim_replicas != 1 ? ", set sim.replicas = 1" : "",
          config.on_ranks() ? "" : ", or spread the workers over MPI ranks (engine = \"mpi\")"));
}

}  // namespace dsgd
