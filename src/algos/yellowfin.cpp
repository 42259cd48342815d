// YellowFin (Zhang, Mitliagkas, Ré, "YellowFin and the Art of Momentum Tuning", arXiv 1706.03471,
// MLSys 2019) on the parameter server: momentum SGD whose momentum μ and rate α are tuned on the
// fly from the gradients as they arrive. By default the rule is the authors' PyTorch tuner,
// YFOptimizer (JianGoForIt/YellowFin_Pytorch @ b87aed1, tuner_utils/yellowfin.py, every
// constructor default), with each message as the one parameter's gradient; the golden test
// (tests/test_golden_yellowfin.cpp) reproduces that code's trajectories. docs/design/yellowfin.md
// ("YellowFin") says which option is whose: the PyTorch tuner, the TF tuner, the Caffe2 operator,
// the paper's Algorithm 1, and dsgd's earlier form.
//
// This file holds the rule: the step, the closed loop, the checkpoint and the registry entry. The
// tuner that turns each message into μ and α (the statistics, the single-step problem, the clips,
// with their equations) is YellowFinTuner, yellowfin_tuner.h.
//
// The rate applied is η = yf.lr_factor · (ℓ / lr) · α, ℓ the message's scheduled rate: the value of
// `lr` is not read, only its schedule's shape (ℓ / lr: a warm-up, a decay; 1 under a constant
// schedule, as the reference has it). The config key `momentum` is not read either. The tuner
// clamps η and clips g (yf.adaptive_clip). Weight decay: by dsgd's convention the worker sends
// d = g + λθ̂_i and the tuner reads d; with decay_at_server (YFOptimizer's placement:
// torch.optim.SGD adds it) the tuner reads g and the step takes d = g + λθ, θ the server's. The
// step is torch.optim.SGD's:
//   buf ← μ·buf + d, θ ← θ − η·buf   (a step with μ = 0, the first, leaves buf as it is);
// or, with yf.rate_in_velocity (the Caffe2 operator's form, dsgd's earlier one):
//   v ← μv + ηd, θ ← θ − v.
//
// Closed loop (§5 of the paper; yf.closed_loop, off by default: no author code has it):
// asynchrony behaves like extra momentum, so the total momentum μ_T of the server's iterates
// exceeds the algorithmic μ. The server measures it on the model
// x_{s+1} − x_s = μ_T(x_s − x_{s−1}) − η∇f(x_s): when the gradient computed at x_s arrives (from
// the worker that was sent x_s), the step before x_s and the step after it are known, and
//   μ̂_T = median over coordinates of (x_{s+1} − x_s + η_{s+1}∇f(x_s)) / (x_s − x_{s−1})
//       = median of (v_{s+1} − η_{s+1}·d) / v_s,
// after which μ ← μ + γ(μ_tuner − μ̂_T) (γ = yf.gain), clamped to [−0.9, 0.999]. The estimator is
// written for the rate-inside velocity v, so the closed loop needs yf.rate_in_velocity (its default
// follows yf.closed_loop). Without delay the gradient at x_s is the one step s + 1 applied, and μ̂_T
// is μ itself. The median is taken over a fixed strided sample of at most 16384 coordinates (the
// steps at those coordinates are what the server keeps per worker), and over the coordinates whose
// step v_s is non-zero. The algorithmic μ starts at the tuner's first μ.
//
// yf.tune_steps > 0 stops the tuner after that many messages (yellowfin_tuner.h): from then on
// the rule is momentum SGD at the frozen values (a test checks the recurrence), and the closed
// loop stops correcting μ.
//
// The tuner reads norms of the whole vector, so the rule is not element-wise: it refuses to be
// split over servers > 1 (check_server_shards).

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "algos/async_algorithms.h"
#include "algos/async_util.h"
#include "algos/yellowfin_tuner.h"
#include "core/errors.h"

