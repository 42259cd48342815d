// A run of the clock alone; see clock_only.h.
#include "run/clock_only.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>

#include "core/interrupt.h"
#include "run/progress.h"
#include "run/run_plan.h"
#include "train/cluster.h"
#include "train/training.h"

namespace dsgd {
namespace {

// What the simulator sees of a run of the clock alone: the context, computing nothing; each
// update's simulated time kept at every epoch's end and at the last update.
class ClockOnlyTraining : public Training {
 public:
  ClockOnlyTraining(const RunConfig& config, const RunPlan& plan)
      : plan_(plan), context_(config, plan.shape) {
    context_.compute_nothing();
  }

  TrainingContext& context() override { return context_; }
  const TrainingContext& context() const override { return context_; }
  const AlgorithmInfo& algorithm() const override { return *plan_.algorithm; }
  int64_t updates_done() const override { return 0; }
  double sim_time() const override { return 0.0; }
  bool evaluation_due(int64_t) const override { return false; }
  void after_update(int64_t updates, const torch::Tensor&, double sim_time, const torch::Tensor&,
                    const std::function<std::map<std::string, double>()>&) override {
    stop_if_interrupted("running the clock");
    const int64_t per_epoch = context_.updates_per_epoch();
    if (updates % per_epoch == 0 || updates == context_.total_updates()) {
      epoch_ends.push_back(context_.epoch_of(updates));
      sim_times.push_back(sim_time);
    }
  }
  void request_stop(int) override {}
  void set_engine_checkpoint(std::function<void(TensorMap&)>) override {}
  EngineReport& report() override { return report_; }
  void lend_replicas(ReplicaRunner*) override {}

  // The clock's readings: the epochs at which it was read, and the simulated time there.
  std::vector<double> epoch_ends, sim_times;

 private:
  const RunPlan& plan_;
  TrainingContext context_;
  EngineReport report_;
};

}  // namespace

ClockEstimate estimate_clock(const RunConfig& config) {
  const auto start = std::chrono::steady_clock::now();
  RunConfig simulated = config;  // a copy: the estimate's own run, on the simulator
  simulated.engine = EngineKind::kSim;
  const RunPlan plan = plan_run(simulated);
  ClockOnlyTraining training(simulated, plan);
  std::unique_ptr<Engine> engine = plan.build_simulator(training);
  engine->run();

  const TrainingContext& context = training.context();
  ClockEstimate estimate;
  estimate.algo = config.algo;
  estimate.workers = config.workers;
  estimate.updates = context.total_updates();
  estimate.updates_per_epoch = static_cast<double>(context.updates_per_epoch());
  estimate.epoch_ends = std::move(training.epoch_ends);
  estimate.sim_time = std::move(training.sim_times);
  estimate.seconds_per_unit = context.clock_prices().seconds_per_unit;
  estimate.compute_note = context.compute_format_note();
  const ComputeFormat& format = context.format_choice().format;
  // The key a cluster file's device lists this step under (a language model's carries its
  // sizes and BxT: train/cluster.h), so that the figure can be copied into one.
  estimate.step_key =
      run_shape(config).step_prefix() +
      fmt::format("{} {}", enum_name(format.memory_format), enum_name(format.precision));
  estimate.step_seconds = context.format_choice().step_seconds();
  estimate.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return estimate;
}

std::string describe_estimate(const ClockEstimate& e) {
  std::string out = e.compute_note;
  const bool seconds = e.seconds_per_unit > 0;
  auto clock = [&](double units) {
    if (!seconds) return fmt::format("{:.6g} units", units);
    const double s = units * e.seconds_per_unit;
    return s < 60 ? fmt::format("{:.3g} s", s) : format_duration(s);
  };
  const double end = e.sim_time.empty() ? 0.0 : e.sim_time.back();
  const double epochs = e.epoch_ends.empty() ? 0.0 : e.epoch_ends.back();
  out += fmt::format("{} with {} worker{}: {:g} epochs, {} updates ({:g} an epoch)\n", e.algo,
                     e.workers, e.workers == 1 ? "" : "s", epochs, e.updates, e.updates_per_epoch);
  out += fmt::format(
      "the whole run: {}{}\n", clock(end),
      seconds ? fmt::format(" ({:.6g} s; simulated time {:.6g})", end * e.seconds_per_unit, end)
              : " of simulated time (no cluster prices it: set cluster)");
  if (e.sim_time.size() >= 2) {
    // Each epoch's own clock: the first (warm-up, the workers' first queue), the median, the last.
    std::vector<double> each;
    for (size_t i = 0; i < e.sim_time.size(); ++i) {
      const double span = e.epoch_ends[i] - (i == 0 ? 0.0 : e.epoch_ends[i - 1]);
      if (span >= 1.0 - 1e-9) each.push_back(e.sim_time[i] - (i == 0 ? 0.0 : e.sim_time[i - 1]));
    }
    if (!each.empty()) {
      std::vector<double> sorted = each;
      std::sort(sorted.begin(), sorted.end());
      auto per_epoch = [&](double units) {
        return seconds ? fmt::format("{:.4g} s", units * e.seconds_per_unit)
                       : fmt::format("{:.6g} units", units);
      };
      out += fmt::format("an epoch: {} the first, {} the median, {} the last\n",
                         per_epoch(each.front()), per_epoch(sorted[sorted.size() / 2]),
                         per_epoch(each.back()));
    }
  }
  out += fmt::format("(the clock alone, no gradient computed: {:.1f} s here)\n", e.wall_seconds);
  return out;
}

std::string estimate_json(const ClockEstimate& e) {
  nlohmann::json out = {{"algo", e.algo},
                        {"workers", e.workers},
                        {"updates", e.updates},
                        {"updates_per_epoch", e.updates_per_epoch},
                        {"epochs", e.epoch_ends},
                        {"sim_time", e.sim_time},
                        {"seconds_per_unit", e.seconds_per_unit},
                        {"compute", e.compute_note},
                        {"step", {{"key", e.step_key}, {"seconds", e.step_seconds}}},
                        {"wall_seconds", e.wall_seconds}};
  if (e.seconds_per_unit > 0) {
    std::vector<double> seconds;
    for (double t : e.sim_time) seconds.push_back(t * e.seconds_per_unit);
    out["seconds"] = seconds;
  }
  return out.dump(2) + "\n";
}

}  // namespace dsgd
