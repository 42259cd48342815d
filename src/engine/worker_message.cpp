// An asynchronous worker's side of one exchange; see worker_message.h.
#include "engine/worker_message.h"

namespace dsgd {

torch::Tensor run_local_steps(LocalRun& run, const torch::Tensor& received, double lr,
                              int64_t steps, torch::Tensor params, torch::Tensor grads,
                              const LocalGradient& gradient) {
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

torch::Tensor compute_for_message(AsyncWorkerRule& rule, const torch::Tensor& received, double lr,
                                  int64_t steps, torch::Tensor params, torch::Tensor grads,
                                  const LocalGradient& gradient) {
  if (LocalRun* run = rule.local_run()) {
    return run_local_steps(*run, received, lr, steps, params, grads, gradient);
  }
  torch::NoGradGuard no_grad;
  if (!received.is_same(params)) params.copy_(received);
  torch::AutoGradMode enable_grad(true);
  return gradient(0);
}

torch::Tensor message_of(AsyncWorkerRule& rule, const torch::Tensor& gradient,
                         const torch::Tensor& received, double lr) {
  if (LocalRun* run = rule.local_run()) return run->finish();
  return rule.message(gradient, received, lr);
}

WorkerMessage worker_message(AsyncWorkerRule& rule, const torch::Tensor& received, double lr,
                             int64_t steps, torch::Tensor params, torch::Tensor grads,
                             const LocalGradient& gradient) {
  torch::Tensor loss = compute_for_message(rule, received, lr, steps, params, grads, gradient);
  return {loss, message_of(rule, grads, received, lr)};
}

}  // namespace dsgd
