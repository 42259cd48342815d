// Private to src/models: the per-family factories behind make_model(), and the pieces the
// residual families share. Callers outside this folder go through model.h and its registry, so
// that every model name is spelled, checked and suggested in one place.
#pragma once

#include <torch/torch.h>

#include <memory>
#include <string>

#include "models/model.h"

namespace dsgd {

// lenet.cpp: the small baselines.
std::shared_ptr<Model> make_mlp(const InputShape& shape);
std::shared_ptr<Model> make_lenet5(const InputShape& shape, bool batch_norm);

// resnet.cpp: He et al. 2016 CIFAR ResNets (depth = 6n + 2) and the ImageNet-style ResNet-18
// adapted to 32x32 inputs. `projection`: the CIFAR ResNet's shortcuts where the shape changes
// are 1x1 convolutions with BatchNorm (option B) instead of the paper's parameter-free option A.
std::shared_ptr<Model> make_cifar_resnet(const std::string& name, int depth,
                                         const InputShape& shape, bool projection = false);
std::shared_ptr<Model> make_resnet18(const std::string& name, const InputShape& shape);

// torchscript_model.cpp: a network saved from Python. A model name with a '/' or ending in ".pt"
// is such a file.
bool is_model_path(const std::string& name);
std::shared_ptr<Model> load_torchscript_model(const std::string& path, const InputShape& shape);

// wide_resnet.cpp: Zagoruyko & Komodakis 2016 WRN-depth-widen (depth = 6n + 4).
std::shared_ptr<Model> make_wide_resnet(const std::string& name, int depth, int widen,
                                        const InputShape& shape);

// Shared by the residual families; defined in resnet.cpp.

// Smallest height and width the residual families accept. Each stride-2 stage halves the image;
// below 8 pixels the last stage would see a single pixel, or less, and pooling would be a no-op
// over features that never saw their neighbours.
constexpr int64_t kMinResidualInputSide = 8;

// Throws ConfigError naming `model` when the image is smaller than `min_side` on either axis.
void require_min_input_side(const std::string& model, const InputShape& shape, int64_t min_side);

// The initialisation the residual papers use: He-normal convolutions scaled by fan-out (so that
// activations keep their variance through ReLU on the backward pass) and BatchNorm as identity.
// Linear layers keep LibTorch's default, as the reference implementations do.
void init_residual_weights(torch::nn::Module& model);

}  // namespace dsgd
