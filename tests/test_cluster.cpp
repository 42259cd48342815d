// Time in seconds on a named cluster (train/cluster.h): the table's entries and their errors, the
// prices held against hand-computed ring and server costs, and a run on a cluster whose metrics
// carry seconds = sim_time x seconds_per_unit, kept when it resumes.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "cli_helpers.h"
#include "core/errors.h"
#include "experiment/report_sections.h"
#include "run/clock_only.h"
#include "run/progress.h"
#include "train/cluster.h"
#include "train/collective_cost.h"
#include "train/config.h"

namespace dsgd {
namespace {

using namespace dsgd::testing;  // NOLINT(build/namespaces): the shared helpers of cli_helpers.h

// A table of one's own: a device with a known step, links with round numbers.
fs::path write_table(const std::string& name, const std::string& text) {
  const fs::path dir = fresh_dir(name);
  fs::create_directories(dir);
  std::ofstream(dir / "clusters.toml") << text;
  return dir / "clusters.toml";
}

const std::string kTable = kTestLinks + R"(
[devices.card]
source = "test"
[devices.card.step]
"resnet20 128 channels-last bf16" = 0.064
[clusters.hosts-of-4]
workers_per_host = 4
intra = "fast"
inter = "slow"
device = "card"
source = "test"
)";

// The table above with a device whose step the CLI tests' mlp runs take (0.004 s for 16 samples),
// on hosts of 4 with the fast link inside and the slow one between.
const char* kTinyHosts = R"(
[devices.tiny]
source = "test"
[devices.tiny.step]
"mlp 16 contiguous fp32" = 0.004
[clusters.tiny-hosts]
workers_per_host = 4
intra = "fast"
inter = "slow"
device = "tiny"
source = "test"
)";

RunShape resnet_shape(int64_t workers) {
  RunShape shape;
  shape.model = "resnet20";
  shape.batch_size = 128;
  shape.format = "channels-last bf16";
  shape.workers = workers;
  return shape;
}

// A language model's step is keyed by its windows and their length (BxT) and the transformer's
// sizes: a step listed for one shape does not price another, whose key the error then names.
TEST(Cluster, ALanguageModelsStepKeyCarriesItsSequenceLength) {
  const fs::path file = write_table("cluster_lm", kTestLinks + R"(
[devices.card]
source = "test"
[devices.card.step]
"transformer-2x2x128 16x64 contiguous fp32" = 0.032
[clusters.lm]
workers_per_host = 1
intra = "fast"
inter = "slow"
device = "card"
source = "test"
)");
  const ClusterTable table = load_cluster_table(file.string());
  RunConfig config;
  config.model = "transformer";
  config.vocabulary = "{\"tokenizer\": \"bytes\", \"size\": 256}";  // a language model's record
  config.seq_len = 64;
  config.batch_size = 16;
  config.transformer_layers = 2;
  config.transformer_heads = 2;
  config.transformer_width = 128;
  config.memory_format = MemoryFormat::kContiguous;
  config.precision = Precision::kFloat32;
  RunShape shape = run_shape(config);
  EXPECT_EQ(shape.step_prefix(), "transformer-2x2x128 16x64 ");
  // A unit is a sample's (a window's) mean compute.
  EXPECT_DOUBLE_EQ(price_on_cluster(table, "lm", shape).seconds_per_unit, 0.032 / 16);
  config.seq_len = 128;
  try {
    price_on_cluster(table, "lm", run_shape(config));
    ADD_FAILURE() << "a step of windows of 64 priced windows of 128";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("\"transformer-2x2x128 16x128 contiguous fp32\""),
              std::string::npos)
        << e.what();
  }
  // An image run's key is as it was.
  EXPECT_EQ(resnet_shape(1).step_prefix(), "resnet20 128 ");
}

TEST(Cluster, PricesARingAndTheServerLinkAsWrittenByHand) {
  const fs::path file = write_table("cluster_prices", kTable);
  const ClusterTable table = load_cluster_table(file.string());
  // The unit: a sample's mean compute, 0.064 s / 128.
  const double unit = 0.064 / 128;

  // kavg on 16 learners (4 hosts): the global ring crosses the slow link, 2(16 - 1) latencies.
  ClusterCosts sync = price_on_cluster(table, "hosts-of-4", resnet_shape(16));
  EXPECT_DOUBLE_EQ(sync.seconds_per_unit, unit);
  EXPECT_DOUBLE_EQ(sync.global_alpha, 30 * 1e-3 / unit);
  EXPECT_DOUBLE_EQ(sync.global_beta, 1.0 / 1e9 / unit);
  // hier-avg, groups of 4: inside a host, on the fast link; groups of 8 span two hosts.
  RunShape grouped = resnet_shape(16);
  grouped.group_size = 4;
  ClusterCosts in_host = price_on_cluster(table, "hosts-of-4", grouped);
  EXPECT_DOUBLE_EQ(in_host.group_alpha, 6 * 1e-6 / unit);
  EXPECT_DOUBLE_EQ(in_host.group_beta, 1.0 / 1e11 / unit);
  grouped.group_size = 8;
  EXPECT_DOUBLE_EQ(price_on_cluster(table, "hosts-of-4", grouped).group_beta, 1.0 / 1e9 / unit);
  // Four learners fit in one host: the global ring is on the fast link.
  EXPECT_DOUBLE_EQ(price_on_cluster(table, "hosts-of-4", resnet_shape(4)).global_beta,
                   1.0 / 1e11 / unit);
  // An asynchronous server: one latency per push or pull, on the slow link once the workers and
  // the server outgrow a host (3 + 1 fit, 4 + 1 do not).
  RunShape async = resnet_shape(4);
  async.asynchronous = true;
  ClusterCosts server = price_on_cluster(table, "hosts-of-4", async);
  EXPECT_DOUBLE_EQ(server.global_alpha, 1e-3 / unit);
  EXPECT_DOUBLE_EQ(server.global_beta, 1.0 / 1e9 / unit);
  async.workers = 3;
  EXPECT_DOUBLE_EQ(price_on_cluster(table, "hosts-of-4", async).global_alpha, 1e-6 / unit);
  // "measured": the run's own step.
  RunShape measured = resnet_shape(16);
  measured.measured_step_seconds = 0.25;
  EXPECT_DOUBLE_EQ(price_on_cluster(table, "flat-25g", measured).seconds_per_unit, 0.25 / 128);
  // A device named beside the cluster replaces the cluster's: flat-25g's links, card's step.
  ClusterCosts on_card = price_on_cluster(table, "flat-25g", measured, "card");
  EXPECT_DOUBLE_EQ(on_card.seconds_per_unit, unit);
  EXPECT_DOUBLE_EQ(on_card.global_beta, 1.0 / 3.125e9 / unit);
  fs::remove_all(file.parent_path());
}

// A deeper hierarchy (hier.levels): each level between the first and the global one priced at its
// own group size, on the links its groups cross. Hosts of 4: groups of 2 inside a host, 2(2 - 1)
// fast latencies; groups of 8 span two hosts, a ring whose every step waits for the slow link.
TEST(Cluster, PricesEachLevelOfADeeperHierarchy) {
  const fs::path file = write_table("cluster_levels", kTable);
  const ClusterTable table = load_cluster_table(file.string());
  const double unit = 0.064 / 128;
  RunShape three = resnet_shape(16);
  three.group_size = 2;
  three.middle_group_sizes = {8};
  const ClusterCosts costs = price_on_cluster(table, "hosts-of-4", three);
  EXPECT_DOUBLE_EQ(costs.group_alpha, 2 * 1e-6 / unit);
  EXPECT_DOUBLE_EQ(costs.group_beta, 1.0 / 1e11 / unit);
  ASSERT_EQ(costs.middle_levels.size(), 1u);
  EXPECT_EQ(costs.middle_levels[0].group_size, 8);
  EXPECT_DOUBLE_EQ(costs.middle_levels[0].alpha, 14 * 1e-3 / unit);
  EXPECT_DOUBLE_EQ(costs.middle_levels[0].beta, 1.0 / 1e9 / unit);
  EXPECT_DOUBLE_EQ(costs.global_alpha, 30 * 1e-3 / unit);
  EXPECT_NE(costs.explanation.find("groups of 8 on fast and slow"), std::string::npos)
      << costs.explanation;
  fs::remove_all(file.parent_path());
}

