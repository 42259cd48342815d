// Wide residual networks of Zagoruyko & Komodakis, "Wide Residual Networks" (BMVC 2016).
// WRN-d-k has three stages of (d - 4) / 6 pre-activation blocks (BN-ReLU-conv3x3, twice) with
// 16k, 32k and 64k channels after a 16-channel stem, a learned 1x1 shortcut wherever the shape
// changes, and a final BN-ReLU before pooling. Dropout inside the blocks is left out (rate 0):
// its rate is a regularisation choice the paper tunes per dataset, and the baselines we compare
// against use none. Adaptive average pooling lets one model serve 28x28 and 32x32 inputs.
#include <string>
#include <vector>

#include "core/errors.h"
#include "models/zoo.h"

namespace dsgd {
namespace {

torch::nn::Conv2d conv(int64_t in, int64_t out, int64_t kernel, int64_t stride) {
  return torch::nn::Conv2d(
      torch::nn::Conv2dOptions(in, out, kernel).stride(stride).padding(kernel / 2).bias(false));
}

class WideBlockImpl : public torch::nn::Module {
 public:
  WideBlockImpl(int64_t in, int64_t out, int64_t stride) {
    bn1_ = register_module("bn1", torch::nn::BatchNorm2d(in));
    conv1_ = register_module("conv1", conv(in, out, 3, stride));
    bn2_ = register_module("bn2", torch::nn::BatchNorm2d(out));
    conv2_ = register_module("conv2", conv(out, out, 3, 1));
    if (stride != 1 || in != out) {
      shortcut_ = register_module("shortcut", conv(in, out, 1, stride));
    }
  }

  torch::Tensor forward(torch::Tensor x) {
    torch::Tensor pre = torch::relu(bn1_->forward(x));
    torch::Tensor out = conv1_->forward(pre);
    out = conv2_->forward(torch::relu(bn2_->forward(out)));
    // The projection reads the pre-activated input, as the authors' code does, so that both
    // branches of a widening block start from the same normalised signal.
    return out + (shortcut_ ? shortcut_->forward(pre) : x);
  }

 private:
  // Pre-activation: bn1 acts before conv1 and bn2 before conv2.
  torch::nn::BatchNorm2d bn1_{nullptr}, bn2_{nullptr};
  torch::nn::Conv2d conv1_{nullptr}, conv2_{nullptr};
  torch::nn::Conv2d shortcut_{nullptr};  // only where the shape changes
};
TORCH_MODULE(WideBlock);

class WideResNet : public Model {
 public:
  WideResNet(int blocks_per_stage, int widen, const InputShape& shape) {
    conv1_ = register_module("conv1", conv(shape.channels, 16, 3, 1));
    int64_t in = 16;
    for (int stage = 0; stage < 3; ++stage) {
      const int64_t width = (int64_t{16} << stage) * widen;
      torch::nn::Sequential layer;
      for (int block = 0; block < blocks_per_stage; ++block) {
        const int64_t stride = (stage > 0 && block == 0) ? 2 : 1;
        layer->push_back(WideBlock(in, width, stride));
        in = width;
      }
      layers_.push_back(register_module("layer" + std::to_string(stage + 1), layer));
    }
    bn_ = register_module("bn", torch::nn::BatchNorm2d(in));
    fc_ = register_module("fc", torch::nn::Linear(in, shape.num_classes));
    init_residual_weights(*this);
  }

  torch::Tensor forward(torch::Tensor x) override {
    x = conv1_->forward(x);
    for (auto& layer : layers_) x = layer->forward(x);
    x = torch::relu(bn_->forward(x));
    x = torch::adaptive_avg_pool2d(x, {1, 1}).flatten(1);
    return fc_->forward(x);
  }

 private:
  torch::nn::Conv2d conv1_{nullptr};
  std::vector<torch::nn::Sequential> layers_;
  torch::nn::BatchNorm2d bn_{nullptr};
  torch::nn::Linear fc_{nullptr};
};

}  // namespace

std::shared_ptr<Model> make_wide_resnet(const std::string& name, int depth, int widen,
                                        const InputShape& shape) {
  if (depth < 10 || (depth - 4) % 6 != 0 || widen < 1) {
    throw ConfigError(name + ": WRN depth must be 6n + 4 with n >= 1 and width >= 1, got depth " +
                          std::to_string(depth) + ", width " + std::to_string(widen),
                      "use wrn-16-4 or wrn-28-10");
  }
  require_min_input_side(name, shape, kMinResidualInputSide);
  return std::make_shared<WideResNet>((depth - 4) / 6, widen, shape);
}

}  // namespace dsgd
