// The all-reduce's prices; see collective_cost.h. Each algorithm is written out as its steps, each
// step as the messages its members send at once, so that a step's price can see which of them
// cross hosts and how many share a host's uplink, for any placement of the members.
#include "train/collective_cost.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace dsgd {

namespace {

struct Message {
  int64_t from = 0;
  int64_t to = 0;
};

// The members of every group on their hosts, and the price of one step of all the groups at once.
class Placement {
 public:
  Placement(int64_t members, int64_t per_host, int64_t groups, const LinkTerms& intra,
            const LinkTerms& inter)
      : members_(members),
        per_host_(std::max<int64_t>(per_host, 1)),
        groups_(std::max<int64_t>(groups, 1)),
        intra_(intra),
        inter_(inter) {}

  // Adds, `times` over, one step in which every group sends the messages of `pattern` (between
  // the group's own members, numbered from 0), each `fraction` of the vector, the receiver
  // summing it into its own vector when `sums`. The step lasts as long as its slowest message:
  // the largest latency, and the largest seconds per byte, where every message that leaves a
  // host (or enters one) shares that host's one uplink with the others leaving (entering) it.
  // Inside a host each pair has a link of its own (NVLink's, PCIe's switch).
  void add_step(AllreducePrice& price, const std::vector<Message>& pattern, double fraction,
                bool sums, double times = 1) const {
    if (pattern.empty()) return;
    const int64_t hosts = (members_ * groups_ + per_host_ - 1) / per_host_;
    std::vector<int64_t> leaving(static_cast<size_t>(hosts)), entering(static_cast<size_t>(hosts));
    auto host = [&](int64_t group, int64_t member) {
      return static_cast<size_t>((group * members_ + member) / per_host_);
    };
    for (int64_t g = 0; g < groups_; ++g) {
      for (const Message& m : pattern) {
        if (host(g, m.from) != host(g, m.to)) {
          ++leaving[host(g, m.from)];
          ++entering[host(g, m.to)];
        }
      }
    }
    double latency = 0, per_byte = 0;
    for (int64_t g = 0; g < groups_; ++g) {
      for (const Message& m : pattern) {
        const size_t from = host(g, m.from), to = host(g, m.to);
        const bool crosses = from != to;
        const LinkTerms& link = crosses ? inter_ : intra_;
        const double sharing =
            crosses ? static_cast<double>(std::max(leaving[from], entering[to])) : 1.0;
        latency = std::max(latency, link.latency);
        per_byte = std::max(
            per_byte, fraction * (sharing / link.bandwidth + (sums ? seconds_to_sum(link) : 0.0)));
      }
    }
    price.latency_seconds += times * latency;
    price.seconds_per_byte += times * per_byte;
  }

 private:
  static double seconds_to_sum(const LinkTerms& link) {
    return link.reduce_bandwidth > 0 ? 1.0 / link.reduce_bandwidth : 0.0;
  }

  int64_t members_, per_host_, groups_;
  LinkTerms intra_, inter_;
};

// Reduce-scatter then all-gather around the ring: 2(p - 1) steps, each member sending 1/p of the
// vector to the next.
void price_ring(AllreducePrice& price, int64_t p, const Placement& placement) {
  std::vector<Message> next;
  for (int64_t r = 0; r < p; ++r) next.push_back({r, (r + 1) % p});
  const double steps = static_cast<double>(p - 1);
  placement.add_step(price, next, 1.0 / static_cast<double>(p), true, steps);
  placement.add_step(price, next, 1.0 / static_cast<double>(p), false, steps);
}

// A reduce-scatter by direct exchange, then an all-gather the same way, as p - 1 pairwise steps
// each: at step s every member sends 1/p of the vector to the member s after it.
void price_rank_order(AllreducePrice& price, int64_t p, const Placement& placement) {
  for (int64_t s = 1; s < p; ++s) {
    std::vector<Message> shifted;
    for (int64_t r = 0; r < p; ++r) shifted.push_back({r, (r + s) % p});
    placement.add_step(price, shifted, 1.0 / static_cast<double>(p), true);
    placement.add_step(price, shifted, 1.0 / static_cast<double>(p), false);
  }
}

// A binomial reduce to member 0, then a binomial broadcast from it: at the level of distance d,
// each member whose rank is an odd multiple of d sends the whole vector to the member d below
// it, and gets the result back from it on the way down.
void price_tree(AllreducePrice& price, int64_t p, const Placement& placement) {
  for (int64_t d = 1; d < p; d *= 2) {
    std::vector<Message> up, down;
    for (int64_t r = d; r < p; r += 2 * d) {
      up.push_back({r, r - d});
      down.push_back({r - d, r});
    }
    placement.add_step(price, up, 1.0, true);
    placement.add_step(price, down, 1.0, false);
  }
}

// Rabenseifner's, as MPICH and Open MPI run it: q = 2^floor(log2 p) members take part; of the
// first 2(p - q), each even one hands its whole vector to the odd one above it first and gets the
// result back last. The q that remain, renumbered (the odd ones of those pairs, then the rest in
// order), exchange with the partner d apart in their new numbers, nearest first: 1/(2d) of the
// vector, halving (summing) then doubling.
void price_halving_doubling(AllreducePrice& price, int64_t p, const Placement& placement) {
  int64_t q = 1;
  while (q * 2 <= p) q *= 2;
  const int64_t extra = p - q;
  std::vector<Message> hand_in, hand_back;
  for (int64_t r = 0; r < 2 * extra; r += 2) {
    hand_in.push_back({r, r + 1});
    hand_back.push_back({r + 1, r});
  }
  placement.add_step(price, hand_in, 1.0, true);
  auto member = [&](int64_t renumbered) {
    return renumbered < extra ? 2 * renumbered + 1 : renumbered + extra;
  };
  for (int64_t d = 1; d < q; d *= 2) {
    std::vector<Message> exchange;
    for (int64_t r = 0; r < q; ++r) exchange.push_back({member(r), member(r ^ d)});
    const double fraction = 0.5 / static_cast<double>(d);
    placement.add_step(price, exchange, fraction, true);
    placement.add_step(price, exchange, fraction, false);
  }
  placement.add_step(price, hand_back, 1.0, false);
}

}  // namespace

AllreducePrice allreduce_price(AllreduceAlgorithm algorithm, int64_t members,
                               const LinkTerms& link) {
  return allreduce_price(algorithm, members, members, link, link);
}

AllreducePrice allreduce_price(AllreduceAlgorithm algorithm, int64_t members, int64_t per_host,
                               const LinkTerms& intra, const LinkTerms& inter, int64_t groups) {
  AllreducePrice price;
  if (members <= 1) return price;
  const Placement placement(members, per_host, groups, intra, inter);
  switch (algorithm) {
    case AllreduceAlgorithm::kRing:
      price_ring(price, members, placement);
      break;
    case AllreduceAlgorithm::kTree:
      price_tree(price, members, placement);
      break;
    case AllreduceAlgorithm::kHalvingDoubling:
      price_halving_doubling(price, members, placement);
      break;
    case AllreduceAlgorithm::kRankOrder:
      price_rank_order(price, members, placement);
      break;
  }
  return price;
}

}  // namespace dsgd