// The tree, halving-doubling and the reduction's arithmetic, against the formulas written out by
// hand: a binomial
// reduce then broadcast is 2 ceil(log2 p) hops of the whole vector, a ring 2(p - 1) hops of 1/p of
// it, and summing costs (p - 1)/p of the vector at the ring's members, ceil(log2 p) vectors on the
// tree's path. The simulators multiply beta by the ring's volume 2(p - 1)/p n, whatever the
// algorithm.
TEST(Cluster, PricesATreeAndTheSumsAsWrittenByHand) {
  const fs::path file = write_table("cluster_tree", std::string(kTable) + R"(
[links.summing]
latency = 1e-6
bandwidth = 1e10
reduce_bandwidth = 5e9
source = "test"
[clusters.tree-host]
workers_per_host = 16
intra = "summing"
inter = "summing"
device = "card"
allreduce = "tree"
source = "test"
[clusters.ring-host]
workers_per_host = 16
intra = "summing"
inter = "summing"
device = "card"
source = "test"
)");
  const ClusterTable table = load_cluster_table(file.string());
  const double unit = 0.064 / 128;
  const double volume = 2.0 * 15 / 16;  // the ring's volume factor at p = 16
  const ClusterCosts tree = price_on_cluster(table, "tree-host", resnet_shape(16));
  EXPECT_DOUBLE_EQ(tree.global_alpha, 8 * 1e-6 / unit);  // 2 x log2(16) hops
  EXPECT_DOUBLE_EQ(tree.global_beta, (8 / 1e10 + 4 / 5e9) / volume / unit);
  const ClusterCosts ring = price_on_cluster(table, "ring-host", resnet_shape(16));
  EXPECT_DOUBLE_EQ(ring.global_alpha, 30 * 1e-6 / unit);
  EXPECT_DOUBLE_EQ(ring.global_beta, (volume / 1e10 + 15.0 / 16 / 5e9) / volume / unit);
  // Five members: the tree is ceil(log2 5) = 3 levels deep.
  EXPECT_DOUBLE_EQ(price_on_cluster(table, "tree-host", resnet_shape(5)).global_alpha,
                   6 * 1e-6 / unit);
  // The tree pays fewer latencies and more bytes: cheaper for a small vector, dearer for a big one.
  auto seconds = [&](AllreduceAlgorithm algorithm, double bytes) {
    return allreduce_price(algorithm, 16, {1e-6, 1e10, 5e9}).seconds(bytes);
  };
  EXPECT_LT(seconds(AllreduceAlgorithm::kTree, 4), seconds(AllreduceAlgorithm::kRing, 4));
  EXPECT_GT(seconds(AllreduceAlgorithm::kTree, 1e6), seconds(AllreduceAlgorithm::kRing, 1e6));
  EXPECT_DOUBLE_EQ(allreduce_price(AllreduceAlgorithm::kTree, 1, {1e-6, 1e10, 0}).seconds(1e6), 0);
  // Halving and doubling: the ring's bytes in 2 log2 p latencies; 12 members are a core of 8 and
  // 4 that hand their vector in first and get the result back.
  const LinkTerms link{1e-6, 1e10, 5e9};
  const AllreducePrice halving = allreduce_price(AllreduceAlgorithm::kHalvingDoubling, 16, link);
  EXPECT_DOUBLE_EQ(halving.latency_seconds, 8 * 1e-6);
  EXPECT_DOUBLE_EQ(halving.seconds_per_byte,
                   allreduce_price(AllreduceAlgorithm::kRing, 16, link).seconds_per_byte);
  const AllreducePrice twelve = allreduce_price(AllreduceAlgorithm::kHalvingDoubling, 12, link);
  EXPECT_DOUBLE_EQ(twelve.latency_seconds, (6 + 2) * 1e-6);
  EXPECT_DOUBLE_EQ(twelve.seconds_per_byte,
                   2 * 7.0 / 8 / 1e10 + 7.0 / 8 / 5e9 + 2 / 1e10 + 1 / 5e9);
  // dsgd's rank-order: the ring's terms on one link (p - 1 pairwise steps each way), and on hosts
  // of 4 its far partners cross the uplink in every step where the ring's cross it once a host.
  const AllreducePrice ordered = allreduce_price(AllreduceAlgorithm::kRankOrder, 16, link);
  EXPECT_DOUBLE_EQ(ordered.latency_seconds, 30 * 1e-6);
  EXPECT_DOUBLE_EQ(ordered.seconds_per_byte,
                   allreduce_price(AllreduceAlgorithm::kRing, 16, link).seconds_per_byte);
  const LinkTerms host_link{1e-6, 1e11, 0}, uplink{1e-3, 1e9, 0};
  EXPECT_GT(allreduce_price(AllreduceAlgorithm::kRankOrder, 16, 4, host_link, uplink).seconds(1e6),
            allreduce_price(AllreduceAlgorithm::kRing, 16, 4, host_link, uplink).seconds(1e6));
  // `dsgd list clusters` says which algorithm and the summing rate.
  const std::string listed = describe_cluster_table(table);
  EXPECT_NE(listed.find("tree all-reduce"), std::string::npos) << listed;
  EXPECT_NE(listed.find("sums 5e+09 B/s"), std::string::npos) << listed;
  // An algorithm the formulas do not have is refused, naming the entry and the choices.
  const fs::path bad = write_table("cluster_bad_allreduce", std::string(kTable) + R"(
[clusters.x]
workers_per_host = 2
intra = "fast"
inter = "slow"
device = "card"
allreduce = "butterfly"
source = "test"
)");
  try {
    load_cluster_table(bad.string());
    ADD_FAILURE() << "allreduce = butterfly was accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(
        std::string(e.what()).find("clusters.x: allreduce = \"butterfly\" must be one of ring, "
                                   "tree, halving-doubling, rank-order"),
        std::string::npos)
        << e.what();
  }
  for (const fs::path& f : {file, bad}) fs::remove_all(f.parent_path());
}

// Across hosts each step is priced on the link it crosses: 16 members in hosts of 4, nearest
// partners first. The tree's levels 1 and 2 apart stay in a host, 4 and 8 apart cross; the
// halving's last two steps cross with an eighth and a sixteenth of the vector, all four members
// of a host through its one uplink; the ring waits at every step for its hop between hosts.
TEST(Cluster, PricesEachStepOnTheLinkItCrosses) {
  const LinkTerms fast{1e-6, 1e11, 0}, slow{1e-3, 1e9, 0};
  const AllreducePrice tree = allreduce_price(AllreduceAlgorithm::kTree, 16, 4, fast, slow);
  EXPECT_DOUBLE_EQ(tree.latency_seconds, 2 * (2 * 1e-6 + 2 * 1e-3));
  EXPECT_DOUBLE_EQ(tree.seconds_per_byte, 2 * (2 / 1e11 + 2 / 1e9));
  const AllreducePrice halving =
      allreduce_price(AllreduceAlgorithm::kHalvingDoubling, 16, 4, fast, slow);
  EXPECT_DOUBLE_EQ(halving.latency_seconds, 2 * (2 * 1e-6 + 2 * 1e-3));
  EXPECT_DOUBLE_EQ(halving.seconds_per_byte,
                   2 * (0.5 + 0.25) / 1e11 + 2 * (0.125 + 0.0625) * 4 / 1e9);
  const AllreducePrice ring = allreduce_price(AllreduceAlgorithm::kRing, 16, 4, fast, slow);
  EXPECT_DOUBLE_EQ(ring.latency_seconds, 30 * 1e-3);
  EXPECT_DOUBLE_EQ(ring.seconds_per_byte, 2 * 15.0 / 16 / 1e9);
  // One host, or one member a host: the one-link formulas.
  for (const auto& [algorithm, name] : EnumNames<AllreduceAlgorithm>::values) {
    EXPECT_DOUBLE_EQ(allreduce_price(algorithm, 16, 16, fast, slow).seconds(1e6),
                     allreduce_price(algorithm, 16, fast).seconds(1e6));
    EXPECT_DOUBLE_EQ(allreduce_price(algorithm, 16, 1, fast, slow).seconds(1e6),
                     allreduce_price(algorithm, 16, slow).seconds(1e6));
  }
  // A cluster prices its levels so: kavg on 16 learners (4 hosts) by halving and doubling, and
  // `dsgd list clusters --allreduce` prints the same seconds.
  const fs::path file = write_table("cluster_levels", std::string(kTable) + R"(
[clusters.halving-hosts-of-4]
workers_per_host = 4
intra = "fast"
inter = "slow"
device = "card"
allreduce = "halving-doubling"
source = "test"
)");
  const ClusterTable table = load_cluster_table(file.string());
  const double unit = 0.064 / 128;
  const ClusterCosts costs = price_on_cluster(table, "halving-hosts-of-4", resnet_shape(16));
  EXPECT_DOUBLE_EQ(costs.global_alpha, halving.latency_seconds / unit);
  EXPECT_DOUBLE_EQ(costs.global_beta, halving.seconds_per_byte / (2.0 * 15 / 16) / unit);
  const std::string listed = describe_allreduce_prices(table, 16, 0, 1e6);
  EXPECT_NE(listed.find(fmt::format("{:>17.9g}*", halving.seconds(1e6))), std::string::npos)
      << listed;
  fs::remove_all(file.parent_path());
  // From the command line; groups that do not divide the workers are refused.
  const CliResult prices = run_dsgd("list clusters --allreduce 16/4 --bytes 1078888");
  ASSERT_EQ(prices.exit_code, 0) << prices.output;
  EXPECT_NE(prices.output.find("groups of 4 out of 16"), std::string::npos) << prices.output;
  EXPECT_NE(prices.output.find("nvlink8-10g"), std::string::npos) << prices.output;
  const CliResult uneven = run_dsgd("list clusters --allreduce 16/3 --bytes 4");
  EXPECT_EQ(uneven.exit_code, 2) << uneven.output;
  EXPECT_NE(uneven.output.find("expected WORKERS or WORKERS/GROUP with GROUP dividing WORKERS"),
            std::string::npos)
      << uneven.output;
}

