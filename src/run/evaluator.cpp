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

// Samples [start, start + n) of `data` through `net`, which is in eval mode.
BatchResult evaluate_batch(Model& net, const Dataset& data, const Normalization& norm,
                           torch::Device device, int64_t start, int64_t n) {
  torch::NoGradGuard no_grad;
  torch::Tensor inputs = normalize_images(data.images.narrow(0, start, n), norm).to(device);
  torch::Tensor labels = data.labels.narrow(0, start, n).to(device);
  torch::Tensor logits = net.predict(inputs);
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

}  // namespace

EvalResult evaluate(FlatModel& model, const Dataset& data, const Normalization& norm,
                    torch::Device device, int64_t chunk,
                    const std::function<void()>& between_batches, ReplicaRunner* replicas) {
  torch::NoGradGuard no_grad;
  const int64_t batches = (data.size() + chunk - 1) / chunk;
  std::vector<BatchResult> results(static_cast<size_t>(batches));
  auto batch_size = [&](int64_t b) { return std::min(chunk, data.size() - b * chunk); };
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
          results[static_cast<size_t>(b)] =
              evaluate_batch(net, data, norm, device, b * chunk, batch_size(b));
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
      results[static_cast<size_t>(b)] =
          evaluate_batch(net, data, norm, device, b * chunk, batch_size(b));
    }
    net.train(was_training);
  }
  double loss_sum = 0.0;
  int64_t correct = 0;
  for (const BatchResult& result : results) {  // in batch order, however they were computed
    loss_sum += result.loss_sum;
    correct += result.correct;
  }
  EvalResult result;
  result.loss = loss_sum / static_cast<double>(data.size());
  result.accuracy = static_cast<double>(correct) / static_cast<double>(data.size());
  return result;
}

}  // namespace dsgd
