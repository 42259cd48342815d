// Shared pieces of the synchronous engines; see sync_learners.h.
#include "engine/sync_learners.h"

#include <cmath>

namespace dsgd {

SyncPlan sync_plan(const RunConfig& c, int64_t steps_per_epoch) {
  return sync_plan(find_sync_algorithm(c.algo), c.algo_options,
                   {c.workers, c.engine == "mpi", steps_per_epoch});
}

SgdOptions sgd_options(const RunConfig& c) { return {c.momentum, c.nesterov, c.weight_decay}; }

double SyncTraffic::record(const RoundTraffic& round, int64_t learners, const RunConfig& config) {
  if (!round.level) return 0.0;
  const bool is_global = *round.level == AverageLevel::kGlobal;
  double volume = ring_allreduce_bytes(round.learners_per_reduction, round.bytes_per_learner);
  Link& link = is_global ? global : local;
  link.reductions += 1;
  link.bytes += volume * static_cast<double>(learners);
  return is_global ? config.comm_global_alpha + config.comm_global_beta * volume
                   : config.comm_group_alpha + config.comm_group_beta * volume;
}

std::map<std::string, double> SyncTraffic::columns() const {
  std::map<std::string, double> row;
  for (const auto& [name, total] : totals(*this)) row[name] = *total;
  return row;
}

void SyncTraffic::save(TensorMap& checkpoint) const {
  for (const auto& [name, value] : columns()) {
    checkpoint["engine/traffic/" + name] = torch::tensor(value, torch::kDouble);
  }
}

void SyncTraffic::restore(const TensorMap& checkpoint) {
  for (const auto& [name, total] : totals(*this)) {
    *total = checkpoint_entry(checkpoint, std::string("engine/traffic/") + name).item<double>();
  }
}

torch::Tensor learner_gradient(ModelReplica& replica, torch::Device device, Learner& learner,
                               const Batch& batch) {
  FlatModel& model = *replica.flat;
  torch::NoGradGuard no_grad;
  model.params().copy_(learner.params);
  model.buffers().copy_(learner.buffers);
  torch::Tensor loss = [&] {
    torch::AutoGradMode enable_grad(true);
    return replica.compute_gradient(batch, device);
  }();
  learner.grad.copy_(model.grads());
  learner.buffers.copy_(model.buffers());
  return loss;
}

double average_learners_into(FlatModel& model, std::vector<Learner>& learners,
                             Communicator& communicator) {
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> means;  // [buffers | params] of each learner, averaged in place
  for (auto& learner : learners) means.push_back(learner.averaged(false).clone());
  communicator.average(AverageLevel::kGlobal, means);
  const int64_t b = model.buffers().numel();
  model.buffers().copy_(means.front().narrow(0, 0, b));
  model.params().copy_(means.front().narrow(0, b, model.params().numel()));
  std::vector<torch::Tensor> drifts;
  for (auto& learner : learners) {
    drifts.push_back(
        (learner.params - model.params()).square().mean().to(torch::kDouble).reshape({1}));
  }
  communicator.average(AverageLevel::kGlobal, drifts);
  return std::sqrt(drifts.front().item<double>());
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
  if (learner.outer) {
    checkpoint[learner_key(index, "outer_anchor")] = learner.outer->anchor().clone();
    if (learner.outer->momentum_buffer().defined()) {
      checkpoint[learner_key(index, "outer_momentum")] = learner.outer->momentum_buffer().clone();
    }
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
  if (learner.outer) {
    learner.outer->anchor().copy_(checkpoint_entry(checkpoint, learner_key(index, "outer_anchor")));
    if (learner.outer->momentum_buffer().defined()) {
      learner.outer->momentum_buffer().copy_(
          checkpoint_entry(checkpoint, learner_key(index, "outer_momentum")));
    }
  }
}

}  // namespace dsgd
