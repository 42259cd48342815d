// Pricing a run on a named cluster; see cluster.h.
#include "train/cluster.h"

#include <fmt/format.h>
#include <fmt/ranges.h>  // fmt::join lives here since {fmt} 11 (LibTorch 2.x ships it)

#include <algorithm>
#include <utility>

#include "core/errors.h"
#include "data/token_corpus.h"
#include "train/collective_cost.h"

namespace dsgd {

std::string RunShape::step_prefix() const {
  return seq_len > 0 ? fmt::format("{} {}x{} ", model, batch_size, seq_len)
                     : fmt::format("{} {} ", model, batch_size);
}

RunShape run_shape(const RunConfig& config) {
  RunShape shape;
  shape.model = config.model;
  shape.batch_size = config.batch_size;
  if (!config.vocabulary.empty() || is_token_corpus(config.dataset)) {
    shape.seq_len = config.seq_len;
    if (config.model == "transformer") {
      shape.model = fmt::format("transformer-{}x{}x{}", config.transformer_layers,
                                config.transformer_heads, config.transformer_width);
    }
  }
  shape.format = std::string(enum_name(config.memory_format)) + " " + enum_name(config.precision);
  shape.workers = config.workers;
  shape.servers = config.servers;
  shape.allreduce = config.allreduce;
  return shape;
}

CoreShare core_share(const ClusterProfile& cluster, const RunShape& shape) {
  CoreShare share;
  const int64_t cores = std::max<int64_t>(shape.cores, 1);
  const int64_t workers = std::min(shape.workers, cluster.workers_per_host);
  share.ranks =
      std::min(shape.workers + (shape.asynchronous ? shape.servers : 0), cluster.workers_per_host);
  share.threads = std::max<int64_t>(1, cores / std::max<int64_t>(share.ranks, 1));
  share.stretch =
      std::max(1.0, static_cast<double>(workers * share.threads) / static_cast<double>(cores));
  return share;
}

bool fits_in_hosts(const ClusterProfile& cluster, int64_t members, int64_t workers) {
  return members <= cluster.workers_per_host &&
         (members == workers || cluster.workers_per_host % members == 0);
}

AllreducePrice cluster_allreduce(const ClusterTable& table, const ClusterProfile& cluster,
                                 int64_t members, int64_t workers, AllreduceAlgorithm algorithm) {
  const LinkProfile& intra = table.link(cluster.intra);
  const LinkProfile& inter = table.link(cluster.inter);
  // Every group of `members` among the workers reduces at once, the workers consecutive on hosts:
  // groups that straddle two hosts, and those sharing a host's uplink, are priced as they fall.
  const int64_t groups = std::max<int64_t>(1, workers / std::max<int64_t>(members, 1));
  return allreduce_price(algorithm, members, cluster.workers_per_host,
                         {intra.latency, intra.bandwidth, intra.reduce_bandwidth},
                         {inter.latency, inter.bandwidth, inter.reduce_bandwidth}, groups);
}

// A format "layout precision" in its two parts.
std::pair<std::string, std::string> format_parts(const std::string& format) {
  const size_t space = format.find(' ');
  return {format.substr(0, space), space == std::string::npos ? "" : format.substr(space + 1)};
}

// The step a named device lists for the run: its entry "model batch layout precision" (a language
// model's batch "BxT") as the run
// computed, or where "auto" chose a part on the run's machine, the fastest of the device's
// entries that keep the run's other part. An empty key: none listed (`wanted` says what was
// looked for, "*" for a part auto chose).
struct DeviceStep {
  std::string key, wanted;
  double seconds = 0.0;
  bool derived = false;  // derived from a measured step, not measured itself
};
DeviceStep device_step(const DeviceProfile& device, const RunShape& shape) {
  const auto [layout, precision] = format_parts(shape.format);
  const std::string prefix = shape.step_prefix();
  DeviceStep step;
  step.wanted = prefix + (shape.memory_format_auto ? "*" : layout) + " " +
                (shape.precision_auto ? "*" : precision);
  for (const auto& [key, seconds] : device.step_seconds) {
    if (key.rfind(prefix, 0) != 0) continue;
    const auto [key_layout, key_precision] = format_parts(key.substr(prefix.size()));
    const bool fits = (shape.memory_format_auto || key_layout == layout) &&
                      (shape.precision_auto || key_precision == precision);
    if (fits && (step.key.empty() || seconds < step.seconds)) {
      step.key = key;
      step.seconds = seconds;
      step.derived = device.derived.count(key) != 0;
    }
  }
  return step;
}

ClusterCosts price_on_cluster(const ClusterTable& table, const std::string& name,
                              const RunShape& shape, const std::string& device_name) {
  const ClusterProfile& cluster = table.cluster(name);
  const std::string& device_used = device_name.empty() ? cluster.device : device_name;
  ClusterCosts costs;
  std::string device_text;
  if (device_used == "measured" && cluster.ranks_share_cores) {
    const CoreShare share = core_share(cluster, shape);
    costs.step_seconds = shape.measured_step_seconds * share.stretch;
    costs.core_sharing = share.stretch;
    device_text = fmt::format(
        "the step measured here on {} thread(s), {:.4g} s, x {:.3g} for {} rank(s) on {} core(s)",
        share.threads, shape.measured_step_seconds, share.stretch, share.ranks, shape.cores);
  } else if (device_used == "measured") {
    costs.step_seconds = shape.measured_step_seconds;
    device_text = fmt::format("the step measured here, {:.4g} s", costs.step_seconds);
  } else {
    const DeviceProfile& device = table.device(device_used);
    const DeviceStep step = device_step(device, shape);
    if (step.key.empty()) {
      std::vector<std::string> known;
      for (const auto& [k, v] : device.step_seconds) known.push_back("\"" + k + "\"");
      throw ConfigError(
          fmt::format("cluster '{}': device '{}' has no step time for \"{}\"", name, device.name,
                      step.wanted),
          fmt::format(
              "it has {}; add one (configs/clusters.toml's format) in a cluster_file, or "
              "choose a cluster whose device is \"measured\" (or cluster_device = \"measured\")",
              fmt::join(known, ", ")));
    }
    costs.step_seconds = step.seconds;
    // A format auto chose elsewhere is named when the device computes in another.
    const bool own_format = step.key == shape.step_prefix() + shape.format;
    device_text = own_format ? fmt::format("{} ({:.4g} s a step)", device.name, costs.step_seconds)
                             : fmt::format(
                                   "{} ({:.4g} s a step in its fastest listed format, "
                                   "\"{}\")",
                                   device.name, costs.step_seconds, step.key);
    if (step.derived) device_text += " [derived, not measured: `dsgd list clusters` says how]";
  }
  if (costs.step_seconds <= 0) {
    throw Error("cluster '" + name + "': no step time to price compute with",
                "the run measures its step when it starts; this is a bug if it did");
  }
  costs.seconds_per_unit = costs.step_seconds / static_cast<double>(shape.batch_size);
  const double unit = costs.seconds_per_unit;
  const bool one_host =
      shape.workers + (shape.asynchronous ? shape.servers : 0) <= cluster.workers_per_host;
  // The run's own algorithm where it names one (the `allreduce` key), else the cluster's.
  const AllreduceAlgorithm algorithm = shape.allreduce.value_or(cluster.allreduce);
  const LinkProfile& intra = table.link(cluster.intra);
  const LinkProfile& inter = table.link(cluster.inter);
  // An all-reduce in units: alpha per reduction, and beta per byte of the ring's volume
  // 2(p - 1)/p n (what the simulators count), whatever the algorithm.
  auto reduction = [&](int64_t p, double& alpha, double& beta) {
    const AllreducePrice price = cluster_allreduce(table, cluster, p, shape.workers, algorithm);
    const double volume_factor =
        p > 1 ? 2.0 * static_cast<double>(p - 1) / static_cast<double>(p) : 1.0;
    alpha = price.latency_seconds / unit;
    beta = price.seconds_per_byte / volume_factor / unit;
  };
  // The links a level's all-reduces cross.
  auto level_text = [&](int64_t p) {
    return fits_in_hosts(cluster, p, shape.workers) ? intra.name
           : cluster.workers_per_host > 1           ? intra.name + " and " + inter.name
                                                    : inter.name;
  };
  std::string links_text;
  if (shape.asynchronous) {
    const LinkProfile& server =
        one_host ? intra : table.link(cluster.server.empty() ? cluster.inter : cluster.server);
    costs.global_alpha = server.latency / unit;
    costs.global_beta = 1.0 / server.bandwidth / unit;
    links_text = "server link " + server.name;
  } else {
    reduction(shape.workers, costs.global_alpha, costs.global_beta);
    links_text =
        fmt::format("global {} all-reduce on {}", enum_name(algorithm), level_text(shape.workers));
    if (shape.group_size > 0) {
      reduction(shape.group_size, costs.group_alpha, costs.group_beta);
      links_text +=
          ", groups of " + std::to_string(shape.group_size) + " on " + level_text(shape.group_size);
    }
    for (const int64_t group_size : shape.middle_group_sizes) {
      ClusterCosts::LevelPrice level{group_size};
      reduction(group_size, level.alpha, level.beta);
      costs.middle_levels.push_back(level);
      links_text += ", groups of " + std::to_string(group_size) + " on " + level_text(group_size);
    }
  }
  costs.explanation = fmt::format("cluster {}: device {}, {} per host, {}", name, device_text,
                                  cluster.workers_per_host, links_text);
  return costs;
}

}  // namespace dsgd
