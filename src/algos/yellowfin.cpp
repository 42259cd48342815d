// YellowFin (Zhang, Mitliagkas, Ré, "YellowFin and the Art of Momentum Tuning", arXiv 1706.03471,
// MLSys 2019) on the parameter server: momentum SGD whose momentum μ and rate α are tuned on the
// fly from the gradients as they arrive. By default the rule is the authors' PyTorch tuner,
// YFOptimizer (JianGoForIt/YellowFin_Pytorch @ b87aed1, tuner_utils/yellowfin.py, every
// constructor default), with each message as the one parameter's gradient; the golden test
// (tests/test_golden_yellowfin.cpp) reproduces that code's trajectories. docs/design.md
// ("YellowFin") says which option is whose: the PyTorch tuner, the TF tuner, the Caffe2 operator,
// the paper's Algorithm 1, and dsgd's earlier form.
//
// For each message g (t = messages read so far, 1 for the first; β = yf.beta; w = yf.window;
// b = 1 − β^t, or 1 without yf.zero_debias; ε = 1e-6, the authors' eps; clip(g, c) scales g by
// min(1, c / (‖g‖ + 1e-6)), torch.nn.utils.clip_grad_norm_):
//   clips before the statistics: g ← clip(g, yf.clip) if yf.clip > 0; with yf.adaptive_clip and
//        t ≥ 3, g ← clip(g, √(100·h_max') + ε), h_max' the previous message's envelope;
//   h = ‖g‖²;  the window holds the last w values of h;
//   h_max, h_min: the running means of log(max window + ε) and log(min window + ε), debiased and
//        exponentiated (yf.log_curvature; linear: the running means of max and min window,
//        debiased);
//   the variance C = max(−‖E[g]‖²/b² + S/b, ε), with S = E[h] and E[g] kept per coordinate;
//   the distance D = E[N/(S + ε)]/b, with N = E[‖g‖];
//   x = √μ: the root of the single-step problem min_x x²D² + (1 − x)⁴C/h_min², the cubic
//        y³ + py + p = 0 (y = x − 1, p = (D + ε)²(h_min + ε)²/(2(C + ε))) by Vieta's substitution;
//   μ_t = max(x², ((√κ − 1)/(√κ + 1))²),  κ = max((h_max + ε)/(h_min + ε), 1 + ε);
//   α_t = (1 − √μ_t)²/(h_min + ε), then the slow start α_t ← min(α_t, α_t·t/(10w)) (yf.slow_start).
// The tuner applies μ_t and α_t themselves; yf.smoothed applies their running means μ*, α*
// (debiased by b, the slow start as the ramp min(1, t/(10w)) on α*) instead. The first message is
// not tuned (the statistics still read it): μ = 0 and α = yf.first_rate, YFOptimizer's lr and mu
// arguments (yf.tune_first_step tunes it too). yf.eps_floors replaces the ε inside the formulas by
// dsgd's earlier floors (h_min, C ≥ 1e-6, h_max ≥ h_min, p ≤ 0 → x = 1, μ_t ≤ 0.999, the cube root
// by cbrt).
// The rate applied is η = yf.lr_factor · (ℓ / lr) · α, ℓ the message's scheduled rate: the value of
// `lr` is not read, only its schedule's shape (ℓ / lr: a warm-up, a decay; 1 under a constant
// schedule, as the reference has it). The config key `momentum` is not read either. With
// yf.adaptive_clip, η ← 100/√(h + ε) when η·√h ≥ 100 (the catastrophic-move clamp), and when
// t ≥ 2 and h ≥ h_max', g ← clip(g, √h_max' + ε) after the statistics (the exploding-gradient
// clip). Weight decay: by dsgd's convention the worker sends d = g + λθ̂_i and the tuner reads d;
// with decay_at_server (YFOptimizer's placement: torch.optim.SGD adds it) the tuner reads g and the
// step takes d = g + λθ, θ the server's. The step is torch.optim.SGD's:
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
// yf.tune_steps > 0 stops the tuner after that many messages: μ and the rate stay at their last
// values and the adaptive clips (which read the tuner's statistics) stop; from then on the rule is
// momentum SGD at the frozen values (a test checks the recurrence).
//
// The tuner reads norms of the whole vector, so the rule is not element-wise: it refuses to be
// split over servers > 1 (check_server_shards).
#include <ATen/Parallel.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "algos/async_algorithms.h"
#include "algos/async_util.h"
#include "core/errors.h"

