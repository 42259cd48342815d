// Shared pieces of the synchronous engines; see sync_learners.h.
#include "engine/sync_learners.h"

#include <cmath>

namespace dsgd {

SyncPlan sync_plan(const SyncAlgorithm& algorithm, const RunConfig& c, int64_t steps_per_epoch) {
  SyncPlan plan = sync_plan(algorithm, c.algo_options, {c.workers, c.on_ranks(), steps_per_epoch});
  plan.average_buffers = c.bn_policy == BnPolicy::kAverage;
  return plan;
}

LocalOptimizerOptions local_optimizer_options(const RunConfig& c) {
  LocalOptimizerOptions options(
      SgdOptions{c.momentum, c.nesterov, c.weight_decay, c.lr_in_velocity});
  options.kind = c.optimizer;
  options.adamw = {c.adam_beta1, c.adam_beta2, c.adam_eps, c.weight_decay};
  options.clip_norm = c.grad_clip;
  return options;
}

ReductionPrices::ReductionPrices(size_t levels, const ClockPrices& prices,
                                 const std::vector<std::optional<LinkCost>>& own) {
  for (size_t l = 0; l < levels; ++l) {
    if (l < own.size() && own[l]) {
      levels_.push_back(*own[l]);
    } else if (l + 1 == levels) {
      levels_.push_back(prices.global);
    } else if (l > 0 && l - 1 < prices.middle.size()) {
      levels_.push_back(prices.middle[l - 1]);
    } else {
      levels_.push_back(prices.group);
    }
  }
}

ReductionPrices::ReductionPrices(const SyncPlan& plan, const ClockPrices& prices)
    : ReductionPrices(plan.levels.size(), prices, [&plan] {
        std::vector<std::optional<LinkCost>> own;
        for (const AveragingLevel& level : plan.levels) own.push_back(level.cost);
        return own;
      }()) {}

double SyncTraffic::volume(const RoundTraffic& round) {
  return ring_allreduce_bytes(round.learners_per_reduction, round.bytes_per_learner);
}

void SyncTraffic::record(const RoundTraffic& round, int64_t learners, double seconds) {
  if (!round.level) return;
  Link& link = levels_.at(*round.level);
  link.reductions += 1;
  link.bytes += volume(round) * static_cast<double>(learners);
  link.comm_time += seconds;
}

std::string level_column(size_t level, const char* what) {
  return "level" + std::to_string(level + 1) + "_" + what;
}

std::map<std::string, double> SyncTraffic::columns() const {
  std::map<std::string, double> row = {{"local_reductions", 0.0},
                                       {"local_bytes", 0.0},
                                       {"compute_time", compute_time},
                                       {"comm_time", comm_time}};
  for (size_t l = 0; l + 1 < levels_.size(); ++l) {
    row["local_reductions"] += levels_[l].reductions;
    row["local_bytes"] += levels_[l].bytes;
  }
  row["global_reductions"] = levels_.back().reductions;
  row["global_bytes"] = levels_.back().bytes;
  if (levels_.size() >= 2) {
    for (size_t l = 0; l < levels_.size(); ++l) {
      for (const auto& [what, field] : kLinkFields) row[level_column(l, what)] = levels_[l].*field;
    }
  }
  return row;
}

void SyncTraffic::save(TensorMap& checkpoint) const {
  auto put = [&checkpoint](const std::string& name, double value) {
    checkpoint["engine/traffic/" + name] = torch::tensor(value, torch::kDouble);
  };
  put("compute_time", compute_time);
  put("comm_time", comm_time);
  for (size_t l = 0; l < levels_.size(); ++l) {
    for (const auto& [what, field] : kLinkFields) put(level_column(l, what), levels_[l].*field);
  }
}

void SyncTraffic::restore(const TensorMap& checkpoint) {
  auto get = [&checkpoint](const std::string& name) {
    return checkpoint_entry(checkpoint, "engine/traffic/" + name).item<double>();
  };
  compute_time = get("compute_time");
  comm_time = get("comm_time");
  for (size_t l = 0; l < levels_.size(); ++l) {
    for (const auto& [what, field] : kLinkFields) levels_[l].*field = get(level_column(l, what));
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

namespace {

// sqrt(mean over learners of mean((θ_j − means[j])²)), over every learner of the run.
double spread_around(std::vector<Learner>& learners, const std::vector<torch::Tensor>& means,
                     Communicator& communicator) {
  std::vector<torch::Tensor> drifts;
  for (size_t j = 0; j < learners.size(); ++j) {
    drifts.push_back(
        (learners[j].params - means[j]).square().mean().to(torch::kDouble).reshape({1}));
  }
  communicator.average(communicator.global_level(), drifts);
  return std::sqrt(drifts.front().item<double>());
}

}  // namespace

void average_learners_into(FlatModel& model, std::vector<Learner>& learners,
                           Communicator& communicator, bool average_buffers) {
  torch::NoGradGuard no_grad;
  // [buffers | params] (or [params]) of each learner, averaged in place
  std::vector<torch::Tensor> means;
  for (auto& learner : learners) means.push_back(learner.averaged(false, average_buffers).clone());
  communicator.average(communicator.global_level(), means);
  const int64_t b = average_buffers ? model.buffers().numel() : 0;
  model.buffers().copy_(average_buffers ? means.front().narrow(0, 0, b) : learners.front().buffers);
  model.params().copy_(means.front().narrow(0, b, model.params().numel()));
}

double learner_spread(std::vector<Learner>& learners, Communicator& communicator, size_t level) {
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> means;
  for (auto& learner : learners) means.push_back(learner.params.clone());
  communicator.average(level, means);
  return spread_around(learners, means, communicator);
}

std::map<std::string, double> spread_columns(std::vector<Learner>& learners,
                                             Communicator& communicator) {
  std::map<std::string, double> columns;
  const double global = learner_spread(learners, communicator, communicator.global_level());
  columns["learner_spread"] = global;
  if (communicator.levels() >= 2) {
    for (size_t l = 0; l + 1 < communicator.levels(); ++l) {
      columns[level_column(l, "spread")] = learner_spread(learners, communicator, l);
    }
    columns[level_column(communicator.global_level(), "spread")] = global;
  }
  return columns;
}

std::map<std::string, double> evaluation_row(const SyncTraffic& traffic,
                                             const std::map<std::string, double>& spreads) {
  std::map<std::string, double> row = traffic.columns();
  row.insert(spreads.begin(), spreads.end());
  return row;
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
  // "velocity" also for AdamW's [m | v]: the config a run resumes with has the same optimizer.
  if (learner.optimizer.state().defined()) {
    checkpoint[learner_key(index, "velocity")] = learner.optimizer.state().clone();
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
  if (learner.optimizer.state().defined()) {
    learner.optimizer.state().copy_(checkpoint_entry(checkpoint, learner_key(index, "velocity")));
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
