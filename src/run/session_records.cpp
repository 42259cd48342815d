// What a run records, for Session (session.h): each evaluation (BatchNorm re-estimation, the test
// pass, the metrics row, the progress line, the trained network) and summary.json.
#include <fmt/format.h>

#include <chrono>
#include <sstream>

#include "core/atomic_file.h"
#include "core/fault_injection.h"
#include "models/blas_kernels.h"
#include "run/evaluator.h"
#include "run/session.h"

namespace dsgd {
namespace {

// The format keys the config left to "auto" (summary.json's compute.auto).
nlohmann::json auto_parts(const FormatChoice& format) {
  nlohmann::json parts = nlohmann::json::array();
  if (format.memory_format_auto) parts.push_back("memory_format");
  if (format.precision_auto) parts.push_back("precision");
  return parts;
}

}  // namespace

double Session::predicted_wall(double sim_time, double overhead_wall) const {
  const ClockPrices& prices = context_.clock_prices();
  return sim_time * prices.seconds_per_unit + overhead_wall * prices.overhead_scale;
}

void Session::evaluate_now(int64_t updates, double sim_time, const torch::Tensor& eval_params,
                           const std::map<std::string, double>& extra) {
  fault_point("evaluation");
  const auto evaluation_start = std::chrono::steady_clock::now();
  torch::NoGradGuard no_grad;
  if (!eval_params.is_same(context_.model().params())) context_.model().params().copy_(eval_params);
  // bn_policy = "local" evaluates learner 0's own statistics, as the engine left them.
  const int64_t bn_batches = config().bn_policy == BnPolicy::kLocal ? 0 : config().bn_batches;
  const std::function<void()> stop_check = evaluation_stop_check(updates);
  reestimate_batchnorm(context_.model(), *bn_stream_, evaluations_ * config().bn_batches,
                       bn_batches, context_.device(), stop_check);
  // The test pass runs on the engine's replicas where it lent them, on the CPU (on a GPU one
  // replica's batches already fill the device).
  ReplicaRunner* replicas = context_.device().is_cpu() ? lent_replicas_ : nullptr;
  const EvalResult result = data().is_text()
                                ? evaluate_tokens(context_.model(), validation_windows_,
                                                  context_.device(), stop_check, replicas)
                                : evaluate(context_.model(), data().test, data().normalization,
                                           context_.device(), 1000, stop_check, replicas);
  ++evaluations_;
  final_acc_ = result.accuracy;
  best_acc_ = std::max(best_acc_, result.accuracy);
  if (data().is_text()) {
    final_ppl_ = result.perplexity();
    best_ppl_ = std::min(best_ppl_, final_ppl_);
  }
  double wall = wall_offset_ +
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::map<std::string, double> row = extra;
  row["epoch"] = epoch_of(updates);
  row["updates"] = static_cast<double>(updates);
  row["sim_time"] = sim_time;
  const double seconds_per_unit = context_.clock_prices().seconds_per_unit;
  if (seconds_per_unit > 0) row["seconds"] = sim_time * seconds_per_unit;
  if (seconds_per_unit > 0 && context_.clock_prices().overhead_scale > 0) {
    // This evaluation's own time is in; its checkpoint's is in the next row's.
    const double evaluation =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - evaluation_start).count();
    row["predicted_wall"] = predicted_wall(sim_time, overhead_wall_ + evaluation);
  }
  row["wall_time"] = wall;
  row["lr"] = last_lr_;
  row["train_loss"] = last_train_loss_;
  row["test_loss"] = result.loss;
  row["test_acc"] = result.accuracy;
  if (data().is_text()) row["test_ppl"] = result.perplexity();
  if (folder_) {
    folder_->append_metrics(row);
    progress_.evaluation(row);  // where the row is recorded: rank 0 of an MPI job
  }
  progress_.set_accuracy(result.accuracy);
  const std::string perplexity =
      data().is_text() ? fmt::format("  test_ppl {:.3f}", result.perplexity()) : "";
  progress_.log(
      fmt::format("epoch {:.2f}  updates {}  train_loss {:.4f}  test_loss {:.4f}  "
                  "test_acc {:.4f}{}  lr {:.4g}  wall {}",
                  epoch_of(updates), updates, last_train_loss_, result.loss, result.accuracy,
                  perplexity, last_lr_, format_duration(wall)));
  loss_sum_.zero_();
  loss_count_ = 0;
  if (folder_) {
    write_summary("running");
    // The network the evaluation just used, where it has a loadable form (TorchScript models).
    std::ostringstream module;
    if (context_.net().save_module(module)) {
      write_file_atomically(folder_->file("model.pt"), module.str());
    }
  }
}