namespace dsgd {
namespace {

using namespace async_internal;  // NOLINT(build/namespaces): the helpers of async_util.h

constexpr int64_t kMeasuredCoordinates = 16384;
// The authors' eps (yellowfin.py:10): added inside the tuner's formulas, or, with yf.eps_floors,
// the floor of the variance and of h_min.
constexpr double kEps = 1e-6;
// What torch.nn.utils.clip_grad_norm_ adds to the norm it divides by.
constexpr double kClipEps = 1e-6;
// YFOptimizer's stat_protect_fac and catastrophic_move_thresh.
constexpr double kStatProtect = 100.0;
constexpr double kCatastrophicMove = 100.0;
// The closed loop's range for μ, and yf.eps_floors' cap on μ_t.
constexpr double kLowestMomentum = -0.9;
constexpr double kHighestMomentum = 0.999;

// The tuner's scalars, one double tensor so that they checkpoint as one entry.
enum Scalar : int64_t {
  kUpdates,      // t: messages the tuner has read
  kCurvMaxAvg,   // running mean of log(h_max + ε) (linear: of h_max) over the window
  kCurvMinAvg,   // running mean of log(h_min + ε) (linear: of h_min)
  kNormAvg,      // N = E[‖g‖]
  kNormSqAvg,    // S = E[h] = Σ E[g²]
  kDistanceAvg,  // running mean of N/(S + ε)
  kMuAvg,        // running mean of μ_t
  kRateAvg,      // running mean of α_t
  kTarget,       // the tuner's μ: μ_t, or μ* with yf.smoothed
  kRate,         // the tuner's α (slow start included, yf.lr_factor not)
  kMomentum,     // μ applied: the tuner's, or the closed loop's algorithmic momentum
  kCurvMin,      // h_min of the last message, debiased (the previous envelope for the clips)
  kCurvMax,      // h_max of the last message
  kStepRate,     // η the last update applied (schedule's shape and clamp included)
  kScalars
};

// x = √μ solving the single-step problem (the file comment's cubic), by Vieta's substitution, in
// the authors' order of operations (yellowfin.py:452-456).
double single_step_root(double distance, double curv_min, double variance) {
  const double p =
      std::pow(distance + kEps, 2) * std::pow(curv_min + kEps, 2) / 2.0 / (variance + kEps);
  const double w3 = (-std::sqrt(std::pow(p, 2) + 4.0 / 27.0 * std::pow(p, 3)) - p) / 2.0;
  const double w = std::copysign(1.0, w3) * std::pow(std::fabs(w3), 1.0 / 3.0);
  return w - p / 3.0 / (w + kEps) + 1.0;
}

// The same root as dsgd computed it before yf.eps_floors' alternative existed: no ε, a zero
// distance gives x = 1.
double floored_single_step_root(double distance, double curv_min, double variance) {
  const double p = distance * distance * curv_min * curv_min / (2.0 * variance);
  if (!(p > 0.0)) return 1.0;  // no distance left to cover: the root of y³ = 0
  const double w3 = (-std::sqrt(p * p + 4.0 / 27.0 * p * p * p) - p) / 2.0;
  const double w = std::cbrt(w3);
  return w - p / (3.0 * w) + 1.0;
}

// Σ_k a_k² in double, over fixed chunks of 2^16 elements summed in parallel and then in order: the
// result does not depend on the number of threads, so the simulator and an MPI server agree to the
// bit. A tensor reduction (at::dot_out included) allocates on every call, and a server update must
// not; off the CPU, where that does not apply, it is one. `partials`: scratch, one per chunk.
double sum_of_squares(const torch::Tensor& a, std::vector<double>& partials) {
  if (!a.device().is_cpu() || !a.is_contiguous()) {
    return at::dot(a.reshape(-1), a.reshape(-1)).item<double>();
  }
  constexpr int64_t kChunk = int64_t{1} << 16;
  const int64_t n = a.numel();
  partials.assign(static_cast<size_t>((n + kChunk - 1) / kChunk), 0.0);
  AT_DISPATCH_FLOATING_TYPES(a.scalar_type(), "sum_of_squares", [&] {
    const scalar_t* x = a.data_ptr<scalar_t>();
    at::parallel_for(0, static_cast<int64_t>(partials.size()), 1, [&](int64_t first, int64_t last) {
      for (int64_t c = first; c < last; ++c) {
        const int64_t end = std::min(n, (c + 1) * kChunk);
        // Four running sums, so that the additions do not wait on one another.
        double s[4] = {0.0, 0.0, 0.0, 0.0};
        int64_t k = c * kChunk;
        for (; k + 4 <= end; k += 4) {
          for (int j = 0; j < 4; ++j) s[j] += static_cast<double>(x[k + j]) * x[k + j];
        }
        for (; k < end; ++k) s[0] += static_cast<double>(x[k]) * x[k];
        partials[static_cast<size_t>(c)] = (s[0] + s[1]) + (s[2] + s[3]);
      }
    });
  });
  double total = 0.0;
  for (double partial : partials) total += partial;
  return total;
}

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

double running(double average, double beta, double value) {
  return beta * average + (1.0 - beta) * value;
}

class YellowFinServer : public ThetaServer {
 public:
  YellowFinServer(const AsyncOptions& options, const torch::Tensor& theta0, int64_t workers)
      : ThetaServer(checked(options), theta0, workers),
        beta_(options_.values.number("yf.beta")),
        closed_loop_(options_.values.flag("yf.closed_loop")),
        gain_(options_.values.number("yf.gain")),
        tune_steps_(options_.values.integer("yf.tune_steps")),
        slow_start_(options_.values.flag("yf.slow_start")),
        smoothed_(options_.values.flag("yf.smoothed")),
        log_curvature_(options_.values.flag("yf.log_curvature")),
        zero_debias_(options_.values.flag("yf.zero_debias")),
        eps_floors_(options_.values.flag("yf.eps_floors")),
        adaptive_clip_(options_.values.flag("yf.adaptive_clip")),
        clip_(options_.values.number("yf.clip")),
        rate_in_velocity_(options_.values.flag("yf.rate_in_velocity")),
        first_tuned_(options_.values.flag("yf.tune_first_step") ? 1.0 : 2.0),
        first_rate_(options_.values.number("yf.first_rate")),
        lr_factor_(options_.values.number("yf.lr_factor")),
        scale_(lr_factor_ / options.lr),
        stride_((theta_.numel() + kMeasuredCoordinates - 1) / kMeasuredCoordinates),
        measured_((theta_.numel() + stride_ - 1) / stride_),
        window_(torch::zeros({options_.values.integer("yf.window")}, torch::kDouble)) {
    if (closed_loop_) ratios_.reserve(static_cast<size_t>(measured_));
    if (adaptive_clip_ || clip_ > 0.0) clipped_ = torch::empty_like(theta_);
  }

