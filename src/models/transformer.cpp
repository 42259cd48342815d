// nanoGPT's decoder-only transformer; see transformer.h.
#include "models/transformer.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <limits>

#include "core/errors.h"

namespace dsgd {
namespace {

namespace F = torch::nn::functional;

constexpr double kInitStd = 0.02;

// LayerNorm with an optional bias (torch::nn::LayerNorm has both or neither), as nanoGPT's.
class LayerNormImpl : public torch::nn::Module {
 public:
  LayerNormImpl(int64_t width, bool bias) : width_(width) {
    weight_ = register_parameter("weight", torch::ones({width}));
    if (bias) bias_ = register_parameter("bias", torch::zeros({width}));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    return torch::layer_norm(x, {width_}, weight_, bias_, 1e-5);
  }

 private:
  int64_t width_;
  torch::Tensor weight_, bias_;
};
TORCH_MODULE(LayerNorm);

torch::nn::Linear linear(int64_t in, int64_t out, bool bias) {
  return torch::nn::Linear(torch::nn::LinearOptions(in, out).bias(bias));
}

class BlockImpl : public torch::nn::Module {
 public:
  BlockImpl(const TransformerShape& s)  // NOLINT(runtime/explicit)
      : heads_(s.heads),
        ln_1_(register_module("ln_1", LayerNorm(s.width, s.bias))),
        attention_(register_module("c_attn", linear(s.width, 3 * s.width, s.bias))),
        attention_projection_(register_module("attn_proj", linear(s.width, s.width, s.bias))),
        ln_2_(register_module("ln_2", LayerNorm(s.width, s.bias))),
        mlp_in_(register_module("c_fc", linear(s.width, 4 * s.width, s.bias))),
        mlp_projection_(register_module("mlp_proj", linear(4 * s.width, s.width, s.bias))) {}

  torch::Tensor forward(torch::Tensor x) {
    x = x + attend(ln_1_(x));
    return x + mlp_projection_(F::gelu(mlp_in_(ln_2_(x))));
  }
  // The residual projections, which nanoGPT initialises smaller.
  std::vector<torch::Tensor> residual_projections() {
    return {attention_projection_->weight, mlp_projection_->weight};
  }

 private:
  torch::Tensor attend(const torch::Tensor& x) {
    const int64_t batch = x.size(0), time = x.size(1), width = x.size(2);
    const int64_t head_width = width / heads_;
    // [B, T, 3C] -> three [B, heads, T, head width]
    std::vector<torch::Tensor> qkv = attention_(x).split(width, 2);
    for (torch::Tensor& t : qkv) t = t.view({batch, time, heads_, head_width}).transpose(1, 2);
    torch::Tensor scores = torch::matmul(qkv[0], qkv[1].transpose(-2, -1)) /
                           std::sqrt(static_cast<double>(head_width));
    const torch::Tensor future =
        torch::ones({time, time}, torch::TensorOptions().dtype(torch::kBool).device(x.device()))
            .triu(1);
    scores = scores.masked_fill(future, -std::numeric_limits<float>::infinity());
    torch::Tensor y = torch::matmul(torch::softmax(scores, -1), qkv[2]);
    return attention_projection_(y.transpose(1, 2).contiguous().view({batch, time, width}));
  }

  int64_t heads_;
  LayerNorm ln_1_;
  torch::nn::Linear attention_, attention_projection_;
  LayerNorm ln_2_;
  torch::nn::Linear mlp_in_, mlp_projection_;
};
TORCH_MODULE(Block);

class Transformer : public Model {
 public:
  explicit Transformer(const TransformerShape& s) : shape_(s) {
    token_embedding_ = register_module("wte", torch::nn::Embedding(s.vocabulary, s.width));
    position_embedding_ = register_module("wpe", torch::nn::Embedding(s.seq_len, s.width));
    for (int64_t l = 0; l < s.layers; ++l) {
      blocks_.push_back(register_module("h" + std::to_string(l), Block(s)));
    }
    final_norm_ = register_module("ln_f", LayerNorm(s.width, s.bias));
    initialise();
  }

  torch::Tensor forward(torch::Tensor tokens) override {
    if (tokens.dim() != 2 || tokens.size(1) > shape_.seq_len) {
      throw ConfigError(fmt::format("the transformer takes tokens [batch, at most {}], got {}",
                                    shape_.seq_len, fmt::join(tokens.sizes(), "x")),
                        "use windows of at most seq_len tokens");
    }
    const torch::Tensor positions = torch::arange(
        tokens.size(1), torch::TensorOptions().dtype(torch::kLong).device(tokens.device()));
    torch::Tensor x = token_embedding_(tokens) + position_embedding_(positions);
    for (Block& block : blocks_) x = block(x);
    // The token embedding's weights give the logits (tied, as nanoGPT's lm_head).
    return torch::matmul(final_norm_(x), token_embedding_->weight.t());
  }

 private:
  void initialise() {
    torch::NoGradGuard no_grad;
    for (auto& item : named_parameters()) {
      const std::string& name = item.key();
      if (name.find("ln_") != std::string::npos) continue;  // LayerNorm: weight 1, bias 0
      if (name.find(".bias") != std::string::npos) {
        item.value().zero_();
      } else {
        item.value().normal_(0.0, kInitStd);
      }
    }
    const double residual_std = kInitStd / std::sqrt(2.0 * static_cast<double>(shape_.layers));
    for (Block& block : blocks_) {
      for (torch::Tensor& w : block->residual_projections()) w.normal_(0.0, residual_std);
    }
  }

  TransformerShape shape_;
  torch::nn::Embedding token_embedding_{nullptr}, position_embedding_{nullptr};
  std::vector<Block> blocks_;
  LayerNorm final_norm_{nullptr};
};

}  // namespace

std::shared_ptr<Model> make_transformer(const TransformerShape& s) {
  for (const auto& [key, value] : {std::pair{"vocabulary", s.vocabulary},
                                   {"seq_len", s.seq_len},
                                   {"layers", s.layers},
                                   {"heads", s.heads},
                                   {"width", s.width}}) {
    if (value < 1) {
      throw ConfigError(fmt::format("transformer: {} = {} must be at least 1", key, value),
                        "give every size of the transformer");
    }
  }
  if (s.width % s.heads != 0) {
    throw ConfigError(
        fmt::format("transformer: {} heads do not divide the width {}", s.heads, s.width),
        "use a width that is a multiple of the heads (nanoGPT's: 6 heads of 64, width 384)");
  }
  return std::make_shared<Transformer>(s);
}

}  // namespace dsgd
