// Test-set evaluation and BatchNorm re-estimation; see evaluator.h.
#include "run/evaluator.h"

#include <algorithm>
#include <vector>

#include "models/model.h"

namespace dsgd {

void reestimate_batchnorm(FlatModel& model, WorkerStream& stream, int64_t first, int64_t batches,
                          torch::Device device, const std::function<void()>& between_batches) {
  auto* forward_model = dynamic_cast<Model*>(&model.module());
  TORCH_CHECK(forward_model != nullptr, "reestimate_batchnorm needs a dsgd::Model");
  if (batches <= 0 || !forward_model->has_batchnorm()) return;
  torch::NoGradGuard no_grad;
  forward_model->start_batchnorm_average();
  bool was_training = forward_model->is_training();
  forward_model->train(true);
  for (int64_t k = 0; k < batches; ++k) {
    if (between_batches) between_batches();
    Batch batch = stream.batch(first + k);
    forward_model->predict(batch.inputs.to(device));
  }
  forward_model->end_batchnorm_average();
  forward_model->train(was_training);
}

namespace {

struct BatchResult {
  double loss_sum = 0.0;
  int64_t correct = 0;
};

// One batch through `net`, which is in eval mode: the summed cross-entropy of its predictions
// (one per image, or one per token) and how many of them were right.
BatchResult evaluate_batch(Model& net, const Batch& batch, torch::Device device) {
  torch::NoGradGuard no_grad;
  torch::Tensor labels = batch.labels.to(device).reshape({-1});
  torch::Tensor logits = net.predict(batch.inputs.to(device));
  logits = logits.reshape({-1, logits.size(-1)});
  BatchResult result;
  result.loss_sum =
      torch::nn::functional::cross_entropy(
          logits, labels, torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kSum))
          .item<double>();
  result.correct = logits.argmax(1).eq(labels).sum().item<int64_t>();
  return result;
}

Model& forward_model_of(torch::nn::Module& module) {
  auto* net = dynamic_cast<Model*>(&module);
  TORCH_CHECK(net != nullptr, "evaluate needs a dsgd::Model");
  return *net;
}

// The samples an evaluation reads: `count` of them, `predictions` predictions each (one for an
// image, seq_len for a window of tokens), batch(start, n) the samples [start, start + n).
struct EvalSamples {
  int64_t count = 0;
  int64_t predictions = 1;
  std::function<Batch(int64_t start, int64_t n)> batch;
};

EvalResult evaluate_samples(FlatModel& model, const EvalSamples& samples, torch::Device device,
                            int64_t chunk, const std::function<void()>& between_batches,
                            ReplicaRunner* replicas) {
  torch::NoGradGuard no_grad;
  const int64_t batches = (samples.count + chunk - 1) / chunk;
  std::vector<BatchResult> results(static_cast<size_t>(batches));
  auto batch = [&](int64_t b) {
    return samples.batch(b * chunk, std::min(chunk, samples.count - b * chunk));
  };
  if (replicas != nullptr && replicas->replicas() > 1 && batches > 1) {
    for (int64_t first = 0; first < batches; first += replicas->replicas()) {
      if (between_batches) between_batches();
      std::vector<ReplicaRunner::Task> wave;
      for (int64_t b = first; b < std::min(batches, first + replicas->replicas()); ++b) {
        wave.push_back([&, b](ModelReplica& replica) {
          torch::NoGradGuard no_grad;
          replica.flat->params().copy_(model.params());
          replica.flat->buffers().copy_(model.buffers());
          Model& net = forward_model_of(replica.flat->module());
          const bool was_training = net.is_training();
          net.eval();
          results[static_cast<size_t>(b)] = evaluate_batch(net, batch(b), device);
          net.train(was_training);
        });
      }
      replicas->run_each(std::move(wave));
    }
  } else {
    Model& net = forward_model_of(model.module());
    const bool was_training = net.is_training();
    net.eval();
    for (int64_t b = 0; b < batches; ++b) {
      if (between_batches) between_batches();
      results[static_cast<size_t>(b)] = evaluate_batch(net, batch(b), device);
    }
    net.train(was_training);
  }
  double loss_sum = 0.0;
  int64_t correct = 0;
  for (const BatchResult& result : results) {  // in batch order, however they were computed
    loss_sum += result.loss_sum;
    correct += result.correct;
  }
  const auto predictions = static_cast<double>(samples.count * samples.predictions);
  EvalResult result;
  result.loss = loss_sum / predictions;
  result.accuracy = static_cast<double>(correct) / predictions;
  return result;
}

}  // namespace

EvalResult evaluate(FlatModel& model, const Dataset& data, const Normalization& norm,
                    torch::Device device, int64_t chunk,
                    const std::function<void()>& between_batches, ReplicaRunner* replicas) {
  EvalSamples samples;
  samples.count = data.size();
  samples.batch = [&](int64_t start, int64_t n) {
    return Batch{normalize_images(data.images.narrow(0, start, n), norm),
                 data.labels.narrow(0, start, n)};
  };
  return evaluate_samples(model, samples, device, chunk, between_batches, replicas);
}

EvalResult evaluate_tokens(FlatModel& model, const torch::Tensor& windows, torch::Device device,
                           const std::function<void()>& between_batches, ReplicaRunner* replicas) {
  const int64_t seq_len = windows.size(1) - 1;
  EvalSamples samples;
  samples.count = windows.size(0);
  samples.predictions = seq_len;
  samples.batch = [&](int64_t start, int64_t n) {
    const torch::Tensor some = windows.narrow(0, start, n);
    return Batch{some.narrow(1, 0, seq_len).contiguous(), some.narrow(1, 1, seq_len).contiguous()};
  };
  // About 16K tokens a batch: the attention's scores grow with the square of seq_len.
  const int64_t chunk = std::max<int64_t>(1, kTokensPerEvaluationBatch / seq_len);
  return evaluate_samples(model, samples, device, chunk, between_batches, replicas);
}

}  // namespace dsgd
