// Your own network: a TorchScript module (saved from Python with torch.jit.script(net).save(path)
// or torch.jit.trace) trained like a built-in model. Its parameters and buffers are registered,
// tensor for tensor, as this Model's own, so FlatModel re-homes the very tensors the scripted
// module computes with into dsgd's flat vectors; train()/eval() reach the scripted module too, so
// BatchNorm behaves as in the built-ins. Before any training the module must load, have
// parameters, and map a batch of the dataset's shape to [batch, classes] logits; each failure is
// a ConfigError naming the file and, for shapes, both shapes.
#include <fmt/format.h>
#include <fmt/ranges.h>  // fmt::join (in format.h before fmt 11)
#include <torch/script.h>

#include <algorithm>
#include <string>

#include "core/errors.h"
#include "models/zoo.h"

namespace dsgd {
namespace {

// nn::Module names may not contain '.', TorchScript's do ("conv1.weight").
std::string registered_name(std::string name) {
  std::replace(name.begin(), name.end(), '.', '_');
  return name;
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

class TorchScriptModel : public Model {
 public:
  TorchScriptModel(const std::string& path, const InputShape& shape) {
    try {
      module_ = torch::jit::load(path);
    } catch (const c10::Error& e) {
      throw ConfigError(fmt::format("model '{}' is not a TorchScript module: {}", path,
                                    first_line(e.what_without_backtrace())),
                        "save it from Python with torch.jit.script(net).save(path) (or "
                        "torch.jit.trace); examples/export_model.py shows how");
    }
    for (const auto& p : module_.named_parameters(/*recurse=*/true)) {
      register_parameter(registered_name(p.name), p.value);
    }
    for (const auto& b : module_.named_buffers(/*recurse=*/true)) {
      register_buffer(registered_name(b.name), b.value);
    }
    for (const auto& m : module_.modules()) {
      const auto name = m.type()->name();
      if (name && name->qualifiedName().find("BatchNorm") != std::string::npos &&
          m.hasattr("running_mean") && m.hasattr("momentum")) {
        batchnorms_.push_back(m);
      }
    }
    if (parameters().empty()) {
      throw ConfigError(fmt::format("model '{}' has no parameters to train", path),
                        "export the network itself, with its weights, not a function");
    }
    check_shapes(path, shape);
  }

  torch::Tensor forward(torch::Tensor x) override {
    if (!averaging_) return module_.forward({x}).toTensor();
    // Re-estimating: each layer's own update r ← (1 − m)·r + m·s is turned into the cumulative
    // average of the batch statistics s, r ← r + (s − r)/k for the k-th batch, i.e.
    // r ← r_old + (r_new − r_old)/(m·k). (A scripted BatchNorm's momentum is a constant, so it
    // cannot be set to None as the built-ins' is.)
    torch::NoGradGuard no_grad;
    std::vector<std::pair<torch::Tensor, torch::Tensor>> before;
    for (auto& bn : batchnorms_) {
      before.emplace_back(bn.attr("running_mean").toTensor().clone(),
                          bn.attr("running_var").toTensor().clone());
    }
    torch::Tensor out = module_.forward({x}).toTensor();
    ++averaged_batches_;
    for (size_t i = 0; i < batchnorms_.size(); ++i) {
      const c10::IValue momentum = batchnorms_[i].attr("momentum");
      if (momentum.isNone()) continue;  // already a cumulative average
      const double scale = 1.0 / (momentum.toDouble() * static_cast<double>(averaged_batches_));
      for (auto [name, old] : {std::make_pair("running_mean", before[i].first),
                               std::make_pair("running_var", before[i].second)}) {
        torch::Tensor running = batchnorms_[i].attr(name).toTensor();
        running.sub_(old).mul_(scale).add_(old);
      }
    }
    return out;
  }

  bool save_module(std::ostream& out) override {
    module_.save(out);
    return true;
  }

  // The scripted BatchNorm layers are not torch::nn modules: their statistics are reset through
  // their attributes, and forward() averages while re-estimating.
  bool has_batchnorm() override { return !batchnorms_.empty(); }
  void start_batchnorm_average() override {
    torch::NoGradGuard no_grad;
    for (auto& bn : batchnorms_) {
      bn.attr("running_mean").toTensor().zero_();
      bn.attr("running_var").toTensor().fill_(1.0);
      if (bn.hasattr("num_batches_tracked")) bn.attr("num_batches_tracked").toTensor().zero_();
    }
    averaged_batches_ = 0;
    averaging_ = true;
  }
  void end_batchnorm_average() override { averaging_ = false; }

  void train(bool on = true) override {
    Model::train(on);
    module_.train(on);
  }

 private:
  // One forward pass in eval mode (BatchNorm statistics untouched) on zeros of the dataset's
  // shape, so a mismatch stops the run before it starts.
  void check_shapes(const std::string& path, const InputShape& shape) {
    const torch::Tensor input = example_input(shape, 2);
    const std::string input_text =
        fmt::format("{} [{}]", shape.tokens() ? "tokens" : "input", fmt::join(input.sizes(), ", "));
    torch::Tensor out;
    {
      torch::NoGradGuard no_grad;
      module_.eval();
      try {
        c10::IValue result = module_.forward({input});
        if (result.isTensor()) out = result.toTensor();
      } catch (const std::exception& e) {
        module_.train();
        throw ConfigError(fmt::format("model '{}' cannot take the dataset's {}: {}", path,
                                      input_text, first_line(e.what())),
                          shape.tokens()
                              ? "export a language model that takes int64 tokens [B, T] (T up to "
                                "seq_len)"
                              : "export the network for this dataset's images (channels x height x "
                                "width)");
      }
      module_.train();
    }
    const Task task = shape.task();
    const std::string mismatch =
        out.defined() ? task.shape_mismatch(out, task.example_targets(2, shape.seq_len))
                      : "something that is not a tensor";
    if (!mismatch.empty()) {
      throw ConfigError(
          fmt::format("model '{}' maps the dataset's {} to {}", path, input_text, mismatch),
          shape.tokens() ? "the last layer must give one logit per token of the "
                           "vocabulary at every position"
                         : "the last layer must give one logit per class of this "
                           "dataset");
    }
    if (out.scalar_type() != torch::kFloat) {
      throw ConfigError(fmt::format("model '{}' gives {} logits; dsgd trains float32 models", path,
                                    c10::toString(out.scalar_type())),
                        "export the network in float32");
    }
  }

  torch::jit::Module module_;
  std::vector<torch::jit::Module> batchnorms_;  // the scripted BatchNorm layers
  bool averaging_ = false;
  int64_t averaged_batches_ = 0;
};

}  // namespace

bool is_model_path(const std::string& name) {
  return name.find('/') != std::string::npos ||
         (name.size() > 3 && name.compare(name.size() - 3, 3, ".pt") == 0);
}

std::shared_ptr<Model> load_torchscript_model(const std::string& path, const InputShape& shape) {
  return std::make_shared<TorchScriptModel>(path, shape);
}

}  // namespace dsgd
