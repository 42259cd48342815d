// The optimizer a learner steps with between exchanges: SGD with momentum (local_sgd.h), the
// default and the papers' for CIFAR-10, or AdamW (local_adamw.h), DiLoCo's and asynchronous local
// SGD's, each optionally clipping the gradient it is given to a norm first (as
// torch.nn.utils.clip_grad_norm_ before optimizer.step()). Single-worker training and every
// synchronous learner hold one; the engines see only its step and its state block (the velocity,
// or AdamW's [m | v]), which they average (with average_momentum) and checkpoint alike.
#pragma once

#include <torch/torch.h>

#include <optional>
#include <string>

#include "algos/local_adamw.h"
#include "algos/local_sgd.h"
#include "core/enum_names.h"

namespace dsgd {

enum class LocalOptimizerKind { kSgd, kAdamw };
template <>
struct EnumNames<LocalOptimizerKind> {
  static constexpr EnumName<LocalOptimizerKind> values[] = {{LocalOptimizerKind::kSgd, "sgd"},
                                                            {LocalOptimizerKind::kAdamw, "adamw"}};
};

struct LocalOptimizerOptions {
  LocalOptimizerOptions() = default;
  // Plain SGD options are the common case (and every test's): they convert.
  LocalOptimizerOptions(const SgdOptions& sgd_options)  // NOLINT(runtime/explicit)
      : sgd(sgd_options) {}
  LocalOptimizerKind kind = LocalOptimizerKind::kSgd;
  SgdOptions sgd;
  AdamWOptions adamw;
  double clip_norm = 0.0;  // the gradient's largest L2 norm; 0: no clipping
};

class LocalOptimizer {
 public:
  LocalOptimizer(const LocalOptimizerOptions& options, const torch::Tensor& like);

  // Step t (1-based; AdamW's bias corrections count it) at learning rate η, the gradient clipped
  // first when clip_norm > 0. `grad` is scratch.
  void step(torch::Tensor& theta, torch::Tensor& grad, double lr, int64_t t);

  // The state that travels with the parameters: SGD's velocity (undefined when γ = 0), or
  // AdamW's [m | v]. Exposed for averaging and checkpoints.
  torch::Tensor& state();
  // Keeps the state in `storage` (shaped like state(), zeros) from now on; ignored when there
  // is none.
  void keep_state_in(const torch::Tensor& storage);
  bool is_adamw() const { return adamw_.has_value(); }

 private:
  std::optional<LocalSgd> sgd_;
  std::optional<LocalAdamW> adamw_;
  double clip_norm_;
};

// Scales `grad` in place so that its L2 norm is at most `max_norm`, as torch.nn.utils.
// clip_grad_norm_ does (the factor max_norm / (norm + 1e-6), when below 1), without reading the
// norm back to the host.
void clip_gradient_norm(torch::Tensor& grad, double max_norm);

}  // namespace dsgd
