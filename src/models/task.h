// What a run learns: image classification or next-token language modelling. A task owns its loss,
// the metrics an evaluation reports (accuracy; loss per token and perplexity), the metric a run is
// judged by and whether lower is better, the loss of a uniform guess (the collapse check), and
// the check that a model's outputs fit the targets. Everything downstream of training (the run's
// records, the report's targets, drops and crossings, sweeps, Python) reads the task's main
// metric instead of assuming accuracy. The task follows from the data: a token corpus is
// language modelling, images are classification. Rules and engines know nothing of it: they see
// flat tensors.
#pragma once

#include <torch/torch.h>

#include <cmath>
#include <cstdint>
#include <string>

#include "core/enum_names.h"

namespace dsgd {

enum class TaskKind { kClassification, kLanguageModel };
template <>
struct EnumNames<TaskKind> {
  static constexpr EnumName<TaskKind> values[] = {{TaskKind::kClassification, "classification"},
                                                  {TaskKind::kLanguageModel, "language-model"}};
};

// The metric a run is judged by: the metrics.csv column, how pages name it, which way is better
// and whether it is a fraction (shown as a percentage, its differences in points).
struct MainMetric {
  const char* column;        // "test_acc" or "test_ppl"
  const char* name;          // "test accuracy" or "validation perplexity"
  const char* heading;       // "Test accuracy" or "Validation perplexity"
  const char* abbreviation;  // "acc" or "ppl", for table headers ("final test acc")
  bool lower_is_better;
  bool fraction;

  // Whether `value` is at least as good as `target`.
  bool reaches(double value, double target) const {
    return lower_is_better ? value <= target : value >= target;
  }
  // Whether `a` is better than `b`.
  bool better(double a, double b) const { return lower_is_better ? a < b : a > b; }
  // How much worse `value` is than `baseline` (positive: worse), in the metric's units.
  double shortfall(double value, double baseline) const {
    return lower_is_better ? value - baseline : baseline - value;
  }
  // The value a run starts from before any evaluation: the worst possible.
  double worst() const { return lower_is_better ? HUGE_VAL : 0.0; }
  // How a difference of the metric is shown: points (a fraction's, times 100) or its own units.
  double shown_difference(double difference) const {
    return fraction ? difference * 100.0 : difference;
  }
};
const MainMetric& main_metric(TaskKind kind);

struct Task {
  TaskKind kind = TaskKind::kClassification;
  // The classes, or the vocabulary's size: what the logits' last dimension must hold.
  int64_t classes = 10;

  const MainMetric& metric() const { return main_metric(kind); }
  // The mean cross-entropy of logits [..., classes] against int64 targets [...] (a classifier's
  // [B, C] against [B]; a language model's [B, T, V] against [B, T]: the mean over tokens).
  torch::Tensor loss(const torch::Tensor& logits, const torch::Tensor& targets) const;
  // ln(classes): the loss of a uniform guess, which a collapsed run's stays at.
  double chance_loss() const;
  // "" when `logits` fit `targets`, else what is wrong, for the message that stops a run whose
  // model does not fit its data before it starts.
  std::string shape_mismatch(const torch::Tensor& logits, const torch::Tensor& targets) const;
  // Targets of `samples` inputs of a model built for this task, zeros: [samples], or [samples,
  // seq_len] tokens.
  torch::Tensor example_targets(int64_t samples, int64_t seq_len) const;
};

}  // namespace dsgd
