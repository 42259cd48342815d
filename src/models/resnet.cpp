// Residual networks of He, Zhang, Ren & Sun, "Deep Residual Learning for Image Recognition"
// (CVPR 2016). The CIFAR family (resnet20 ... resnet110, depth 6n + 2, section 4.2) uses
// three stages of 16, 32 and 64 channels and the parameter-free "option A" shortcut, so that
// its parameter counts match the paper's Table 6. resnet20-proj is the same network with
// "option B" projection shortcuts, as the PyTorch ResNet_Cifar that the DANA authors' simulator
// trains defines it (272,474 parameters, 2,752 more). ResNet-18 is the ImageNet
// architecture of Table 1 with the 7x7 stem and max pooling replaced by a single 3x3 convolution,
// the usual adaptation to 32x32 images. Both end in adaptive average pooling, so one model serves
// 28x28 MNIST-style and 32x32 CIFAR-style inputs.
#include <string>
#include <vector>

#include "core/errors.h"
#include "models/zoo.h"

namespace dsgd {
namespace {

torch::nn::Conv2d conv3x3(int64_t in, int64_t out, int64_t stride) {
  return torch::nn::Conv2d(
      torch::nn::Conv2dOptions(in, out, 3).stride(stride).padding(1).bias(false));
}

// How a block's shortcut matches a change of shape (halved image, more channels).
enum class Shortcut {
  // Option A (the CIFAR ResNets): take every other pixel and pad the new channels with zeros, so
  // the shortcut adds no parameters.
  kPadded,
  // Option B (ResNet-18, resnet20-proj): a learned 1x1 convolution and BatchNorm, which is what
  // ResNet-18's published parameter count assumes.
  kProjected,
};

// conv-BN-ReLU-conv-BN plus shortcut, then ReLU (the original, post-activation block).
class BlockImpl : public torch::nn::Module {
 public:
  BlockImpl(int64_t in, int64_t out, int64_t stride, Shortcut shortcut)
      : stride_(stride), pad_channels_(out - in) {
    conv1_ = register_module("conv1", conv3x3(in, out, stride));
    bn1_ = register_module("bn1", torch::nn::BatchNorm2d(out));
    conv2_ = register_module("conv2", conv3x3(out, out, 1));
    bn2_ = register_module("bn2", torch::nn::BatchNorm2d(out));
    if (shortcut == Shortcut::kProjected && (stride != 1 || in != out)) {
      projection_ = register_module(
          "shortcut",
          torch::nn::Sequential(
              torch::nn::Conv2d(torch::nn::Conv2dOptions(in, out, 1).stride(stride).bias(false)),
              torch::nn::BatchNorm2d(out)));
    }
  }

  torch::Tensor forward(torch::Tensor x) {
    torch::Tensor out = torch::relu(bn1_->forward(conv1_->forward(x)));
    out = bn2_->forward(conv2_->forward(out));
    return torch::relu(out + shortcut(x));
  }

 private:
  torch::Tensor shortcut(torch::Tensor x) {
    if (projection_) return projection_->forward(x);
    if (stride_ != 1) {
      x = x.slice(2, 0, c10::nullopt, stride_).slice(3, 0, c10::nullopt, stride_);
    }
    if (pad_channels_ > 0) {
      // Split the zeros between both ends as the reference implementation does; where they go
      // does not change what the network can learn, but it keeps weights interchangeable.
      const int64_t front = pad_channels_ / 2;
      x = torch::constant_pad_nd(x, {0, 0, 0, 0, front, pad_channels_ - front});
    }
    return x;
  }

  int64_t stride_;
  int64_t pad_channels_;
  torch::nn::Conv2d conv1_{nullptr};
  torch::nn::BatchNorm2d bn1_{nullptr};
  torch::nn::Conv2d conv2_{nullptr};
  torch::nn::BatchNorm2d bn2_{nullptr};
  torch::nn::Sequential projection_{nullptr};  // with Shortcut::kProjected where the shape changes
};
TORCH_MODULE(Block);

// What both ResNet families share: a conv-BN-ReLU stem, stages of residual blocks, global
// average pooling and a linear classifier. Subclasses fill in the members.
class ResidualNet : public Model {
 public:
  torch::Tensor forward(torch::Tensor x) override {
    x = torch::relu(bn1_->forward(conv1_->forward(x)));
    for (auto& layer : layers_) x = layer->forward(x);
    x = torch::adaptive_avg_pool2d(x, {1, 1}).flatten(1);
    return fc_->forward(x);
  }

