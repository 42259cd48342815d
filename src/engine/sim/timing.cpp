// Minibatch timing model; see timing.h.
#include "engine/sim/timing.h"

#include <cmath>
#include <random>

#include "data/worker_stream.h"

namespace dsgd {
namespace {

// Uniform in (0, 1) from the top 53 bits, never exactly 0.
double uniform01(std::mt19937_64& rng) {
  return (static_cast<double>(rng() >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

double standard_normal(std::mt19937_64& rng) {
  // Box–Muller; one of the pair is enough here.
  double u1 = uniform01(rng);
  double u2 = uniform01(rng);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

constexpr uint64_t kTimingTag = 0x74696d65;     // "time"
constexpr uint64_t kStragglerTag = 0x73747261;  // "stra"

}  // namespace

double gamma_draw(double shape, double scale, uint64_t seed) {
  std::mt19937_64 rng(seed);
  // For shape < 1, draw with shape + 1 and scale by U^(1/shape).
  double boost = 1.0;
  if (shape < 1.0) {
    boost = std::pow(uniform01(rng), 1.0 / shape);
    shape += 1.0;
  }
  const double d = shape - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  while (true) {
    double x = standard_normal(rng);
    double v = 1.0 + c * x;
    if (v <= 0.0) continue;
    v = v * v * v;
    double u = uniform01(rng);
    if (std::log(u) < 0.5 * x * x + d - d * v + d * std::log(v)) return d * v * scale * boost;
  }
}

TimingModel::TimingModel(const RunConfig& config, int64_t workers)
    : shape_(config.timing_shape),
      batch_(static_cast<double>(config.batch_size)),
      straggler_prob_(config.timing_straggler_prob),
      straggler_factor_(config.timing_straggler_factor),
      seed_(static_cast<uint64_t>(config.seed)),
      speeds_(worker_speeds(config, workers)) {}

double TimingModel::duration(int64_t worker, int64_t k) const {
  uint64_t w = static_cast<uint64_t>(worker);
  uint64_t step = static_cast<uint64_t>(k);
  double time = gamma_draw(shape_, batch_ / shape_, mix_seed(seed_, w, step, kTimingTag));
  time /= speeds_[static_cast<size_t>(worker)];
  if (straggler_prob_ > 0.0) {
    std::mt19937_64 rng(mix_seed(seed_, w, step, kStragglerTag));
    if (uniform01(rng) < straggler_prob_) time *= straggler_factor_;
  }
  return time;
}

}  // namespace dsgd
