// Shared pieces of the synchronous engines; see sync_learners.h.
#include "engine/sync_learners.h"

namespace dsgd {

SyncPlan sync_plan(const RunConfig& c) {
  return sync_plan(find_sync_algorithm(c.algo), c.algo_options, {c.workers, c.engine == "mpi"});
}

SgdOptions sgd_options(const RunConfig& c) { return {c.momentum, c.nesterov, c.weight_decay}; }

double SyncTraffic::record(const RoundTraffic& round, int64_t learners, const RunConfig& config) {
  if (!round.level) return 0.0;
  const bool global = *round.level == AverageLevel::kGlobal;
  double volume = ring_allreduce_bytes(round.learners_per_reduction, round.bytes_per_learner);
  (global ? global_reductions : local_reductions) += 1;
  (global ? global_bytes : local_bytes) += volume * static_cast<double>(learners);
  return global ? config.comm_global_alpha + config.comm_global_beta * volume
                : config.comm_group_alpha + config.comm_group_beta * volume;
}

std::map<std::string, double> SyncTraffic::columns() const {
  return {{"local_reductions", local_reductions}, {"global_reductions", global_reductions},
          {"local_bytes", local_bytes},           {"global_bytes", global_bytes},
          {"compute_time", compute_time},         {"comm_time", comm_time}};
}

void SyncTraffic::save(TensorMap& checkpoint) const {
  for (const auto& [name, value] : columns()) {
    checkpoint["engine/traffic/" + name] = torch::tensor(value, torch::kDouble);
  }
}

void SyncTraffic::restore(const TensorMap& checkpoint) {
  auto total = [&](const std::string& name) {
    return checkpoint_entry(checkpoint, "engine/traffic/" + name).item<double>();
  };
  local_reductions = total("local_reductions");
  global_reductions = total("global_reductions");
  local_bytes = total("local_bytes");
  global_bytes = total("global_bytes");
  compute_time = total("compute_time");
  comm_time = total("comm_time");
}

torch::Tensor learner_gradient(Session& session, Learner& learner, const Batch& batch) {
  FlatModel& model = session.model();
  torch::NoGradGuard no_grad;
  model.params().copy_(learner.params);
  model.buffers().copy_(learner.buffers);
  torch::Tensor loss = [&] {
    torch::AutoGradMode enable_grad(true);
    return session.compute_gradient(batch);
  }();
  learner.grad.copy_(model.grads());
  learner.buffers.copy_(model.buffers());
  return loss;
}

namespace {
std::string learner_key(int64_t index, const char* name) {
  return "engine/learner/" + std::to_string(index) + "/" + name;
}
}  // namespace

void save_learner(TensorMap& checkpoint, int64_t index, Learner& learner) {
  // Copies: the views alone would write each learner's whole block, gradient included.
  checkpoint[learner_key(index, "params")] = learner.params.clone();
  checkpoint[learner_key(index, "buffers")] = learner.buffers.clone();
  if (learner.optimizer.momentum_buffer().defined()) {
    checkpoint[learner_key(index, "velocity")] = learner.optimizer.momentum_buffer().clone();
  }
}

void restore_learner(const TensorMap& checkpoint, int64_t index, Learner& learner) {
  torch::NoGradGuard no_grad;
  learner.params.copy_(checkpoint_entry(checkpoint, learner_key(index, "params")));
  learner.buffers.copy_(checkpoint_entry(checkpoint, learner_key(index, "buffers")));
  if (learner.optimizer.momentum_buffer().defined()) {
    learner.optimizer.momentum_buffer().copy_(
        checkpoint_entry(checkpoint, learner_key(index, "velocity")));
  }
}

}  // namespace dsgd
