// The small baselines: a three-layer perceptron and LeNet-5 (LeCun et al., "Gradient-based
// learning applied to document recognition", Proc. IEEE 1998), in its common modern form with
// ReLU and max pooling, optionally with batch normalisation (Ioffe & Szegedy, ICML 2015). They
// train in seconds on MNIST-sized data, which makes them the workhorses of quick experiments
// and tests. Initialisation is LibTorch's default, which matches PyTorch's, so results are
// comparable with the PyTorch baselines these experiments are usually checked against.
#include <string>

#include "core/errors.h"
#include "models/zoo.h"

namespace dsgd {
namespace {

class Mlp : public Model {
 public:
  explicit Mlp(const InputShape& shape) {
    fc1_ =
        register_module("fc1", torch::nn::Linear(shape.channels * shape.height * shape.width, 512));
    fc2_ = register_module("fc2", torch::nn::Linear(512, 256));
    fc3_ = register_module("fc3", torch::nn::Linear(256, shape.num_classes));
  }

  torch::Tensor forward(torch::Tensor x) override {
    x = x.flatten(1);
    x = torch::relu(fc1_->forward(x));
    x = torch::relu(fc2_->forward(x));
    return fc3_->forward(x);
  }

 private:
  torch::nn::Linear fc1_{nullptr};
  torch::nn::Linear fc2_{nullptr};
  torch::nn::Linear fc3_{nullptr};
};

// Side of the feature map entering the classifier: the first convolution is padded to keep
// the size, the second (unpadded, 5x5) loses 4 pixels, and each pooling halves, rounding down.
int64_t lenet_feature_side(int64_t side) { return (side / 2 - 4) / 2; }

class LeNet5 : public Model {
 public:
  LeNet5(const InputShape& shape, bool batch_norm) {
    const int64_t flat = 16 * lenet_feature_side(shape.height) * lenet_feature_side(shape.width);
    conv1_ = register_module(
        "conv1", torch::nn::Conv2d(torch::nn::Conv2dOptions(shape.channels, 6, 5).padding(2)));
    conv2_ = register_module("conv2", torch::nn::Conv2d(torch::nn::Conv2dOptions(6, 16, 5)));
    fc1_ = register_module("fc1", torch::nn::Linear(flat, 120));
    fc2_ = register_module("fc2", torch::nn::Linear(120, 84));
    fc3_ = register_module("fc3", torch::nn::Linear(84, shape.num_classes));
    if (batch_norm) {
      bn1_ = register_module("bn1", torch::nn::BatchNorm2d(6));
      bn2_ = register_module("bn2", torch::nn::BatchNorm2d(16));
      bn3_ = register_module("bn3", torch::nn::BatchNorm1d(120));
      bn4_ = register_module("bn4", torch::nn::BatchNorm1d(84));
    }
  }

  torch::Tensor forward(torch::Tensor x) override {
    x = conv1_->forward(x);
    if (bn1_) x = bn1_->forward(x);
    x = torch::max_pool2d(torch::relu(x), 2);
    x = conv2_->forward(x);
    if (bn2_) x = bn2_->forward(x);
    x = torch::max_pool2d(torch::relu(x), 2);
    x = fc1_->forward(x.flatten(1));
    if (bn3_) x = bn3_->forward(x);
    x = torch::relu(x);
    x = fc2_->forward(x);
    if (bn4_) x = bn4_->forward(x);
    x = torch::relu(x);
    return fc3_->forward(x);
  }

 private:
  torch::nn::Conv2d conv1_{nullptr};
  torch::nn::Conv2d conv2_{nullptr};
  torch::nn::Linear fc1_{nullptr};
  torch::nn::Linear fc2_{nullptr};
  torch::nn::Linear fc3_{nullptr};
  // Left empty without batch normalisation, so that the plain model has no BN buffers for
  // statistics re-estimation to find.
  torch::nn::BatchNorm2d bn1_{nullptr};
  torch::nn::BatchNorm2d bn2_{nullptr};
  torch::nn::BatchNorm1d bn3_{nullptr};
  torch::nn::BatchNorm1d bn4_{nullptr};
};

}  // namespace

std::shared_ptr<Model> make_mlp(const InputShape& shape) { return std::make_shared<Mlp>(shape); }

std::shared_ptr<Model> make_lenet5(const InputShape& shape, bool batch_norm) {
  const std::string name = batch_norm ? "lenet5-bn" : "lenet5";
  // 12 is the smallest side whose second pooling still has a 2x2 window to pool.
  if (lenet_feature_side(shape.height) < 1 || lenet_feature_side(shape.width) < 1) {
    throw ConfigError(name + " needs images of at least 12x12 pixels, got " +
                          std::to_string(shape.height) + "x" + std::to_string(shape.width),
                      "use mlp or a larger dataset for such small inputs");
  }
  return std::make_shared<LeNet5>(shape, batch_norm);
}

}  // namespace dsgd