namespace dsgd {
namespace {

using namespace async_internal;  // NOLINT(build/namespaces): the helpers of async_util.h

constexpr int64_t kMeasuredCoordinates = 16384;

// YellowFin reads the schedule as η / lr.
const AsyncOptions& checked(const AsyncOptions& options) {
  if (!(options.lr > 0.0)) {
    throw ConfigError("yellowfin reads the schedule's shape as rate / lr, so lr must be > 0",
                      "set lr > 0 (its value is not read; yf.lr_factor scales the tuned rate)");
  }
  if (options.values.flag("yf.closed_loop") && !options.values.flag("yf.rate_in_velocity")) {
    throw ConfigError(
        "yf.closed_loop measures the momentum on the velocity v <- mu*v + rate*d, so it needs "
        "yf.rate_in_velocity = true",
        "leave yf.rate_in_velocity unset (it follows yf.closed_loop) or set it to true");
  }
  return options;
}

class YellowFinServer : public ThetaServer {
 public:
  YellowFinServer(const AsyncOptions& options, const torch::Tensor& theta0, int64_t workers)
      : ThetaServer(checked(options), theta0, workers),
        closed_loop_(options_.values.flag("yf.closed_loop")),
        gain_(options_.values.number("yf.gain")),
        rate_in_velocity_(options_.values.flag("yf.rate_in_velocity")),
        lr_factor_(options_.values.number("yf.lr_factor")),
        scale_(lr_factor_ / options.lr),
        stride_((theta_.numel() + kMeasuredCoordinates - 1) / kMeasuredCoordinates),
        measured_((theta_.numel() + stride_ - 1) / stride_),
        tuner_(options_.values, theta_) {
    if (closed_loop_) ratios_.reserve(static_cast<size_t>(measured_));
  }

  void parameters_for(int64_t worker, torch::Tensor& out) override {
    ThetaServer::parameters_for(worker, out);
    if (!closed_loop_) return;
    // x_s goes to the worker: keep the step v_s that reached it; the step after it is pending.
    sent_step_[worker].copy_(measured(flat_v_));
    pending_.data_ptr<double>()[worker] = 1.0;
  }

  // g = the message (clipped by the tuner), ℓ = lr, θ = theta_, buf or v = v_.
  void apply(int64_t worker, const torch::Tensor& message, double lr) override {
    check_call(worker, message);
    // η = (ℓ / lr)·yf.lr_factor·α, and g, from the tuner
    const YellowFinTuner::Step step = tuner_.read(message, lr * scale_);
    const double rate = step.rate;
    // d = g (+ λθ with decay_at_server)
    const torch::Tensor& d = decayed(*step.g);
    const double mu = tuner_.momentum();
    if (rate_in_velocity_) {
      // v ← μv + ηd;  θ ← θ − v
      mu_.fill_(mu);
      v_.mul_(mu_).add_(d, rate);
      theta_.sub_(v_);
    } else if (mu != 0.0) {
      // torch.optim.SGD: buf ← μ·buf + d;  θ ← θ − η·buf
      mu_.fill_(mu);
      v_.mul_(mu_).add_(d);
      theta_.add_(v_, -rate);
    } else {
      // SGD with momentum 0 steps along d and leaves buf as it is (the first message's d never
      // enters it).
      theta_.add_(d, -rate);
    }
    if (closed_loop_ && step.tuned) correct_momentum(worker, d, rate);
  }

  int64_t state_bytes() const override {
    // The closed loop's tensors are empty without it; the measured message, the tuner's clipped
    // message and d + λθ are scratch.
    return bytes_of(theta_) + bytes_of(v_) + tuner_.state_bytes() + bytes_of(sent_step_.block) +
           bytes_of(next_step_.block) + bytes_of(next_rate_) + bytes_of(pending_) +
           bytes_of(measured_message_) + decay_bytes();
  }
  void report(std::map<std::string, double>& columns) const override {
    tuner_.report(columns, lr_factor_);
  }
  NamedTensors state() override {
    NamedTensors state = {{"theta", theta_}, {"v", v_}};
    tuner_.add_state(state);
    if (closed_loop_) {
      state.emplace_back("yf_sent_step", sent_step_.block);
      state.emplace_back("yf_next_step", next_step_.block);
      state.emplace_back("yf_next_rate", next_rate_);
      state.emplace_back("yf_pending", pending_);
    }
    return state;
  }

