// Re-homes a module's tensors into flat storage; see flat_model.h.
#include "core/flat_model.h"

namespace dsgd {
namespace {

// Points each tensor at consecutive slices of one new flat tensor, keeping their values.
torch::Tensor flatten_into_one(std::vector<torch::Tensor> tensors, torch::Device device) {
  int64_t total = 0;
  for (const auto& t : tensors) total += t.numel();
  auto flat = torch::empty({total}, torch::TensorOptions().dtype(torch::kFloat).device(device));
  torch::NoGradGuard no_grad;
  int64_t offset = 0;
  for (auto& t : tensors) {
    int64_t n = t.numel();
    flat.narrow(0, offset, n).copy_(t.detach().reshape({n}));
    // set_ keeps the tensor object (and so the module's registration and autograd leaf status)
    // while swapping its storage for a contiguous slice of the flat tensor.
    std::vector<int64_t> sizes = t.sizes().vec();
    t.set_(flat.storage(), offset, sizes);
    offset += n;
  }
  return flat;
}

}  // namespace

FlatModel::FlatModel(std::shared_ptr<torch::nn::Module> module, torch::Device device)
    : module_(std::move(module)) {
  module_->to(device);
  std::vector<torch::Tensor> parameters = module_->parameters();
  for (auto& p : parameters) {
    TORCH_CHECK(p.scalar_type() == torch::kFloat, "FlatModel supports float32 parameters only");
  }
  std::vector<torch::Tensor> float_buffers;
  for (auto& b : module_->buffers()) {
    if (b.is_floating_point()) float_buffers.push_back(b);
  }
  params_ = flatten_into_one(parameters, device);
  buffers_ = flatten_into_one(float_buffers, device);

  grads_ = torch::zeros_like(params_);
  int64_t offset = 0;
  for (auto& p : parameters) {
    int64_t n = p.numel();
    p.mutable_grad() = grads_.narrow(0, offset, n).view(p.sizes());
    offset += n;
  }
}

}  // namespace dsgd
