// One exchange of an asynchronous worker that takes local steps (algos/async_rule.h, LocalRun),
// as both engines run it: the simulator on a replica (ahead of the exchange, in parallel), an MPI
// worker rank on its model.
#pragma once

#include <torch/torch.h>

#include <functional>

#include "algos/async_rule.h"

namespace dsgd {

// Begins `run` at `received`; then `steps` times writes run.point() into `params`, calls
// `gradient(h)` for step h (it computes the gradient at `params` into `grads` on the worker's
// next minibatch and returns the loss) and takes the step at rate `lr`. Returns the steps' mean
// loss; the message is run.finish().
torch::Tensor run_local_steps(LocalRun& run, const torch::Tensor& received, double lr,
                              int64_t steps, torch::Tensor params, torch::Tensor grads,
                              const std::function<torch::Tensor(int64_t step)>& gradient);

}  // namespace dsgd
