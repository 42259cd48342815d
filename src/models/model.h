// Models and their registry. An image model maps float [B, C, H, W] inputs to [B, classes] logits
// and is built for the dataset's input shape, so one name serves MNIST- and CIFAR-shaped data; a
// language model maps int64 tokens [B, T] to [B, T, vocabulary] logits.
#pragma once

#include <torch/torch.h>

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "models/compute_format.h"
#include "models/task.h"

namespace dsgd {

class Model : public torch::nn::Module {
 public:
  virtual torch::Tensor forward(torch::Tensor x) = 0;

  // forward() in the model's compute format (its input's layout, bf16 autocast), returning
  // float32 logits: what training, evaluation and BatchNorm re-estimation call.
  torch::Tensor predict(torch::Tensor x);
  void set_compute_format(const ComputeFormat& format) { format_ = format; }
  const ComputeFormat& compute_format() const { return format_; }

  // BatchNorm re-estimation (run/evaluator.h). Whether the model has BatchNorm layers; reset their
  // running statistics and make them keep the exact (cumulative) average of the batches that
  // follow; and give them back their own momentum. The defaults handle torch::nn BatchNorm1d/2d
  // submodules; a model whose layers live elsewhere (TorchScript) overrides all three.
  // The network in a form a user loads back with its trained weights and BatchNorm statistics
  // (a TorchScript model: the scripted module, for torch.jit.load); false, writing nothing, for a
  // model that has none (the built-ins, which are C++ modules).
  virtual bool save_module(std::ostream&) { return false; }

  virtual bool has_batchnorm();
  virtual void start_batchnorm_average();
  virtual void end_batchnorm_average();

 private:
  std::vector<c10::optional<double>> saved_momentum_;
  ComputeFormat format_;
};

struct InputShape {
  int64_t channels = 1;
  int64_t height = 28;
  int64_t width = 28;
  int64_t num_classes = 10;  // a language model's: the vocabulary's size
  int64_t seq_len = 0;       // > 0: token inputs [B, seq_len] (a language model), not images

  bool tokens() const { return seq_len > 0; }
  // What a model of this shape learns: tokens are language modelling.
  Task task() const {
    return {tokens() ? TaskKind::kLanguageModel : TaskKind::kClassification, num_classes};
  }
};

// Zeros in the shape a model of `shape` takes, `samples` of them: float images or int64 tokens.
torch::Tensor example_input(const InputShape& shape, int64_t samples);

// The sizes of the built-in transformer (the config's transformer.* keys); the image models have
// none of their own.
struct ModelOptions {
  int64_t layers = 6;
  int64_t heads = 6;
  int64_t width = 384;
};

// Throws ConfigError (naming the closest valid name) for an unknown model, or when the model
// cannot take this input shape (e.g. resnet on a too-small image, an image model on tokens).
std::shared_ptr<Model> make_model(const std::string& name, const InputShape& shape,
                                  const ModelOptions& options = {});

struct ModelInfo {
  std::string name;
  std::string description;
  bool takes_tokens = false;  // a language model: int64 tokens [B, T] in, [B, T, V] logits out
};
const std::vector<ModelInfo>& model_registry();

}  // namespace dsgd
