// Learning-rate schedules; see lr_schedule.h.
#include "train/lr_schedule.h"

#include <cmath>

namespace dsgd {

LrSchedule::LrSchedule(const RunConfig& config) : config_(config) {}

double LrSchedule::at(double epoch) const {
  double lr = config_.lr;
  if (config_.lr_scaling == LrScaling::kLinear) lr *= static_cast<double>(config_.workers);
  if (config_.lr_scaling == LrScaling::kSqrt) lr *= std::sqrt(static_cast<double>(config_.workers));
  if (config_.lr_schedule == LrScheduleKind::kMultistep) {
    for (double milestone : config_.lr_milestones) {
      if (epoch >= milestone) lr *= config_.lr_gamma;
    }
  } else if (config_.lr_schedule == LrScheduleKind::kCosine) {
    double progress = std::min(1.0, epoch / config_.epochs);
    lr *= 0.5 * (1.0 + std::cos(M_PI * progress));
  }
  if (epoch < config_.warmup_epochs) {
    double start = 1.0 / static_cast<double>(config_.workers);
    lr *= start + (1.0 - start) * (epoch / config_.warmup_epochs);
  }
  return lr;
}

}  // namespace dsgd
