// Reading the table of named links, devices and clusters, and describing it; see cluster.h.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <toml++/toml.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "clusters_toml.h"
#include "core/errors.h"
#include "core/names.h"
#include "train/cluster.h"

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
  double number(const char* key, bool required = true) const {
    const toml::node* node = table_.get(key);
    if (node == nullptr && !required) return 0.0;
    if (node == nullptr || !node->is_number()) fail(fmt::format("{} must be a number", key));
    const double value = node->value<double>().value();
    // TOML reads nan and inf as numbers; either would price every run as a finite-looking lie.
    if (!std::isfinite(value) || value < 0) {
      fail(fmt::format("{} = {} must be a finite number >= 0", key, value));
    }
    return value;
  }
  const std::string& where() const { return where_; }
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
    LinkProfile link{name, e.number("latency"), e.number("bandwidth"),
                     e.number("reduce_bandwidth", /*required=*/false), e.text("source")};
    if (link.bandwidth <= 0) e.fail("bandwidth must be > 0 bytes per second");
    put(table.links, link);
  });
  entries("devices", [&](const std::string& name, const Entry& e, const toml::table& t) {
    DeviceProfile device{name, {}, e.text("source"), {}, ""};
    // Steps "MODEL BATCH FORMAT" = seconds > 0, measured (step) or derived (derived.step).
    auto read_steps = [&](const toml::table& steps, const char* where, bool derived) {
      for (const auto& [what, seconds] : steps) {
        if (!seconds.is_number() || !std::isfinite(seconds.value<double>().value()) ||
            seconds.value<double>().value() <= 0) {
          e.fail(
              fmt::format("{}.\"{}\" must be a finite number of seconds > 0", where, what.str()));
        }
        const std::string key(what.str());
        if (derived && device.step_seconds.count(key) != 0) {
          e.fail(fmt::format("derived.step.\"{}\" is measured too (step): keep one", key));
        }
        device.step_seconds[key] = seconds.value<double>().value();
        if (derived) device.derived.insert(key);
      }
    };
    const toml::table* steps = t.get_as<toml::table>("step");
    if (steps == nullptr) e.fail("step must be a table of \"MODEL BATCH FORMAT\" = seconds");
    read_steps(*steps, "step", false);
    if (const toml::node* derived = t.get("derived")) {
      const toml::table* table_of = derived->as_table();
      const toml::table* derived_steps =
          table_of != nullptr ? table_of->get_as<toml::table>("step") : nullptr;
      if (derived_steps == nullptr) {
        e.fail(
            "derived must be a table with rule (how the steps follow from the measured ones) "
            "and step (\"MODEL BATCH FORMAT\" = seconds)");
      }
      device.derived_rule = Entry(*table_of, e.where() + ".derived").text("rule");
      read_steps(*derived_steps, "derived.step", true);
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
    const std::string allreduce = e.text("allreduce", /*required=*/false);
    if (!allreduce.empty()) {
      const std::optional<AllreduceAlgorithm> algorithm = find_enum<AllreduceAlgorithm>(allreduce);
      if (!algorithm) {
        e.fail(fmt::format("allreduce = \"{}\" must be one of {}", allreduce,
                           fmt::join(enum_names<AllreduceAlgorithm>(), ", ")));
      }
      cluster.allreduce = *algorithm;
    }
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

std::string describe_cluster_table(const ClusterTable& table) {
  std::ostringstream out;
  out << "links (one-way latency, bandwidth each way):\n";
  for (const LinkProfile& l : table.links) {
    const std::string summing =
        l.reduce_bandwidth > 0 ? fmt::format(", sums {:.3g} B/s", l.reduce_bandwidth) : "";
    out << fmt::format("  {:<18} {:>9.3g} s  {:>9.3g} B/s{}  {}\n", l.name, l.latency, l.bandwidth,
                       summing, l.source);
  }
  out << "devices (seconds a training step):\n";
  for (const DeviceProfile& d : table.devices) {
    out << fmt::format("  {:<18} {}\n", d.name, d.source);
    for (const auto& [what, seconds] : d.step_seconds) {
      out << fmt::format("      {:<34} {:.4g} s{}\n", what, seconds,
                         d.derived.count(what) != 0 ? "  derived, not measured" : "");
    }
    if (!d.derived.empty()) out << fmt::format("      derived: {}\n", d.derived_rule);
  }
  out << "clusters (cluster = \"NAME\"):\n";
  for (const ClusterProfile& c : table.clusters) {
    out << fmt::format(
        "  {:<18} {} per host, inside {}, between {}, {} all-reduce, device {}{}: {}\n", c.name,
        c.workers_per_host, c.intra, c.inter, enum_name(c.allreduce), c.device,
        c.ranks_share_cores ? " (ranks share the cores)" : "", c.source);
  }
  return out.str();
}

std::string describe_allreduce_prices(const ClusterTable& table, int64_t workers, int64_t group,
                                      double bytes) {
  const int64_t members = group > 0 ? group : workers;
  std::ostringstream out;
  out << fmt::format(
      "seconds of one all-reduce of {:.0f} bytes among {} consecutive workers{} (the cluster's own "
      "algorithm marked *):\n",
      bytes, members, group > 0 ? fmt::format(", groups of {} out of {}", group, workers) : "");
  out << fmt::format("  {:<18}", "cluster");
  for (const auto& [algorithm, name] : EnumNames<AllreduceAlgorithm>::values) {
    out << fmt::format(" {:>18}", name);
  }
  out << "\n";
  for (const ClusterProfile& c : table.clusters) {
    out << fmt::format("  {:<18}", c.name);
    for (const auto& [algorithm, name] : EnumNames<AllreduceAlgorithm>::values) {
      const double seconds =
          cluster_allreduce(table, c, members, workers, algorithm).seconds(bytes);
      out << fmt::format(" {:>17.9g}{}", seconds, algorithm == c.allreduce ? "*" : " ");
    }
    out << "\n";
  }
  return out.str();
}

}  // namespace dsgd
