// YellowFin (Zhang, Mitliagkas, Ré, "YellowFin and the Art of Momentum Tuning", arXiv 1706.03471,
// MLSys 2019) on the parameter server: heavy-ball momentum SGD whose momentum μ and rate α are
// tuned on the fly from the gradients as they arrive, and, in its closed-loop form, whose
// algorithmic momentum is corrected for the momentum that asynchrony itself adds.
//
// The tuner, for each message d (the paper's Algorithm 1; t = updates tuned so far, β = yf.beta,
// every running average zero-debiased by b = 1 − β^t as the authors' code does):
//   h = ‖d‖²;  h_max, h_min: the largest and smallest h of the last yf.window messages, averaged;
//   C = Σ E[d²] − ‖E[d]‖²          the gradient variance; Σ E[d²] is the running mean of h, so
//                                  only E[d] is kept per coordinate;
//   D = E[ E[‖d‖] / E[h] ]         the distance to the optimum;
//   μ_t: the root of the single-step problem min_x x²D² + (1 − x)⁴C/h_min² (x = √μ), the
//        cubic y³ + py + p = 0 (y = x − 1, p = D²h_min²/(2C)) solved by Vieta's substitution;
//        μ_t = max(x², ((√κ − 1)/(√κ + 1))²), κ = h_max/h_min;
//   α_t = (1 − √μ_t)²/h_min;   μ* and α* are the running means of μ_t and α_t (Algorithm 1's
//        smoothing; the authors' PyTorch code applies μ_t and α_t, their Caffe2 code the means).
// The step is dsgd's heavy ball (async_rule.h): v ← μv + η·d, θ ← θ − v, with
// η = yf.lr_factor · (ℓ / lr) · α* · min(1, t / (10·yf.window)), ℓ the message's scheduled rate:
// the value of `lr` is not read, only its schedule's shape (ℓ / lr: a warm-up, a decay), and
// yf.lr_factor plays the authors' lr_factor (1: the paper's YellowFin). The last factor is the
// slow start of the authors' PyTorch tuner (yf.slow_start): with debiased averages the first α*
// is 1/‖d‖², a step of length 1/‖d‖, which a network with small initial gradients (lenet5 without
// BatchNorm) does not survive. The config key `momentum` is not read either.
//
// Closed loop (§5 of the paper; yf.closed_loop): asynchrony behaves like extra momentum, so the
// total momentum μ_T of the server's iterates exceeds the algorithmic μ. The server measures it
// on the model x_{s+1} − x_s = μ_T(x_s − x_{s−1}) − η∇f(x_s): when the gradient computed at x_s
// arrives (from the worker that was sent x_s), the step before x_s and the step after it are
// known, and
//   μ̂_T = median over coordinates of (x_{s+1} − x_s + η_{s+1}∇f(x_s)) / (x_s − x_{s−1})
//       = median of (v_{s+1} − η_{s+1}·d) / v_s,
// after which μ ← μ + γ(μ* − μ̂_T) (γ = yf.gain), clamped to [−0.9, 0.999]. Without delay the
// gradient at x_s is the one step s + 1 applied, and μ̂_T is μ itself. The median is taken over a
// fixed strided sample of at most 16384 coordinates (the steps at those coordinates are what the
// server keeps per worker), and over the coordinates whose step v_s is non-zero. The algorithmic
// μ starts at the first μ*.
//
// yf.tune_steps > 0 freezes μ and α after that many updates; from then on the rule is heavy-ball
// momentum at the frozen values (a test checks the recurrence).
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
// The smallest variance and curvature the tuner divides by (the authors' ε).
constexpr double kFloor = 1e-6;
constexpr double kLowestMomentum = -0.9;
constexpr double kHighestMomentum = 0.999;

// The tuner's scalars, one double tensor so that they checkpoint as one entry.
enum Scalar : int64_t {
  kUpdates,      // t: updates tuned so far
  kCurvMaxAvg,   // running mean of h_max over the window
  kCurvMinAvg,   // running mean of h_min over the window
  kNormAvg,      // E[‖d‖]
  kNormSqAvg,    // E[h] = Σ E[d²]
  kDistanceAvg,  // running mean of E[‖d‖]/E[h]
  kMuAvg,        // running mean of μ_t
  kRateAvg,      // running mean of α_t
  kTarget,       // μ*, the tuner's momentum (debiased)
  kRate,         // α*, the tuner's rate (debiased), times the slow start's ramp
  kMomentum,     // μ applied: μ*, or the closed loop's algorithmic momentum
  kScalars
};

