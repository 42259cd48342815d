// Named clusters: what turns the simulated clock into seconds. The table (configs/clusters.toml,
// carried inside the binary, plus a user's `cluster_file`) names links (one-way latency in s,
// bandwidth in bytes/s), devices (a training step's seconds by model, batch and compute format)
// and clusters (workers per host, the link inside a host and between hosts, the device, the
// asynchronous server's link). Pricing a run on a cluster gives the seconds of one simulated time
// unit (a sample's mean compute: the step's seconds / batch) and the link costs in those units,
// so the simulators run unchanged and `seconds = sim_time x seconds_per_unit` (docs/time.md).
// Knows nothing of engines: it prices what the run's shape says.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "train/collective_cost.h"
#include "train/config.h"

namespace dsgd {

struct LinkProfile {
  std::string name;
  double latency = 0.0;    // seconds, one way
  double bandwidth = 0.0;  // bytes per second, each direction
  // Bytes per second at which a member adds a vector that arrived over this link into its own:
  // the all-reduce's arithmetic (collective_cost.h's gamma), 0 where it is left out.
  double reduce_bandwidth = 0.0;
  std::string source;
};

struct DeviceProfile {
  std::string name;
  std::map<std::string, double> step_seconds;  // "MODEL BATCH FORMAT" -> seconds
  std::string source;
  // Steps derived from the measured ones by `derived_rule`, not measured (in step_seconds too):
  // a page that prices with one says so.
  std::set<std::string> derived;
  std::string derived_rule;
};

struct ClusterProfile {
  std::string name;
  int64_t workers_per_host = 1;
  std::string intra, inter, server;                          // link names (server: "" = inter)
  std::string device;                                        // a device name, or "measured"
  AllreduceAlgorithm allreduce = AllreduceAlgorithm::kRing;  // every level's all-reduce
  // The workers of a host share its cores, as MPI's ranks on one machine do (device "measured"
  // only): each computes on its share of the cores, and more ranks than cores take turns.
  bool ranks_share_cores = false;
  std::string source;
};

struct ClusterTable {
  std::vector<LinkProfile> links;
  std::vector<DeviceProfile> devices;
  std::vector<ClusterProfile> clusters;
  const LinkProfile& link(const std::string& name) const;
  const DeviceProfile& device(const std::string& name) const;
  const ClusterProfile& cluster(const std::string& name) const;
};

// The built-in table, then `extra_file`'s entries ("" for none; a name there replaces the
// built-in one). Throws ConfigError naming the file and the entry when one is malformed or names
// a link or device the tables do not have.
ClusterTable load_cluster_table(const std::string& extra_file = "");

// What a run is priced by.
struct RunShape {
  // The model as a device's steps name it: the config's, or for the built-in transformer its
  // sizes too ("transformer-6x6x384": layers x heads x width), which its step depends on.
  std::string model;
  int64_t batch_size = 0;
  int64_t seq_len = 0;  // a language model's tokens a sample; 0: images
  // The model and batch as a device's step key begins: "resnet20 128", "transformer-2x2x128
  // 16x64" (batch x seq_len).
  std::string step_prefix() const;
  std::string format;  // "channels-last bf16" and the like
  // The parts of `format` that "auto" chose on the run's machine: on a named device the run is
  // priced in the device's fastest listed format whose other parts are the run's (the format the
  // device would choose), so that runs which chose differently on different machines compare.
  bool memory_format_auto = false, precision_auto = false;
  int64_t workers = 1;
  int64_t group_size = 0;  // learners per in-group reduction (hier-avg), 0: none
  // A deeper hierarchy's groups between the first level and the global one (hier.levels of
  // three or more), innermost first.
  std::vector<int64_t> middle_group_sizes;
  int64_t servers = 1;  // asynchronous server shards
  bool asynchronous = false;
  std::optional<AllreduceAlgorithm> allreduce;  // the run's own all-reduce; nothing: the cluster's
  double measured_step_seconds = 0.0;           // the run's own step on its machine
  int64_t cores = 0;  // the machine's cores (clusters whose ranks share them)
};

// How a host's ranks share its cores (MPI's default, docs/design/engines.md): every rank of the
// host (workers, and the asynchronous server's shards) computes on max(1, cores / ranks) threads,
// and when the workers' threads outnumber the cores each step stretches by their ratio, the
// scheduler's turns. A server shard waits in MPI between messages, taking no turn.
struct CoreShare {
  int64_t ranks = 1;    // ranks on the host
  int64_t threads = 1;  // intra-op threads each
  double stretch = 1.0;
};
CoreShare core_share(const ClusterProfile& cluster, const RunShape& shape);

// The shape a config gives (model, batch, compute format, workers, servers; a language model's
// seq_len, where its dataset is a token corpus or its record has a vocabulary); the family's parts
// (asynchronous, group_size) and the measured step are the caller's to fill.
RunShape run_shape(const RunConfig& config);

// Link costs in simulated time units, the config's comm.* keys, and the unit in seconds.
struct ClusterCosts {
  double seconds_per_unit = 0.0;
  double group_alpha = 0.0, group_beta = 0.0;
  double global_alpha = 0.0, global_beta = 0.0;
  // Each of shape.middle_group_sizes' levels, in the same units (hier.levels' alpha and beta).
  struct LevelPrice {
    int64_t group_size = 0;
    double alpha = 0.0, beta = 0.0;
  };
  std::vector<LevelPrice> middle_levels;
  double step_seconds = 0.0;
  // How many times over the learners share their host's cores (core_share's stretch; 1: a core
  // each, or a cluster whose ranks do not share them): timing.core_sharing.
  double core_sharing = 1.0;
  std::string explanation;  // one line for the log: device, links, step
};

// An all-reduce among p members, priced as the run's algorithm (`shape.allreduce`) or else the
// cluster's (collective_cost.h: ring, tree or halving-doubling, each step on the links it
// crosses, with the links' reduction term): alpha its latencies, beta its seconds per byte
// divided by the ring's volume factor 2(p − 1)/p, which the simulators multiply beta by. An
// asynchronous push or pull: one latency and the message at the server link's bandwidth (split
// over the shards by the simulator).
// `device` ("" for the cluster's own) replaces the cluster's device. On a cluster whose ranks share
// their host's cores, `shape.measured_step_seconds` is the step timed at core_share's threads.
ClusterCosts price_on_cluster(const ClusterTable& table, const std::string& cluster,
                              const RunShape& shape, const std::string& device = "");

// Whether each all-reduce of `members` consecutive workers, out of `workers`, stays inside a host.
bool fits_in_hosts(const ClusterProfile& cluster, int64_t members, int64_t workers);

// One all-reduce among `members` consecutive workers of the `workers` on `cluster`, by
// `algorithm`, while every other group of `members` reduces at once: each step on the link it
// crosses, sharing a host's uplink with the other messages through it (collective_cost.h).
AllreducePrice cluster_allreduce(const ClusterTable& table, const ClusterProfile& cluster,
                                 int64_t members, int64_t workers, AllreduceAlgorithm algorithm);

// Every link, device and cluster with its figures and source, for `dsgd list clusters`.
std::string describe_cluster_table(const ClusterTable& table);

// The seconds of one all-reduce of `bytes` on every cluster of the table by every algorithm:
// among all `workers`, or (group > 0) in each group of `group` consecutive ones. For `dsgd list
// clusters --allreduce WORKERS[/GROUP] --bytes N`.
std::string describe_allreduce_prices(const ClusterTable& table, int64_t workers, int64_t group,
                                      double bytes);

}  // namespace dsgd