void Session::write_summary(const std::string& status, const std::string& error) {
  if (!folder_) return;
  progress_.finish();
  nlohmann::json summary = outcome_;
  if (report_.evaluated) summary["evaluated"] = *report_.evaluated;
  if (report_.server_bytes) summary["server_bytes"] = *report_.server_bytes;
  if (report_.worker_rule_bytes) summary["worker_rule_bytes"] = *report_.worker_rule_bytes;
  if (report_.servers) summary["servers"] = *report_.servers;
  if (report_.staleness_histogram) summary["staleness_histogram"] = *report_.staleness_histogram;
  if (report_.traffic) summary["traffic"] = *report_.traffic;
  summary["status"] = status;
  summary["final_test_acc"] = final_acc_;
  summary["best_test_acc"] = best_acc_;
  // What the run learned and the metric it is judged by (a report reads final_<metric> and
  // best_<metric>); image runs from before tasks have neither, and are classification.
  const Task& task = context_.task();
  summary["task"] = enum_name(task.kind);
  summary["metric"] = task.metric().column;
  if (data().is_text()) {
    if (evaluations_ > 0) {
      summary["final_test_ppl"] = final_ppl_;
      summary["best_test_ppl"] = best_ppl_;
    }
    const TokenCorpus& text = *data().text;
    summary["tokens"] = {{"train", text.train.size(0)},
                         {"validation", text.validation.size(0)},
                         {"validation_read", validation_windows_.size(0) * config().seq_len},
                         {"tokenizer", enum_name(text.vocabulary.tokenizer)},
                         {"vocabulary", text.vocabulary.size},
                         {"seq_len", config().seq_len}};
  }
  summary["epochs"] = epoch_of(updates_done_);
  summary["updates"] = updates_done_;
  summary["wall_time"] =
      wall_offset_ +
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  summary["sim_time"] = sim_time_;
  if (context_.clock_prices().seconds_per_unit > 0) {
    summary["seconds"] = sim_time_ * context_.clock_prices().seconds_per_unit;
    if (context_.clock_prices().overhead_scale > 0) {
      summary["predicted_wall"] = predicted_wall(sim_time_, overhead_wall_);
    }
    summary["cluster"] = config().cluster;
    if (!config().cluster_device.empty()) summary["cluster_device"] = config().cluster_device;
  }
  summary["algo"] = config().algo;
  summary["engine"] = enum_name(config().engine);
  summary["workers"] = config().workers;
  summary["model"] = config().model;
  summary["dataset"] = config().dataset;
  summary["parameters"] = context_.model().num_params();
  // What every input was normalised with, (x / unit − mean) / std per channel (unit: 255 for
  // bytes, 1 for floats), so that an evaluation outside dsgd can feed the network the same.
  if (!data().is_text())
    summary["normalization"] = {
        {"mean", data().normalization.mean},
        {"std", data().normalization.std},
        {"unit", data().test.images.scalar_type() == torch::kUInt8 ? 255.0 : 1.0}};
  summary["threads"] = context_.threads();
  summary["replicas"] = context_.compute_plan().replicas;
  summary["replica_bytes"] = context_.compute_plan().replica_bytes;
  summary["evaluations"] = evaluations_;
  const FormatChoice& format = context_.format_choice();
  summary["compute"] = {{"memory_format", enum_name(format.format.memory_format)},
                        {"precision", enum_name(format.format.precision)},
                        {"chosen_by", format.automatic ? "auto" : "config"},
                        {"auto", auto_parts(format)},
                        {"reason", format.reason},
                        {"step_seconds", format.step_seconds()},
                        {"cpu", cpu_description()},
                        {"openblas_kernels", openblas_kernels()},
                        {"device", context_.device().str()},
                        {"from_update", resumed_at_update_}};
  if (!error.empty()) summary["error"] = error;
  folder_->write_summary(summary);
}

}  // namespace dsgd