// Hosts whose size is not a power of two, groups that straddle hosts, and groups that share a
// host's uplink, each priced as its messages fall, written out by hand (1 us and 1e11 B/s inside a
// host, 1 ms and 1e9 B/s between):
// - a tree of 12 on hosts of 6: the levels 1 and 4 apart stay inside a host (0..5, 6..11), the
//   levels 2 apart (6 sends to 4) and 8 apart (8 to 0) cross, one message through each uplink;
// - halving-doubling on 12 in hosts of 4: 0, 2, 4, 6 hand their vector to 1, 3, 5, 7 (inside a
//   host); the core 1, 3, 5, 7, 8, 9, 10, 11 exchanges with partners 1 apart (1-3, 5-7, 8-9,
//   10-11: inside), 2 apart (1-5, 3-7 cross, two through each of the first hosts' uplinks) and 4
//   apart (1-8, 3-9, 5-10, 7-11: four through the third host's uplink);
// - rings of 3 among 12 on hosts of 4: the second host's uplink carries the group 3..5's hop back
//   (5 to 3) and the group 6..8's hop out (7 to 8) at once;
// - a tree of 4 among 12 on hosts of 6: the group 4..7 straddles two hosts and only its top level
//   (6 to 4) crosses.
// Before, each was priced as if every member had a host of its own or as if partners 2^k apart
// crossed only from 2^k >= workers_per_host on.
TEST(Cluster, PricesHostsGroupsAndUplinksAsTheMessagesFall) {
  const LinkTerms fast{1e-6, 1e11, 0}, slow{1e-3, 1e9, 0};
  const AllreducePrice tree = allreduce_price(AllreduceAlgorithm::kTree, 12, 6, fast, slow);
  EXPECT_DOUBLE_EQ(tree.latency_seconds, 2 * (2 * 1e-6 + 2 * 1e-3));
  EXPECT_DOUBLE_EQ(tree.seconds_per_byte, 2 * (2 / 1e11 + 2 / 1e9));
  const AllreducePrice halving =
      allreduce_price(AllreduceAlgorithm::kHalvingDoubling, 12, 4, fast, slow);
  EXPECT_DOUBLE_EQ(halving.latency_seconds, 2 * 1e-6 + 2 * 1e-6 + 2 * 1e-3 + 2 * 1e-3);
  EXPECT_DOUBLE_EQ(halving.seconds_per_byte,
                   2 / 1e11 + 2 * 0.5 / 1e11 + 2 * 0.25 * 2 / 1e9 + 2 * 0.125 * 4 / 1e9);
  const AllreducePrice rings = allreduce_price(AllreduceAlgorithm::kRing, 3, 4, fast, slow, 4);
  EXPECT_DOUBLE_EQ(rings.latency_seconds, 4 * 1e-3);
  EXPECT_DOUBLE_EQ(rings.seconds_per_byte, 4.0 / 3 * 2 / 1e9);
  const AllreducePrice straddling = allreduce_price(AllreduceAlgorithm::kTree, 4, 6, fast, slow, 3);
  EXPECT_DOUBLE_EQ(straddling.latency_seconds, 2 * 1e-6 + 2 * 1e-3);
  EXPECT_DOUBLE_EQ(straddling.seconds_per_byte, 2 / 1e11 + 2 / 1e9);
  // A cluster's level is priced with all its groups at once: groups of 3 of 12 on hosts of 4.
  const fs::path file = write_table("cluster_uneven", kTable);
  const ClusterTable table = load_cluster_table(file.string());
  const AllreducePrice level =
      cluster_allreduce(table, table.cluster("hosts-of-4"), 3, 12, AllreduceAlgorithm::kRing);
  EXPECT_DOUBLE_EQ(level.seconds(1e6), rings.seconds(1e6));
  // `dsgd list clusters` prices a table of one's own the same way, and lists it.
  const CliResult listed =
      run_dsgd("list clusters --allreduce 12/3 --bytes 1000000 --cluster-file " + file.string());
  ASSERT_EQ(listed.exit_code, 0) << listed.output;
  const std::string row = listed.output.substr(listed.output.find("hosts-of-4"));
  EXPECT_NE(row.find(fmt::format("{:>17.9g}*", rings.seconds(1e6))), std::string::npos) << row;
  EXPECT_NE(run_dsgd("list clusters --cluster-file " + file.string()).output.find("hosts-of-4"),
            std::string::npos);
  const CliResult misplaced = run_dsgd("list models --cluster-file " + file.string());
  EXPECT_EQ(misplaced.exit_code, 2) << misplaced.output;
  EXPECT_NE(misplaced.output.find("--cluster-file adds clusters to `dsgd list clusters`"),
            std::string::npos)
      << misplaced.output;
  fs::remove_all(file.parent_path());
}

// Ranks sharing one host's cores, as MPI's do: each rank computes on cores / ranks threads, and
// workers beyond the cores take turns; a server shard waits without taking one.
TEST(Cluster, RanksSharingCoresStretchTheStepByTheirTurns) {
  const ClusterTable table = load_cluster_table();
  const ClusterProfile& here = table.cluster("this-machine");
  ASSERT_TRUE(here.ranks_share_cores);
  RunShape shape = resnet_shape(2);
  shape.cores = 2;
  CoreShare share = core_share(here, shape);  // two learners, a core each
  EXPECT_EQ(share.threads, 1);
  EXPECT_DOUBLE_EQ(share.stretch, 1.0);
  shape.workers = 1;  // one learner on both cores
  EXPECT_EQ(core_share(here, shape).threads, 2);
  EXPECT_DOUBLE_EQ(core_share(here, shape).stretch, 1.0);
  shape.workers = 4;  // four learners on two cores: each step takes twice as long
  EXPECT_DOUBLE_EQ(core_share(here, shape).stretch, 2.0);
  shape.workers = 3;  // three async workers and a server: 4 ranks, the workers' turns 3/2
  shape.asynchronous = true;
  share = core_share(here, shape);
  EXPECT_EQ(share.ranks, 4);
  EXPECT_EQ(share.threads, 1);
  EXPECT_DOUBLE_EQ(share.stretch, 1.5);
  shape.measured_step_seconds = 0.3;
  const ClusterCosts costs = price_on_cluster(table, "this-machine", shape);
  EXPECT_DOUBLE_EQ(costs.step_seconds, 0.45);
  EXPECT_DOUBLE_EQ(costs.seconds_per_unit, 0.45 / 128);
  EXPECT_DOUBLE_EQ(costs.core_sharing, 1.5);  // timing.core_sharing of a synchronous run
  // A cluster whose device is not measured here cannot share this machine's cores.
  const fs::path file = write_table("cluster_shared_device", std::string(kTable) + R"(
[clusters.shared-card]
workers_per_host = 4
intra = "fast"
inter = "slow"
device = "card"
ranks_share_cores = true
source = "test"
)");
  try {
    load_cluster_table(file.string());
    ADD_FAILURE() << "a shared-core cluster with a device profile was accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("ranks_share_cores needs device = \"measured\""),
              std::string::npos)
        << e.what();
  }
  fs::remove_all(file.parent_path());
}

