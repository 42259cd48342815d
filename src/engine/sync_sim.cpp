// Synchronous learners simulator; see sync_sim.h.
#include "engine/sync_sim.h"

#include <cmath>

#include "algos/sync_round.h"
#include "engine/timing.h"

namespace dsgd {
namespace {

// Telemetry totals since the start of the run (cumulative, so that a metrics row says what
// reaching its accuracy cost).
struct Traffic {
  double local_reductions = 0;
  double global_reductions = 0;
  double local_bytes = 0;   // all learners together, ring volume
  double global_bytes = 0;  // all learners together, ring volume
  double compute_time = 0;
  double comm_time = 0;

  std::map<std::string, double> columns() const {
    return {{"local_reductions", local_reductions}, {"global_reductions", global_reductions},
            {"local_bytes", local_bytes},           {"global_bytes", global_bytes},
            {"compute_time", compute_time},         {"comm_time", comm_time}};
  }
};

}  // namespace

struct SyncSimulator::State {
  SyncPlan plan;
  std::vector<Learner> learners;
  std::vector<WorkerStream> streams;
  std::unique_ptr<InProcessCommunicator> communicator;
  std::unique_ptr<TimingModel> timing;
  Traffic traffic;
};

SyncSimulator::SyncSimulator(Session& session)
    : session_(session), state_(std::make_unique<State>()) {
  const RunConfig& c = session_.config();
  State& s = *state_;
  SyncOptions options{c.workers, c.hier_group_size, c.hier_local_period, c.hier_global_period,
                      c.kavg_period};
  s.plan = find_sync_algorithm(c.algo).plan(options);
  s.communicator = std::make_unique<InProcessCommunicator>(c.workers, s.plan.group_size);
  s.timing = std::make_unique<TimingModel>(c, c.workers);
  FlatModel& model = session_.model();
  SgdOptions sgd{c.momentum, c.nesterov, c.weight_decay};
  s.learners.reserve(static_cast<size_t>(c.workers));
  for (int64_t i = 0; i < c.workers; ++i) {
    s.learners.emplace_back(sgd, model.params().detach(), model.buffers());
    s.streams.push_back(session_.make_stream(i));
  }
  session_.set_engine_checkpoint([&s](TensorMap& checkpoint) {
    for (size_t i = 0; i < s.learners.size(); ++i) {
      const std::string prefix = "engine/learner/" + std::to_string(i) + "/";
      checkpoint[prefix + "params"] = s.learners[i].params;
      checkpoint[prefix + "buffers"] = s.learners[i].buffers;
      if (s.learners[i].optimizer.momentum_buffer().defined()) {
        checkpoint[prefix + "velocity"] = s.learners[i].optimizer.momentum_buffer();
      }
    }
    for (const auto& [name, value] : s.traffic.columns()) {
      checkpoint["engine/traffic/" + name] = torch::tensor(value, torch::kDouble);
    }
  });
}

SyncSimulator::~SyncSimulator() = default;

void SyncSimulator::restore(const TensorMap& checkpoint) {
  State& s = *state_;
  torch::NoGradGuard no_grad;
  for (size_t i = 0; i < s.learners.size(); ++i) {
    const std::string prefix = "engine/learner/" + std::to_string(i) + "/";
    s.learners[i].params.copy_(checkpoint_entry(checkpoint, prefix + "params"));
    s.learners[i].buffers.copy_(checkpoint_entry(checkpoint, prefix + "buffers"));
    if (s.learners[i].optimizer.momentum_buffer().defined()) {
      s.learners[i].optimizer.momentum_buffer().copy_(
          checkpoint_entry(checkpoint, prefix + "velocity"));
    }
  }
  auto total = [&](const std::string& name) {
    return checkpoint_entry(checkpoint, "engine/traffic/" + name).item<double>();
  };
  Traffic& t = s.traffic;
  t.local_reductions = total("local_reductions");
  t.global_reductions = total("global_reductions");
  t.local_bytes = total("local_bytes");
  t.global_bytes = total("global_bytes");
  t.compute_time = total("compute_time");
  t.comm_time = total("comm_time");
}

void SyncSimulator::run() {
  State& s = *state_;
  const RunConfig& c = session_.config();
  FlatModel& model = session_.model();
  const int64_t learners = c.workers;
  torch::NoGradGuard no_grad;
  torch::Tensor loss_sum = torch::zeros({}, model.params().options());

  for (int64_t round = session_.updates_done(); round < session_.total_updates(); ++round) {
    double slowest = 0.0;
    loss_sum.zero_();
    for (int64_t i = 0; i < learners; ++i) {
      Learner& learner = s.learners[static_cast<size_t>(i)];
      model.params().copy_(learner.params);
      model.buffers().copy_(learner.buffers);
      {
        torch::AutoGradMode enable_grad(true);
        loss_sum.add_(session_.compute_gradient(s.streams[static_cast<size_t>(i)].batch(round)));
      }
      learner.grad.copy_(model.grads());
      learner.buffers.copy_(model.buffers());  // the forward pass updated the running statistics
      slowest = std::max(slowest, s.timing->duration(i, round));
    }
    RoundTraffic round_traffic = finish_round(s.plan, round + 1, session_.lr_at(round),
                                              c.average_momentum, s.learners, *s.communicator);

    Traffic& t = s.traffic;
    t.compute_time += slowest;
    if (round_traffic.level) {
      const bool global = *round_traffic.level == AverageLevel::kGlobal;
      double volume = ring_allreduce_bytes(round_traffic.learners_per_reduction,
                                           round_traffic.bytes_per_learner);
      double alpha = global ? c.comm_global_alpha : c.comm_group_alpha;
      double beta = global ? c.comm_global_beta : c.comm_group_beta;
      t.comm_time += alpha + beta * volume;
      (global ? t.global_reductions : t.local_reductions) += 1;
      (global ? t.global_bytes : t.local_bytes) += volume * static_cast<double>(learners);
    }

    std::map<std::string, double> row;
    if (session_.evaluation_due(round + 1)) {
      // The model a user would take away: the average of all learners (which a global
      // reduction would produce), and how far the learners have drifted from it.
      std::vector<torch::Tensor> params, buffers;
      for (auto& learner : s.learners) {
        params.push_back(learner.params);
        buffers.push_back(learner.buffers);
      }
      model.params().copy_(torch::stack(params).mean(0));
      model.buffers().copy_(torch::stack(buffers).mean(0));
      double spread = 0.0;
      for (auto& p : params) spread += (p - model.params()).square().mean().item<double>();
      row = t.columns();
      row["learner_spread"] = std::sqrt(spread / static_cast<double>(learners));
      session_.summary_extra()["traffic"] = t.columns();
    }
    torch::Tensor loss = loss_sum / static_cast<double>(learners);
    session_.after_update(round + 1, loss, t.compute_time + t.comm_time, model.params(),
                          [&row] { return row; });
  }
  session_.summary_extra()["traffic"] = s.traffic.columns();
}

}  // namespace dsgd
