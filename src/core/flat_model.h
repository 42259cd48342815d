// A module whose parameters, gradients and floating-point buffers (BatchNorm running statistics)
// are views into three contiguous tensors. Every distributed rule then works on one flat vector:
// sending the model is one copy, an update is a handful of fused element-wise ops, and sharding
// is slicing. The module itself keeps working as usual (forward, backward, train/eval).
#pragma once

#include <torch/torch.h>

#include <memory>

namespace dsgd {

class FlatModel {
 public:
  // Moves the module's parameters and buffers into flat storage on `device`.
  explicit FlatModel(std::shared_ptr<torch::nn::Module> module, torch::Device device = torch::kCPU);

  torch::nn::Module& module() { return *module_; }
  const std::shared_ptr<torch::nn::Module>& module_ptr() const { return module_; }

  // float32 [P]; writing it changes the module's parameters.
  torch::Tensor& params() { return params_; }
  // float32 [P]; backward() accumulates into it. Zero it with zero_grad().
  torch::Tensor& grads() { return grads_; }
  // float32 [Q]: every floating-point buffer (BN running mean and var). Integer buffers such as
  // num_batches_tracked stay outside: they only matter for momentum-free BN, which we do not use.
  torch::Tensor& buffers() { return buffers_; }

  int64_t num_params() const { return params_.numel(); }
  int64_t num_buffers() const { return buffers_.numel(); }

  // Zeroes gradients in place, keeping them views of grads() (set_to_none would break that).
  void zero_grad() { grads_.zero_(); }

 private:
  std::shared_ptr<torch::nn::Module> module_;
  torch::Tensor params_;
  torch::Tensor grads_;
  torch::Tensor buffers_;
};

}  // namespace dsgd