TEST(Cluster, BadTablesAndNamesAreRefusedNamingThem) {
  auto error_of = [](const std::function<void()>& f) {
    try {
      f();
    } catch (const ConfigError& e) {
      return std::string(e.what()) + " | " + e.hint();
    }
    return std::string("(no error)");
  };
  const ClusterTable builtin = load_cluster_table();
  const std::string unknown = error_of([&] { builtin.cluster("nvlink8-hrd"); });
  EXPECT_NE(unknown.find("unknown cluster 'nvlink8-hrd'"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("nvlink8-hdr"), std::string::npos) << unknown;
  const fs::path bad_link =
      write_table("cluster_bad_link",
                  "[clusters.x]\nworkers_per_host = 2\nintra = \"fast\"\ninter = \"ethernet-10g\"\n"
                  "device = \"measured\"\nsource = \"t\"\n");
  const std::string link = error_of([&] { load_cluster_table(bad_link.string()); });
  EXPECT_NE(link.find("cluster 'x': unknown link 'fast'"), std::string::npos) << link;
  const fs::path no_bandwidth =
      write_table("cluster_no_bw", "[links.y]\nlatency = 1e-6\nsource = \"t\"\n");
  const std::string bandwidth = error_of([&] { load_cluster_table(no_bandwidth.string()); });
  EXPECT_NE(bandwidth.find("links.y: bandwidth must be a number"), std::string::npos) << bandwidth;
  // A device without the run's step says which it has.
  const fs::path file = write_table("cluster_no_step", kTable);
  const ClusterTable table = load_cluster_table(file.string());
  RunShape other = resnet_shape(8);
  other.format = "contiguous fp32";
  const std::string step = error_of([&] { price_on_cluster(table, "hosts-of-4", other); });
  EXPECT_NE(step.find("no step time for \"resnet20 128 contiguous fp32\""), std::string::npos)
      << step;
  EXPECT_NE(step.find("\"resnet20 128 channels-last bf16\""), std::string::npos) << step;
  for (const fs::path& f : {bad_link, no_bandwidth, file}) fs::remove_all(f.parent_path());
}

// A step derived from measured ones (a device's [derived] table) prices as a measured one does, and
// says so wherever it prices: in `dsgd list clusters` with its rule, and in the run's log line.
TEST(Cluster, DerivedStepsSayTheyAreDerived) {
  const std::string derived = kTable + R"(
[devices.card.derived]
rule = "the batch-128 step x B / 128"
[devices.card.derived.step]
"resnet20 256 channels-last bf16" = 0.128
)";
  const fs::path file = write_table("cluster_derived", derived);
  const ClusterTable table = load_cluster_table(file.string());
  const DeviceProfile& card = table.device("card");
  EXPECT_EQ(card.derived, (std::set<std::string>{"resnet20 256 channels-last bf16"}));
  const std::string listed = describe_cluster_table(table);
  EXPECT_NE(listed.find("0.128 s  derived, not measured"), std::string::npos) << listed;
  EXPECT_NE(listed.find("derived: the batch-128 step x B / 128"), std::string::npos) << listed;
  RunShape measured = resnet_shape(8), big = resnet_shape(8);
  big.batch_size = 256;
  const ClusterCosts from_measured = price_on_cluster(table, "hosts-of-4", measured);
  const ClusterCosts from_derived = price_on_cluster(table, "hosts-of-4", big);
  EXPECT_DOUBLE_EQ(from_derived.seconds_per_unit, 0.128 / 256);
  EXPECT_EQ(from_measured.explanation.find("derived"), std::string::npos);
  EXPECT_NE(from_derived.explanation.find("derived, not measured"), std::string::npos)
      << from_derived.explanation;
  // The built-in GPUs' steps for the campaigns' model are derived until a GPU measures them.
  const ClusterTable builtin = load_cluster_table();
  EXPECT_EQ(builtin.device("h200").derived.count("resnet20-proj 256 contiguous fp32"), 1u);
  EXPECT_EQ(builtin.device("h200").derived.count("resnet20 128 contiguous fp32"), 0u);
  // A report priced on such a device says so under its title, for --device or a cluster's own.
  ReportOptions options;
  options.cluster_file = file.string();
  EXPECT_EQ(report_internal::derived_steps_note(options), "");  // no cluster: no prices
  options.clusters = {"hosts-of-4"};
  const std::string note = report_internal::derived_steps_note(options);
  EXPECT_NE(note.find("Priced on card, whose steps for resnet20 256 channels-last bf16 are "
                      "derived, not measured (the batch-128 step x B / 128)"),
            std::string::npos)
      << note;
  options.device = "h200";
  EXPECT_NE(report_internal::derived_steps_note(options).find("Priced on h200"), std::string::npos);

  for (const auto& [text, says] : std::vector<std::pair<std::string, std::string>>{
           {kTable + "[devices.card.derived.step]\n\"resnet20 64 contiguous fp32\" = 0.03\n",
            "rule must be a string"},
           {kTable + "[devices.card.derived]\nrule = \"r\"\n", "derived must be a table"},
           {kTable + "[devices.card.derived]\nrule = \"r\"\n[devices.card.derived.step]\n"
                     "\"resnet20 128 channels-last bf16\" = 0.06\n",
            "is measured too"}}) {
    const fs::path bad = write_table("cluster_bad_derived", text);
    try {
      load_cluster_table(bad.string());
      ADD_FAILURE() << "accepted:\n" << text;
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
    fs::remove_all(bad.parent_path());
  }
  fs::remove_all(file.parent_path());
}

// A run's own `allreduce` prices in place of the cluster's: ssgd on 16 learners, two hosts of 8 of
// nvlink8-10g (which reduces by ring), priced by halving-doubling, each step on its links; the
// same key on the simulator without a cluster prices nothing and is refused.
TEST(ClusterCli, ARunsOwnAllreduceIsWhatTheClusterPrices) {
  const std::string job =
      "run --set dataset=synthetic --set model=mlp --set batch_size=16 --set epochs=0.25 "
      "--set eval_every=0.25 --set algo=ssgd --set workers=16 --set allreduce=halving-doubling";
  const fs::path dir = fresh_dir("cluster_allreduce");
  const CliResult made = run_dsgd(job + " --set cluster=nvlink8-10g --out " + dir.string());
  ASSERT_EQ(made.exit_code, 0) << made.output;
  EXPECT_NE(made.output.find("global halving-doubling all-reduce"), std::string::npos)
      << made.output;
  const RunConfig priced = load_config((dir / "config.toml").string(), {});
  const ClusterTable table = load_cluster_table();
  auto terms = [&](const std::string& name) {
    const LinkProfile& link = table.link(name);
    return LinkTerms{link.latency, link.bandwidth, link.reduce_bandwidth};
  };
  const AllreducePrice halving = allreduce_price(AllreduceAlgorithm::kHalvingDoubling, 16, 8,
                                                 terms("nvlink3-a100"), terms("ethernet-10g"));
  EXPECT_DOUBLE_EQ(priced.comm_global_alpha * priced.seconds_per_unit, halving.latency_seconds);
  EXPECT_DOUBLE_EQ(priced.comm_global_beta * priced.seconds_per_unit,
                   halving.seconds_per_byte / (2.0 * 15 / 16));
  fs::remove_all(dir);
  const CliResult refused = run_dsgd(job + " --out " + dir.string());
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_NE(refused.output.find("prices a cluster's all-reduce, but no cluster is set"),
            std::string::npos)
      << refused.output;
  EXPECT_FALSE(fs::exists(dir / "metrics.csv"));
}

// Every number of a cluster file is finite and in range, or the run stops with exit 2 naming the
// file, the entry and the key before its folder exists (TOML reads nan and inf as numbers).
TEST(ClusterCli, NonFiniteNumbersInAClusterFileAreRefusedBeforeTheRunStarts) {
  const std::string job =
      "run --set dataset=synthetic --set model=mlp --set batch_size=16 --set epochs=0.25 "
      "--set algo=ssgd --set workers=8 --set cluster=tiny-hosts ";
  const std::string tiny_hosts = kTestLinks + std::string(kTinyHosts);
  const std::pair<std::string, std::string> cases[] = {
      {"latency = 1e-6", "latency = nan"},
      {"bandwidth = 1e9", "bandwidth = inf"},
      {"\"mlp 16 contiguous fp32\" = 0.004", "\"mlp 16 contiguous fp32\" = nan"},
  };
  for (const auto& [good, bad] : cases) {
    SCOPED_TRACE(bad);
    std::string text = tiny_hosts;
    const size_t at = text.find(good);
    ASSERT_NE(at, std::string::npos) << good;
    text.replace(at, good.size(), bad);
    const fs::path file = write_table("cluster_nan", text);
    const fs::path out = fresh_dir("cluster_nan_run");
    const CliResult r =
        run_dsgd(job + "--set cluster_file=" + file.string() + " --out " + out.string());
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find(file.string()), std::string::npos) << r.output;
    const std::string key = bad.substr(0, bad.find(" ="));
    EXPECT_NE(r.output.find(key), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("must be a finite number"), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(out));
    fs::remove_all(file.parent_path());
  }
}

