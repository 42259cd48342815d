// Whether the seeds of two configurations decide a difference between them: Welch's t test (two
// samples of unequal variance, Welch-Satterthwaite degrees of freedom) and its two-sided interval,
// the one test behind every "resolved" and "not resolved" a report prints. With fewer than two
// seeds on a side there is no variance to test with, and no interval.
#pragma once

#include <optional>

#include "experiment/run_results.h"

namespace dsgd {

struct DifferenceInterval {
  double difference = 0.0;  // a.mean − b.mean
  double low = 0.0;         // the interval of the difference at the confidence asked
  double high = 0.0;
  double degrees_of_freedom = 0.0;
  // The interval leaves out 0: the seeds decide the sign of the difference.
  bool resolved() const { return low > 0.0 || high < 0.0; }
};

// The `confidence` (two-sided) interval of a.mean − b.mean by Welch's t; nullopt when a side has
// fewer than two seeds. Sides without spread (every seed alike) give a zero-width interval.
std::optional<DifferenceInterval> welch_interval(const SeedStats& a, const SeedStats& b,
                                                 double confidence = 0.95);

}  // namespace dsgd
