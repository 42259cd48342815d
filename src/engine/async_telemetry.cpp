// Async server telemetry; see async_telemetry.h.
#include "engine/async_telemetry.h"

#include <ATen/Parallel.h>

#include <cmath>

namespace dsgd {
namespace {

// mean((a − b)²) over every stride-th element, in one read of each vector and no temporaries: at
// every server update this is the telemetry's whole cost, so it must not cost three passes and
// two allocations. Blocks are fixed-size and summed in order, so the result does not depend on
// the thread count.
double mean_squared_difference(const float* a, const float* b, int64_t n, int64_t stride) {
  const int64_t count = (n + stride - 1) / stride;  // elements 0, stride, 2·stride, ...
  constexpr int64_t kBlock = 1 << 16;
  const int64_t blocks = (count + kBlock - 1) / kBlock;
  std::vector<double> partial(static_cast<size_t>(blocks), 0.0);
  at::parallel_for(0, blocks, 1, [&](int64_t begin, int64_t end) {
    for (int64_t block = begin; block < end; ++block) {
      const int64_t start = block * kBlock, stop = std::min(count, start + kBlock);
      float sum = 0.0f;  // at most 2^16 terms: float is enough, and vectorizes
      if (stride == 1) {
        for (int64_t k = start; k < stop; ++k) {
          const float d = a[k] - b[k];
          sum += d * d;
        }
      } else {
        for (int64_t k = start; k < stop; ++k) {
          const float d = a[k * stride] - b[k * stride];
          sum += d * d;
        }
      }
      partial[static_cast<size_t>(block)] = sum;
    }
  });
  double total = 0.0;
  for (double p : partial) total += p;
  return count > 0 ? total / static_cast<double>(count) : 0.0;
}

}  // namespace

int64_t AsyncTelemetry::gap_stride(int64_t n) const {
  return gap_sample_ > 0 ? std::max<int64_t>(1, n / gap_sample_) : 1;
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
  const int64_t n = center.numel(), stride = gap_stride(n);
  if (center.device().is_cpu() && center.scalar_type() == torch::kFloat &&
      sent.scalar_type() == torch::kFloat && center.is_contiguous() && sent.is_contiguous()) {
    gap_square_cpu_ +=
        mean_squared_difference(center.data_ptr<float>(), sent.data_ptr<float>(), n, stride);
    return;
  }
  // On a GPU: stay on the device; the sum is read back only at the end of the period.
  torch::Tensor gap = (center.slice(0, 0, n, stride) - sent.slice(0, 0, n, stride))
                          .square()
                          .mean()
                          .to(torch::kDouble);
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

void AsyncTelemetry::save(TensorMap& checkpoint) const {
  checkpoint["engine/staleness_histogram"] = to_tensor(histogram_);
}

void AsyncTelemetry::restore(const TensorMap& checkpoint) {
  histogram_ = to_int_vector(checkpoint_entry(checkpoint, "engine/staleness_histogram"));
}

}  // namespace dsgd