// A synchronous run on a named cluster: its config.toml holds the prices, its metrics a seconds
// column that is sim_time x seconds_per_unit row by row, its summary the seconds; `dsgd list
// clusters` names it with its source; comm.* beside a cluster is refused; resuming keeps the
// prices the run started with.
TEST(ClusterCli, ARunOnAClusterCountsSeconds) {
  const std::string job =
      "run --set dataset=synthetic --set model=mlp --set batch_size=16 --set epochs=0.5 "
      "--set eval_every=0.25 --set algo=hier-avg --set workers=8 --set hier.group_size=4 "
      "--set hier.local_period=2 --set hier.global_period=4 --set cluster=nvlink8-10g";
  const fs::path dir = fresh_dir("cluster_run");
  run_ok(job, dir);
  const RunConfig priced = load_config((dir / "config.toml").string(), {});
  EXPECT_EQ(priced.cluster, "nvlink8-10g");
  ASSERT_GT(priced.seconds_per_unit, 0.0);
  // Groups of 4 inside a host of 8 on NVLink 3, the 8 learners' ring inside it too.
  EXPECT_DOUBLE_EQ(priced.comm_group_beta * priced.seconds_per_unit, 1.0 / 300e9);
  EXPECT_DOUBLE_EQ(priced.comm_global_alpha * priced.seconds_per_unit, 14 * 2e-6);
  const auto rows = read_csv(dir / "metrics.csv");
  const auto& header = rows.front();
  const size_t sim = std::find(header.begin(), header.end(), "sim_time") - header.begin();
  const size_t seconds = std::find(header.begin(), header.end(), "seconds") - header.begin();
  ASSERT_LT(seconds, header.size());
  ASSERT_GE(rows.size(), 3u);
  // The clock's columns keep every digit.
  for (size_t r = 1; r < rows.size(); ++r) {
    EXPECT_NEAR(std::stod(rows[r][seconds]), std::stod(rows[r][sim]) * priced.seconds_per_unit,
                1e-14 * std::stod(rows[r][seconds]));
  }
  const nlohmann::json summary = nlohmann::json::parse(read_file(dir / "summary.json"));
  EXPECT_NEAR(summary.at("seconds").get<double>(),
              summary.at("sim_time").get<double>() * priced.seconds_per_unit, 1e-12);

  // The report shows the time on the cluster.
  CliResult report = run_dsgd("report " + dir.string() + " --no-plots");
  ASSERT_EQ(report.exit_code, 0) << report.output;
  EXPECT_NE(read_file(dir / "report.md").find("time on the cluster"), std::string::npos);
  fs::remove(dir / "report.md");
  fs::remove(dir / "report.csv");

  // Resuming (as a sweep does, with the point's keys again) keeps the prices recorded.
  const RunConfig resumed =
      resume_config(dir.string(), {"cluster=nvlink8-10g", "epochs=1", "hier.group_size=4"});
  EXPECT_EQ(resumed.seconds_per_unit, priced.seconds_per_unit);
  EXPECT_EQ(resumed.comm_global_beta, priced.comm_global_beta);
  RunConfig asked = load_config("", {"cluster=nvlink8-10g"});
  keep_resolved_choices(priced, asked);
  EXPECT_EQ(asked.comm_group_alpha, priced.comm_group_alpha);

  // Bad settings: exit 2, and the message says what is wrong.
  for (const auto& [arguments, says] : std::vector<std::pair<std::string, std::string>>{
           {job + " --set comm.global_beta=1e-3", "comm.global_beta is set beside cluster"},
           {job + " --set timing.core_sharing=2", "timing.core_sharing is set beside cluster"},
           {"run --set cluster_device=xeon-amx-2core", "without a cluster"},
           {"run --set cluster=flat-25g --engine mpi", "already counts the seconds"},
           {"run --set cluster=nvlink-10g", "nvlink8-10g"}}) {
    CliResult refused = run_dsgd(arguments);
    EXPECT_EQ(refused.exit_code, 2) << arguments << "\n" << refused.output;
    EXPECT_NE(refused.output.find(says), std::string::npos) << arguments << "\n" << refused.output;
  }
  CliResult listed = run_dsgd("list clusters");
  EXPECT_EQ(listed.exit_code, 0) << listed.output;
  EXPECT_NE(listed.output.find("cloud-1gpu-10g"), std::string::npos) << listed.output;
  EXPECT_NE(listed.output.find("IEEE 802.3ae"), std::string::npos) << listed.output;
  fs::remove_all(dir);
}

// A run on a cluster predicts its wall time: the training clock's seconds plus the seconds its
// evaluations and checkpoints took here, priced on the device at its step over the run's own
// (timing.overhead_scale, recorded so that a resume keeps it).
TEST(ClusterCli, EvaluationsAndCheckpointsArePricedIntoThePredictedWall) {
  const fs::path table = write_table("cluster_wall", std::string(kTable) + kTinyHosts);
  const fs::path dir = fresh_dir("cluster_wall_run");
  run_ok(
      "run --set dataset=synthetic --set model=mlp --set batch_size=16 --set epochs=1 "
      "--set eval_every=0.25 --set algo=ssgd --set workers=4 --set cluster=tiny-hosts "
      "--set cluster_file=" +
          table.string(),
      dir);
  const RunConfig priced = load_config((dir / "config.toml").string(), {});
  const nlohmann::json summary = nlohmann::json::parse(read_file(dir / "summary.json"));
  const double own_step = summary.at("compute").at("step_seconds").get<double>();
  ASSERT_GT(own_step, 0.0);
  EXPECT_NEAR(priced.timing_overhead_scale, 0.004 / own_step, 1e-9 * priced.timing_overhead_scale);
  const auto rows = read_csv(dir / "metrics.csv");
  const auto& header = rows.front();
  auto column = [&](const char* name) {
    return static_cast<size_t>(std::find(header.begin(), header.end(), name) - header.begin());
  };
  ASSERT_LT(column("predicted_wall"), header.size());
  ASSERT_EQ(rows.size(), 5u);  // the header and four evaluations
  double overhead_before = 0.0;
  for (size_t r = 1; r < rows.size(); ++r) {
    const double overhead =
        std::stod(rows[r][column("predicted_wall")]) - std::stod(rows[r][column("seconds")]);
    // Each evaluation adds its own time (and the previous one's checkpoint): never nothing.
    EXPECT_GT(overhead, overhead_before) << "row " << r;
    overhead_before = overhead;
  }
  EXPECT_GT(summary.at("predicted_wall").get<double>() - summary.at("seconds").get<double>(),
            overhead_before);
  // The overhead priced is this machine's, scaled: never more than the run's whole wall time.
  EXPECT_LT(overhead_before / priced.timing_overhead_scale, summary.at("wall_time").get<double>());
  // The report shows it beside the clock's time; re-timed on another cluster it has none.
  CliResult report = run_dsgd("report " + dir.string() + " --no-plots");
  ASSERT_EQ(report.exit_code, 0) << report.output;
  EXPECT_NE(read_file(dir / "report.md").find("predicted wall time"), std::string::npos);
  report = run_dsgd("report " + dir.string() + " --no-plots --cluster flat-25g");
  ASSERT_EQ(report.exit_code, 0) << report.output;
  EXPECT_EQ(read_file(dir / "report.md").find("predicted wall time"), std::string::npos);
  // A run without a cluster predicts nothing.
  fs::remove_all(dir);
  run_ok(
      "run --set dataset=synthetic --set model=mlp --set batch_size=16 --set epochs=0.25 "
      "--set algo=ssgd --set workers=4",
      dir);
  EXPECT_EQ(read_file(dir / "metrics.csv").find("predicted_wall"), std::string::npos);
  CliResult refused = run_dsgd("run --set cluster=flat-25g --set timing.overhead_scale=2");
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_NE(refused.output.find("timing.overhead_scale is set beside cluster"), std::string::npos)
      << refused.output;
  fs::remove_all(dir);
  fs::remove_all(table.parent_path());
}