// x = √μ solving the single-step problem (the cubic of the file comment), by Vieta's substitution.
double single_step_root(double distance, double curv_min, double variance) {
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
        scale_(options_.values.number("yf.lr_factor") / options.lr),
        stride_((theta_.numel() + kMeasuredCoordinates - 1) / kMeasuredCoordinates),
        measured_((theta_.numel() + stride_ - 1) / stride_),
        window_(torch::zeros({options_.values.integer("yf.window")}, torch::kDouble)) {
    if (closed_loop_) ratios_.reserve(static_cast<size_t>(measured_));
  }

  void parameters_for(int64_t worker, torch::Tensor& out) override {
    ThetaServer::parameters_for(worker, out);
    if (!closed_loop_) return;
    // x_s goes to the worker: keep the step v_s that reached it; the step after it is pending.
    sent_step_[worker].copy_(measured(flat_v_));
    pending_.data_ptr<double>()[worker] = 1.0;
  }

  // d = message, ℓ = lr, θ = theta_, v = v_.
  void apply(int64_t worker, const torch::Tensor& message, double lr) override {
    check_call(worker, message);
    double* s = tuner_.data_ptr<double>();
    const bool tuning = tune_steps_ == 0 || s[kUpdates] < static_cast<double>(tune_steps_);
    if (tuning) tune(message);
    // v ← μv + ηd with η = (ℓ / lr)·factor·α*;  θ ← θ − v
    const double rate = lr * scale_ * s[kRate];
    mu_.fill_(s[kMomentum]);
    v_.mul_(mu_).add_(message, rate);
    theta_.sub_(v_);
    if (closed_loop_ && tuning) correct_momentum(worker, message, rate);
  }

  int64_t state_bytes() const override {
    // The closed loop's tensors are empty without it.
    return bytes_of(theta_) + bytes_of(v_) + bytes_of(average_) + bytes_of(tuner_) +
           bytes_of(window_) + bytes_of(sent_step_.block) + bytes_of(next_step_.block) +
           bytes_of(next_rate_) + bytes_of(pending_) + bytes_of(measured_message_);
  }
  // μ applied, the tuner's μ*, and the tuned rate yf.lr_factor·α* before the schedule's shape.
  void report(std::map<std::string, double>& columns) const override {
    const double* s = tuner_.data_ptr<double>();
    columns["yf_mu"] = s[kMomentum];
    columns["yf_mu_target"] = s[kTarget];
    columns["yf_rate"] = s[kRate] * options_.values.number("yf.lr_factor");
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

  void tune(const torch::Tensor& message) {
    double* s = tuner_.data_ptr<double>();
    const double t = ++s[kUpdates];
    const double beta = beta_;
    const double debias = 1.0 - std::pow(beta, t);
    // h = ‖d‖², into the window of the last yf.window values
    const double h = sum_of_squares(message, partials_);
    double* window = window_.data_ptr<double>();
    const int64_t width = window_.numel();
    window[static_cast<int64_t>(t - 1) % width] = h;
    const int64_t filled = std::min<int64_t>(static_cast<int64_t>(t), width);
    const double curv_max = *std::max_element(window, window + filled);
    const double curv_min = *std::min_element(window, window + filled);
    s[kCurvMaxAvg] = running(s[kCurvMaxAvg], beta, curv_max);
    s[kCurvMinAvg] = running(s[kCurvMinAvg], beta, curv_min);
    // E[d] ← βE[d] + (1 − β)d;  C = E[h]/b − ‖E[d]‖²/b²
    average_.mul_(beta_scalar_).add_(message, 1.0 - beta);
    s[kNormSqAvg] = running(s[kNormSqAvg], beta, h);
    const double variance = std::max(
        s[kNormSqAvg] / debias - sum_of_squares(average_, partials_) / (debias * debias), kFloor);
    // D: the running mean of E[‖d‖]/E[h] (their biases cancel), debiased
    s[kNormAvg] = running(s[kNormAvg], beta, std::sqrt(h));
    s[kDistanceAvg] =
        running(s[kDistanceAvg], beta, s[kNormSqAvg] > 0.0 ? s[kNormAvg] / s[kNormSqAvg] : 0.0);
    const double h_min = std::max(s[kCurvMinAvg] / debias, kFloor);
    const double h_max = std::max(s[kCurvMaxAvg] / debias, h_min);
    const double distance = s[kDistanceAvg] / debias;
    // μ_t = max(x², ((√κ − 1)/(√κ + 1))²);  α_t = (1 − √μ_t)²/h_min
    const double root = single_step_root(distance, h_min, variance);
    const double condition = std::sqrt(h_max / h_min);
    const double bound = (condition - 1.0) / (condition + 1.0);
    const double mu_t = std::min(std::max(root * root, bound * bound), kHighestMomentum);
    const double rate_t = std::pow(1.0 - std::sqrt(mu_t), 2) / h_min;
    s[kMuAvg] = running(s[kMuAvg], beta, mu_t);
    s[kRateAvg] = running(s[kRateAvg], beta, rate_t);
    s[kTarget] = s[kMuAvg] / debias;
    // The slow start of the authors' tuner: the rate ramps up over the first 10 windows.
    const double ramp = slow_start_ ? std::min(1.0, t / (10.0 * static_cast<double>(width))) : 1.0;
    s[kRate] = s[kRateAvg] / debias * ramp;
    if (!closed_loop_ || t == 1.0) s[kMomentum] = s[kTarget];
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
    // μ ← μ + γ(μ* − μ̂_T)
    double* s = tuner_.data_ptr<double>();
    s[kMomentum] = std::clamp(s[kMomentum] + gain_ * (s[kTarget] - *middle), kLowestMomentum,
                              kHighestMomentum);
  }

  double beta_;
  bool closed_loop_;
  double gain_;
  int64_t tune_steps_;
  bool slow_start_;
  double scale_;      // yf.lr_factor / lr
  int64_t stride_;    // every stride-th coordinate is measured
  int64_t measured_;  // how many
  torch::Tensor v_ = torch::zeros_like(theta_);
  torch::Tensor flat_v_ = v_.view(-1);
  torch::Tensor average_ = torch::zeros_like(theta_);  // E[d]
  torch::Tensor tuner_ = torch::zeros({kScalars}, torch::kDouble);
  torch::Tensor window_;  // the last yf.window values of h, a ring
  // β and μ as 0-dim tensors (a double operand of mul_ would allocate one per update).
  torch::Tensor beta_scalar_ = torch::full({}, beta_, theta_.options());
  torch::Tensor mu_ = torch::zeros({}, theta_.options());
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
      "multiplies YellowFin's tuned rate (the value of lr is not read, only the shape of its "
      "schedule)",
      0.0);
  lr_factor.low_open = true;
  AsyncAlgorithm algorithm = gradient_algorithm<YellowFinServer>(
      "yellowfin",
      "YellowFin: momentum and rate tuned at the server from the gradients (Zhang et al. 2017); "
      "closed loop against asynchrony's momentum; follows lr's schedule, not its value",
      {number_option("yf.beta", 0.999, "decay β of YellowFin's running averages", 0.0, 1.0),
       integer_option("yf.window", 20,
                      "how many recent squared gradient norms YellowFin's curvature range spans"),
       boolean_option("yf.closed_loop", true,
                      "correct YellowFin's momentum by the total momentum measured at the server "
                      "(the paper's closed loop for asynchrony)"),
       number_option("yf.gain", 0.01, "gain γ of YellowFin's closed loop: μ += γ(μ* − μ̂_T)", 0.0,
                     1.0),
       lr_factor,
       boolean_option("yf.slow_start", true,
                      "ramp YellowFin's rate up over its first 10·yf.window updates, as the "
                      "authors' tuner does"),
       integer_option("yf.tune_steps", 0,
                      "freeze YellowFin's μ and rate after this many updates (0: tune throughout)",
                      0)});
  algorithm.element_wise = false;
  return algorithm;
}

}  // namespace dsgd
