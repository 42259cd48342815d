// The all-reduce's closed formulas; see collective_cost.h.
#include "train/collective_cost.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace dsgd {

namespace {

const std::pair<AllreduceAlgorithm, const char*> kNames[] = {
    {AllreduceAlgorithm::kRing, "ring"},
    {AllreduceAlgorithm::kTree, "tree"},
    {AllreduceAlgorithm::kHalvingDoubling, "halving-doubling"},
};

}  // namespace

const AllreduceAlgorithm* find_allreduce(const std::string& name) {
  for (const auto& entry : kNames) {
    if (name == entry.second) return &entry.first;
  }
  return nullptr;
}

const char* allreduce_name(AllreduceAlgorithm algorithm) {
  for (const auto& [known, name] : kNames) {
    if (known == algorithm) return name;
  }
  return "?";
}

AllreducePrice allreduce_price(AllreduceAlgorithm algorithm, int64_t members,
                               const LinkTerms& link) {
  return allreduce_price(algorithm, members, members, link, link);
}

AllreducePrice allreduce_price(AllreduceAlgorithm algorithm, int64_t members, int64_t per_host,
                               const LinkTerms& intra, const LinkTerms& inter) {
  AllreducePrice price;
  if (members <= 1) return price;
  const double p = static_cast<double>(members);
  const double m = static_cast<double>(std::max<int64_t>(std::min(per_host, members), 1));
  auto beta = [](const LinkTerms& link) { return 1.0 / link.bandwidth; };
  auto gamma = [](const LinkTerms& link) {
    return link.reduce_bandwidth > 0 ? 1.0 / link.reduce_bandwidth : 0.0;
  };
  // A step between partners `distance` ranks apart: inside a host while they share one.
  auto link_at = [&](double distance) -> const LinkTerms& { return distance < m ? intra : inter; };
  if (algorithm == AllreduceAlgorithm::kRing) {
    // Crossing hosts, each step waits for the slower of its two kinds of hop: the larger latency
    // and the larger seconds per byte (exact when one link is the slower in both).
    const bool crosses = m < p;
    const double latency = crosses ? std::max(intra.latency, inter.latency) : intra.latency;
    const double per_byte = crosses ? std::max(beta(intra), beta(inter)) : beta(intra);
    const double summing = crosses ? std::max(gamma(intra), gamma(inter)) : gamma(intra);
    price.latency_seconds = 2 * (p - 1) * latency;
    price.seconds_per_byte = 2 * (p - 1) / p * per_byte + (p - 1) / p * summing;
  } else if (algorithm == AllreduceAlgorithm::kTree) {
    // Level k joins partners 2^k apart with the whole vector, up (summing) and back down.
    for (double distance = 1; distance < p; distance *= 2) {
      const LinkTerms& link = link_at(distance);
      price.latency_seconds += 2 * link.latency;
      price.seconds_per_byte += 2 * beta(link) + gamma(link);
    }
  } else {
    // The power-of-two core of q members: step k exchanges 1/2^(k+1) of the vector with the
    // partner 2^k apart, halving then doubling; across hosts all m members of a host share its
    // uplink. The extra p - q members hand their vector to a neighbour first and get it back.
    const double q = std::exp2(std::floor(std::log2(p)));
    double fraction = 0.5;
    for (double distance = 1; distance < q; distance *= 2, fraction /= 2) {
      const LinkTerms& link = link_at(distance);
      const double sharing = distance < m ? 1.0 : m;
      price.latency_seconds += 2 * link.latency;
      price.seconds_per_byte += 2 * fraction * sharing * beta(link) + fraction * gamma(link);
    }
    if (q < p) {
      const LinkTerms& link = link_at(1);
      price.latency_seconds += 2 * link.latency;
      price.seconds_per_byte += 2 * beta(link) + gamma(link);
    }
  }
  return price;
}

}  // namespace dsgd
