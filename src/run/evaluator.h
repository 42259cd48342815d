// Evaluation of a parameter vector on the test set. Parameters that come from a server (or an
// average of learners) have no BatchNorm statistics of their own, so before each evaluation the
// running statistics are re-estimated: reset, then a cumulative average over a few training
// batches in training mode. The same is done for single-worker runs so all runs compare alike.
#pragma once

#include <torch/torch.h>

#include <cmath>
#include <functional>

#include "core/flat_model.h"
#include "data/dataset.h"
#include "data/worker_stream.h"
#include "train/replica_runner.h"

namespace dsgd {

struct EvalResult {
  double loss = 0.0;      // mean cross-entropy per prediction (image, or token)
  double accuracy = 0.0;  // fraction in [0, 1] of predictions right
  double perplexity() const { return std::exp(loss); }  // a language model's
};

// Re-estimates every BatchNorm module's running statistics from `batches` batches of `stream`
// (starting at batch `first`). A model without BatchNorm is left untouched. `between_batches`,
// when given, runs before each batch: it may throw to abandon the work (a stop request).
void reestimate_batchnorm(FlatModel& model, WorkerStream& stream, int64_t first, int64_t batches,
                          torch::Device device,
                          const std::function<void()>& between_batches = nullptr);

// Mean cross-entropy and accuracy over the whole dataset, in eval mode, batches of `chunk`;
// `between_batches` as above. With `replicas` (an engine's, lent) the batches are computed on
// them in parallel, `replicas->replicas()` at a time with `between_batches` before each wave, each
// replica loaded with `model`'s parameters and buffers; every batch is computed as it would be on
// `model` (same thread count, same batch), and the sums are taken in batch order, so the result
// is the same bit for bit.
EvalResult evaluate(FlatModel& model, const Dataset& data, const Normalization& norm,
                    torch::Device device, int64_t chunk = 1000,
                    const std::function<void()>& between_batches = nullptr,
                    ReplicaRunner* replicas = nullptr);

// Loss per token and next-token accuracy over fixed windows of seq_len + 1 tokens (int64
// [windows, seq_len + 1], data/token_corpus.h's validation_windows), in eval mode, in batches of
// about kTokensPerEvaluationBatch tokens; `between_batches` and `replicas` as above.
constexpr int64_t kTokensPerEvaluationBatch = 16384;
EvalResult evaluate_tokens(FlatModel& model, const torch::Tensor& windows, torch::Device device,
                           const std::function<void()>& between_batches = nullptr,
                           ReplicaRunner* replicas = nullptr);

}  // namespace dsgd
