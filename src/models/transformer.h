// A decoder-only transformer for next-token language modelling, in the shape of nanoGPT's GPT
// (Karpathy, model.py): token and learned position embeddings, `layers` pre-norm blocks of causal
// multi-head self-attention and a 4x GELU MLP, a final LayerNorm, and logits through the token
// embedding's own weights (weight tying). Initialised as nanoGPT does: every weight N(0, 0.02),
// the residual projections N(0, 0.02 / sqrt(2 layers)), biases zero. Int64 tokens [B, T] in,
// float logits [B, T, vocabulary] out. Attention is written out (scores, causal mask, softmax)
// because the Debian LibTorch (1.13) has no public scaled_dot_product_attention; dropout is left
// out (nanoGPT's default for pretraining is 0). The registry's "transformer" (model_registry.cpp)
// builds it for a token corpus's vocabulary and the config's seq_len and transformer.* keys.
#pragma once

#include <memory>

#include "models/model.h"

namespace dsgd {

struct TransformerShape {
  int64_t vocabulary = 65;  // nanoGPT's shakespeare_char
  int64_t seq_len = 256;    // the longest context (nanoGPT's block_size)
  int64_t layers = 6;
  int64_t heads = 6;
  int64_t width = 384;  // nanoGPT's n_embd
  bool bias = false;    // biases in the Linear and LayerNorm layers (nanoGPT's train.py: none)
};

// Throws ConfigError when a size is not positive or the heads do not divide the width.
std::shared_ptr<Model> make_transformer(const TransformerShape& shape);

}  // namespace dsgd