// The clock alone (`dsgd estimate`, run/clock_only.h) is the run's own clock: a synchronous and an
// asynchronous run made on a cluster read at every epoch's end the simulated time and the seconds
// their estimate gives there, with no gradient computed; the CLI prints the whole run's seconds.
TEST(ClusterCli, AnEstimateIsTheRunsOwnClock) {
  const fs::path table = write_table("cluster_estimate", std::string(kTable) + kTinyHosts);
  const std::vector<std::string> common = {"dataset=synthetic",  "model=mlp",
                                           "batch_size=16",      "epochs=3",
                                           "eval_every=1",       "timing.shape=4",
                                           "cluster=tiny-hosts", "cluster_file=" + table.string()};
  const std::vector<std::vector<std::string>> runs = {
      {"algo=hier-avg", "workers=8", "hier.group_size=4", "hier.local_period=2",
       "hier.global_period=4"},
      {"algo=dana-slim", "workers=4"}};
  for (const auto& own : runs) {
    std::vector<std::string> keys = common;
    keys.insert(keys.end(), own.begin(), own.end());
    std::string sets;
    for (const std::string& key : keys) sets += " --set " + key;
    const fs::path dir = fresh_dir("estimate_run");
    run_ok("run" + sets, dir);

    const ClockEstimate estimate = estimate_clock(load_config("", keys));
    const auto rows = read_csv(dir / "metrics.csv");
    const auto& header = rows.front();
    auto column = [&](const char* name) {
      return static_cast<size_t>(std::find(header.begin(), header.end(), name) - header.begin());
    };
    ASSERT_EQ(estimate.sim_time.size(), 3u) << own.front();
    ASSERT_EQ(rows.size(), 4u) << own.front();  // the header and epochs 1, 2, 3
    for (size_t e = 0; e < 3; ++e) {
      EXPECT_EQ(estimate.epoch_ends[e], std::stod(rows[e + 1][column("epoch")]));
      EXPECT_DOUBLE_EQ(estimate.sim_time[e], std::stod(rows[e + 1][column("sim_time")]))
          << own.front() << " epoch " << e + 1;
      EXPECT_DOUBLE_EQ(estimate.sim_time[e] * estimate.seconds_per_unit,
                       std::stod(rows[e + 1][column("seconds")]))
          << own.front() << " epoch " << e + 1;
    }
    const double seconds =
        nlohmann::json::parse(read_file(dir / "summary.json")).at("seconds").get<double>();
    CliResult printed = run_dsgd("estimate" + sets);
    ASSERT_EQ(printed.exit_code, 0) << printed.output;
    EXPECT_NE(printed.output.find(fmt::format("({:.6g} s;", seconds)), std::string::npos)
        << printed.output;
    fs::remove_all(dir);
  }
  CliResult refused = run_dsgd("estimate --set workers=0");
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  fs::remove_all(table.parent_path());
}

// A short Hier-AVG run of 8 learners in groups of 4 whose Gamma draws spread (shape 4), so that
// its clocks differ between clusters and between clock models.
const char* const kHierRun =
    "run --set dataset=synthetic --set model=mlp --set batch_size=16 --set epochs=0.5 "
    "--set eval_every=0.25 --set algo=hier-avg --set workers=8 --set hier.group_size=4 "
    "--set hier.local_period=2 --set hier.global_period=4 --set timing.shape=4";

