// YellowFin's tuner (Zhang, Mitliagkas, Ré, "YellowFin and the Art of Momentum Tuning", arXiv
// 1706.03471): what the yellowfin server rule (yellowfin.cpp) reads each message through. From the
// stream of messages it keeps the paper's statistics (the curvature range, the gradient variance,
// the distance to the optimum), solves the single-step problem for the momentum μ and the rate α,
// and applies the authors' clips; the rule keeps the step, the closed loop and the checkpoint. By
// default it is the authors' PyTorch tuner, YFOptimizer (JianGoForIt/YellowFin_Pytorch @ b87aed1,
// tuner_utils/yellowfin.py, every constructor default). Private to src/algos/.
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
// The rate is η = ℓ·(yf.lr_factor/lr)·α (the rule's scale, yellowfin.cpp). With yf.adaptive_clip,
// η ← 100/√(h + ε) when η·√h ≥ 100 (the catastrophic-move clamp), and when t ≥ 2 and h ≥ h_max',
// g ← clip(g, √h_max' + ε) after the statistics (the exploding-gradient clip).
//
// yf.tune_steps > 0 stops the tuner after that many messages: μ and the rate stay at their last
// values and the adaptive clips (which read the tuner's statistics) stop.
#pragma once

#include <torch/torch.h>

#include <map>
#include <string>
#include <vector>

#include "algos/async_rule.h"
#include "algos/options.h"

namespace dsgd {
namespace async_internal {

class YellowFinTuner {
 public:
  // What the tuner makes of one message.
  struct Step {
    const torch::Tensor* g;  // the gradient the step takes: the message, or its clipped copy
    double rate;             // η
    bool tuned;              // whether the tuner read it (false after yf.tune_steps messages)
  };

  // `values`: the yf.* keys, resolved; `theta`: the server's θ, whose shape and dtype E[g] and
  // the clipped message take.
  YellowFinTuner(const OptionValues& values, const torch::Tensor& theta);

  // Reads one message: the clips, the statistics, μ and α. `rate_scale` = ℓ·yf.lr_factor/lr, the
  // factor that turns α into η. The step's g may be the tuner's scratch, valid until the next call.
  Step read(const torch::Tensor& message, double rate_scale);

  // μ applied: the tuner's, or, with the closed loop, the algorithmic momentum it corrects.
  double momentum() const;
  // The closed loop's correction by the total momentum μ̂_T measured at the server.
  void correct_momentum(double total_momentum, double gain);

  // μ applied, the tuner's μ, the tuned rate yf.lr_factor·α before the schedule's shape, the
  // curvature range, and the rate the last update applied.
  void report(std::map<std::string, double>& columns, double lr_factor) const;
  // E[g], the scalars and the window, appended to the rule's checkpoint entries.
  void add_state(NamedTensors& state) const;
  // What add_state adds, and the clipped message (scratch).
  int64_t state_bytes() const;

 private:
  const torch::Tensor& clip(const torch::Tensor& g, double threshold, double& h,
                            bool measure = true);
  void tune(const torch::Tensor& g, double h);

  double beta_;
  int64_t tune_steps_;
  bool closed_loop_;  // μ applied is the loop's after the first tuned message
  bool slow_start_;
  bool smoothed_;       // apply μ*, α* rather than μ_t, α_t
  bool log_curvature_;  // smooth log h_max, log h_min
  bool zero_debias_;
  bool eps_floors_;  // dsgd's earlier floors instead of the authors' ε
  bool adaptive_clip_;
  double clip_;            // yf.clip, 0: none
  double first_tuned_;     // t of the first message whose μ and α the tuner sets (1 or 2)
  double first_rate_;      // α of the untuned first message
  torch::Tensor average_;  // E[g]
  // The tuner's scalars (yellowfin_tuner.cpp's Scalar): one tensor, one checkpoint entry.
  torch::Tensor scalars_;
  torch::Tensor window_;  // the last yf.window values of h, a ring
  // β and the clip's coefficient as 0-dim tensors (a double operand of mul_ would allocate one per
  // update).
  torch::Tensor beta_scalar_;
  torch::Tensor coefficient_;
  torch::Tensor clipped_;         // the clipped message, scratch (with a clip only)
  std::vector<double> partials_;  // scratch of sum_of_squares
};

}  // namespace async_internal
}  // namespace dsgd
