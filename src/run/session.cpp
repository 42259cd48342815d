// Shared run machinery; see session.h.
#include "run/session.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "core/errors.h"
#include "core/fault_injection.h"
#include "core/interrupt.h"

namespace dsgd {
namespace {

// The stream id used for BatchNorm re-estimation: past every real worker, so that it never
// consumes a worker's batches.
constexpr int64_t kEvaluationStreamOffset = 1;

}  // namespace

Session::Session(const RunConfig& config, const HostShare& share)
    : Session(config, load_run_dataset(config), share) {}

Session::Session(const RunConfig& config, DatasetPair data, const HostShare& share)
    : plan_(plan_run(config)),
      context_(config, plan_.shape, std::move(data), share),
      progress_(context_.total_updates()),
      start_(std::chrono::steady_clock::now()) {
  bn_stream_ = std::make_unique<WorkerStream>(
      context_.make_stream(config.workers + kEvaluationStreamOffset));
  if (context_.data().is_text()) {
    validation_windows_ =
        validation_windows(context_.data().text->validation, config.seq_len, config.eval_windows);
  }
  loss_sum_ =
      torch::zeros({}, torch::TensorOptions().dtype(torch::kDouble).device(context_.device()));
}

void Session::open_folder(const std::string& path) {
  folder_.emplace(path);
  folder_->write_config(to_toml(context_.recorded_config()));
  write_summary("running");
}

TensorMap Session::resume_folder(const std::string& path) {
  const std::string file = checkpoint_file(path);
  TensorMap checkpoint = parse_checkpoint(read_checkpoint_or_previous(file), file);
  resume_from(path, checkpoint);
  return checkpoint;
}

void Session::resume_from(const std::string& path, const TensorMap& checkpoint) {
  restore_counters(checkpoint);
  if (!reporting_) return;
  folder_.emplace(path, /*resume_after_update=*/updates_done_);
  // How each earlier piece of the run computed: a resumed run may land on another machine.
  const nlohmann::json before = folder_->read_summary();
  nlohmann::json history = before.value("compute_history", nlohmann::json::array());
  if (before.contains("compute")) history.push_back(before["compute"]);
  outcome_["compute_history"] = history;
  resumed_at_update_ = updates_done_;
  folder_->write_config(to_toml(context_.recorded_config()));
  write_summary("running");
}

void Session::restore_counters(const TensorMap& checkpoint) {
  auto scalar = [&](const std::string& key) {
    return checkpoint_entry(checkpoint, "session/" + key).item<double>();
  };
  scalar("lr_inside_velocity");
  updates_done_ = static_cast<int64_t>(scalar("updates"));
  if (updates_done_ > context_.total_updates()) {
    throw ConfigError("the checkpoint is past the end of this run (update " +
                          std::to_string(updates_done_) + " of " +
                          std::to_string(context_.total_updates()) + ")",
                      "resume with at least as many epochs as the run already did");
  }
  next_eval_index_ = static_cast<int64_t>(scalar("next_eval_index"));
  evaluations_ = static_cast<int64_t>(scalar("evaluations"));
  best_acc_ = scalar("best_acc");
  final_acc_ = scalar("final_acc");
  if (data().is_text()) {
    best_ppl_ = scalar("best_ppl");
    final_ppl_ = scalar("final_ppl");
  }
  sim_time_ = scalar("sim_time");
  wall_offset_ = scalar("wall_time");
  // Checkpoints from before the overhead was kept have none: the resumed part's alone is priced.
  const std::string overhead = "session/overhead_wall";
  overhead_wall_ = checkpoint.count(overhead) != 0 ? checkpoint.at(overhead).item<double>() : 0.0;
  last_train_loss_ = scalar("last_train_loss");
  last_lr_ = scalar("last_lr");
  // The evaluation period in progress (a checkpoint taken on an interrupt is mid-period).
  last_checked_ = static_cast<int64_t>(scalar("last_checked"));
  period_start_ = static_cast<int64_t>(scalar("period_start"));
  loss_count_ = static_cast<int64_t>(scalar("loss_count"));
  loss_sum_.fill_(scalar("loss_sum"));
}

std::string Session::launch_prefix() const {
  return plan_.on_ranks ? fmt::format("mpirun -n {} ", plan_.ranks) : "";
}

void Session::write_checkpoint() {
  if (!folder_) return;
  TensorMap checkpoint;
  auto scalar = [&](const std::string& key, double value) {
    checkpoint["session/" + key] = torch::tensor(value, torch::kDouble);
  };
  scalar("updates", static_cast<double>(updates_done_));
  scalar("next_eval_index", static_cast<double>(next_eval_index_));
  scalar("evaluations", static_cast<double>(evaluations_));
  scalar("best_acc", best_acc_);
  scalar("final_acc", final_acc_);
  if (data().is_text()) {
    scalar("best_ppl", best_ppl_);
    scalar("final_ppl", final_ppl_);
  }
  scalar("sim_time", sim_time_);
  scalar("wall_time",
         wall_offset_ +
             std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count());
  scalar("overhead_wall", overhead_wall_);
  scalar("last_train_loss", last_train_loss_);
  scalar("last_lr", last_lr_);
  scalar("last_checked", static_cast<double>(last_checked_));
  scalar("period_start", static_cast<double>(period_start_));
  scalar("loss_count", static_cast<double>(loss_count_));
  scalar("loss_sum", loss_sum_.item<double>());
  // Velocities hold η·d since the momentum convention changed (docs/design.md): a checkpoint
  // without this entry was written by an older dsgd and is refused instead of misread.
  scalar("lr_inside_velocity", 1.0);
  if (engine_checkpoint_) engine_checkpoint_(checkpoint);
  save_checkpoint(checkpoint_file(folder_->path()), checkpoint);
  checkpointed_at_ = updates_done_;
  // If the job dies now (a lost MPI rank, a killed process), the log says where to go on from.
  progress_.log(fmt::format("checkpoint at update {}: continue with `{}dsgd run --resume {}`",
                            updates_done_, launch_prefix(), folder_->path()));
}

void Session::after_update(int64_t updates, const torch::Tensor& loss, double sim_time,
                           const torch::Tensor& eval_params,
                           const std::function<std::map<std::string, double>()>& extra) {
  fault_point("training");
  updates_done_ = updates;
  sim_time_ = sim_time;
  last_lr_ = lr_at(updates - 1);
  loss_sum_.add_(loss);
  ++loss_count_;
  // Reading the loss back forces a device sync, so do it every few updates, not every one.
  bool checkpoint_due = updates - last_checked_ >= 20 || updates == context_.total_updates();
  bool eval_due = evaluation_due(updates);
  if (checkpoint_due || eval_due) check_finite(updates);
  if (!reporting_) {
    if (eval_due) ++next_eval_index_;
    stop_if_requested(updates);
    return;
  }
  progress_.update(updates, epoch_of(updates), last_lr_, last_train_loss_);
  if (eval_due) {
    const bool collapsed = period_collapsed();
    const auto overhead_start = std::chrono::steady_clock::now();
    evaluate_now(updates, sim_time, eval_params, extra ? extra() : std::map<std::string, double>{});
    ++next_eval_index_;
    write_checkpoint();
    overhead_wall_ +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - overhead_start).count();
    if (collapsed) {
      outcome_["collapsed_at_epoch"] = epoch_of(updates);
      throw CollapsedError(
          fmt::format(
              "training collapsed: the training loss from epoch {:.3f} to {:.3f} was {:.4f}, "
              "no better than a uniform guess's (ln {} = {:.4f})",
              epoch_of(period_start_), epoch_of(updates), last_train_loss_, context_.task().classes,
              context_.task().chance_loss()),
          "lower lr or momentum, lengthen the warm-up, or set stop_on_collapse = false to go on");
    }
    period_start_ = updates;
  }
  stop_if_requested(updates);
}

