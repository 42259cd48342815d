// Sweep specs: the top-level keys read into dimensions (grid keys, named configurations, seeds),
// then crossed into points (sweep_grid.h) and the report's layout read (sweep_layout.h); loading a
// spec file; checking every point's config. See sweep_spec.h.
#include "experiment/sweep_spec.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <toml++/toml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "core/errors.h"
#include "experiment/sweep_grid.h"
#include "experiment/sweep_layout.h"
#include "experiment/sweep_toml.h"
#include "train/config.h"

namespace dsgd {
namespace {

namespace fs = std::filesystem;
using namespace sweep_internal;  // NOLINT(build/namespaces): the spec parser's parts

// Which part of the spec set each config key, to refuse setting one in two parts.
class KeyClaims {
 public:
  explicit KeyClaims(const std::string& source) : source_(source) {}
  void claim(const std::string& key, const std::string& where) {
    auto [it, fresh] = set_by_.emplace(key, where);
    if (!fresh && it->second != where) {
      fail(source_, fmt::format("'{}' is set both in {} and in {}", key, it->second, where));
    }
  }

 private:
  const std::string& source_;
  std::map<std::string, std::string> set_by_;
};

// [grid]: one dimension per key, in the order written.
std::vector<Dimension> grid_dimensions(const toml::table& grid, KeyClaims& claims,
                                       const std::string& source) {
  std::vector<Dimension> dimensions;
  for (const auto& [key, node] : flat_entries(grid)) {
    const toml::array* values = node->as_array();
    if (values == nullptr) {
      fail(source, fmt::format("grid.{} must be a list of values, e.g. {} = [1, 2]", key, key));
    }
    if (values->empty())
      fail(source, fmt::format("grid.{} is empty: give it at least one value", key));
    claims.claim(key, "[grid]");
    Dimension dimension{key, {}};
    for (const toml::node& value : *values) {
      if (value.is_table() || value.is_array()) {
        fail(source, fmt::format("grid.{}: each value must be a number, string or boolean", key));
      }
      dimension.values.push_back({label_text(value), {key + "=" + toml_text(value)}});
    }
    dimensions.push_back(std::move(dimension));
  }
  return dimensions;
}

// A list of seeds, the top-level `seeds` or a [[configs]] entry's own.
std::vector<int64_t> seed_list(const toml::node& seeds_node, const std::string& where,
                               const std::string& source) {
  const toml::array* seeds = seeds_node.as_array();
  if (seeds == nullptr || seeds->empty() || !seeds->is_homogeneous(toml::node_type::integer)) {
    fail(source, where + " must be a non-empty list of integers, e.g. seeds = [1, 2]");
  }
  std::vector<int64_t> list;
  for (const toml::node& seed : *seeds) {
    const int64_t value = seed.as_integer()->get();
    if (std::find(list.begin(), list.end(), value) != list.end()) {
      fail(source, fmt::format("{} lists seed {} twice", where, value));
    }
    list.push_back(value);
  }
  return list;
}

// [[configs]]: the `config` dimension, a value per entry, named by its `name` or its settings. An
// entry's own `seeds` (not a config key) go into `own_seeds` under its name.
Dimension config_dimension(const toml::node& configs_node, KeyClaims& claims,
                           std::map<std::string, std::vector<int64_t>>& own_seeds,
                           const std::string& source) {
  const toml::array* configs = configs_node.as_array();
  if (configs == nullptr || !configs->is_array_of_tables()) {
    fail(source, "configs must be a list of tables ([[configs]] with a name and settings)");
  }
  if (configs->empty()) fail(source, "configs is empty");
  Dimension dimension{"config", {}};
  std::set<std::string> names;
  for (const toml::node& entry : *configs) {
    std::string name;
    std::vector<std::string> overrides;
    const toml::node* seeds = nullptr;
    for (const auto& [key, node] : flat_entries(*entry.as_table())) {
      if (key == "name") {
        if (!node->is_string()) fail(source, "a configs entry's name must be a string");
        name = node->as_string()->get();
        continue;
      }
      if (key == "seeds") {
        seeds = node;
        continue;
      }
      claims.claim(key, "[[configs]]");
      overrides.push_back(key + "=" + toml_text(*node));
    }
    if (name.empty()) {
      for (const auto& o : overrides) name += (name.empty() ? "" : " ") + o;
    }
    if (name.empty()) fail(source, "a configs entry has neither a name nor settings");
    if (!names.insert(name).second) fail(source, "two configs are named '" + name + "'");
    if (seeds != nullptr)
      own_seeds[name] = seed_list(*seeds, "configs '" + name + "': seeds", source);
    dimension.values.push_back({name, overrides});
  }
  return dimension;
}

// The `seed` dimension: every seed that the top-level `seeds` or a configs entry's own lists, in
// ascending order.
Dimension seed_dimension(const std::vector<int64_t>& shared,
                         const std::map<std::string, std::vector<int64_t>>& own_seeds,
                         KeyClaims& claims) {
  claims.claim("seed", "seeds");
  std::set<int64_t> all(shared.begin(), shared.end());
  for (const auto& [name, seeds] : own_seeds) all.insert(seeds.begin(), seeds.end());
  Dimension dimension{"seed", {}};
  for (int64_t seed : all) {
    dimension.values.push_back({std::to_string(seed), {"seed=" + std::to_string(seed)}});
  }
  return dimension;
}

// Drops the points whose seed their configuration does not run: a configs entry with seeds of its
// own runs those, the others the top-level `seeds`.
void keep_each_configs_seeds(const std::vector<int64_t>& shared,
                             const std::map<std::string, std::vector<int64_t>>& own_seeds,
                             std::vector<SweepPoint>& points) {
  auto label = [](const SweepPoint& point, const std::string& dimension) {
    for (const auto& [name, value] : point.labels) {
      if (name == dimension) return value;
    }
    return std::string();
  };
  auto runs_seed = [&](const SweepPoint& point) {
    const std::string seed = label(point, "seed");
    auto own = own_seeds.find(label(point, "config"));
    const std::vector<int64_t>& seeds = own != own_seeds.end() ? own->second : shared;
    return std::any_of(seeds.begin(), seeds.end(),
                       [&](int64_t s) { return std::to_string(s) == seed; });
  };
  points.erase(std::remove_if(points.begin(), points.end(),
                              [&](const SweepPoint& p) { return !runs_seed(p); }),
               points.end());
}

}  // namespace

SweepSpec parse_sweep_spec(const std::string& text, const std::string& source,
                           const std::string& spec_dir) {
  toml::table root;
  try {
    root = toml::parse(text, source);
  } catch (const toml::parse_error& e) {
    fail(source, fmt::format("{}:{}: malformed TOML: {}", e.source().begin.line,
                             e.source().begin.column, e.description()));
  }
  const std::set<std::string> known = {"base", "out",  "dir",     "seeds",
                                       "set",  "grid", "configs", "report"};
  for (const auto& [key, node] : root) {
    if (known.count(std::string(key.str())) == 0) {
      fail(source, fmt::format("unknown key '{}' (known: base, out, dir, seeds, set, grid, "
                               "configs, report; config keys go under [set] or [grid])",
                               key.str()));
    }
  }
  auto string_at = [&](const char* key, const std::string& fallback) {
    const toml::node* node = root.get(key);
    if (node == nullptr) return fallback;
    if (!node->is_string()) fail(source, fmt::format("{} must be a string", key));
    return node->as_string()->get();
  };
  auto table_at = [&](const char* key) -> const toml::table* {
    const toml::node* node = root.get(key);
    if (node == nullptr) return nullptr;
    if (!node->is_table()) fail(source, fmt::format("{} must be a table ([{}])", key, key));
    return node->as_table();
  };

  SweepSpec spec;
  const std::string base = string_at("base", "");
  if (!base.empty()) {
    spec.base_config = fs::absolute(fs::path(spec_dir) / base).lexically_normal().string();
  }
  spec.out = string_at("out", "runs/" + fs::path(source).stem().string());

  // Keys every point sets, then the dimensions in the order the report lays them out.
  KeyClaims claims(source);
  std::vector<std::string> common;
  if (const toml::table* set = table_at("set")) {
    for (const auto& [key, node] : flat_entries(*set)) {
      claims.claim(key, "[set]");
      common.push_back(key + "=" + toml_text(*node));
    }
  }
  std::vector<Dimension> dimensions;
  if (const toml::table* grid = table_at("grid"))
    dimensions = grid_dimensions(*grid, claims, source);
  std::map<std::string, std::vector<int64_t>> own_seeds;
  if (const toml::node* configs = root.get("configs")) {
    dimensions.push_back(config_dimension(*configs, claims, own_seeds, source));
  }
  std::vector<int64_t> shared_seeds;
  if (const toml::node* seeds = root.get("seeds"))
    shared_seeds = seed_list(*seeds, "seeds", source);
  if (!own_seeds.empty() && shared_seeds.empty()) {
    // Every configuration must say its seeds: the top-level list is then the default.
    for (const auto& value : dimensions.back().values) {
      if (own_seeds.count(value.first) == 0) {
        fail(source, fmt::format("configs '{}' has no seeds: give seeds = [...] at the top (the "
                                 "default of every configs entry) or in that entry",
                                 value.first));
      }
    }
  }
  if (!shared_seeds.empty() || !own_seeds.empty()) {
    dimensions.push_back(seed_dimension(shared_seeds, own_seeds, claims));
  }
  for (const auto& d : dimensions) spec.dimensions.push_back(d.name);

  std::string dir_pattern = string_at("dir", "");
  if (dir_pattern.empty()) dir_pattern = default_dir_pattern(dimensions);
  spec.points = expand_points(dimensions, common, dir_pattern, source);
  if (!own_seeds.empty()) keep_each_configs_seeds(shared_seeds, own_seeds, spec.points);
  read_report_layout(table_at("report"), source, spec_dir, spec);
  return spec;
}

SweepSpec load_sweep_spec(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ConfigError("cannot read sweep spec '" + path + "'", "check the path");
  std::stringstream text;
  text << in.rdbuf();
  SweepSpec spec = parse_sweep_spec(text.str(), path, fs::path(path).parent_path().string());
  spec.spec_path = path;
  return spec;
}

void check_point_dirs(const SweepSpec& spec, const std::vector<std::string>& dirs) {
  std::vector<std::string> known;
  for (const SweepPoint& point : spec.points) known.push_back(point.dir);
  for (const std::string& dir : dirs) {
    if (std::find(known.begin(), known.end(), dir) == known.end()) {
      throw ConfigError(fmt::format("--only {}: the sweep has no point in that folder", dir),
                        fmt::format("its points: {}", fmt::join(known, ", ")));
    }
  }
}

std::vector<RunConfig> check_sweep_points(const SweepSpec& spec) {
  std::vector<RunConfig> configs;
  for (const SweepPoint& point : spec.points) {
    try {
      configs.push_back(load_config(spec.base_config, point.overrides));
    } catch (const ConfigError& e) {
      throw ConfigError(fmt::format("sweep point '{}': {}", point.dir, e.what()), e.hint());
    }
  }
  return configs;
}

}  // namespace dsgd
