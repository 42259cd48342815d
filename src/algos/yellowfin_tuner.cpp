// YellowFin's tuner: the statistics, the single-step problem's root, the clips; see
// yellowfin_tuner.h for the equations.
#include "algos/yellowfin_tuner.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <cmath>

#include "algos/async_util.h"

namespace dsgd {
namespace async_internal {
namespace {

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

// x = √μ solving the single-step problem (yellowfin_tuner.h's cubic), by Vieta's substitution, in
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

double running(double average, double beta, double value) {
  return beta * average + (1.0 - beta) * value;
}

}  // namespace

YellowFinTuner::YellowFinTuner(const OptionValues& values, const torch::Tensor& theta)
    : beta_(values.number("yf.beta")),
      tune_steps_(values.integer("yf.tune_steps")),
      closed_loop_(values.flag("yf.closed_loop")),
      slow_start_(values.flag("yf.slow_start")),
      smoothed_(values.flag("yf.smoothed")),
      log_curvature_(values.flag("yf.log_curvature")),
      zero_debias_(values.flag("yf.zero_debias")),
      eps_floors_(values.flag("yf.eps_floors")),
      adaptive_clip_(values.flag("yf.adaptive_clip")),
      clip_(values.number("yf.clip")),
      first_tuned_(values.flag("yf.tune_first_step") ? 1.0 : 2.0),
      first_rate_(values.number("yf.first_rate")),
      average_(torch::zeros_like(theta)),
      scalars_(torch::zeros({kScalars}, torch::kDouble)),
      window_(torch::zeros({values.integer("yf.window")}, torch::kDouble)),
      beta_scalar_(torch::full({}, beta_, theta.options())),
      coefficient_(torch::zeros({}, theta.options())) {
  if (adaptive_clip_ || clip_ > 0.0) clipped_ = torch::empty_like(theta);
}

YellowFinTuner::Step YellowFinTuner::read(const torch::Tensor& message, double rate_scale) {
  double* s = scalars_.data_ptr<double>();
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
  double rate = rate_scale * s[kRate];
  if (adapt) {
    if (rate * std::sqrt(h) >= kCatastrophicMove) rate = kCatastrophicMove / std::sqrt(h + kEps);
    if (t >= 2.0 && h >= previous_max) {
      g = &clip(*g, std::sqrt(previous_max) + kEps, h, /*measure=*/false);
    }
  }
  s[kStepRate] = rate;
  return {g, rate, tuning};
}

double YellowFinTuner::momentum() const { return scalars_.data_ptr<double>()[kMomentum]; }

void YellowFinTuner::correct_momentum(double total_momentum, double gain) {
  // μ ← μ + γ(μ_tuner − μ̂_T)
  double* s = scalars_.data_ptr<double>();
  s[kMomentum] = std::clamp(s[kMomentum] + gain * (s[kTarget] - total_momentum), kLowestMomentum,
                            kHighestMomentum);
}

void YellowFinTuner::report(std::map<std::string, double>& columns, double lr_factor) const {
  const double* s = scalars_.data_ptr<double>();
  columns["yf_mu"] = s[kMomentum];
  columns["yf_mu_target"] = s[kTarget];
  columns["yf_rate"] = s[kRate] * lr_factor;
  columns["yf_h_min"] = s[kCurvMin];
  columns["yf_h_max"] = s[kCurvMax];
  columns["yf_step_rate"] = s[kStepRate];
}

void YellowFinTuner::add_state(NamedTensors& state) const {
  state.emplace_back("yf_average", average_);
  state.emplace_back("yf_tuner", scalars_);
  state.emplace_back("yf_window", window_);
}

int64_t YellowFinTuner::state_bytes() const {
  return bytes_of(average_) + bytes_of(scalars_) + bytes_of(window_) + bytes_of(clipped_);
}

// g·min(1, c/(‖g‖ + 1e-6)), as torch.nn.utils.clip_grad_norm_: g itself when it is short
// enough, else into clipped_ (g may be clipped_). h = ‖g‖² in, the clipped ‖g‖² out (when
// `measure`: the last clip's is not needed).
const torch::Tensor& YellowFinTuner::clip(const torch::Tensor& g, double threshold, double& h,
                                          bool measure) {
  const double coefficient = threshold / (std::sqrt(h) + kClipEps);
  if (!(coefficient < 1.0)) return g;
  coefficient_.fill_(coefficient);
  at::mul_out(clipped_, g, coefficient_);
  if (measure) h = sum_of_squares(clipped_, partials_);
  return clipped_;
}

// The statistics read g (h = ‖g‖²); the tuner's μ and α for this message.
void YellowFinTuner::tune(const torch::Tensor& g, double h) {
  double* s = scalars_.data_ptr<double>();
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
    s[kDistanceAvg] = s[kDistanceAvg] * beta + (1.0 - beta) * s[kNormAvg] / (s[kNormSqAvg] + kEps);
    const double distance = s[kDistanceAvg] / debias;
    // μ_t = max(x², ((√κ − 1)/(√κ + 1))²);  α_t = (1 − √μ_t)²/(h_min + ε)
    const double root = single_step_root(distance, h_min, variance);
    const double range = std::sqrt(std::max((h_max + kEps) / (h_min + kEps), 1.0 + kEps));
    mu_t = std::max(std::pow(root, 2), std::pow((range - 1.0) / (range + 1.0), 2));
    rate_t = std::pow(1.0 - std::sqrt(mu_t), 2) / (h_min + kEps);
  } else {
    // dsgd's earlier bounds: floors instead of ε, μ_t ≤ 0.999
    const double variance = std::max(s[kNormSqAvg] / debias - average_sq / (debias * debias), kEps);
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

}  // namespace async_internal
}  // namespace dsgd
