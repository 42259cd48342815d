// Local steps per worker; see local_steps.h.
#include "train/local_steps.h"

#include <fmt/format.h>
#include <fmt/ranges.h>  // fmt::join (in format.h before fmt 11)

#include <algorithm>
#include <cmath>
#include <numeric>

namespace dsgd {

int64_t local_steps(const RunConfig& c) {
  return c.algo_options.has("local.steps") ? c.algo_options.integer("local.steps") : 1;
}

std::vector<int64_t> local_steps_per_worker(const RunConfig& c) {
  const int64_t h = local_steps(c);
  std::vector<int64_t> steps(static_cast<size_t>(c.workers), h);
  if (!c.algo_options.has("local.dylu") || !c.algo_options.flag("local.dylu")) return steps;
  const std::vector<double> speeds = worker_speeds(c, c.workers);
  const double fastest = *std::max_element(speeds.begin(), speeds.end());
  for (size_t i = 0; i < steps.size(); ++i) {
    // A hair above the quotient, so that 0.4 / 1.6 · 4 is 1 and not 0.999…
    const double share = speeds[i] / fastest * static_cast<double>(h);
    steps[i] = std::max<int64_t>(1, static_cast<int64_t>(std::floor(share + 1e-9)));
  }
  return steps;
}

namespace {
double mean_of(const std::vector<int64_t>& steps) {
  return static_cast<double>(std::accumulate(steps.begin(), steps.end(), int64_t{0})) /
         static_cast<double>(steps.size());
}
}  // namespace

double mean_local_steps(const RunConfig& c) { return mean_of(local_steps_per_worker(c)); }

std::string describe_local_steps(const RunConfig& c) {
  const std::vector<int64_t> steps = local_steps_per_worker(c);
  const auto [least, most] = std::minmax_element(steps.begin(), steps.end());
  if (*least == *most) return "";
  const std::string each = steps.size() <= 32 ? fmt::format("{}", fmt::join(steps, " "))
                                              : fmt::format("{} to {}", *least, *most);
  return fmt::format(
      "local steps per worker (local.dylu, from the declared speeds): {} (mean {:.2f} minibatches "
      "per exchange)\n",
      each, mean_of(steps));
}

}  // namespace dsgd
