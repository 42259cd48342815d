// Delay compensation of DC-ASGD (Zheng et al. 2017, "Asynchronous Stochastic Gradient Descent
// with Delay Compensation"), shared by dc-asgd and dana-dc: a gradient g computed at θ̂_i is
// corrected towards the gradient at θ with the cheap diagonal Hessian estimate g⊙g,
//   g + λ_t·g⊙g⊙(θ − θ̂_i),
// where λ_t = λ_dc, or in the adaptive variant (DC-ASGD-a) λ_t = λ_dc / sqrt(MS_i + ε) with
// MS_i ← m·MS_i + (1−m)·g⊙g a per-worker mean square of the gradients (per worker as in the
// authors' Multiverso code, with ε = 1e-7). The published defaults are λ = 0.04 for the constant
// form (DC-ASGD-c) and λ₀ = 2, m = 0.95 for the adaptive one (DC-ASGD-a): the declared keys
// (delay_compensation_options) default to them. g is the worker's message d = g + λθ̂_i, as in
// MXNet's DCASGD. DelayCompensated<Server> puts the correction in front of any server rule.
// Private to src/algos/.
#pragma once

#include <torch/torch.h>

#include <vector>

#include "algos/async_rule.h"
#include "algos/async_util.h"

namespace dsgd {

// The keys dc.lambda, dc.adaptive and dc.ms_decay, declared by every delay-compensated rule.
std::vector<OptionSpec> delay_compensation_options();

class DelayCompensation {
 public:
  // ε of sqrt(MS_i + ε), as in the authors' code.
  static constexpr double kEpsilon = 1e-7;

  // Allocates θ̂_1..θ̂_N (and, adaptive only, one mean-square vector per worker) like θ.
  // `options.values` holds the resolved delay_compensation_options().
  DelayCompensation(const AsyncOptions& options, const torch::Tensor& theta, int64_t workers);

  // θ̂_i ← sent: the parameters worker i computes its next gradient at.
  void record(int64_t worker, const torch::Tensor& sent);

  // acc ← acc + scale·λ_t·g⊙g⊙(θ − θ̂_i), updating MS_i first when adaptive. θ̂_i serves as
  // scratch, so it holds garbage until the next record(worker); the protocol always records
  // before the worker's next message. Does nothing when λ_dc = 0.
  void add_to(torch::Tensor& acc, int64_t worker, const torch::Tensor& gradient,
              const torch::Tensor& theta, double scale);

  int64_t state_bytes() const;
  // Appends θ̂ ("theta_hat", [N, P]) and, adaptive only, "dc_rms" ([N, P], sqrt(MS_i + ε)).
  void append_state(NamedTensors& state);

 private:
  double lambda_;  // λ_dc
  bool adaptive_;
  double decay_;                          // m
  torch::Tensor sent_;                    // [N, P]: row i is θ̂_i
  std::vector<torch::Tensor> sent_rows_;  // θ̂_i, views shaped like θ
  torch::Tensor rms_;                     // [N, P]: row i is r_i = sqrt(MS_i + ε); adaptive only
  std::vector<torch::Tensor> rms_rows_;   // r_i, views shaped like θ
  torch::Tensor rms_floor_;               // 0-dim (1−m)·ε, a broadcast operand
};

// A server rule whose messages are delay-compensated before it applies them: it records what it
// sends each worker as θ̂_i and applies d' = d + λ_t·d⊙d⊙(θ − θ̂_i) in place of d, where θ is the
// inner rule's θ (theta_, not a look-ahead it may send). With λ_dc = 0, d' is a copy of d and
// the rule is the inner one, operation for operation.
template <class Server>
class DelayCompensated : public Server {
 public:
  using Server::Server;

  void parameters_for(int64_t worker, torch::Tensor& out) override {
    // out = what the inner rule sends;  θ̂_i ← out
    Server::parameters_for(worker, out);
    compensation_.record(worker, out);
  }

  // d = message, d' = compensated_.
  void apply(int64_t worker, const torch::Tensor& message, double lr) override {
    this->check_call(worker, message);
    // d' = d + λ_t·d⊙d⊙(θ − θ̂_i)
    compensated_.copy_(message);
    compensation_.add_to(compensated_, worker, message, this->theta_, 1.0);
    Server::apply(worker, compensated_, lr);
  }

  int64_t state_bytes() const override {
    return Server::state_bytes() + compensation_.state_bytes() +
           async_internal::bytes_of(compensated_);
  }
  // d' is rebuilt on every update: it needs no checkpoint.
  NamedTensors state() override {
    NamedTensors state = Server::state();
    compensation_.append_state(state);
    return state;
  }

 private:
  // θ̂_1..θ̂_N (and MS_i when adaptive)
  DelayCompensation compensation_{this->options_, this->theta_, this->workers_};
  torch::Tensor compensated_ = torch::empty_like(this->theta_);  // d', scratch
};

}  // namespace dsgd
