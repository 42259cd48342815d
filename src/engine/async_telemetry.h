// Staleness and gap telemetry of an asynchronous parameter server, shared by the simulator and
// the MPI server: per evaluation period the mean and max staleness of applied messages
// (server updates between sending a worker its parameters and applying its message) and the gap
// RMS(θ at apply − parameters the gradient was computed at); over the run a staleness histogram.
//
// The gap reads two whole vectors at every update, which on a real server of a large model is a
// quarter of its time (docs/performance.md). So it is estimated on `gap_sample` coordinates:
// exact for vectors under 2·gap_sample (every model in the tests and experiments); above, on
// gap_sample / 64 runs of 64 consecutive coordinates (whole cache lines) starting at multiples of
// ⌊n / (gap_sample / 64)⌋, a systematic sample that covers every layer in proportion to its size.
#pragma once

#include <torch/torch.h>

#include <map>
#include <string>
#include <vector>

#include "core/checkpoint.h"

namespace dsgd {

class AsyncTelemetry {
 public:
  // gap_sample = 0: every coordinate, whatever the size.
  explicit AsyncTelemetry(int64_t gap_sample = 0) : gap_sample_(gap_sample) {}
  // One applied message: `staleness` updates old, computed at `sent` while the server is at
  // `center` (before applying it).
  void record(int64_t staleness, const torch::Tensor& center, const torch::Tensor& sent);
  // The period's metrics columns; starts a new period.
  std::map<std::string, double> end_period();
  const std::vector<int64_t>& histogram() const { return histogram_; }
  // The histogram and the period in progress (a checkpoint taken on an interrupt is mid-period),
  // under `prefix`.
  void save(TensorMap& checkpoint, const std::string& prefix) const;
  void restore(const TensorMap& checkpoint, const std::string& prefix);

 private:
  static constexpr int64_t kGapChunk = 64;
  // The coordinates of `v` the gap is estimated on: `v` itself, or a [runs, 64] view of it.
  torch::Tensor gap_coordinates(const torch::Tensor& v) const;

  int64_t gap_sample_;
  double staleness_sum_ = 0.0;
  int64_t staleness_max_ = 0;
  int64_t count_ = 0;
  double gap_square_cpu_ = 0.0;   // Σ mean((θ − θ̂_i)²) of CPU tensors
  torch::Tensor gap_square_sum_;  // the same for tensors on a GPU, kept there
  std::vector<int64_t> histogram_;
};

}  // namespace dsgd
