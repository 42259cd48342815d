// The simulator of P synchronous learners in one process. Each learner keeps its own parameters,
// BatchNorm buffers and momentum; every round each learner computes the gradient of its own next
// minibatch on the one shared model replica, then the algorithm's plan (sync_round.h) steps and
// averages them through an in-memory communicator.
//
// Simulated time: the learners' compute clock (sync_clock.h: each learner runs through its own
// Gamma minibatch times and waits only at a reduction, for its group's slowest) plus, for each
// reduction among n learners of M bytes each, alpha + beta * 2(n-1)/n * M with the (alpha, beta)
// of its level's link (ReductionPrices, engine/sync_learners.h, which re-timing prices with too).
#include <algorithm>
#include <cmath>
#include <memory>

#include "engine/sim/gradient_pool.h"
#include "engine/sim/simulator.h"
#include "engine/sim/simulators.h"
#include "engine/sim/sync_clock.h"
#include "engine/sync_learners.h"

namespace dsgd {

struct SyncKind;  // the tag of this file's Simulator
using SyncSimulator = Simulator<SyncKind>;

template <>
struct SyncSimulator::State {
  SyncPlan plan;
  std::vector<Learner> learners;
  std::vector<WorkerStream> streams;
  std::unique_ptr<InProcessCommunicator> communicator;
  std::unique_ptr<SyncClock> clock;
  std::unique_ptr<ReductionPrices> prices;
  std::unique_ptr<SyncTraffic> traffic;
  std::unique_ptr<GradientPool> pool;  // with sim.replicas > 1; last: destroyed first
};

template <>
SyncSimulator::Simulator(Training& training)
    : training_(training), state_(std::make_unique<State>()) {
  const RunConfig& c = training_.config();
  State& s = *state_;
  s.plan = sync_plan(*training_.algorithm().sync, c, training_.context().updates_per_epoch());
  s.communicator = std::make_unique<InProcessCommunicator>(c.workers, s.plan.group_sizes());
  s.traffic = std::make_unique<SyncTraffic>(s.plan.levels.size());
  const ClockPrices& prices = training_.context().clock_prices();
  s.clock = std::make_unique<SyncClock>(c, s.plan, prices.core_sharing);
  s.prices = std::make_unique<ReductionPrices>(s.plan, prices);
  FlatModel& model = training_.model();
  const LocalOptimizerOptions optimizer = local_optimizer_options(c);
  s.learners.reserve(static_cast<size_t>(c.workers));
  for (int64_t i = 0; i < c.workers; ++i) {
    s.learners.emplace_back(optimizer, model.params().detach(), model.buffers(), s.plan.outer);
    s.streams.push_back(training_.make_stream(i));
  }
  const int64_t replicas = training_.context().compute_plan().replicas;
  if (replicas > 1)
    s.pool = std::make_unique<GradientPool>(training_.context(), replicas, c.workers);
  training_.set_engine_checkpoint([&s](TensorMap& checkpoint) {
    for (size_t i = 0; i < s.learners.size(); ++i) {
      save_learner(checkpoint, static_cast<int64_t>(i), s.learners[i]);
    }
    s.traffic->save(checkpoint);
  });
}

template <>
SyncSimulator::~Simulator() {}

template <>
void SyncSimulator::restore(const TensorMap& checkpoint) {
  State& s = *state_;
  for (size_t i = 0; i < s.learners.size(); ++i) {
    restore_learner(checkpoint, static_cast<int64_t>(i), s.learners[i]);
  }
  s.traffic->restore(checkpoint);
}

template <>
void SyncSimulator::run() {
  State& s = *state_;
  const RunConfig& c = training_.config();
  FlatModel& model = training_.model();
  // Evaluations run their test pass on the replicas, idle between rounds.
  const ReplicaLoan loan(training_, s.pool.get());
  const int64_t learners = c.workers;
  torch::NoGradGuard no_grad;
  torch::Tensor loss_sum = torch::zeros({}, model.params().options());

  // A resumed run's clock is replayed to where it stopped: it is a function of the rounds alone.
  s.clock->advance_to(training_.updates_done());
  for (int64_t round = training_.updates_done(); round < training_.total_updates(); ++round) {
    loss_sum.zero_();
    // The learners' gradients are independent: with replicas they run in parallel, and their
    // losses are still summed in learner order.
    const torch::Device device = training_.context().device();
    for (int64_t i = 0; i < learners && s.pool; ++i) {
      State* state = &s;
      s.pool->submit(i, [state, i, round, device](ModelReplica& replica) {
        const size_t l = static_cast<size_t>(i);
        return learner_gradient(replica, device, state->learners[l],
                                state->streams[l].batch(round));
      });
    }
    for (int64_t i = 0; i < learners; ++i) {
      const size_t l = static_cast<size_t>(i);
      loss_sum.add_(s.pool ? s.pool->wait(i)
                           : learner_gradient(training_.context().replica(), device, s.learners[l],
                                              s.streams[l].batch(round)));
    }
    s.clock->advance(round);
    const bool evaluating = training_.evaluation_due(round + 1);
    std::map<std::string, double> spreads;  // at their largest: before this round's averaging
    RoundTraffic round_traffic = finish_round(s.plan, round + 1, training_.lr_at(round),
                                              c.average_momentum, s.learners, *s.communicator, [&] {
                                                if (evaluating)
                                                  spreads =
                                                      spread_columns(s.learners, *s.communicator);
                                              });
    SyncTraffic& t = *s.traffic;
    t.compute_time = s.clock->compute_time();
    if (round_traffic.level) {
      const double seconds =
          s.prices->add(0.0, *round_traffic.level, 1, SyncTraffic::volume(round_traffic));
      t.record(round_traffic, learners, seconds);
      t.comm_time += seconds;
    }

    std::map<std::string, double> row;
    if (evaluating) {
      average_learners_into(model, s.learners, *s.communicator, s.plan.average_buffers);
      if (spreads.empty()) spreads = spread_columns(s.learners, *s.communicator);
      row = evaluation_row(t, spreads);
      training_.report().traffic = t.columns();
    }
    torch::Tensor loss = loss_sum / static_cast<double>(learners);
    training_.after_update(round + 1, loss, t.compute_time + t.comm_time, model.params(),
                           [&row] { return row; });
  }
  training_.report().traffic = s.traffic->columns();
}

std::unique_ptr<Engine> make_sync_simulator(Training& training) {
  return std::make_unique<SyncSimulator>(training);
}

}  // namespace dsgd