  void parameters_for(int64_t worker, torch::Tensor& out) override {
    ThetaServer::parameters_for(worker, out);
    if (!closed_loop_) return;
    // x_s goes to the worker: keep the step v_s that reached it; the step after it is pending.
    sent_step_[worker].copy_(measured(flat_v_));
    pending_.data_ptr<double>()[worker] = 1.0;
  }

  // g = the message (clipped), ℓ = lr, θ = theta_, buf or v = v_.
  void apply(int64_t worker, const torch::Tensor& message, double lr) override {
    check_call(worker, message);
    double* s = tuner_.data_ptr<double>();
    const bool tuning = tune_steps_ == 0 || s[kUpdates] < static_cast<double>(tune_steps_);
    const torch::Tensor* g = &message;
    double h = 0.0;  // ‖g‖²
    if (clip_ > 0.0 || tuning) h = sum_of_squares(message, partials_);
    if (clip_ > 0.0) g = &clip(*g, clip_, h);
    // The previous message's h_max, which the adaptive clips compare with.
    const double previous_max = s[kCurvMax];
    const double t = s[kUpdates] + 1.0;
    const bool adapt = tuning && adaptive_clip_;
    if (adapt && t >= 3.0) g = &clip(*g, std::sqrt(kStatProtect * previous_max) + kEps, h);
    if (tuning) tune(*g, h);
    // η = (ℓ / lr)·yf.lr_factor·α
    double rate = lr * scale_ * s[kRate];
    if (adapt) {
      if (rate * std::sqrt(h) >= kCatastrophicMove) rate = kCatastrophicMove / std::sqrt(h + kEps);
      if (t >= 2.0 && h >= previous_max) {
        g = &clip(*g, std::sqrt(previous_max) + kEps, h, /*measure=*/false);
      }
    }
    s[kStepRate] = rate;
    // d = g (+ λθ with decay_at_server)
    const torch::Tensor& d = decayed(*g);
    const double mu = s[kMomentum];
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
    if (closed_loop_ && tuning) correct_momentum(worker, d, rate);
  }

