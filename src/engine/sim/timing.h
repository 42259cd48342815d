// Simulated compute time of each minibatch. The time unit is the time of one sample, so a
// worker's minibatch takes Gamma(k, B/k) (mean B, coefficient of variation 1/sqrt(k)), divided by
// the worker's speed factor, times the straggler factor with the straggler probability. Every
// draw is a pure function of (seed, worker, k), so timing never depends on event order.
#pragma once

#include <cstdint>
#include <vector>

#include "train/config.h"

namespace dsgd {

class TimingModel {
 public:
  TimingModel(const RunConfig& config, int64_t workers);
  // Duration of worker i's k-th minibatch.
  double duration(int64_t worker, int64_t k) const;
  double speed(int64_t worker) const { return speeds_[static_cast<size_t>(worker)]; }

 private:
  double shape_;
  double batch_;
  double straggler_prob_;
  double straggler_factor_;
  uint64_t seed_;
  std::vector<double> speeds_;
};

// (The workers' speed factors, worker_speeds, are in train/config.h.)

// A Gamma(shape, scale) draw from a generator seeded with `seed` (Marsaglia & Tsang 2000), written
// out so that results do not depend on the standard library's distribution code.
double gamma_draw(double shape, double scale, uint64_t seed);

}  // namespace dsgd
