// Welch's t interval of a difference of means; see seed_test.h.
#include "experiment/seed_test.h"

#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <limits>

namespace dsgd {

std::optional<DifferenceInterval> welch_interval(const SeedStats& a, const SeedStats& b,
                                                 double confidence) {
  if (a.n < 2 || b.n < 2) return std::nullopt;
  // The squared standard error of each mean.
  const double va = a.std * a.std / a.n, vb = b.std * b.std / b.n;
  DifferenceInterval interval;
  interval.difference = a.mean - b.mean;
  const double variance = va + vb;
  if (variance <= 0.0) {
    interval.low = interval.high = interval.difference;
    interval.degrees_of_freedom = std::numeric_limits<double>::infinity();
    return interval;
  }
  interval.degrees_of_freedom = variance * variance / (va * va / (a.n - 1) + vb * vb / (b.n - 1));
  const boost::math::students_t t(interval.degrees_of_freedom);
  const double half = boost::math::quantile(t, 0.5 + confidence / 2.0) * std::sqrt(variance);
  interval.low = interval.difference - half;
  interval.high = interval.difference + half;
  return interval;
}

}  // namespace dsgd