  int64_t state_bytes() const override {
    // The closed loop's tensors are empty without it; ĝ and d + λθ are scratch.
    return bytes_of(theta_) + bytes_of(v_) + bytes_of(average_) + bytes_of(tuner_) +
           bytes_of(window_) + bytes_of(sent_step_.block) + bytes_of(next_step_.block) +
           bytes_of(next_rate_) + bytes_of(pending_) + bytes_of(measured_message_) +
           bytes_of(clipped_) + decay_bytes();
  }
  // μ applied, the tuner's μ, the tuned rate yf.lr_factor·α before the schedule's shape, the
  // curvature range, and the rate the last update applied.
  void report(std::map<std::string, double>& columns) const override {
    const double* s = tuner_.data_ptr<double>();
    columns["yf_mu"] = s[kMomentum];
    columns["yf_mu_target"] = s[kTarget];
    columns["yf_rate"] = s[kRate] * lr_factor_;
    columns["yf_h_min"] = s[kCurvMin];
    columns["yf_h_max"] = s[kCurvMax];
    columns["yf_step_rate"] = s[kStepRate];
  }
  NamedTensors state() override {
    NamedTensors state = {{"theta", theta_},
                          {"v", v_},
                          {"yf_average", average_},
                          {"yf_tuner", tuner_},
                          {"yf_window", window_}};
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

  // g·min(1, c/(‖g‖ + 1e-6)), as torch.nn.utils.clip_grad_norm_: g itself when it is short
  // enough, else into clipped_ (g may be clipped_). h = ‖g‖² in, the clipped ‖g‖² out (when
  // `measure`: the last clip's is not needed).
  const torch::Tensor& clip(const torch::Tensor& g, double threshold, double& h,
                            bool measure = true) {
    const double coefficient = threshold / (std::sqrt(h) + kClipEps);
    if (!(coefficient < 1.0)) return g;
    coefficient_.fill_(coefficient);
    at::mul_out(clipped_, g, coefficient_);
    if (measure) h = sum_of_squares(clipped_, partials_);
    return clipped_;
  }

  // The statistics read g (h = ‖g‖²); the tuner's μ and α for this message.
  void tune(const torch::Tensor& g, double h) {
    double* s = tuner_.data_ptr<double>();
    const double t = ++s[kUpdates];
    const double beta = beta_;
    const double debias = zero_debias_ ? 1.0 - std::pow(beta, t) : 1.0;
    // the window of the last yf.window values of h, and its range, smoothed
    double* window = window_.data_ptr<double>();
    const int64_t width = window_.numel();
    window[static_cast<int64_t>(t - 1) % width] = h;
    const int64_t filled = std::min<int64_t>(static_cast<int64_t>(t), width);
    const double window_max = *std::max_element(window, window + filled);
    const double window_min = *std::min_element(window, window + filled);
    double h_max = 0.0, h_min = 0.0;
    if (log_curvature_) {
      s[kCurvMaxAvg] = running(s[kCurvMaxAvg], beta, std::log(window_max + kEps));
      s[kCurvMinAvg] = running(s[kCurvMinAvg], beta, std::log(window_min + kEps));
      h_max = std::exp(s[kCurvMaxAvg] / debias);
      h_min = std::exp(s[kCurvMinAvg] / debias);
    } else {
      s[kCurvMaxAvg] = running(s[kCurvMaxAvg], beta, window_max);
      s[kCurvMinAvg] = running(s[kCurvMinAvg], beta, window_min);
      h_max = s[kCurvMaxAvg] / debias;
      h_min = s[kCurvMinAvg] / debias;
    }
    // E[g] ← βE[g] + (1 − β)g;  S ← βS + (1 − β)h;  C = max(−‖E[g]‖²/b² + S/b, ε)
    average_.mul_(beta_scalar_).add_(g, 1.0 - beta);
    s[kNormSqAvg] = running(s[kNormSqAvg], beta, h);
    const double average_sq = sum_of_squares(average_, partials_);
    // N ← βN + (1 − β)‖g‖;  D = E[N/(S + ε)]/b
    s[kNormAvg] = running(s[kNormAvg], beta, std::sqrt(h));
    double mu_t = 0.0, rate_t = 0.0;
    if (!eps_floors_) {
      const double variance =
          std::max(average_sq / -(debias * debias) + s[kNormSqAvg] / debias, kEps);
      s[kDistanceAvg] =
          s[kDistanceAvg] * beta + (1.0 - beta) * s[kNormAvg] / (s[kNormSqAvg] + kEps);
      const double distance = s[kDistanceAvg] / debias;
      // μ_t = max(x², ((√κ − 1)/(√κ + 1))²);  α_t = (1 − √μ_t)²/(h_min + ε)
      const double root = single_step_root(distance, h_min, variance);
      const double range = std::sqrt(std::max((h_max + kEps) / (h_min + kEps), 1.0 + kEps));
      mu_t = std::max(std::pow(root, 2), std::pow((range - 1.0) / (range + 1.0), 2));
      rate_t = std::pow(1.0 - std::sqrt(mu_t), 2) / (h_min + kEps);
    } else {
      // dsgd's earlier bounds: floors instead of ε, μ_t ≤ 0.999
      const double variance =
          std::max(s[kNormSqAvg] / debias - average_sq / (debias * debias), kEps);
      s[kDistanceAvg] =
          running(s[kDistanceAvg], beta, s[kNormSqAvg] > 0.0 ? s[kNormAvg] / s[kNormSqAvg] : 0.0);
      h_min = std::max(h_min, kEps);
      h_max = std::max(h_max, h_min);
      const double distance = s[kDistanceAvg] / debias;
      const double root = floored_single_step_root(distance, h_min, variance);
      const double condition = std::sqrt(h_max / h_min);
      const double bound = (condition - 1.0) / (condition + 1.0);
      mu_t = std::min(std::max(root * root, bound * bound), kHighestMomentum);
      rate_t = std::pow(1.0 - std::sqrt(mu_t), 2) / h_min;
    }
    s[kCurvMin] = h_min;
    s[kCurvMax] = h_max;
    s[kMuAvg] = running(s[kMuAvg], beta, mu_t);
    s[kRateAvg] = running(s[kRateAvg], beta, rate_t);
    // The slow start of the authors' tuner: the rate ramps up over the first 10 windows.
    const double ramp_end = 10.0 * static_cast<double>(width);
    if (smoothed_) {
      s[kTarget] = s[kMuAvg] / debias;
      s[kRate] = s[kRateAvg] / debias * (slow_start_ ? std::min(1.0, t / ramp_end) : 1.0);
    } else {
      s[kTarget] = mu_t;
      s[kRate] = slow_start_ ? std::min(rate_t, rate_t * t / ramp_end) : rate_t;
    }
    if (t < first_tuned_) {
      // the first message, untuned: YFOptimizer's initial lr and mu
      s[kTarget] = 0.0;
      s[kRate] = first_rate_;
    }
    if (!closed_loop_ || t <= first_tuned_) s[kMomentum] = s[kTarget];
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
    double* s = tuner_.data_ptr<double>();
    s[kMomentum] = std::clamp(s[kMomentum] + gain_ * (s[kTarget] - *middle), kLowestMomentum,
                              kHighestMomentum);
  }

  double beta_;
  bool closed_loop_;
  double gain_;
  int64_t tune_steps_;
  bool slow_start_;
  bool smoothed_;       // apply μ*, α* rather than μ_t, α_t
  bool log_curvature_;  // smooth log h_max, log h_min
  bool zero_debias_;
  bool eps_floors_;  // dsgd's earlier floors instead of the authors' ε
  bool adaptive_clip_;
  double clip_;  // yf.clip, 0: none
  bool rate_in_velocity_;
  double first_tuned_;  // t of the first message whose μ and α the tuner sets (1 or 2)
  double first_rate_;   // α of the untuned first message
  double lr_factor_;
  double scale_;                                 // yf.lr_factor / lr
  int64_t stride_;                               // every stride-th coordinate is measured
  int64_t measured_;                             // how many
  torch::Tensor v_ = torch::zeros_like(theta_);  // buf (or v with yf.rate_in_velocity)
  torch::Tensor flat_v_ = v_.view(-1);
  torch::Tensor average_ = torch::zeros_like(theta_);  // E[g]
  torch::Tensor tuner_ = torch::zeros({kScalars}, torch::kDouble);
  torch::Tensor window_;  // the last yf.window values of h, a ring
  // β, μ and the clip's coefficient as 0-dim tensors (a double operand of mul_ would allocate one
  // per update).
  torch::Tensor beta_scalar_ = torch::full({}, beta_, theta_.options());
  torch::Tensor mu_ = torch::zeros({}, theta_.options());
  torch::Tensor coefficient_ = torch::zeros({}, theta_.options());
  torch::Tensor clipped_;  // the clipped message, scratch (with a clip only)
  // The closed loop's measured coordinates, per worker: v_s at the send of x_s, and v_{s+1} with
  // its rate η_{s+1}; pending: the worker still waits for the step after its x_s.
  PerWorker sent_step_{doubles(measured_), loop_workers()};
  PerWorker next_step_{doubles(measured_), loop_workers()};
  torch::Tensor next_rate_ = doubles(loop_workers());
  torch::Tensor pending_ = doubles(loop_workers());
  torch::Tensor measured_message_ = doubles(closed_loop_ ? measured_ : 0);  // scratch
  std::vector<double> ratios_;    // scratch, reserved once
  std::vector<double> partials_;  // scratch of sum_of_squares
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
