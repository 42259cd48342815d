// Synchronous learners on ranks (engine = "mpi": MPI processes): every rank is one learner of the
// same plan the simulator follows (sync_round.h), averaging through the world's learner
// communicator (MpiCommunicator on MPI). The losses are all-reduced every round, so
// every rank sees the same mean loss and stops on divergence at the same update. At each
// evaluation the learners' average is all-reduced for rank 0 to evaluate, and every learner's
// state is gathered to rank 0 for a checkpoint in the simulator's format.
#include <fmt/format.h>

#include <chrono>
#include <cmath>

#include "core/errors.h"
#include "core/interrupt.h"
#include "engine/ranks/rank_engines.h"
#include "engine/sync_learners.h"

namespace dsgd {

class SyncRanksEngine : public Engine {
 public:
  // Throws ConfigError unless the world has `workers` ranks.
  SyncRanksEngine(Training& training, World& world);
  ~SyncRanksEngine() override;
  void restore(const TensorMap& checkpoint) override;
  void run() override;

 private:
  struct State;
  Training& training_;
  World& world_;
  std::unique_ptr<State> state_;
};
namespace {

// One count per signal of kInterruptSignals: 1 for `signal`, 0 for the others.
torch::Tensor signal_counts(int signal) {
  torch::Tensor counts =
      torch::zeros({static_cast<int64_t>(std::size(kInterruptSignals))}, torch::kDouble);
  for (size_t i = 0; i < std::size(kInterruptSignals); ++i) {
    if (kInterruptSignals[i] == signal) counts[static_cast<int64_t>(i)] = 1.0;
  }
  return counts;
}

// The signal the job stops with, from every rank's counts summed (0: none).
int agreed_signal(const torch::Tensor& summed_counts) {
  for (size_t i = 0; i < std::size(kInterruptSignals); ++i) {
    if (summed_counts[static_cast<int64_t>(i)].item<double>() > 0) return kInterruptSignals[i];
  }
  return 0;
}

}  // namespace

struct SyncRanksEngine::State {
  SyncPlan plan;
  std::vector<Learner> learner;  // this rank's, alone
  std::unique_ptr<WorkerStream> stream;
  std::unique_ptr<RankCommunicator> communicator;
  std::unique_ptr<SyncTraffic> traffic;
  TensorMap gathered;  // every learner's state at the last evaluation (rank 0)
};

SyncRanksEngine::SyncRanksEngine(Training& training, World& world)
    : training_(training), world_(world), state_(std::make_unique<State>()) {
  const RunConfig& c = training_.config();
  world_.watch(c.mpi_hang_timeout,
               [](int rank) { return fmt::format("learner {} (rank {})", rank, rank); });
  State& s = *state_;
  s.plan = sync_plan(*training_.algorithm().sync, c, training_.context().updates_per_epoch());
  s.communicator = world_.learner_communicator(s.plan.group_sizes(), s.plan.groups_follow_hosts,
                                               training_.context().device(),
                                               c.allreduce == AllreduceAlgorithm::kRankOrder);
  s.traffic = std::make_unique<SyncTraffic>(s.plan.levels.size());
  FlatModel& model = training_.model();
  s.learner.emplace_back(local_optimizer_options(c), model.params().detach(), model.buffers(),
                         s.plan.outer);
  s.stream = std::make_unique<WorkerStream>(training_.make_stream(world_.rank()));
  training_.set_engine_checkpoint([&s](TensorMap& checkpoint) {
    for (auto& [key, tensor] : s.gathered) checkpoint[key] = tensor;
    s.traffic->save(checkpoint);
  });
}

SyncRanksEngine::~SyncRanksEngine() = default;

void SyncRanksEngine::restore(const TensorMap& checkpoint) {
  restore_learner(checkpoint, world_.rank(), state_->learner.front());
  state_->traffic->restore(checkpoint);
}

void SyncRanksEngine::run() {
  State& s = *state_;
  const RunConfig& c = training_.config();
  FlatModel& model = training_.model();
  Learner& learner = s.learner.front();
  RankCommunicator& comm = *s.communicator;
  const double learners = static_cast<double>(world_.size());
  torch::NoGradGuard no_grad;
  using Clock = std::chrono::steady_clock;
  auto seconds = [](Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
  };

  // Gathers one tensor of every learner to rank 0, as learner <i>'s checkpoint entry `name`.
  // (At evaluations only: a GPU learner's tensors come to the host through pageable memory.)
  auto gather = [&](const torch::Tensor& learner_tensor, const std::string& name) {
    if (!learner_tensor.defined()) return;
    const torch::Tensor all = world_.gather_to_root(learner_tensor);
    if (world_.rank() != 0) return;
    for (int i = 0; i < world_.size(); ++i) {
      s.gathered["engine/learner/" + std::to_string(i) + "/" + name] = all[i];
    }
  };

  for (int64_t round = training_.updates_done(); round < training_.total_updates(); ++round) {
    Clock::time_point t0 = Clock::now();
    torch::Tensor loss =
        learner_gradient(training_.context().replica(), training_.context().device(), learner,
                         s.stream->batch(round))
            .to(torch::kCPU, torch::kDouble)
            .reshape({1});
    // The loss travels with a count of each stop signal the ranks received: one sum, and every
    // rank knows whether (and with which signal) the job stops after this round.
    torch::Tensor loss_and_signals = torch::cat({loss, signal_counts(pending_interrupt())});
    Clock::time_point t1 = Clock::now();
    const double collectives_before = comm.seconds_in_collectives();
    const bool evaluating = training_.evaluation_due(round + 1);
    std::map<std::string, double> spreads;  // at their largest: before this round's averaging
    // Measuring them is telemetry: its collectives and time are left out of the round's.
    double measuring = 0.0, measuring_collectives = 0.0;
    RoundTraffic round_traffic = finish_round(
        s.plan, round + 1, training_.lr_at(round), c.average_momentum, s.learner, comm, [&] {
          if (!evaluating) return;
          const Clock::time_point start = Clock::now();
          const double collectives = comm.seconds_in_collectives();
          spreads = spread_columns(s.learner, comm);
          measuring_collectives = comm.seconds_in_collectives() - collectives;
          measuring = seconds(start, Clock::now());
        });
    const double round_seconds =
        comm.seconds_in_collectives() - collectives_before - measuring_collectives;
    comm.sum(comm.global_level(), loss_and_signals);
    loss = loss_and_signals.narrow(0, 0, 1);
    const int stop = agreed_signal(loss_and_signals.narrow(0, 1, std::size(kInterruptSignals)));
    Clock::time_point t2 = Clock::now();
    SyncTraffic& t = *s.traffic;
    t.record(round_traffic, world_.size(), round_seconds);
    t.compute_time += seconds(t0, t1);
    t.comm_time += seconds(t1, t2) - measuring;

    std::map<std::string, double> row;
    if (evaluating || stop != 0) {
      // Every learner's state, for the checkpoint an evaluation or a stop writes.
      gather(learner.params, "params");
      gather(learner.buffers, "buffers");
      gather(learner.optimizer.state(), "velocity");
      if (learner.outer) {
        gather(learner.outer->anchor(), "outer_anchor");
        gather(learner.outer->momentum_buffer(), "outer_momentum");
      }
    }
    if (evaluating) {
      // The learners' average goes into the replica for rank 0 to evaluate.
      average_learners_into(model, s.learner, comm, s.plan.average_buffers);
      if (spreads.empty()) spreads = spread_columns(s.learner, comm);
      row = evaluation_row(t, spreads);
      training_.report().traffic = t.columns();
    }
    training_.request_stop(stop);
    training_.after_update(round + 1, (loss / learners).to(torch::kFloat).squeeze(),
                           t.compute_time + t.comm_time, model.params(), [&row] { return row; });
  }
  training_.report().traffic = s.traffic->columns();
}

std::unique_ptr<Engine> make_sync_ranks_engine(Training& training, World& world) {
  return std::make_unique<SyncRanksEngine>(training, world);
}

}  // namespace dsgd
