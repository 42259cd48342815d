// The decoder-only transformer (models/transformer.h): nanoGPT's parameter count, causality (a
// position's logits never see a later token), the uniform loss its initialisation starts from,
// gradients reaching every parameter, and learning a sequence it can only predict from context.
#include <gtest/gtest.h>

#include <cmath>

#include "core/errors.h"
#include "models/transformer.h"

namespace dsgd {
namespace {

int64_t parameters(Model& model, bool with_positions) {
  int64_t count = 0;
  for (const auto& item : model.named_parameters()) {
    if (with_positions || item.key() != "wpe.weight") count += item.value().numel();
  }
  return count;
}

// nanoGPT's shakespeare_char configuration (6 layers, 6 heads, width 384, context 256, 65
// characters, no biases) prints "number of parameters: 10.65M", which leaves out the position
// embedding: V d + L (12 d^2 + 2 d) + d = 10,646,784. With biases each block adds 13 d - 2 d.
TEST(Transformer, ParameterCountIsNanoGpts) {
  TransformerShape shape;
  auto model = make_transformer(shape);
  EXPECT_EQ(parameters(*model, false), 65 * 384 + 6 * (12 * 384 * 384 + 2 * 384) + 384);
  EXPECT_EQ(parameters(*model, false), 10646784);
  EXPECT_EQ(parameters(*model, true), 10646784 + 256 * 384);
  shape.bias = true;
  EXPECT_EQ(parameters(*make_transformer(shape), false),
            65 * 384 + 6 * (12 * 384 * 384 + 13 * 384) + 2 * 384);
}

TransformerShape small() {
  TransformerShape s;
  s.vocabulary = 11;
  s.seq_len = 16;
  s.layers = 2;
  s.heads = 4;
  s.width = 32;
  return s;
}

TEST(Transformer, APositionSeesOnlyThePast) {
  torch::manual_seed(3);
  auto model = make_transformer(small());
  torch::NoGradGuard no_grad;
  const torch::Tensor tokens = torch::randint(11, {2, 12}, torch::kLong);
  const torch::Tensor logits = model->forward(tokens);
  ASSERT_EQ(logits.sizes(), (std::vector<int64_t>{2, 12, 11}));
  torch::Tensor changed = tokens.clone();
  changed.index_put_({torch::indexing::Slice(), 7}, (tokens.select(1, 7) + 1) % 11);
  const torch::Tensor again = model->forward(changed);
  const auto before = torch::indexing::Slice(0, 7);
  EXPECT_TRUE(torch::equal(again.index({torch::indexing::Slice(), before}),
                           logits.index({torch::indexing::Slice(), before})));
  EXPECT_FALSE(torch::allclose(again.select(1, 7), logits.select(1, 7)));
  EXPECT_THROW(model->forward(torch::zeros({1, 17}, torch::kLong)), ConfigError);
  TransformerShape bad = small();
  bad.heads = 5;
  EXPECT_THROW(make_transformer(bad), ConfigError);
}

// N(0, 0.02) weights give near-zero logits: the first loss is a uniform guess's, ln V (nanoGPT's
// shakespeare_char run starts at 4.2 for V = 65, ln 65 = 4.17).
TEST(Transformer, StartsAtTheUniformLossAndGradientsReachEveryParameter) {
  torch::manual_seed(4);
  TransformerShape shape = small();
  shape.vocabulary = 65;
  auto model = make_transformer(shape);
  const torch::Tensor tokens = torch::randint(65, {8, 17}, torch::kLong);
  const torch::Tensor logits = model->forward(tokens.narrow(1, 0, 16));
  const torch::Tensor loss =
      torch::cross_entropy_loss(logits.reshape({-1, 65}), tokens.narrow(1, 1, 16).reshape({-1}));
  EXPECT_NEAR(loss.item<double>(), std::log(65.0), 0.05);
  loss.backward();
  for (const auto& item : model->named_parameters()) {
    ASSERT_TRUE(item.value().grad().defined()) << item.key();
    EXPECT_GT(item.value().grad().abs().sum().item<double>(), 0.0) << item.key();
  }
}

// Each token is the one three places back: learnable only by attending to the context.
TEST(Transformer, LearnsASequenceOnlyItsContextPredicts) {
  torch::manual_seed(5);
  auto model = make_transformer(small());
  torch::optim::AdamW optimizer(model->parameters(), torch::optim::AdamWOptions(3e-3));
  double first = 0.0, last = 0.0;
  for (int step = 0; step < 150; ++step) {
    const torch::Tensor seeds = torch::randint(11, {16, 3}, torch::kLong);
    const torch::Tensor windows = seeds.repeat({1, 6}).narrow(1, 0, 17);
    const torch::Tensor logits = model->forward(windows.narrow(1, 0, 16));
    // A window's first three tokens are random: only targets whose source is in view count.
    const torch::Tensor loss = torch::cross_entropy_loss(logits.narrow(1, 3, 13).reshape({-1, 11}),
                                                         windows.narrow(1, 4, 13).reshape({-1}));
    optimizer.zero_grad();
    loss.backward();
    optimizer.step();
    (step == 0 ? first : last) = loss.item<double>();
  }
  EXPECT_NEAR(first, std::log(11.0), 0.1);
  EXPECT_LT(last, 0.1) << "from " << first;
}

}  // namespace
}  // namespace dsgd