void Session::stop_if_requested(int64_t updates) {
  const int signal = stronger_interrupt(requested_stop_, watch_signals_ ? pending_interrupt() : 0);
  if (signal == 0) return;
  // A stop at an evaluation finds its checkpoint written: a second one would only replace the
  // previous checkpoint (the fallback of a damaged one) with a copy of the same update.
  if (checkpointed_at_ != updates) write_checkpoint();
  throw InterruptedError(
      fmt::format("interrupted by {} at epoch {:.3f} (update {}), after a checkpoint",
                  signal_name(signal), epoch_of(updates), updates),
      fmt::format("continue exactly where it stopped: {}dsgd run --resume {}", launch_prefix(),
                  folder_ ? folder_->path() : std::string("DIR")),
      signal);
}

std::function<void()> Session::evaluation_stop_check(int64_t updates) const {
  if (!watch_signals_) return nullptr;
  // The window, shortened by the fault-injection harness to reach the abandoning path.
  double window = kEvaluationFinishSeconds;
  if (const char* seconds = std::getenv("DSGD_EVALUATION_FINISH_SECONDS")) {
    window = std::atof(seconds);
  }
  using Clock = std::chrono::steady_clock;
  return [this, updates, window, first_seen = std::optional<Clock::time_point>()]() mutable {
    const int signal = pending_interrupt();
    if (signal == 0) return;
    if (!first_seen) first_seen = Clock::now();
    if (std::chrono::duration<double>(Clock::now() - *first_seen).count() < window) return;
    const std::string path = folder_ ? folder_->path() : std::string("DIR");
    const bool kept = folder_ && std::filesystem::exists(checkpoint_file(path));
    throw InterruptedError(
        fmt::format("interrupted by {} while evaluating at epoch {:.3f} (update {}), which was "
                    "abandoned: {}",
                    signal_name(signal), epoch_of(updates), updates,
                    kept ? "the last checkpoint is kept" : "no checkpoint was written yet"),
        kept ? fmt::format("continue from the last checkpoint: {}dsgd run --resume {}",
                           launch_prefix(), path)
             : fmt::format("remove {} and run the same command again", path),
        signal);
  };
}

