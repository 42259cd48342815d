// A worker's local steps between two exchanges; see local_run.h.
#include "engine/local_run.h"

namespace dsgd {

torch::Tensor run_local_steps(LocalRun& run, const torch::Tensor& received, double lr,
                              int64_t steps, torch::Tensor params, torch::Tensor grads,
                              const std::function<torch::Tensor(int64_t step)>& gradient) {
  torch::NoGradGuard no_grad;
  run.begin(received);
  torch::Tensor loss_sum;
  for (int64_t h = 0; h < steps; ++h) {
    params.copy_(run.point());
    torch::Tensor loss = [&] {
      torch::AutoGradMode enable_grad(true);
      return gradient(h);
    }();
    loss_sum = h == 0 ? loss.detach().clone() : loss_sum.add_(loss.detach());
    run.step(grads, lr);
  }
  return loss_sum.div_(static_cast<double>(steps));
}

}  // namespace dsgd