// A synchronous run's trajectory does not depend on its clock: made without a cluster and
// re-timed on one by the report, it takes the seconds the same run made with that cluster set
// took, to rounding; so with a device named in place of the cluster's. An asynchronous run is
// refused, with the command that reruns it, unless it was made on that cluster.
TEST(ClusterCli, ASyncRunReTimedIsTheRunMadeOnTheCluster) {
  const fs::path table = write_table("cluster_retime", std::string(kTable) + kTinyHosts);
  const std::string job = kHierRun;
  const std::string file = " --set cluster_file=" + table.string();
  const fs::path priced = fresh_dir("retime_priced"), plain = fresh_dir("retime_plain");
  run_ok(job + " --set cluster=tiny-hosts" + file, priced);
  run_ok(job, plain);
  const nlohmann::json made = nlohmann::json::parse(read_file(priced / "summary.json"));
  const nlohmann::json other = nlohmann::json::parse(read_file(plain / "summary.json"));
  EXPECT_EQ(made.at("final_test_acc"), other.at("final_test_acc"));  // one trajectory
  EXPECT_NE(made.at("sim_time"), other.at("sim_time"));              // two clocks

  const fs::path out = plain.parent_path() / "retime_report.md";
  CliResult r = run_dsgd("report " + plain.string() + " --no-plots --out " + out.string() +
                         " --cluster tiny-hosts --cluster-file " + table.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const double retimed = std::stod(csv_cell(plain.parent_path() / "retime_report.csv", "seconds"));
  const double seconds = made.at("seconds").get<double>();
  EXPECT_NEAR(retimed, seconds, 1e-12 * seconds);
  EXPECT_GT(seconds, 0.0);

  // flat-25g's links with the tiny device's step, as a run and as a re-timing.
  const fs::path on_device = fresh_dir("retime_on_device");
  run_ok(job + " --set cluster=flat-25g --set cluster_device=tiny" + file, on_device);
  const nlohmann::json made_on_device =
      nlohmann::json::parse(read_file(on_device / "summary.json"));
  EXPECT_EQ(made_on_device.at("cluster_device"), "tiny");
  r = run_dsgd("report " + plain.string() + " --no-plots --out " + out.string() +
               " --cluster flat-25g --device tiny --cluster-file " + table.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const double on_tiny = made_on_device.at("seconds").get<double>();
  EXPECT_NEAR(std::stod(csv_cell(plain.parent_path() / "retime_report.csv", "seconds")), on_tiny,
              1e-12 * on_tiny);
  EXPECT_NE(on_tiny, seconds);
  // Both clusters in one report: the tables keep the first's clock, a section sets each
  // cluster's whole run side by side, as each run made on it counted it.
  r = run_dsgd("report " + plain.string() + " --no-plots --out " + out.string() +
               " --cluster tiny-hosts --cluster flat-25g --device tiny --cluster-file " +
               table.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string both = read_file(out);
  EXPECT_NE(both.find("## On each cluster"), std::string::npos) << both;
  EXPECT_NE(both.find("| whole run on tiny-hosts | whole run on flat-25g |"), std::string::npos)
      << both;
  EXPECT_NE(both.find(format_duration(seconds) + " | " + format_duration(on_tiny) + " |"),
            std::string::npos)
      << both;
  // A cluster whose step is timed at each rank's share of the cores cannot be re-timed from
  // what a run recorded.
  r = run_dsgd("report " + plain.string() + " --no-plots --out " + out.string() +
               " --cluster this-machine");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("shares a host's cores"), std::string::npos) << r.output;

  const fs::path async = fresh_dir("retime_async");
  run_ok(
      "run --set dataset=synthetic --set model=mlp --set batch_size=16 --set epochs=0.25 "
      "--set algo=dana-slim --set workers=4",
      async);
  CliResult refused = run_dsgd("report " + async.string() + " --no-plots --cluster flat-25g");
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_NE(refused.output.find("is asynchronous"), std::string::npos) << refused.output;
  EXPECT_NE(refused.output.find("--set cluster=flat-25g"), std::string::npos) << refused.output;
  // Made on the cluster, it keeps the seconds its own clock counted.
  const fs::path async_priced = fresh_dir("retime_async_priced");
  run_ok(
      "run --set dataset=synthetic --set model=mlp --set batch_size=16 --set epochs=0.25 "
      "--set algo=dana-slim --set workers=4 --set cluster=flat-25g",
      async_priced);
  r = run_dsgd("report " + async_priced.string() + " --no-plots --out " + out.string() +
               " --cluster flat-25g");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const double async_seconds =
      nlohmann::json::parse(read_file(async_priced / "summary.json")).at("seconds").get<double>();
  EXPECT_NEAR(std::stod(csv_cell(async_priced.parent_path() / "retime_report.csv", "seconds")),
              async_seconds, 1e-12 * async_seconds);
  for (const fs::path& p : {priced, plain, async, async_priced, on_device, table.parent_path()}) {
    fs::remove_all(p);
  }
  fs::remove(out);
  fs::remove(plain.parent_path() / "retime_report.csv");
}

// A run whose compute format "auto" chose on its machine is priced on a named device in the
// device's fastest listed format that keeps the part the run's config named (as auto would choose
// there), made on the cluster or re-timed: runs that chose differently on different machines so
// compare. An explicit format keeps its own step. Runs recorded before the parts were (no
// compute.auto) had both left to auto.
TEST(ClusterCli, AFormatAutoChosePricesTheDevicesFastest) {
  const fs::path table = write_table("cluster_auto_format", std::string(kTable) + R"(
[devices.formats]
source = "test"
[devices.formats.step]
"mlp 16 contiguous fp32" = 0.004
"mlp 16 contiguous bf16" = 0.001
"mlp 16 channels-last bf16" = 0.0005
[clusters.format-hosts]
workers_per_host = 4
intra = "fast"
inter = "slow"
device = "formats"
source = "test"
)");
  const std::string on_cluster = " --set cluster=format-hosts --set cluster_file=" + table.string();
  const auto seconds_of = [](const fs::path& run) {
    return nlohmann::json::parse(read_file(run / "summary.json")).at("seconds").get<double>();
  };
  // The clock's units and the links' seconds do not depend on the format: the runs' seconds
  // differ only by their step.
  const fs::path made_auto = fresh_dir("auto_format_made"), made_bf16 = fresh_dir("bf16_made"),
                 made_fp32 = fresh_dir("fp32_made"), plain = fresh_dir("auto_format_plain");
  const std::string job = kHierRun;
  run_ok(job + " --set precision=auto" + on_cluster, made_auto);
  run_ok(job + " --set precision=bf16" + on_cluster, made_bf16);
  run_ok(job + on_cluster, made_fp32);
  const double auto_seconds = seconds_of(made_auto);
  EXPECT_NEAR(auto_seconds, seconds_of(made_bf16), 1e-12 * auto_seconds);
  EXPECT_LT(auto_seconds, seconds_of(made_fp32));

  run_ok(job + " --set precision=auto", plain);
  const fs::path out = plain.parent_path() / "auto_format_report.md";
  const fs::path csv = plain.parent_path() / "auto_format_report.csv";
  const std::string report = "report " + plain.string() + " --no-plots --out " + out.string() +
                             " --cluster format-hosts --cluster-file " + table.string();
  CliResult r = run_dsgd(report);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NEAR(std::stod(csv_cell(csv, "seconds")), auto_seconds, 1e-12 * auto_seconds);

  // Without compute.auto, "chosen_by": "auto" reads as both parts: channels-last bf16's step.
  nlohmann::json summary = nlohmann::json::parse(read_file(plain / "summary.json"));
  ASSERT_EQ(summary["compute"]["auto"], nlohmann::json::array({"precision"}));
  summary["compute"].erase("auto");
  std::ofstream(plain / "summary.json") << summary.dump(2);
  r = run_dsgd(report);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // seconds = units x step / batch + the links' seconds, units and links the same in every run.
  const double links = auto_seconds - (seconds_of(made_fp32) - auto_seconds) / 3.0;
  EXPECT_NEAR(std::stod(csv_cell(csv, "seconds")) - links, 0.5 * (auto_seconds - links),
              1e-9 * auto_seconds);
  for (const fs::path& p : {made_auto, made_bf16, made_fp32, plain, table.parent_path()}) {
    fs::remove_all(p);
  }
  fs::remove(out);
  fs::remove(csv);
}

// A resumed run times its step again in each piece, on whatever machine and beside whatever load
// the piece lands (a campaign's restart once timed 7.08 s for a 0.08 s step): re-timed on a
// cluster whose device is "measured", it is priced at the step it timed when it started, as a run
// made on the cluster keeps the seconds its first start priced, and the Runs table shows that
// step. The last piece's step moves nothing.
TEST(ClusterCli, AResumedRunIsPricedAtTheStepItTimedWhenItStarted) {
  const fs::path run = fresh_dir("retime_resumed");
  run_ok(kHierRun, run);
  CliResult r = run_dsgd("run --resume " + run.string() + " --set epochs=0.75");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const nlohmann::json summary = nlohmann::json::parse(read_file(run / "summary.json"));
  ASSERT_EQ(summary.at("compute_history").size(), 1u) << summary.dump(2);
  const fs::path out = run.parent_path() / "retime_resumed.md";
  const fs::path csv = run.parent_path() / "retime_resumed.csv";
  // The run's seconds on flat-25g (device "measured") with its first and last pieces' steps set.
  const auto seconds_with = [&](double first_step, double last_step) {
    nlohmann::json edited = summary;
    edited["compute_history"][0]["step_seconds"] = first_step;
    edited["compute"]["step_seconds"] = last_step;
    std::ofstream(run / "summary.json") << edited.dump(2);
    const CliResult report = run_dsgd("report " + run.string() + " --no-plots --out " +
                                      out.string() + " --cluster flat-25g");
    EXPECT_EQ(report.exit_code, 0) << report.output;
    return std::stod(csv_cell(csv, "seconds"));
  };
  const double at_first = seconds_with(0.01, 7.08);
  EXPECT_NE(read_file(out).find("| 0.010 s |"), std::string::npos) << read_file(out);
  const double twice = seconds_with(0.02, 7.08);
  EXPECT_GT(twice, at_first);
  // Linear in the first piece's step (seconds = units x step / batch + the links' seconds).
  EXPECT_NEAR(seconds_with(0.03, 7.08) - twice, twice - at_first, 1e-9 * twice);
  EXPECT_DOUBLE_EQ(seconds_with(0.02, 0.5), twice);

  // A second piece in another format (a recorded bf16 that went on in fp32 on a CPU that only
  // emulates bf16): the Runs table names the first and from which epoch (0.5, where it resumed)
  // the other ran, and on which CPU.
  nlohmann::json pieces = summary;
  pieces["compute_history"][0]["precision"] = "bf16";
  pieces["compute"]["cpu"] = "AMD EPYC 7B13 (AVX2, no AVX-512)";
  std::ofstream(run / "summary.json") << pieces.dump(2);
  const std::string layout = summary.at("compute").at("memory_format").get<std::string>();
  ASSERT_EQ(summary.at("compute").at("precision"), "fp32");
  ASSERT_EQ(run_dsgd("report " + run.string() + " --no-plots --out " + out.string()).exit_code, 0);
  EXPECT_NE(read_file(out).find("| " + layout + ", bf16; " + layout +
                                ", fp32 from epoch 0.5 (AMD EPYC 7B13 (AVX2, no AVX-512)) |"),
            std::string::npos)
      << read_file(out);
  fs::remove_all(run);
  fs::remove(out);
  fs::remove(csv);
}

// A synchronous simulator run's clock is a function of its config (sync_clock.h): a report derives
// it, so a run whose metrics were recorded under another clock (every local step waiting for the
// slowest learner, before learners ran free between averages: here its clock columns scaled)
// reads as the run made now, in simulated time and, made on a cluster, in seconds; and so does
// its re-timing on a cluster.
TEST(ClusterCli, ARunRecordedUnderAnEarlierClockReadsAsMadeNow) {
  const fs::path table = write_table("cluster_reclock", std::string(kTable) + kTinyHosts);
  const std::string job = kHierRun;
  const fs::path priced = fresh_dir("reclock_priced"), plain = fresh_dir("reclock_plain");
  run_ok(job + " --set cluster=tiny-hosts --set cluster_file=" + table.string(), priced);
  run_ok(job, plain);
  auto rescale = [](const fs::path& metrics, const std::vector<std::string>& columns) {
    std::vector<std::vector<std::string>> rows = read_csv(metrics);
    std::ofstream out(metrics);
    for (size_t r = 0; r < rows.size(); ++r) {
      for (size_t c = 0; c < rows[r].size(); ++c) {
        const bool scaled =
            r > 0 && std::find(columns.begin(), columns.end(), rows[0][c]) != columns.end();
        out << (c ? "," : "")
            << (scaled ? fmt::format("{:.17g}", 1.25 * std::stod(rows[r][c])) : rows[r][c]);
      }
      out << "\n";
    }
  };
  rescale(plain / "metrics.csv", {"compute_time", "sim_time"});
  rescale(priced / "metrics.csv", {"compute_time", "sim_time", "seconds"});
  const auto summary_of = [](const fs::path& run) {
    return nlohmann::json::parse(read_file(run / "summary.json"));
  };
  const fs::path out = plain.parent_path() / "reclock_report.md";
  const fs::path csv = plain.parent_path() / "reclock_report.csv";
  CliResult r = run_dsgd("report " + plain.string() + " --no-plots --out " + out.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const double sim_time = summary_of(plain).at("sim_time").get<double>();
  EXPECT_NEAR(std::stod(csv_cell(csv, "sim_time")), sim_time, 1e-12 * sim_time);
  r = run_dsgd("report " + priced.string() + " --no-plots --out " + out.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const double seconds = summary_of(priced).at("seconds").get<double>();
  EXPECT_NEAR(std::stod(csv_cell(csv, "seconds")), seconds, 1e-12 * seconds);
  r = run_dsgd("report " + plain.string() + " --no-plots --out " + out.string() +
               " --cluster tiny-hosts --cluster-file " + table.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NEAR(std::stod(csv_cell(csv, "seconds")), seconds, 1e-12 * seconds);
  for (const fs::path& p : {priced, plain, table.parent_path()}) fs::remove_all(p);
  fs::remove(out);
  fs::remove(csv);
}

// With a cluster, a report's time-to-target ratio is taken in seconds on it: an asynchronous run
// made on the cluster and a synchronous one re-timed on it count their simulated time in
// different units (the first at the cluster's link prices, the second at its own link keys).
// Its figures draw time in seconds too, from the first finished run on; a run started and not
// evaluated yet is shown as such.
TEST(ClusterCli, ATimeRatioOnAClusterIsInSeconds) {
  const fs::path table = write_table("cluster_ratio", std::string(kTable) + kTinyHosts);
  const fs::path dir = table.parent_path();
  std::ofstream(dir / "ratio.sweep.toml") << "out = \"" << (dir / "runs").string() << R"("
dir = "{config}/seed{seed}"
seeds = [1]
[set]
dataset = "synthetic"
model = "mlp"
batch_size = 16
epochs = 1
eval_every = 0.25
lr = 0.01
threads = 1
cluster_file = ")" << table.string() << R"("
[[configs]]
name = "dana-slim n4"
algo = "dana-slim"
workers = 4
cluster = "tiny-hosts"
[[configs]]
name = "ssgd p4"
algo = "ssgd"
workers = 4
[report]
rows = "algo"
target = "ssgd"
)";
  // Before ssgd has started, the figures already count dana-slim's time in seconds on the
  // cluster: a run not started yet decides nothing.
  CliResult swept =
      run_dsgd("sweep " + (dir / "ratio.sweep.toml").string() + " --only dana-slim_n4/seed1");
  ASSERT_EQ(swept.exit_code, 0) << swept.output;
  if (testing::have_gnuplot()) {
    const CliResult drawn =
        run_dsgd("report " + (dir / "runs").string() + " --out " + (dir / "partial.md").string() +
                 " --cluster tiny-hosts --cluster-file " + table.string());
    ASSERT_EQ(drawn.exit_code, 0) << drawn.output;
    const std::string script = read_file(dir / "partial-plots" / "all.gp");
    EXPECT_NE(script.find("\"test accuracy against time on the cluster\""), std::string::npos)
        << script;
    EXPECT_NE(script.find("\"time on the cluster (seconds)\""), std::string::npos) << script;
    EXPECT_EQ(script.find("simulated time"), std::string::npos) << script;
    // That panel's last point is the run's last evaluation, at the seconds its metrics counted.
    const auto metrics = read_csv(dir / "runs" / "dana-slim_n4" / "seed1" / "metrics.csv");
    const size_t seconds_column =
        std::find(metrics.front().begin(), metrics.front().end(), "seconds") -
        metrics.front().begin();
    ASSERT_LT(seconds_column, metrics.front().size());
    const double last_seconds = std::stod(metrics.back()[seconds_column]);
    const std::string data = read_file(dir / "partial-plots" / "all.dat");
    const size_t against_time = data.find("# dana-slim\n", data.find("# dana-slim\n") + 1);
    ASSERT_NE(against_time, std::string::npos) << data;
    const std::string block =
        data.substr(against_time, data.find("\n\n", against_time) - against_time);
    const std::string last_point = block.substr(block.rfind('\n') + 1);
    EXPECT_NEAR(std::stod(last_point), last_seconds, 1e-6 * last_seconds) << block;
  }

  // ssgd started and killed at its first evaluation, as a machine lost then leaves it: a run
  // with no row yet, which the report on the cluster shows as such rather than refusing.
  ::setenv("DSGD_FAULT", "evaluation:SIGKILL", 1);
  swept = run_dsgd("sweep " + (dir / "ratio.sweep.toml").string() + " --only ssgd_p4/seed1");
  ::unsetenv("DSGD_FAULT");
  ASSERT_TRUE(fs::exists(dir / "runs" / "ssgd_p4" / "seed1" / "summary.json")) << swept.output;
  ASSERT_FALSE(fs::exists(dir / "runs" / "ssgd_p4" / "seed1" / "metrics.csv")) << swept.output;
  CliResult r = run_dsgd("report " + (dir / "runs").string() + " --no-plots --out " +
                         (dir / "started.md").string() + " --cluster tiny-hosts --cluster-file " +
                         table.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(read_file(dir / "started.md").find("no evaluation yet"), std::string::npos)
      << read_file(dir / "started.md");

  swept = run_dsgd("sweep " + (dir / "ratio.sweep.toml").string());
  ASSERT_EQ(swept.exit_code, 0) << swept.output;
  r = run_dsgd("report " + (dir / "runs").string() + " --no-plots --out " +
               (dir / "report.md").string() + " --cluster tiny-hosts --cluster-file " +
               table.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(read_file(dir / "report.md")
                .find("time to it / ssgd's (seconds on the cluster / "
                      "epochs)"),
            std::string::npos);
  const auto rows = read_csv(dir / "report.csv");
  auto cell = [&rows](const std::string& algo, const std::string& column) {
    const auto& header = rows.front();
    const size_t at = std::find(header.begin(), header.end(), column) - header.begin();
    const size_t key = std::find(header.begin(), header.end(), "algo") - header.begin();
    for (size_t i = 1; i < rows.size(); ++i) {
      if (at < header.size() && rows[i][key] == algo) return std::stod(rows[i][at]);
    }
    ADD_FAILURE() << algo << " " << column;
    return 0.0;
  };
  const double seconds_ratio = cell("dana-slim", "target_seconds") / cell("ssgd", "target_seconds");
  EXPECT_NEAR(cell("dana-slim", "target_seconds_ratio"), seconds_ratio, 1e-9 * seconds_ratio);
  EXPECT_DOUBLE_EQ(cell("ssgd", "target_seconds_ratio"), 1.0);
  const double clock_ratio = cell("dana-slim", "target_sim_time") / cell("ssgd", "target_sim_time");
  EXPECT_GT(std::abs(seconds_ratio - clock_ratio), 0.05 * seconds_ratio);
  fs::remove_all(dir);
}

// A run of three levels on a cluster: its middle level's price written into its hier.levels row
// (comm.group_* holds the first level's), kept when a sweep resumes it with the levels unpriced;
// the same run made without a cluster re-timed to its seconds; a level's own link cost beside
// the cluster refused.
TEST(ClusterCli, ADeeperHierarchyPricesEachLevel) {
  const fs::path table = write_table("cluster_levels", std::string(kTable) + kTinyHosts);
  const std::string job =
      "run --set dataset=synthetic --set model=mlp --set batch_size=16 --set epochs=0.5 "
      "--set eval_every=0.25 --set algo=hier-avg --set workers=16 --set timing.shape=4 "
      "--set 'hier.levels=[[2, 1], [8, 2], [16, 4]]' ";
  const std::string cluster = "--set cluster=tiny-hosts --set cluster_file=" + table.string();
  const fs::path priced = fresh_dir("levels_priced"), plain = fresh_dir("levels_plain");
  run_ok(job + cluster, priced);
  const RunConfig config = load_config((priced / "config.toml").string(), {});
  const OptionTable& rows = config.algo_options.table("hier.levels");
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].size(), 2u);
  ASSERT_EQ(rows[1].size(), 4u);
  EXPECT_EQ(rows[2].size(), 2u);
  // The unit: 0.004 s / 16 samples. Groups of 2 inside a host of 4, 2(2 - 1) fast latencies;
  // groups of 8 across two hosts, a ring of 2(8 - 1) slow steps.
  const double unit = 0.004 / 16;
  EXPECT_DOUBLE_EQ(config.seconds_per_unit, unit);
  EXPECT_DOUBLE_EQ(config.comm_group_alpha, 2 * 1e-6 / unit);
  EXPECT_DOUBLE_EQ(rows[1][2], 14 * 1e-3 / unit);
  EXPECT_DOUBLE_EQ(rows[1][3], 1.0 / 1e9 / unit);
  EXPECT_DOUBLE_EQ(config.comm_global_alpha, 30 * 1e-3 / unit);

  const RunConfig resumed =
      resume_config(priced.string(), {"cluster=tiny-hosts", "cluster_file=" + table.string(),
                                      "epochs=1", "hier.levels=[[2, 1], [8, 2], [16, 4]]"});
  EXPECT_EQ(resumed.algo_options.table("hier.levels"), rows);

  // Made without a cluster, re-timed by the report: every level at its own price.
  run_ok(job, plain);
  const fs::path out = plain.parent_path() / "levels_report.md";
  CliResult r = run_dsgd("report " + plain.string() + " --no-plots --out " + out.string() +
                         " --cluster tiny-hosts --cluster-file " + table.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const double seconds =
      nlohmann::json::parse(read_file(priced / "summary.json")).at("seconds").get<double>();
  EXPECT_NEAR(std::stod(csv_cell(plain.parent_path() / "levels_report.csv", "seconds")), seconds,
              1e-12 * seconds);

  CliResult refused = run_dsgd(
      "run --set dataset=synthetic --set model=mlp --set algo=hier-avg --set workers=16 "
      "--set 'hier.levels=[[2, 1], [8, 2, 0.5, 0.1], [16, 4]]' " +
      cluster);
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_NE(refused.output.find("hier.levels level 2 gives its link cost"), std::string::npos)
      << refused.output;
  for (const fs::path& p : {priced, plain, table.parent_path()}) fs::remove_all(p);
  fs::remove(out);
  fs::remove(plain.parent_path() / "levels_report.csv");
}

}  // namespace
}  // namespace dsgd