 protected:
  torch::nn::Conv2d conv1_{nullptr};
  torch::nn::BatchNorm2d bn1_{nullptr};
  std::vector<torch::nn::Sequential> layers_;
  torch::nn::Linear fc_{nullptr};
};

class CifarResNet : public ResidualNet {
 public:
  CifarResNet(int blocks_per_stage, Shortcut shortcut, const InputShape& shape) {
    conv1_ = register_module("conv1", conv3x3(shape.channels, 16, 1));
    bn1_ = register_module("bn1", torch::nn::BatchNorm2d(16));
    int64_t in = 16;
    const int64_t widths[] = {16, 32, 64};
    for (int stage = 0; stage < 3; ++stage) {
      torch::nn::Sequential layer;
      for (int block = 0; block < blocks_per_stage; ++block) {
        const int64_t stride = (stage > 0 && block == 0) ? 2 : 1;
        layer->push_back(Block(in, widths[stage], stride, shortcut));
        in = widths[stage];
      }
      layers_.push_back(register_module("layer" + std::to_string(stage + 1), layer));
    }
    fc_ = register_module("fc", torch::nn::Linear(in, shape.num_classes));
    init_residual_weights(*this);
  }
};

class ResNet18 : public ResidualNet {
 public:
  explicit ResNet18(const InputShape& shape) {
    conv1_ = register_module("conv1", conv3x3(shape.channels, 64, 1));
    bn1_ = register_module("bn1", torch::nn::BatchNorm2d(64));
    int64_t in = 64;
    const int64_t widths[] = {64, 128, 256, 512};
    for (int stage = 0; stage < 4; ++stage) {
      const int64_t stride = stage == 0 ? 1 : 2;
      torch::nn::Sequential layer(Block(in, widths[stage], stride, Shortcut::kProjected),
                                  Block(widths[stage], widths[stage], 1, Shortcut::kProjected));
      in = widths[stage];
      layers_.push_back(register_module("layer" + std::to_string(stage + 1), layer));
    }
    fc_ = register_module("fc", torch::nn::Linear(in, shape.num_classes));
    init_residual_weights(*this);
  }
};

}  // namespace

void require_min_input_side(const std::string& model, const InputShape& shape, int64_t min_side) {
  if (shape.height < min_side || shape.width < min_side) {
    throw ConfigError(model + " needs images of at least " + std::to_string(min_side) + "x" +
                          std::to_string(min_side) + " pixels, got " +
                          std::to_string(shape.height) + "x" + std::to_string(shape.width),
                      "use mlp or lenet5 for such small inputs");
  }
}

void init_residual_weights(torch::nn::Module& model) {
  for (auto& module : model.modules(/*include_self=*/false)) {
    if (auto* conv = module->as<torch::nn::Conv2d>()) {
      torch::nn::init::kaiming_normal_(conv->weight, 0.0, torch::kFanOut, torch::kReLU);
    } else if (auto* bn = module->as<torch::nn::BatchNorm2d>()) {
      torch::nn::init::ones_(bn->weight);
      torch::nn::init::zeros_(bn->bias);
    }
  }
}

std::shared_ptr<Model> make_cifar_resnet(const std::string& name, int depth,
                                         const InputShape& shape, bool projection) {
  if (depth < 8 || (depth - 2) % 6 != 0) {
    throw ConfigError(
        name + ": CIFAR ResNet depth must be 6n + 2 with n >= 1, got " + std::to_string(depth),
        "use resnet20, resnet32, resnet44, resnet56 or resnet110");
  }
  require_min_input_side(name, shape, kMinResidualInputSide);
  return std::make_shared<CifarResNet>(
      (depth - 2) / 6, projection ? Shortcut::kProjected : Shortcut::kPadded, shape);
}

std::shared_ptr<Model> make_resnet18(const std::string& name, const InputShape& shape) {
  require_min_input_side(name, shape, kMinResidualInputSide);
  return std::make_shared<ResNet18>(shape);
}

}  // namespace dsgd
