// The engine-neutral asynchronous server; see async_server.h.
#include "engine/async_server.h"

#include <fmt/format.h>
#include <fmt/ranges.h>  // fmt::join (in format.h before fmt 11)

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/errors.h"
#include "train/config.h"

namespace dsgd {

AsyncOptions async_options(const RunConfig& c) {
  AsyncOptions o;
  o.momentum = c.momentum;
  o.weight_decay = c.weight_decay;
  o.lr_in_velocity = c.lr_in_velocity;
  o.lr = c.lr;
  o.values = c.algo_options;
  o.optimizer = c.optimizer;
  o.adamw = {c.adam_beta1, c.adam_beta2, c.adam_eps, c.weight_decay};
  o.grad_clip = c.grad_clip;
  return o;
}

std::map<std::string, double> exchange_traffic(const std::vector<int64_t>& order,
                                               const std::vector<int64_t>& steps, int64_t batch,
                                               int64_t params) {
  const double exchanges = static_cast<double>(order.size());
  const double bytes_each_way = static_cast<double>(params) * static_cast<double>(sizeof(float));
  int64_t minibatches = 0;
  for (int64_t worker : order) minibatches += steps[static_cast<size_t>(worker)];
  return {{"exchanges", exchanges},
          {"global_bytes", 2.0 * bytes_each_way * exchanges},
          {"samples", static_cast<double>(minibatches * batch)}};
}

AsyncServer::AsyncServer(const AsyncAlgorithm& algorithm, const AsyncOptions& options,
                         const torch::Tensor& theta0, int64_t workers, Schedule lr_at,
                         int64_t gap_sample)
    : workers_(workers),
      lr_at_(std::move(lr_at)),
      rule_(algorithm.make_server(options, theta0, workers)),
      sent_(torch::empty({workers, theta0.numel()}, theta0.options())),
      sent_at_(static_cast<size_t>(workers), 0),
      telemetry_(gap_sample) {
  for (int64_t i = 0; i < workers; ++i) sent_rows_.push_back(sent_[i]);
  recorded_.workers = workers;
}

size_t AsyncServer::index(int64_t worker) const {
  if (worker < 0 || worker >= workers_) {
    throw Error(
        fmt::format("async server: worker {} out of range for {} workers", worker, workers_),
        "this is a dsgd bug; report it");
  }
  return static_cast<size_t>(worker);
}

torch::Tensor AsyncServer::send(int64_t worker, int64_t updates) {
  torch::Tensor& row = sent_rows_[index(worker)];
  rule_->parameters_for(worker, row);
  sent_at_[index(worker)] = updates;
  return row;
}

void AsyncServer::apply(int64_t worker, const torch::Tensor& message, int64_t updates) {
  const size_t w = index(worker);
  // The gap: the model's parameters when the message is applied, against those it was computed at.
  telemetry_.record(updates - sent_at_[w], actual_.defined() ? actual_ : rule_->center(),
                    sent_rows_[w]);
  recorded_.order.push_back(worker);
  rule_->apply(worker, message, lr_of(worker));
}

void AsyncServer::hold(int64_t worker, const torch::Tensor& message) {
  held_.emplace_back(worker, message.clone());
}

bool AsyncServer::holds(int64_t worker) const {
  for (const auto& entry : held_) {
    if (entry.first == worker) return true;
  }
  return false;
}

int64_t AsyncServer::take_held(int64_t worker, torch::Tensor& into) {
  if (held_.empty() || (worker >= 0 && held_.front().first != worker)) return -1;
  const int64_t from = held_.front().first;
  into.copy_(held_.front().second);
  held_.pop_front();
  return from;
}

void AsyncServer::save(TensorMap& out, const std::string& prefix) const {
  for (auto& [name, tensor] : rule_->state()) out[prefix + "server/" + name] = tensor;
  out[prefix + "sent"] = sent_;
  out[prefix + "sent_at"] = to_tensor(sent_at_);
  std::vector<int64_t> held_workers;
  std::vector<torch::Tensor> messages;
  for (const auto& [worker, message] : held_) {
    held_workers.push_back(worker);
    messages.push_back(message);
  }
  out[prefix + "held_workers"] = to_tensor(held_workers);
  if (!messages.empty()) out[prefix + "held"] = torch::stack(messages);
  if (actual_.defined()) out[prefix + "actual"] = actual_;
  out[prefix + "recorded_order"] = to_tensor(recorded_.order);
  telemetry_.save(out, prefix);
}

void AsyncServer::restore(const TensorMap& in, const std::string& prefix) {
  auto entry = [&](const std::string& key) { return checkpoint_entry(in, prefix + key); };
  torch::NoGradGuard no_grad;
  std::vector<int64_t> sent_at = to_int_vector(entry("sent_at"));
  if (static_cast<int64_t>(sent_at.size()) != workers_) {
    throw ConfigError("the checkpoint was written with another number of workers",
                      "resume with the run's own config.toml");
  }
  for (auto& [name, tensor] : rule_->state()) tensor.copy_(entry("server/" + name));
  sent_.copy_(entry("sent"));
  sent_at_ = std::move(sent_at);
  held_.clear();
  std::vector<int64_t> held_workers = to_int_vector(entry("held_workers"));
  if (!held_workers.empty()) {
    torch::Tensor messages = entry("held");
    for (size_t k = 0; k < held_workers.size(); ++k) {
      held_.emplace_back(held_workers[k], messages[static_cast<int64_t>(k)].clone());
    }
  }
  if (actual_.defined()) actual_.copy_(entry("actual"));
  recorded_.order = to_int_vector(entry("recorded_order"));
  telemetry_.restore(in, prefix);
}

std::map<std::string, double> AsyncServer::end_period() {
  std::map<std::string, double> row = telemetry_.end_period();
  rule_->report(row);
  return row;
}

}  // namespace dsgd
