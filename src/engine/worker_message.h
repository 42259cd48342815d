// An asynchronous worker's side of one exchange, as both engines run it: from the parameters it
// received, its computation (one minibatch's gradient, or H local steps of a rule that takes
// them: algos/async_rule.h, LocalRun) and then its rule's message. The simulator runs it on the
// model or on a replica (ahead of the exchange, in parallel: there the two halves run apart), an
// MPI worker rank on its model; neither writes a message of its own.
#pragma once

#include <torch/torch.h>

#include <functional>

#include "algos/async_rule.h"

namespace dsgd {

// Computes the gradient at the parameters in `params` of local step `step`'s minibatch (the
// worker's next ones) into the model's gradient vector; returns the (detached) loss.
using LocalGradient = std::function<torch::Tensor(int64_t step)>;

// Begins `run` at `received`; then `steps` times writes run.point() into `params`, calls
// `gradient(h)` for step h and takes the step at rate `lr`. Returns the steps' mean loss; the
// message is run.finish().
torch::Tensor run_local_steps(LocalRun& run, const torch::Tensor& received, double lr,
                              int64_t steps, torch::Tensor params, torch::Tensor grads,
                              const LocalGradient& gradient);

// The worker's computation for its next message: with a local run, its `steps` local steps from
// `received` (run_local_steps); otherwise `received` in `params` (already there when they are
// one tensor) and one gradient at it, in `grads`. Returns the loss.
torch::Tensor compute_for_message(AsyncWorkerRule& rule, const torch::Tensor& received, double lr,
                                  int64_t steps, torch::Tensor params, torch::Tensor grads,
                                  const LocalGradient& gradient);

// The message of that computation: the local run's finish(), or the rule's message of `gradient`
// (the gradient compute_for_message left) at `received`. It may alias the rule's state: the
// engine sends (copies) it before the worker's next exchange, and then calls commit() on a local
// run.
torch::Tensor message_of(AsyncWorkerRule& rule, const torch::Tensor& gradient,
                         const torch::Tensor& received, double lr);

struct WorkerMessage {
  torch::Tensor loss;
  torch::Tensor message;
};

// Both halves at once: what a worker sends after receiving `received` at rate `lr`.
WorkerMessage worker_message(AsyncWorkerRule& rule, const torch::Tensor& received, double lr,
                             int64_t steps, torch::Tensor params, torch::Tensor grads,
                             const LocalGradient& gradient);

}  // namespace dsgd
