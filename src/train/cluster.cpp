// Named clusters and their pricing; see cluster.h.
#include "train/cluster.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <toml++/toml.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "clusters_toml.h"
#include "core/errors.h"
#include "core/names.h"

namespace dsgd {
namespace {

// An entry's field, or a ConfigError naming where it is missing or of the wrong type.
class Entry {
 public:
  Entry(const toml::table& table, std::string where) : table_(table), where_(std::move(where)) {}

  std::string text(const char* key, bool required = true) const {
    const toml::node* node = table_.get(key);
    if (node == nullptr && !required) return "";
    if (node == nullptr || !node->is_string()) fail(fmt::format("{} must be a string", key));
    return node->as_string()->get();
  }
  double number(const char* key) const {
    const toml::node* node = table_.get(key);
    if (node == nullptr || !node->is_number()) fail(fmt::format("{} must be a number", key));
    const double value = node->value<double>().value();
    if (value < 0) fail(fmt::format("{} = {} must be >= 0", key, value));
    return value;
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw ConfigError(fmt::format("{}: {}", where_, what),
                      "see configs/clusters.toml for the format of links, devices and clusters");
  }

 private:
  const toml::table& table_;
  std::string where_;
};

template <class Profile>
void put(std::vector<Profile>& profiles, Profile profile) {
  for (Profile& p : profiles) {
    if (p.name == profile.name) {
      p = std::move(profile);
      return;
    }
  }
  profiles.push_back(std::move(profile));
}

const toml::table* section(const toml::table& root, const char* name, const std::string& source) {
  const toml::node* node = root.get(name);
  if (node == nullptr) return nullptr;
  if (!node->is_table()) {
    throw ConfigError(fmt::format("{}: {} must be a table ([{}.NAME])", source, name, name),
                      "see configs/clusters.toml");
  }
  return node->as_table();
}

void read_into(ClusterTable& table, const std::string& text, const std::string& source) {
  toml::table root;
  try {
    root = toml::parse(text, source);
  } catch (const toml::parse_error& e) {
    throw ConfigError(fmt::format("{}:{}:{}: malformed TOML: {}", source, e.source().begin.line,
                                  e.source().begin.column, e.description()),
                      "fix the file, or leave cluster_file unset");
  }
  for (const auto& [key, node] : root) {
    const std::string k(key.str());
    if (k != "links" && k != "devices" && k != "clusters") {
      throw ConfigError(fmt::format("{}: unknown section '{}'", source, k),
                        "the sections are links, devices and clusters");
    }
  }
  auto entries = [&](const char* name, auto&& read) {
    if (const toml::table* t = section(root, name, source)) {
      for (const auto& [key, node] : *t) {
        const std::string where = fmt::format("{}: {}.{}", source, name, key.str());
        if (!node.is_table()) Entry(*t, where).fail("must be a table");
        read(std::string(key.str()), Entry(*node.as_table(), where), *node.as_table());
      }
    }
  };
  entries("links", [&](const std::string& name, const Entry& e, const toml::table&) {
    LinkProfile link{name, e.number("latency"), e.number("bandwidth"), e.text("source")};
    if (link.bandwidth <= 0) e.fail("bandwidth must be > 0 bytes per second");
    put(table.links, link);
  });
  entries("devices", [&](const std::string& name, const Entry& e, const toml::table& t) {
    DeviceProfile device{name, {}, e.text("source")};
    const toml::table* steps = t.get_as<toml::table>("step");
    if (steps == nullptr) e.fail("step must be a table of \"MODEL BATCH FORMAT\" = seconds");
    for (const auto& [what, seconds] : *steps) {
      if (!seconds.is_number() || seconds.value<double>().value() <= 0) {
        e.fail(fmt::format("step.\"{}\" must be a number of seconds > 0", what.str()));
      }
      device.step_seconds[std::string(what.str())] = seconds.value<double>().value();
    }
    put(table.devices, device);
  });
  entries("clusters", [&](const std::string& name, const Entry& e, const toml::table& t) {
    ClusterProfile cluster;
    cluster.name = name;
    const toml::node* per_host = t.get("workers_per_host");
    if (per_host == nullptr || !per_host->is_integer() || per_host->value<int64_t>().value() < 1) {
      e.fail("workers_per_host must be an integer >= 1");
    }
    cluster.workers_per_host = per_host->value<int64_t>().value();
    cluster.intra = e.text("intra");
    cluster.inter = e.text("inter");
    cluster.server = e.text("server", /*required=*/false);
    cluster.device = e.text("device");
    if (const toml::node* shared = t.get("ranks_share_cores")) {
      if (!shared->is_boolean()) e.fail("ranks_share_cores must be true or false");
      cluster.ranks_share_cores = shared->value<bool>().value();
      if (cluster.ranks_share_cores && cluster.device != "measured") {
        e.fail(
            "ranks_share_cores needs device = \"measured\" (the step timed at each rank's "
            "share of this machine's cores)");
      }
    }
    cluster.source = e.text("source");
    put(table.clusters, cluster);
  });
}

}  // namespace

const LinkProfile& ClusterTable::link(const std::string& name) const {
  return find_by_name(links, name, "link");
}
const DeviceProfile& ClusterTable::device(const std::string& name) const {
  return find_by_name(devices, name, "device");
}
const ClusterProfile& ClusterTable::cluster(const std::string& name) const {
  return find_by_name(clusters, name, "cluster");
}

ClusterTable load_cluster_table(const std::string& extra_file) {
  ClusterTable table;
  read_into(table, kBuiltinClusters, "configs/clusters.toml (built in)");
  if (!extra_file.empty()) {
    std::ifstream in(extra_file);
    if (!in) {
      throw ConfigError("cannot read cluster_file '" + extra_file + "'", "check the path");
    }
    std::stringstream text;
    text << in.rdbuf();
    read_into(table, text.str(), extra_file);
  }
  // Every cluster's links and device exist.
  for (const ClusterProfile& c : table.clusters) {
    for (const std::string& link : {c.intra, c.inter, c.server}) {
      if (!link.empty()) {
        try {
          table.link(link);
        } catch (const ConfigError& e) {
          throw ConfigError(fmt::format("cluster '{}': {}", c.name, e.what()), e.hint());
        }
      }
    }
    if (c.device != "measured") {
      try {
        table.device(c.device);
      } catch (const ConfigError& e) {
        throw ConfigError(fmt::format("cluster '{}': {}", c.name, e.what()), e.hint());
      }
    }
  }
  return table;
}

RunShape run_shape(const RunConfig& config) {
  RunShape shape;
  shape.model = config.model;
  shape.batch_size = config.batch_size;
  shape.format = config.memory_format + " " + config.precision;
  shape.workers = config.workers;
  shape.servers = config.servers;
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

ClusterCosts price_on_cluster(const ClusterTable& table, const std::string& name,
                              const RunShape& shape, const std::string& device_name) {
  const ClusterProfile& cluster = table.cluster(name);
  const std::string& device_used = device_name.empty() ? cluster.device : device_name;
  ClusterCosts costs;
  std::string device_text;
  if (device_used == "measured" && cluster.ranks_share_cores) {
    const CoreShare share = core_share(cluster, shape);
    costs.step_seconds = shape.measured_step_seconds * share.stretch;
    device_text = fmt::format(
        "the step measured here on {} thread(s), {:.4g} s, x {:.3g} for {} rank(s) on {} core(s)",
        share.threads, shape.measured_step_seconds, share.stretch, share.ranks, shape.cores);
  } else if (device_used == "measured") {
    costs.step_seconds = shape.measured_step_seconds;
    device_text = fmt::format("the step measured here, {:.4g} s", costs.step_seconds);
  } else {
    const DeviceProfile& device = table.device(device_used);
    const std::string key = fmt::format("{} {} {}", shape.model, shape.batch_size, shape.format);
    auto it = device.step_seconds.find(key);
    if (it == device.step_seconds.end()) {
      std::vector<std::string> known;
      for (const auto& [k, v] : device.step_seconds) known.push_back("\"" + k + "\"");
      throw ConfigError(
          fmt::format("cluster '{}': device '{}' has no step time for \"{}\"", name, device.name,
                      key),
          fmt::format(
              "it has {}; add one (configs/clusters.toml's format) in a cluster_file, or "
              "choose a cluster whose device is \"measured\" (or cluster_device = \"measured\")",
              fmt::join(known, ", ")));
    }
    costs.step_seconds = it->second;
    device_text = fmt::format("{} ({:.4g} s a step)", device.name, costs.step_seconds);
  }
  if (costs.step_seconds <= 0) {
    throw Error("cluster '" + name + "': no step time to price compute with",
                "the run measures its step when it starts; this is a bug if it did");
  }
  costs.seconds_per_unit = costs.step_seconds / static_cast<double>(shape.batch_size);
  const double unit = costs.seconds_per_unit;
  const bool one_host =
      shape.workers + (shape.asynchronous ? shape.servers : 0) <= cluster.workers_per_host;
  const LinkProfile& intra = table.link(cluster.intra);
  const LinkProfile& inter = table.link(cluster.inter);
  // A ring among p members on `link`, in units: alpha per reduction, beta per byte of volume.
  auto ring = [&](int64_t p, const LinkProfile& link, double& alpha, double& beta) {
    alpha = 2.0 * static_cast<double>(std::max<int64_t>(p - 1, 0)) * link.latency / unit;
    beta = 1.0 / link.bandwidth / unit;
  };
  std::string links_text;
  if (shape.asynchronous) {
    const LinkProfile& server =
        one_host ? intra : table.link(cluster.server.empty() ? cluster.inter : cluster.server);
    costs.global_alpha = server.latency / unit;
    costs.global_beta = 1.0 / server.bandwidth / unit;
    links_text = "server link " + server.name;
  } else {
    const LinkProfile& global = one_host ? intra : inter;
    ring(shape.workers, global, costs.global_alpha, costs.global_beta);
    links_text = "global all-reduce on " + global.name;
    if (shape.group_size > 0) {
      const bool in_host = shape.group_size <= cluster.workers_per_host &&
                           cluster.workers_per_host % shape.group_size == 0;
      const LinkProfile& group = in_host ? intra : inter;
      ring(shape.group_size, group, costs.group_alpha, costs.group_beta);
      links_text += ", groups of " + std::to_string(shape.group_size) + " on " + group.name;
    }
  }
  costs.explanation = fmt::format("cluster {}: device {}, {} per host, {}", name, device_text,
                                  cluster.workers_per_host, links_text);
  return costs;
}

std::string describe_cluster_table(const ClusterTable& table) {
  std::ostringstream out;
  out << "links (one-way latency, bandwidth each way):\n";
  for (const LinkProfile& l : table.links) {
    out << fmt::format("  {:<18} {:>9.3g} s  {:>9.3g} B/s  {}\n", l.name, l.latency, l.bandwidth,
                       l.source);
  }
  out << "devices (seconds a training step):\n";
  for (const DeviceProfile& d : table.devices) {
    out << fmt::format("  {:<18} {}\n", d.name, d.source);
    for (const auto& [what, seconds] : d.step_seconds) {
      out << fmt::format("      {:<34} {:.4g} s\n", what, seconds);
    }
  }
  out << "clusters (cluster = \"NAME\"):\n";
  for (const ClusterProfile& c : table.clusters) {
    out << fmt::format("  {:<18} {} per host, inside {}, between {}, device {}{}: {}\n", c.name,
                       c.workers_per_host, c.intra, c.inter, c.device,
                       c.ranks_share_cores ? " (ranks share the cores)" : "", c.source);
  }
  return out.str();
}

}  // namespace dsgd
