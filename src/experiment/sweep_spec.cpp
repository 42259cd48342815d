// Sweep specs: parsing, expansion into points, checks; see sweep_spec.h.
#include "experiment/sweep_spec.h"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "core/errors.h"
#include "train/config.h"

namespace dsgd {
namespace {

namespace fs = std::filesystem;

const char* const kSpecHint = "see docs/experiments.md for the sweep format";

[[noreturn]] void fail(const std::string& source, const std::string& what) {
  throw ConfigError(fmt::format("sweep spec '{}': {}", source, what), kSpecHint);
}

// A value as TOML writes it: what --set KEY=VALUE parses back into the same value.
std::string toml_text(const toml::node& node) {
  if (const auto* number = node.as_floating_point()) {
    // The shortest text that reads back as the same double, and still reads as a float.
    std::string text = fmt::format("{}", number->get());
    if (text.find_first_of(".eEn") == std::string::npos) text += ".0";
    return text;
  }
  std::ostringstream out;
  node.visit([&out](const auto& value) { out << value; });
  return out.str();
}

// A value as a report shows it: strings without their quotes.
std::string label_text(const toml::node& node) {
  if (const auto* s = node.as_string()) return s->get();
  return toml_text(node);
}

// Keys below `table` as dotted names ("hier.group_size"), each with its leaf node, in the order
// they were written.
void flatten(const toml::table& table, const std::string& prefix,
             std::vector<std::pair<std::string, const toml::node*>>& out) {
  for (const auto& [key, node] : table) {
    const std::string name = prefix + std::string(key.str());
    if (const auto* inner = node.as_table()) {
      flatten(*inner, name + ".", out);
    } else {
      out.emplace_back(name, &node);
    }
  }
}

std::vector<std::pair<std::string, const toml::node*>> flat_entries(const toml::table& table) {
  std::vector<std::pair<std::string, const toml::node*>> entries;
  flatten(table, "", entries);
  std::stable_sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
    const auto& pa = a.second->source().begin;
    const auto& pb = b.second->source().begin;
    return std::tie(pa.line, pa.column) < std::tie(pb.line, pb.column);
  });
  return entries;
}

// A folder name from a label: letters, digits and . _ = + - kept, anything else becomes _.
std::string path_component(const std::string& text) {
  std::string out;
  for (char c : text) {
    const bool keep = std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '_' ||
                      c == '=' || c == '+' || c == '-';
    out += keep ? c : '_';
  }
  if (out.empty() || out == "." || out == "..") out = "_" + out;
  return out;
}

struct Dimension {
  std::string name;
  // Each value: its label, and the KEY=VALUE overrides it brings.
  std::vector<std::pair<std::string, std::vector<std::string>>> values;
};

// "{model}/n{workers}/{config}/seed{seed}" with the point's labels filled in.
std::string expand_dir(const std::string& source, const std::string& pattern,
                       const std::map<std::string, std::string>& labels) {
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '{') {
      out += pattern[i];
      continue;
    }
    const size_t close = pattern.find('}', i);
    if (close == std::string::npos) fail(source, "dir = \"" + pattern + "\" has an unclosed {");
    const std::string name = pattern.substr(i + 1, close - i - 1);
    auto it = labels.find(name);
    if (it == labels.end()) {
      std::string known;
      for (const auto& [dimension, value] : labels)
        known += (known.empty() ? "" : ", ") + dimension;
      fail(source, fmt::format("dir uses {{{}}}, which is not a dimension of this sweep ({})", name,
                               known));
    }
    out += path_component(it->second);
    i = close;
  }
  return out;
}