 private:
  // A zero vector of doubles; the number of workers the closed loop keeps records for.
  torch::Tensor doubles(int64_t size) const { return torch::zeros({size}, torch::kDouble); }
  int64_t loop_workers() const { return closed_loop_ ? workers_ : 0; }
  // The strided sample of coordinates the closed loop measures (a view: no copy).
  torch::Tensor measured(const torch::Tensor& flat) const {
    return flat.slice(0, 0, flat.numel(), stride_);
  }

  // After the step v_{t+1} = μv_t + η_{t+1}d: it is the step after x_t for the workers sent x_t;
  // worker i's message d is the gradient at the x_s it was sent, whose steps are now both known.
  void correct_momentum(int64_t worker, const torch::Tensor& message, double rate) {
    double* pending = pending_.data_ptr<double>();
    double* next_rate = next_rate_.data_ptr<double>();
    for (int64_t j = 0; j < workers_; ++j) {
      if (pending[j] == 0.0) continue;
      next_step_[j].copy_(measured(flat_v_));
      next_rate[j] = rate;
      pending[j] = 0.0;
    }
    // μ̂_T = median of (v_{s+1} − η_{s+1}d) / v_s over the coordinates where v_s ≠ 0
    measured_message_.copy_(measured(message.view(-1)));
    const double* d = measured_message_.data_ptr<double>();
    const double* before = sent_step_[worker].data_ptr<double>();
    const double* after = next_step_[worker].data_ptr<double>();
    ratios_.clear();
    for (int64_t k = 0; k < measured_; ++k) {
      if (before[k] != 0.0) ratios_.push_back((after[k] - next_rate[worker] * d[k]) / before[k]);
    }
    if (ratios_.empty()) return;
    auto middle = ratios_.begin() + static_cast<std::ptrdiff_t>((ratios_.size() - 1) / 2);
    std::nth_element(ratios_.begin(), middle, ratios_.end());
    // μ ← μ + γ(μ_tuner − μ̂_T)
    tuner_.correct_momentum(*middle, gain_);
  }

