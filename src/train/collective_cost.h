// The closed formulas of an all-reduce's time among p members, on one link or on two (inside a
// host and between hosts), as the latency-bandwidth-compute model writes them (Thakur, Rabenseifner
// & Gropp, "Optimization of Collective Communication Operations in MPICH", IJHPCA 19(1), 2005):
// alpha the one-way latency, beta the seconds a byte takes on the link, gamma the seconds a member
// takes to add one received byte into its own vector (the reduction's arithmetic; 0 where it is
// free beside the link). Every algorithm's time is affine in the message's bytes n, so a price is
// (latency, seconds per byte), which the cluster turns into the simulators' comm.* keys. Knows
// nothing of clusters or engines.
#pragma once

#include <cstdint>
#include <string>

#include "core/enum_names.h"

namespace dsgd {

enum class AllreduceAlgorithm {
  // Reduce-scatter then all-gather around a ring: 2(p-1) alpha + 2(p-1)/p n beta + (p-1)/p n gamma.
  // What dsgd's MPI engine runs (mpi_world.cpp sets Open MPI's ring), and NCCL's for large ones.
  kRing,
  // A binomial-tree reduce to one member, then a binomial-tree broadcast, unpipelined:
  // 2 ceil(log2 p) (alpha + n beta) + ceil(log2 p) n gamma. Fewer latencies, more bytes.
  kTree,
  // Rabenseifner's: reduce-scatter by recursive halving, all-gather by recursive doubling:
  // 2 log2 p alpha + 2(p-1)/p n beta + (p-1)/p n gamma for p a power of two; otherwise the
  // p - 2^floor(log2 p) extra members first hand their vector to a partner and get the result
  // back, 2 alpha + 2 n beta + n gamma more, and the rest are renumbered (MPICH's and Open MPI's
  // way), so partners 2^k apart in the new numbers may be further apart on the hosts. Open MPI's
  // choice for mid-sized vectors.
  kHalvingDoubling,
  // dsgd's own (allreduce = "rank-order"): a reduce-scatter by direct exchange, each member summing
  // its 1/p of the vector in rank order, then an all-gather, priced as the pairwise exchange
  // (step s: member r sends to r + s): 2(p-1) alpha + 2(p-1)/p n beta + (p-1)/p n gamma, the ring's
  // terms with other partners. Its sums are the simulator's bit for bit.
  kRankOrder,
};

// The config's, the cluster table's and the records' names, and the order of every listing.
template <>
struct EnumNames<AllreduceAlgorithm> {
  static constexpr EnumName<AllreduceAlgorithm> values[] = {
      {AllreduceAlgorithm::kRing, "ring"},
      {AllreduceAlgorithm::kTree, "tree"},
      {AllreduceAlgorithm::kHalvingDoubling, "halving-doubling"},
      {AllreduceAlgorithm::kRankOrder, "rank-order"},
  };
};

struct LinkTerms {
  double latency = 0.0;           // seconds, one way (alpha)
  double bandwidth = 0.0;         // bytes per second each way (1 / beta)
  double reduce_bandwidth = 0.0;  // bytes per second a member sums (1 / gamma); 0: free
};

// time(n) = latency_seconds + seconds_per_byte x n, for one all-reduce of n bytes.
struct AllreducePrice {
  double latency_seconds = 0.0;
  double seconds_per_byte = 0.0;
  double seconds(double bytes) const { return latency_seconds + seconds_per_byte * bytes; }
};

// Members on one link. Nothing to reduce among p <= 1 members: a zero price.
AllreducePrice allreduce_price(AllreduceAlgorithm algorithm, int64_t members,
                               const LinkTerms& link);

// `groups` groups of `members` consecutive ranks each reduce at once (Hier-AVG's groups), on hosts
// of `per_host` consecutive ranks (1: each rank its own host; the last host may be partial; a group
// may straddle two hosts). Each step of the algorithm is priced as MPICH and Open MPI pair its
// members (the tree's and the halving's nearest partners first, the halving's vector halved at
// each step, a ring's every hop at once): it waits for its slowest message, on the link that
// message crosses, and the messages leaving (or entering) one host share its one uplink. Where one
// step sends some messages inside hosts and some between them, it pays the larger latency and the
// larger seconds per byte: exact when one link is the slower in both.
AllreducePrice allreduce_price(AllreduceAlgorithm algorithm, int64_t members, int64_t per_host,
                               const LinkTerms& intra, const LinkTerms& inter, int64_t groups = 1);

}  // namespace dsgd