bool Session::period_collapsed() const {
  if (!config().stop_on_collapse || loss_count_ == 0 || context_.task().classes < 2) return false;
  if (epoch_of(period_start_) < config().warmup_epochs) return false;
  return last_train_loss_ >= context_.task().chance_loss() - kCollapseTolerance;
}

bool Session::evaluation_due(int64_t updates) const {
  int64_t eval_at =
      std::min<int64_t>(context_.total_updates(),
                        std::llround(static_cast<double>(next_eval_index_) * config().eval_every *
                                     static_cast<double>(context_.updates_per_epoch())));
  return updates >= eval_at;
}

void Session::check_finite(int64_t updates) {
  last_checked_ = updates;
  double mean = loss_sum_.item<double>() / static_cast<double>(std::max<int64_t>(1, loss_count_));
  if (!std::isfinite(mean)) {
    std::string where = fmt::format("epoch {:.3f} (update {})", epoch_of(updates), updates);
    outcome_["diverged_at_epoch"] = epoch_of(updates);
    outcome_["diverged_at_update"] = updates;
    throw DivergedError("training diverged: the loss became NaN or Inf at " + where,
                        "lower lr, add warm-up (warmup_epochs), or reduce momentum");
  }
  last_train_loss_ = mean;
}

namespace {

// summary.json's status for a run that ended with `e`.
std::string status_of(const std::exception& e) {
  // CollapsedError is a DivergedError: it is asked about first.
  if (dynamic_cast<const CollapsedError*>(&e) != nullptr) return "collapsed";
  if (dynamic_cast<const InterruptedError*>(&e) != nullptr) return "interrupted";
  if (dynamic_cast<const HangError*>(&e) != nullptr) return "hung";
  if (dynamic_cast<const DivergedError*>(&e) != nullptr) return "diverged";
  return "failed";
}

}  // namespace

void Session::run(Engine& engine) {
  try {
    engine.run();
  } catch (const std::exception& e) {
    write_summary(status_of(e), e.what());
    throw;
  }
  write_summary("ok");
}

}  // namespace dsgd