  bool closed_loop_;
  double gain_;
  bool rate_in_velocity_;
  double lr_factor_;
  double scale_;                                 // yf.lr_factor / lr
  int64_t stride_;                               // every stride-th coordinate is measured
  int64_t measured_;                             // how many
  torch::Tensor v_ = torch::zeros_like(theta_);  // buf (or v with yf.rate_in_velocity)
  torch::Tensor flat_v_ = v_.view(-1);
  YellowFinTuner tuner_;
  // μ as a 0-dim tensor (a double operand of mul_ would allocate one per update).
  torch::Tensor mu_ = torch::zeros({}, theta_.options());
  // The closed loop's measured coordinates, per worker: v_s at the send of x_s, and v_{s+1} with
  // its rate η_{s+1}; pending: the worker still waits for the step after its x_s.
  PerWorker sent_step_{doubles(measured_), loop_workers()};
  PerWorker next_step_{doubles(measured_), loop_workers()};
  torch::Tensor next_rate_ = doubles(loop_workers());
  torch::Tensor pending_ = doubles(loop_workers());
  torch::Tensor measured_message_ = doubles(closed_loop_ ? measured_ : 0);  // scratch
  std::vector<double> ratios_;  // scratch, reserved once
};

}  // namespace

AsyncAlgorithm yellowfin_algorithm() {
  OptionSpec lr_factor = number_option(
      "yf.lr_factor", 1.0,
      "multiplies YellowFin's tuned rate, as the authors' set_lr_factor (the value of lr is not "
      "read, only the shape of its schedule)",
      0.0);
  lr_factor.low_open = true;
  OptionSpec first_rate = number_option(
      "yf.first_rate", 1e-4,
      "YellowFin's rate for the untuned first message (YFOptimizer's lr argument), times "
      "yf.lr_factor and the schedule's shape",
      0.0);
  first_rate.low_open = true;
  OptionSpec rate_in_velocity = boolean_option(
      "yf.rate_in_velocity", false,
      "YellowFin steps v = mu*v + rate*d, theta -= v (the Caffe2 operator's form and dsgd's "
      "earlier one; what yf.closed_loop measures); false: buf = mu*buf + d, theta -= rate*buf, "
      "as the authors' PyTorch and TF tuners. Default: yf.closed_loop");
  rate_in_velocity.default_from = [](const OptionValues& values) {
    return values.flag("yf.closed_loop") ? 1.0 : 0.0;
  };
  AsyncAlgorithm algorithm = gradient_algorithm<YellowFinServer>(
      "yellowfin",
      "YellowFin: momentum and rate tuned at the server from the gradients, as the authors' "
      "PyTorch tuner (Zhang et al. 2017); optional closed loop against asynchrony's momentum; "
      "follows lr's schedule, not its value",
      joined_options(
          {number_option("yf.beta", 0.999, "decay β of YellowFin's running averages", 0.0, 1.0),
           integer_option(
               "yf.window", 20,
               "how many recent squared gradient norms YellowFin's curvature range spans"),
           boolean_option(
               "yf.closed_loop", false,
               "correct YellowFin's momentum by the total momentum measured at the server "
               "(the paper's closed loop for asynchrony; in no author code; needs "
               "yf.rate_in_velocity)"),
           number_option("yf.gain", 0.01, "gain γ of YellowFin's closed loop: μ += γ(μ* − μ̂_T)",
                         0.0, 1.0),
           lr_factor,
           boolean_option("yf.slow_start", true,
                          "ramp YellowFin's rate up over its first 10·yf.window updates, as the "
                          "authors' tuner does"),
           integer_option("yf.tune_steps", 0,
                          "stop YellowFin's tuner after this many messages: μ and the rate "
                          "freeze, the adaptive clips stop (0: tune throughout)",
                          0),
           boolean_option(
               "yf.smoothed", false,
               "apply the running means μ*, α* of YellowFin's per-step μ_t, α_t, debiased "
               "(dsgd's earlier default, its reading of the paper's Algorithm 1); false: "
               "μ_t, α_t, as the authors' PyTorch and TF tuners"),
           boolean_option(
               "yf.log_curvature", true,
               "smooth YellowFin's h_max and h_min in log space, as every author code does "
               "by default; false: linearly (dsgd's earlier default)"),
           boolean_option(
               "yf.zero_debias", true,
               "debias YellowFin's running averages by 1 − β^t (YFOptimizer's zero_debias)"),
           boolean_option("yf.adaptive_clip", true,
                          "YFOptimizer's adapt_clip: clip messages to √(100·h_max) before the "
                          "statistics and to √h_max when one exceeds h_max, and cap the step "
                          "rate·‖g‖ at 100"),
           number_option("yf.clip", 0.0,
                         "clip each message to this global norm before YellowFin's statistics "
                         "(YFOptimizer's clip_thresh; 0: no clip)",
                         0.0),
           boolean_option("yf.tune_first_step", false,
                          "tune YellowFin's μ and rate from the first message (dsgd's earlier "
                          "default); false: the first is applied at yf.first_rate with μ = 0, as "
                          "YFOptimizer does"),
           first_rate,
           boolean_option("yf.eps_floors", false,
                          "bound YellowFin's divisors by floors (h_min, variance >= 1e-6, μ_t <= "
                          "0.999), as dsgd did before; false: the authors' ε inside the formulas"),
           rate_in_velocity},
          convention_options()));
  algorithm.element_wise = false;
  return algorithm;
}

}  // namespace dsgd