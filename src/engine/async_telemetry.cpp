// Async server telemetry; see async_telemetry.h.
#include "engine/async_telemetry.h"

#include <ATen/Parallel.h>

#include <cmath>

#include "core/errors.h"

namespace dsgd {
namespace {

// mean((a − b)²) in one read of each vector and no temporaries: at every server update this is
// the telemetry's whole cost, so it must not cost three passes and two allocations. Blocks are
// fixed-size and summed in order, so the result does not depend on the thread count.
double mean_squared_difference(const float* a, const float* b, int64_t n) {
  constexpr int64_t kBlock = 1 << 16;
  const int64_t blocks = (n + kBlock - 1) / kBlock;
  std::vector<double> partial(static_cast<size_t>(blocks), 0.0);
  at::parallel_for(0, blocks, 1, [&](int64_t begin, int64_t end) {
    for (int64_t block = begin; block < end; ++block) {
      const int64_t start = block * kBlock, stop = std::min(n, start + kBlock);
      float sum = 0.0f;  // at most 2^16 terms: float is enough, and vectorizes
      for (int64_t k = start; k < stop; ++k) {
        const float d = a[k] - b[k];
        sum += d * d;
      }
      partial[static_cast<size_t>(block)] = sum;
    }
  });
  double total = 0.0;
  for (double p : partial) total += p;
  return n > 0 ? total / static_cast<double>(n) : 0.0;
}

}  // namespace

torch::Tensor AsyncTelemetry::gap_coordinates(const torch::Tensor& v) const {
  const int64_t n = v.numel();
  if (gap_sample_ == 0 || n < 2 * gap_sample_) return v;
  // Whole cache lines: a stride over single elements would still read every line of the vector.
  const int64_t chunk = std::min(kGapChunk, gap_sample_), chunks = gap_sample_ / chunk,
                step = n / chunks;
  return v.narrow(0, 0, chunks * step).view({chunks, step}).narrow(1, 0, chunk);
}

void AsyncTelemetry::record(int64_t staleness, const torch::Tensor& center,
                            const torch::Tensor& sent) {
  staleness_sum_ += static_cast<double>(staleness);
  staleness_max_ = std::max(staleness_max_, staleness);
  if (static_cast<int64_t>(histogram_.size()) <= staleness) {
    histogram_.resize(static_cast<size_t>(staleness) + 1, 0);
  }
  ++histogram_[static_cast<size_t>(staleness)];
  ++count_;
  const torch::Tensor a = gap_coordinates(center), b = gap_coordinates(sent);
  if (a.device().is_cpu() && a.scalar_type() == torch::kFloat && b.scalar_type() == torch::kFloat &&
      a.is_contiguous() && b.is_contiguous()) {
    gap_square_cpu_ += mean_squared_difference(a.data_ptr<float>(), b.data_ptr<float>(), a.numel());
    return;
  }
  // A sample, or a vector on a GPU (where it stays: the sum is read back at the end of the period).
  torch::Tensor gap = (a - b).square().mean().to(torch::kDouble);
  if (gap_square_sum_.defined()) {
    gap_square_sum_.add_(gap);
  } else {
    gap_square_sum_ = gap;
  }
}

std::map<std::string, double> AsyncTelemetry::end_period() {
  std::map<std::string, double> row;
  double count = static_cast<double>(std::max<int64_t>(1, count_));
  row["staleness_mean"] = staleness_sum_ / count;
  row["staleness_max"] = static_cast<double>(staleness_max_);
  double gap_square =
      gap_square_cpu_ + (gap_square_sum_.defined() ? gap_square_sum_.item<double>() : 0.0);
  row["gap_rms"] = std::sqrt(gap_square / count);
  gap_square_cpu_ = 0.0;
  staleness_sum_ = 0.0;
  staleness_max_ = 0;
  count_ = 0;
  gap_square_sum_ = torch::Tensor();
  return row;
}

void AsyncTelemetry::save(TensorMap& checkpoint, const std::string& prefix) const {
  checkpoint[prefix + "staleness_histogram"] = to_tensor(histogram_);
  const double gap_square =
      gap_square_cpu_ + (gap_square_sum_.defined() ? gap_square_sum_.item<double>() : 0.0);
  checkpoint[prefix + "telemetry_period"] =
      to_tensor(std::vector<double>{staleness_sum_, static_cast<double>(staleness_max_),
                                    static_cast<double>(count_), gap_square});
}

void AsyncTelemetry::restore(const TensorMap& checkpoint, const std::string& prefix) {
  histogram_ = to_int_vector(checkpoint_entry(checkpoint, prefix + "staleness_histogram"));
  const std::vector<double> period =
      to_double_vector(checkpoint_entry(checkpoint, prefix + "telemetry_period"));
  if (period.size() != 4) {
    throw ConfigError("the checkpoint's telemetry entry is malformed", "start a new run");
  }
  staleness_sum_ = period[0];
  staleness_max_ = static_cast<int64_t>(period[1]);
  count_ = static_cast<int64_t>(period[2]);
  gap_square_cpu_ = period[3];
  gap_square_sum_ = torch::Tensor();
}

}  // namespace dsgd