// A config key every point sets (in [set], [grid] or its [[configs]] entry) as a report
// dimension of its own: each point gets the label key = its value (strings without quotes), and
// the key joins spec.dimensions after the others. So a sweep of named configurations can be
// tabled and plotted by, say, algo against workers. False, changing nothing, when a point does
// not set the key.
bool label_by_key(SweepSpec& spec, const std::string& key) {
  std::vector<std::string> values;
  for (const SweepPoint& point : spec.points) {
    std::optional<std::string> value;
    for (const std::string& o : point.overrides) {
      const size_t equals = o.find('=');
      if (equals != std::string::npos && o.compare(0, equals, key) == 0 && equals == key.size()) {
        value = o.substr(equals + 1);
      }
    }
    if (!value) return false;
    if (value->size() >= 2 && value->front() == '\'' && value->back() == '\'') {
      *value = value->substr(1, value->size() - 2);
    }
    values.push_back(*value);
  }
  for (size_t i = 0; i < spec.points.size(); ++i)
    spec.points[i].labels.emplace_back(key, values[i]);
  spec.dimensions.push_back(key);
  spec.report.key_dimensions.push_back(key);
  return true;
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

  // Keys every point sets, and which part of the spec set each (to refuse setting one twice).
  std::vector<std::string> common;
  std::map<std::string, std::string> set_by;
  auto claim = [&](const std::string& key, const std::string& where) {
    auto [it, fresh] = set_by.emplace(key, where);
    if (!fresh && it->second != where) {
      fail(source, fmt::format("'{}' is set both in {} and in {}", key, it->second, where));
    }
  };
  if (const toml::table* set = table_at("set")) {
    for (const auto& [key, node] : flat_entries(*set)) {
      claim(key, "[set]");
      common.push_back(key + "=" + toml_text(*node));
    }
  }

  std::vector<Dimension> dimensions;
  if (const toml::table* grid = table_at("grid")) {
    for (const auto& [key, node] : flat_entries(*grid)) {
      const toml::array* values = node->as_array();
      if (values == nullptr) {
        fail(source, fmt::format("grid.{} must be a list of values, e.g. {} = [1, 2]", key, key));
      }
      if (values->empty())
        fail(source, fmt::format("grid.{} is empty: give it at least one value", key));
      claim(key, "[grid]");
      Dimension dimension{key, {}};
      for (const toml::node& value : *values) {
        if (value.is_table() || value.is_array()) {
          fail(source, fmt::format("grid.{}: each value must be a number, string or boolean", key));
        }
        dimension.values.push_back({label_text(value), {key + "=" + toml_text(value)}});
      }
      dimensions.push_back(std::move(dimension));
    }
  }
  if (const toml::node* configs_node = root.get("configs")) {
    const toml::array* configs = configs_node->as_array();
    if (configs == nullptr || !configs->is_array_of_tables()) {
      fail(source, "configs must be a list of tables ([[configs]] with a name and settings)");
    }
    if (configs->empty()) fail(source, "configs is empty");
    Dimension dimension{"config", {}};
    std::set<std::string> names;
    for (const toml::node& entry : *configs) {
      std::string name;
      std::vector<std::string> overrides;
      for (const auto& [key, node] : flat_entries(*entry.as_table())) {
        if (key == "name") {
          if (!node->is_string()) fail(source, "a configs entry's name must be a string");
          name = node->as_string()->get();
          continue;
        }
        claim(key, "[[configs]]");
        overrides.push_back(key + "=" + toml_text(*node));
      }
      if (name.empty()) {
        for (const auto& o : overrides) name += (name.empty() ? "" : " ") + o;
      }
      if (name.empty()) fail(source, "a configs entry has neither a name nor settings");
      if (!names.insert(name).second) fail(source, "two configs are named '" + name + "'");
      dimension.values.push_back({name, overrides});
    }
    dimensions.push_back(std::move(dimension));
  }
  if (const toml::node* seeds_node = root.get("seeds")) {
    const toml::array* seeds = seeds_node->as_array();
    if (seeds == nullptr || seeds->empty() || !seeds->is_homogeneous(toml::node_type::integer)) {
      fail(source, "seeds must be a non-empty list of integers, e.g. seeds = [1, 2]");
    }
    claim("seed", "seeds");
    Dimension dimension{"seed", {}};
    for (const toml::node& seed : *seeds) {
      dimension.values.push_back({toml_text(seed), {"seed=" + toml_text(seed)}});
    }
    dimensions.push_back(std::move(dimension));
  }
  for (const auto& d : dimensions) spec.dimensions.push_back(d.name);

  std::string dir_pattern = string_at("dir", "");
  if (dir_pattern.empty()) {
    for (const auto& d : dimensions) {
      if (!dir_pattern.empty()) dir_pattern += "/";
      dir_pattern += d.name == "config" ? "{config}" : d.name + "={" + d.name + "}";
    }
    if (dir_pattern.empty()) dir_pattern = "run";
  }

  // Every combination, the first dimension outermost (the last one changes fastest).
  std::vector<size_t> index(dimensions.size(), 0);
  std::set<std::string> dirs;
  while (true) {
    SweepPoint point;
    point.overrides = common;
    std::map<std::string, std::string> labels;
    for (size_t d = 0; d < dimensions.size(); ++d) {
      const auto& [label, overrides] = dimensions[d].values[index[d]];
      point.labels.emplace_back(dimensions[d].name, label);
      labels[dimensions[d].name] = label;
      point.overrides.insert(point.overrides.end(), overrides.begin(), overrides.end());
    }
    point.dir = expand_dir(source, dir_pattern, labels);
    if (!dirs.insert(point.dir).second) {
      fail(source, fmt::format("two runs would share the folder '{}': dir = \"{}\" must use "
                               "every dimension that varies ({})",
                               point.dir, dir_pattern, fmt::join(spec.dimensions, ", ")));
    }
    spec.points.push_back(std::move(point));
    size_t d = dimensions.size();
    while (d > 0 && ++index[d - 1] == dimensions[d - 1].values.size()) index[--d] = 0;
    if (d == 0) break;
  }

  ReportLayout& layout = spec.report;
  layout.rows =
      std::find(spec.dimensions.begin(), spec.dimensions.end(), "config") != spec.dimensions.end()
          ? "config"
          : "";
  if (const toml::table* report = table_at("report")) {
    for (const auto& [key, node] : *report) {
      const std::string name(key.str());
      if (name == "target" && node.is_number()) {
        layout.target = *node.value<double>();
        continue;
      }
      if (!node.is_string()) fail(source, "report." + name + " must be a string");
      const std::string value = node.as_string()->get();
      if (name == "title") {
        layout.title = value;
      } else if (name == "notes") {
        layout.notes = value;
      } else if (name == "target") {
        layout.target_config = value;
      } else if (name == "rows" || name == "columns") {
        const bool known_dimension = std::find(spec.dimensions.begin(), spec.dimensions.end(),
                                               value) != spec.dimensions.end();
        if (value == "seed" || (!known_dimension && !label_by_key(spec, value))) {
          fail(source, fmt::format("report.{} = \"{}\" is neither a dimension of this sweep "
                                   "other than seed ({}) nor a config key every run sets",
                                   name, value, fmt::join(spec.dimensions, ", ")));
        }
        (name == "rows" ? layout.rows : layout.columns) = value;
      } else {
        fail(source,
             "unknown key report." + name + " (known: title, notes, rows, columns, target)");
      }
    }
  }
  if (!layout.columns.empty() && layout.columns == layout.rows) {
    fail(source, "report.rows and report.columns must be different dimensions");
  }
  if (!layout.target_config.empty()) {
    const bool found = std::any_of(spec.points.begin(), spec.points.end(), [&](const auto& p) {
      for (const auto& [dimension, value] : p.labels) {
        if (dimension == layout.rows && value == layout.target_config) return true;
      }
      return false;
    });
    if (!found) {
      fail(source, fmt::format("report.target = \"{}\" is not a value of the row dimension '{}' "
                               "(give an accuracy, or a {} of this sweep)",
                               layout.target_config, layout.rows, layout.rows));
    }
  }
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
