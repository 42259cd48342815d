// The model registry: the one list of model names users can type, with a line on each for
// --help style listings, and make_model() which checks the input shape and dispatches to the
// family factories in zoo.h. Papers are cited in the family files.
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "core/errors.h"
#include "core/names.h"
#include "models/model.h"
#include "models/transformer.h"
#include "models/zoo.h"

namespace dsgd {
namespace {

struct Entry {
  ModelInfo info;
  std::function<std::shared_ptr<Model>(const std::string&, const InputShape&)> make;
};

constexpr char kTransformer[] = "transformer";

const std::vector<Entry>& entries() {
  static const std::vector<Entry> table = [] {
    auto cifar = [](int depth) {
      return [depth](const std::string& name, const InputShape& shape) {
        return make_cifar_resnet(name, depth, shape);
      };
    };
    auto wide = [](int depth, int widen) {
      return [depth, widen](const std::string& name, const InputShape& shape) {
        return make_wide_resnet(name, depth, widen, shape);
      };
    };
    return std::vector<Entry>{
        {{"mlp", "MLP 512-256 with ReLU; the quickest sanity check"},
         [](const std::string&, const InputShape& s) { return make_mlp(s); }},
        {{"lenet5", "LeNet-5 (LeCun et al. 1998) with ReLU and max pooling"},
         [](const std::string&, const InputShape& s) { return make_lenet5(s, false); }},
        {{"lenet5-bn", "LeNet-5 with BatchNorm after every conv and hidden linear layer"},
         [](const std::string&, const InputShape& s) { return make_lenet5(s, true); }},
        {{"resnet20", "CIFAR ResNet-20 (He et al. 2016), option-A shortcuts, 0.27M params"},
         cifar(20)},
        {{"resnet20-proj",
          "CIFAR ResNet-20 with option-B (projection) shortcuts, as the DANA authors train it, "
          "0.27M params"},
         [](const std::string& name, const InputShape& shape) {
           return make_cifar_resnet(name, 20, shape, /*projection=*/true);
         }},
        {{"resnet32", "CIFAR ResNet-32 (He et al. 2016), option-A shortcuts, 0.46M params"},
         cifar(32)},
        {{"resnet44", "CIFAR ResNet-44 (He et al. 2016), option-A shortcuts, 0.66M params"},
         cifar(44)},
        {{"resnet56", "CIFAR ResNet-56 (He et al. 2016), option-A shortcuts, 0.85M params"},
         cifar(56)},
        {{"resnet110", "CIFAR ResNet-110 (He et al. 2016), option-A shortcuts, 1.7M params"},
         cifar(110)},
        {{"resnet18", "ResNet-18 (He et al. 2016) with a 3x3 stem for 32x32 images, 11.2M params"},
         make_resnet18},
        {{"wrn-16-4", "Wide ResNet 16-4 (Zagoruyko & Komodakis 2016), no dropout, 2.75M params"},
         wide(16, 4)},
        {{"wrn-28-10", "Wide ResNet 28-10 (Zagoruyko & Komodakis 2016), no dropout, 36.5M params"},
         wide(28, 10)},
        // Built by make_model from its options (the transformer.* keys), not from this maker.
        {{kTransformer,
          "decoder-only transformer for next-token prediction, nanoGPT's GPT (Radford et al. "
          "2019): transformer.layers, .heads, .width and seq_len (10.6M parameters at 6, 6, 384)",
          true},
         nullptr},
    };
  }();
  return table;
}

}  // namespace

namespace {

template <class Fn>
void for_each_batchnorm(torch::nn::Module& module, Fn fn) {
  for (auto& m : module.modules(/*include_self=*/true)) {
    if (auto* bn = dynamic_cast<torch::nn::BatchNorm1dImpl*>(m.get())) fn(*bn);
    if (auto* bn = dynamic_cast<torch::nn::BatchNorm2dImpl*>(m.get())) fn(*bn);
  }
}

}  // namespace

bool Model::has_batchnorm() {
  bool found = false;
  for_each_batchnorm(*this, [&](auto&) { found = true; });
  return found;
}

void Model::start_batchnorm_average() {
  saved_momentum_.clear();
  // momentum = None makes BatchNorm keep a cumulative average, i.e. the exact mean over batches.
  for_each_batchnorm(*this, [&](auto& bn) {
    saved_momentum_.push_back(bn.options.momentum());
    bn.options.momentum(c10::nullopt);
    bn.reset_running_stats();
  });
}

void Model::end_batchnorm_average() {
  size_t i = 0;
  for_each_batchnorm(*this, [&](auto& bn) { bn.options.momentum(saved_momentum_.at(i++)); });
}

const std::vector<ModelInfo>& model_registry() {
  static const std::vector<ModelInfo> infos = [] {
    std::vector<ModelInfo> out;
    for (const auto& entry : entries()) out.push_back(entry.info);
    return out;
  }();
  return infos;
}

torch::Tensor example_input(const InputShape& shape, int64_t samples) {
  if (shape.tokens()) return torch::zeros({samples, shape.seq_len}, torch::kLong);
  return torch::zeros({samples, shape.channels, shape.height, shape.width}, torch::kFloat);
}

std::shared_ptr<Model> make_model(const std::string& name, const InputShape& shape,
                                  const ModelOptions& options) {
  if (is_model_path(name)) return load_torchscript_model(name, shape);
  const auto& table = entries();
  auto it = std::find_if(table.begin(), table.end(),
                         [&](const Entry& entry) { return entry.info.name == name; });
  if (it == table.end()) {
    std::vector<std::string> names;
    for (const auto& entry : table) names.push_back(entry.info.name);
    throw unknown_name("model", name, names);
  }
  const bool takes_tokens = it->info.takes_tokens;
  if (takes_tokens != shape.tokens()) {
    throw ConfigError(
        takes_tokens
            ? fmt::format("model {} is a language model, and the dataset holds images", name)
            : fmt::format("model {} classifies images, and the dataset is a token corpus", name),
        takes_tokens ? "choose an image model (see `dsgd list models`), or a text corpus "
                       "for dataset"
                     : "use model = \"transformer\", or a TorchScript language model (a .pt "
                       "file mapping int64 tokens [B, T] to [B, T, vocabulary] logits)");
  }
  if (shape.tokens()) {
    TransformerShape transformer;
    transformer.vocabulary = shape.num_classes;
    transformer.seq_len = shape.seq_len;
    transformer.layers = options.layers;
    transformer.heads = options.heads;
    transformer.width = options.width;
    return make_transformer(transformer);
  }
  if (shape.channels < 1 || shape.height < 1 || shape.width < 1 || shape.num_classes < 1) {
    // Reaching here means a dataset reported a broken shape, not that the user mistyped.
    throw ConfigError("model " + name + ": input shape " + std::to_string(shape.channels) + "x" +
                          std::to_string(shape.height) + "x" + std::to_string(shape.width) +
                          " with " + std::to_string(shape.num_classes) + " classes is not valid",
                      "every dimension and the class count must be at least 1");
  }
  return it->make(name, shape);
}

}  // namespace dsgd
