// Delay compensation of DC-ASGD (Zheng et al. 2017); see delay_compensation.h.
//
// The adaptive variant stores r_i = sqrt(MS_i + ε) instead of MS_i: the divisor λ_t needs is
// then at hand without a scratch vector (the server may hold nothing beyond its listed state),
// and updating it costs three passes: r_i² = MS_i + ε, so
//   MS_i ← m·MS_i + (1−m)·g⊙g   ⇔   r_i ← sqrt(m·r_i² + (1−m)·ε + (1−m)·g⊙g).
// MS_i = 0 at the start is r_i = sqrt(ε).
#include "algos/delay_compensation.h"

#include <fmt/format.h>

#include <cmath>

#include "algos/async_util.h"

namespace dsgd {

using namespace async_internal;  // NOLINT(build/namespaces): the helpers of async_util.h

std::vector<OptionSpec> delay_compensation_options(double constant_lambda) {
  OptionSpec lambda = number_option(
      "dc.lambda", constant_lambda,
      fmt::format("delay-compensation strength λ_dc (default {}, or 2 with dc.adaptive)",
                  constant_lambda),
      0.0);
  lambda.default_from = [constant_lambda](const OptionValues& v) {
    return v.flag("dc.adaptive") ? 2.0 : constant_lambda;
  };
  return {lambda, boolean_option("dc.adaptive", false, "adaptive λ_dc (DC-ASGD-a)"),
          number_option("dc.ms_decay", 0.95, "decay m of the adaptive mean square", 0.0, 1.0)};
}

DelayCompensation::DelayCompensation(const AsyncOptions& options, const torch::Tensor& theta,
                                     int64_t workers)
    : lambda_(options.values.number("dc.lambda")),
      adaptive_(options.values.flag("dc.adaptive")),
      decay_(options.values.number("dc.ms_decay")) {
  if (adaptive_) {
    // MS_i = 0  ⇔  r_i = sqrt(ε)
    rms_ = torch::full({workers, theta.numel()}, std::sqrt(kEpsilon), theta.options());
    rms_rows_ = rows_of(rms_, theta);
    rms_floor_ = torch::full({}, (1.0 - decay_) * kEpsilon, theta.options());
  }
}

// g = gradient, θ = theta, scale = the caller's η, θ̂_i = hat, λ_dc = lambda_, m = decay_,
// r_i = rms_rows_[i] = sqrt(MS_i + ε), (1−m)ε = rms_floor_.
void DelayCompensation::add_to(torch::Tensor& acc, torch::Tensor& hat, int64_t worker,
                               const torch::Tensor& gradient, const torch::Tensor& theta,
                               double scale) {
  if (lambda_ == 0.0) return;
  // θ̂_i ← (θ − θ̂_i)⊙g   (θ̂_i becomes scratch)
  at::sub_out(hat, theta, hat);
  hat.mul_(gradient);
  if (!adaptive_) {
    // acc ← acc + scale·λ_dc·g⊙g⊙(θ − θ̂_i)
    acc.addcmul_(hat, gradient, scale * lambda_);
    return;
  }
  torch::Tensor& r = rms_rows_[worker];
  // r_i ← m·r_i⊙r_i + (1−m)·ε   (= m·MS_i + ε; r_i holds a square until the sqrt)
  at::addcmul_out(r, rms_floor_, r, r, decay_);
  // r_i ← r_i + (1−m)·g⊙g   (= MS_i + ε with MS_i updated)
  r.addcmul_(gradient, gradient, 1.0 - decay_);
  // r_i ← sqrt(r_i)   (= sqrt(MS_i + ε))
  r.sqrt_();
  // θ̂_i ← g⊙g⊙(θ − θ̂_i)
  hat.mul_(gradient);
  // acc ← acc + scale·λ_t·g⊙g⊙(θ − θ̂_i),  λ_t = λ_dc / sqrt(MS_i + ε) = λ_dc / r_i
  acc.addcdiv_(hat, r, scale * lambda_);
}

int64_t DelayCompensation::state_bytes() const { return bytes_of(rms_); }

void DelayCompensation::append_state(NamedTensors& state) {
  if (adaptive_) state.emplace_back("dc_rms", rms_);
}

}  // namespace dsgd
