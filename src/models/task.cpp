// The tasks; see task.h.
#include "models/task.h"

#include <fmt/format.h>

#include <cmath>

namespace dsgd {

const MainMetric& main_metric(TaskKind kind) {
  static const MainMetric accuracy{"test_acc", "test accuracy", "Test accuracy",
                                   "acc",      false,           true};
  static const MainMetric perplexity{
      "test_ppl", "validation perplexity", "Validation perplexity", "ppl", true, false};
  return kind == TaskKind::kLanguageModel ? perplexity : accuracy;
}

torch::Tensor Task::loss(const torch::Tensor& logits, const torch::Tensor& targets) const {
  // A classifier's [B, C] logits are already in this shape: the same call, bit for bit.
  return torch::nn::functional::cross_entropy(logits.reshape({-1, logits.size(-1)}),
                                              targets.reshape({-1}));
}

double Task::chance_loss() const { return std::log(static_cast<double>(classes)); }

std::string Task::shape_mismatch(const torch::Tensor& logits, const torch::Tensor& targets) const {
  std::vector<int64_t> wanted = targets.sizes().vec();
  wanted.push_back(classes);
  if (logits.sizes().vec() == wanted) return "";
  return fmt::format("[{}] {}, where [{}] are needed for [{}] {}", fmt::join(logits.sizes(), ", "),
                     "logits", fmt::join(wanted, ", "), fmt::join(targets.sizes(), ", "),
                     kind == TaskKind::kLanguageModel ? "target tokens (one logit per token of "
                                                        "the vocabulary at every position)"
                                                      : "labels (one logit per class)");
}

torch::Tensor Task::example_targets(int64_t samples, int64_t seq_len) const {
  if (kind == TaskKind::kLanguageModel) return torch::zeros({samples, seq_len}, torch::kLong);
  return torch::zeros({samples}, torch::kLong);
}

}  // namespace dsgd
