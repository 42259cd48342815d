// Async server telemetry; see async_telemetry.h.
#include "engine/async_telemetry.h"

#include <cmath>

namespace dsgd {

void AsyncTelemetry::record(int64_t staleness, const torch::Tensor& center,
                            const torch::Tensor& sent) {
  staleness_sum_ += static_cast<double>(staleness);
  staleness_max_ = std::max(staleness_max_, staleness);
  if (static_cast<int64_t>(histogram_.size()) <= staleness) {
    histogram_.resize(static_cast<size_t>(staleness) + 1, 0);
  }
  ++histogram_[static_cast<size_t>(staleness)];
  ++count_;
  torch::Tensor gap = (center - sent).square().mean().to(torch::kDouble);
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
  row["gap_rms"] =
      gap_square_sum_.defined() ? std::sqrt(gap_square_sum_.item<double>() / count) : 0.0;
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
