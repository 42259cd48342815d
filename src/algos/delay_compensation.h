// Delay compensation of DC-ASGD (Zheng et al. 2017, "Asynchronous Stochastic Gradient Descent
// with Delay Compensation"), shared by dc-asgd and dana-dc: a gradient g computed at θ̂_i is
// corrected towards the gradient at θ with the cheap diagonal Hessian estimate g⊙g,
//   g + λ_t·g⊙g⊙(θ − θ̂_i),
// where λ_t = λ_dc, or in the adaptive variant (DC-ASGD-a) λ_t = λ_dc / sqrt(MS_i + ε) with
// MS_i ← m·MS_i + (1−m)·g⊙g a per-worker mean square of the gradients (per worker as in the
// authors' Multiverso code, with ε = 1e-7). g is the raw gradient, without weight decay, in both
// references: MXNet's DCASGD computes g + wd·w + λ·g⊙g⊙(w − w_prev), and the DANA authors'
// simulator corrects the raw gradient before its SGD step adds the decay. Workers of these rules
// therefore send g, and the server adds the decay after the correction, at θ̂_i (dsgd's
// convention) or at θ (decay_at_server, both references'). DelayCompensated<Server> puts the
// correction in front of any server rule. Private to src/algos/.
#pragma once

#include <torch/torch.h>

#include <string>
#include <utility>
#include <vector>

#include "algos/async_rule.h"
#include "algos/async_util.h"

namespace dsgd {

// The keys dc.lambda, dc.adaptive and dc.ms_decay, declared by every delay-compensated rule.
// dc.lambda defaults to `constant_lambda` (DC-ASGD-c: 0.04, MXNet's; the DANA authors' DANA-DC:
// 2), or 2 with dc.adaptive (DC-ASGD-a, Zheng et al.).
std::vector<OptionSpec> delay_compensation_options(double constant_lambda);

class DelayCompensation {
 public:
  // ε of sqrt(MS_i + ε), as in the authors' code.
  static constexpr double kEpsilon = 1e-7;

  // Allocates, adaptive only, one mean-square vector per worker like θ. `options.values` holds the
  // resolved delay_compensation_options().
  DelayCompensation(const AsyncOptions& options, const torch::Tensor& theta, int64_t workers);

  // acc ← acc + scale·λ_t·g⊙g⊙(θ − θ̂_i), updating MS_i first when adaptive. `hat` (θ̂_i, the
  // caller's record of what worker i was sent) serves as scratch, so it holds garbage until the
  // caller records again; the protocol always sends before the worker's next message. Does
  // nothing when λ_dc = 0.
  void add_to(torch::Tensor& acc, torch::Tensor& hat, int64_t worker, const torch::Tensor& gradient,
              const torch::Tensor& theta, double scale);

  int64_t state_bytes() const;
  // Appends, adaptive only, "dc_rms" ([N, P], sqrt(MS_i + ε)).
  void append_state(NamedTensors& state);

 private:
  double lambda_;  // λ_dc
  bool adaptive_;
  double decay_;                         // m
  torch::Tensor rms_;                    // [N, P]: row i is r_i = sqrt(MS_i + ε); adaptive only
  std::vector<torch::Tensor> rms_rows_;  // r_i, views shaped like θ
  torch::Tensor rms_floor_;              // 0-dim (1−m)·ε, a broadcast operand
};

// A server rule whose messages are delay-compensated before it applies them: it records what it
// sends each worker as θ̂_i (CorrectedMessages) and applies d' = g + λ_t·g⊙g⊙(θ − θ̂_i) + λθ̂_i in
// place of the bare gradient g its workers send (BareGradientWorker), where θ is the inner rule's
// θ (theta_, not a look-ahead it may send). With decay_at_server the inner rule adds λθ instead of
// λθ̂_i. With λ_dc = 0, d' is the inner rule's message d = g + λθ̂_i, built by the same operation
// as a worker builds it, and the rule is the inner one, operation for operation.
template <class Server>
class DelayCompensated : public async_internal::CorrectedMessages<Server> {
  using Base = async_internal::CorrectedMessages<Server>;

 public:
  using Base::Base;

  int64_t state_bytes() const override { return Base::state_bytes() + compensation_.state_bytes(); }
  NamedTensors state() override {
    NamedTensors state = Base::state();
    compensation_.append_state(state);
    return state;
  }

 private:
  // g = message, d' = out, θ̂_i = sent_[i], λ = worker_decay_.
  void correct(int64_t worker, const torch::Tensor& message, double /*lr*/,
               torch::Tensor& out) override {
    // d' = g + λθ̂_i   (d' = g with decay_at_server or λ = 0)
    if (worker_decay_ != 0.0) {
      at::add_out(out, message, this->sent_[worker], worker_decay_);
    } else {
      out.copy_(message);
    }
    // d' ← d' + λ_t·g⊙g⊙(θ − θ̂_i)
    compensation_.add_to(out, this->sent_[worker], worker, message, this->theta_, 1.0);
  }

  DelayCompensation compensation_{this->options_, this->theta_, this->workers_};  // MS_i
  // λ at θ̂_i, unless the inner rule takes it at θ (decay_at_server)
  double worker_decay_ =
      async_internal::decay_at_server(this->options_) ? 0.0 : this->options_.weight_decay;
};

// The registry entry of a delay-compensated rule: its workers send the bare gradient.
template <class Server>
AsyncAlgorithm delay_compensated_algorithm(std::string name, std::string description,
                                           std::vector<OptionSpec> specs) {
  return async_internal::rule_algorithm<DelayCompensated<Server>,
                                        async_internal::BareGradientWorker>(
      std::move(name), std::move(description), std::move(specs));
}

}  // namespace dsgd
