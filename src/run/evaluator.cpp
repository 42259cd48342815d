// Test-set evaluation and BatchNorm re-estimation; see evaluator.h.
#include "run/evaluator.h"

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

EvalResult evaluate(FlatModel& model, const Dataset& data, const Normalization& norm,
                    torch::Device device, int64_t chunk,
                    const std::function<void()>& between_batches) {
  torch::NoGradGuard no_grad;
  torch::nn::Module& module = model.module();
  auto* forward_model = dynamic_cast<Model*>(&module);
  TORCH_CHECK(forward_model != nullptr, "evaluate needs a dsgd::Model");
  bool was_training = module.is_training();
  module.eval();
  double loss_sum = 0.0;
  int64_t correct = 0;
  for (int64_t start = 0; start < data.size(); start += chunk) {
    if (between_batches) between_batches();
    int64_t n = std::min(chunk, data.size() - start);
    torch::Tensor inputs = normalize_images(data.images.narrow(0, start, n), norm).to(device);
    torch::Tensor labels = data.labels.narrow(0, start, n).to(device);
    torch::Tensor logits = forward_model->predict(inputs);
    loss_sum +=
        torch::nn::functional::cross_entropy(
            logits, labels, torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kSum))
            .item<double>();
    correct += logits.argmax(1).eq(labels).sum().item<int64_t>();
  }
  module.train(was_training);
  EvalResult result;
  result.loss = loss_sum / static_cast<double>(data.size());
  result.accuracy = static_cast<double>(correct) / static_cast<double>(data.size());
  return result;
}

}  // namespace dsgd
