// The run's config built from its parts: defaults, then the file's keys, then each `--set`, read
// through the codec (config_codec.h) into the member or algorithm value the key table names
// (config_keys.h), then validated and the algorithm's keys resolved (config_validation.h). Also
// the resume policy, applied from the table's resume column, and config.toml written back.
#include "train/config.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

#include "algos/catalog.h"
#include "core/errors.h"
#include "core/names.h"
#include "train/config_codec.h"
#include "train/config_keys.h"
#include "train/config_table.h"
#include "train/config_validation.h"

namespace dsgd {
namespace {

// Sets one key: a general key into `config`, an algorithm's key into `algorithm_values` (it is
// checked against the chosen algorithm once every key is read, since `algo` may come later).
void assign(RunConfig& config, OptionValues& algorithm_values, const std::string& key,
            const toml::node& node, std::set<std::string>& set_keys) {
  if (const AlgorithmKey* k = find_algorithm_key(key)) {
    read_option(k->spec, node, algorithm_values);
    set_keys.insert(key);
    return;
  }
  const KeySpec* s = find_spec(key);
  if (s == nullptr) {
    std::string suggestion = closest_name(key, all_keys());
    throw ConfigError("unknown config key '" + key + "'",
                      suggestion.empty()
                          ? "`dsgd list keys` shows every key"
                          : "did you mean '" + suggestion + "'? `dsgd list keys` shows every key");
  }
  s->read(config, node);
  set_keys.insert(key);
}

// The config from its layers, each later one over the earlier: the defaults, a file's table, a
// caller's table of keys (Python's dict), the `--set` overrides. A null table is an absent layer.
RunConfig build(const toml::table* file_table, const toml::table* key_table,
                const std::vector<std::string>& overrides) {
  RunConfig config;
  OptionValues algorithm_values;
  std::set<std::string> set_keys;
  for (const toml::table* table : {file_table, key_table}) {
    if (table == nullptr) continue;
    for (const auto& [key, node] : flatten(*table)) {
      assign(config, algorithm_values, key, *node, set_keys);
    }
  }
  for (const auto& override_text : overrides) {
    size_t eq = override_text.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw ConfigError("--set '" + override_text + "' is not KEY=VALUE",
                        "for example: --set lr=0.05");
    }
    const std::string key = override_text.substr(0, eq);
    const toml::table parsed = parse_set_value(override_text.substr(eq + 1));
    assign(config, algorithm_values, key, *parsed.get("v"), set_keys);
  }
  // The default worker count belongs to the distributed default job; sgd has one worker.
  if (set_keys.count("workers") == 0 &&
      find_algorithm(config.algo).family == AlgorithmFamily::kSingle) {
    config.workers = 1;
  }
  // The default momentum belongs to SGD; AdamW's is adam.beta1.
  if (set_keys.count("momentum") == 0 && config.optimizer == LocalOptimizerKind::kAdamw) {
    config.momentum = 0.0;
  }
  validate(config, set_keys);
  config.algo_options = resolve_algorithm_options(config, algorithm_values);
  return config;
}

// The config file's table; nothing for an empty path (the defaults alone).
std::optional<toml::table> read_config_file(const std::string& toml_path) {
  if (toml_path.empty()) return std::nullopt;
  std::ifstream in(toml_path);
  if (!in) {
    throw ConfigError(
        "cannot read config file '" + toml_path + "'",
        "check the path of the config file (`dsgd run -c FILE`, or config= in Python)");
  }
  std::stringstream text;
  text << in.rdbuf();
  return parse_toml(text.str(), toml_path);
}

RunConfig build_over(const toml::table& file, const std::vector<std::string>& overrides) {
  return build(&file, nullptr, overrides);
}

RunConfig build_over(const toml::table& file, const toml::table& keys) {
  return build(&file, &keys, {});
}

// The config that continues the run in `run_dir`, with `changes` (its config.toml with them) made:
// refused where they change what the checkpoint was computed with, its resolved choices kept.
template <class Changes>
RunConfig resume_with(const std::string& run_dir, const Changes& changes) {
  const std::string file = run_dir + "/config.toml";
  // Said before reading, so that the message is about the run folder, not -c's config file.
  if (!std::filesystem::is_regular_file(file)) {
    throw ConfigError(
        "'" + run_dir + "' is not a run folder: " +
            (std::filesystem::is_directory(run_dir) ? "it has no config.toml"
                                                    : "there is no such folder"),
        "give the folder a run wrote, the one holding config.toml and checkpoint.pt (`dsgd run` "
        "prints it as `results:`; a sweep's are <config>/seed<n>)");
  }
  toml::table recorded = *read_config_file(file);  // read once, for both configs
  const RunConfig original = build_over(recorded, std::vector<std::string>{});
  // The changes over the record with its precision left to "auto": what is still "auto" after
  // them, the resume did not name.
  recorded.insert_or_assign("precision", kAutoName);
  RunConfig config = build_over(recorded, changes);
  config.precision_from_record = !config.precision;
  // The choices first: what "auto" or a cluster resolved to is what the resume is compared with.
  keep_resolved_choices(original, config);
  check_resume_changes(original, config);
  return config;
}

}  // namespace

std::vector<ConfigKeyInfo> config_keys() {
  RunConfig defaults;
  std::vector<ConfigKeyInfo> keys;
  for (const auto& s : key_specs()) {
    keys.push_back({s.key, s.type, s.show(defaults), s.help, s.applies_to,
                    s.on_resume == OnResume::kMayChange});
  }
  // An algorithm's own keys define the rule a checkpoint holds: none may change on resume.
  for (const auto& k : algorithm_keys()) {
    keys.push_back({k.spec.key, type_name(k.spec.type), k.spec.default_text(), k.spec.help,
                    k.applies_to(), false});
  }
  return keys;
}

RunConfig parse_config(const std::string& toml_text, const std::vector<std::string>& overrides) {
  toml::table table = parse_toml(toml_text, "config");
  return build(&table, nullptr, overrides);
}

RunConfig load_config(const std::string& toml_path, const std::vector<std::string>& overrides) {
  const std::optional<toml::table> file = read_config_file(toml_path);
  return build(file ? &*file : nullptr, nullptr, overrides);
}

RunConfig load_config(const std::string& toml_path, const toml::table& keys) {
  const std::optional<toml::table> file = read_config_file(toml_path);
  return build(file ? &*file : nullptr, &keys, {});
}

void check_resume_changes(const RunConfig& original, const RunConfig& resumed) {
  auto refuse = [](const std::string& key, const std::string& before, const std::string& after) {
    throw ConfigError(fmt::format("--resume cannot change '{}': the run has {} = {}, the resume "
                                  "asks for {}",
                                  key, key, before, after),
                      "a checkpoint continues the run it came from; start a new run (--out) for "
                      "another " +
                          key);
  };
  for (const auto& s : key_specs()) {
    if (s.on_resume == OnResume::kFixed && s.show(original) != s.show(resumed)) {
      refuse(s.key, s.show(original), s.show(resumed));
    }
  }
  // An algorithm's own keys are all fixed: they define the rule the checkpoint holds.
  if (!(original.algo_options == resumed.algo_options)) {
    for (const auto& spec : find_algorithm(original.algo).options) {
      const std::string before = option_text(spec, original.algo_options);
      const std::string after = option_text(spec, resumed.algo_options);
      if (before != after) refuse(spec.key, before, after);
    }
  }
}

void keep_resolved_choices(const RunConfig& original, RunConfig& resumed) {
  if (!resumed.precision) resumed.precision = original.precision;
  if (!resumed.memory_format) resumed.memory_format = original.memory_format;
  // The vocabulary is the run's own record of how it read its text, never a sweep point's key.
  if (resumed.vocabulary.empty()) resumed.vocabulary = original.vocabulary;
  if (!resumed.cluster.empty() && resumed.cluster == original.cluster &&
      resumed.cluster_device == original.cluster_device && resumed.seconds_per_unit == 0) {
    resumed.seconds_per_unit = original.seconds_per_unit;
    resumed.comm_group_alpha = original.comm_group_alpha;
    resumed.comm_group_beta = original.comm_group_beta;
    resumed.comm_global_alpha = original.comm_global_alpha;
    resumed.comm_global_beta = original.comm_global_beta;
    resumed.timing_core_sharing = original.timing_core_sharing;
    resumed.timing_overhead_scale = original.timing_overhead_scale;
  }
  // The prices a cluster wrote into a deeper hierarchy's rows (hier.levels' alpha and beta), where
  // the resume names the same cluster and levels unpriced.
  const char* levels = "hier.levels";
  if (!resumed.cluster.empty() && resumed.cluster == original.cluster &&
      resumed.cluster_device == original.cluster_device && original.algo_options.has(levels) &&
      resumed.algo_options.has(levels)) {
    const OptionTable& priced = original.algo_options.table(levels);
    const OptionTable& asked = resumed.algo_options.table(levels);
    bool same = priced.size() == asked.size();
    for (size_t i = 0; same && i < priced.size(); ++i) {
      same = asked[i].size() == 2 && priced[i][0] == asked[i][0] && priced[i][1] == asked[i][1];
    }
    if (same) resumed.algo_options.set_table(levels, priced);
  }
}

RunConfig resume_config(const std::string& run_dir, const std::vector<std::string>& overrides) {
  return resume_with(run_dir, overrides);
}

RunConfig resume_config(const std::string& run_dir, const toml::table& keys) {
  return resume_with(run_dir, keys);
}

std::string to_toml(const RunConfig& config) {
  // Only the keys that belong to this algorithm, so that the file is valid input again.
  const AlgorithmInfo& algo = find_algorithm(config.algo);
  toml::table root;
  for (const auto& s : key_specs()) {
    if (s.belongs_to(algo)) s.write(config, root);
  }
  for (const auto& spec : algo.options) {
    write_option(root, spec, config.algo_options);
  }
  std::ostringstream out;
  out << root << '\n';
  return out.str();
}

std::vector<double> worker_speeds(const RunConfig& config, int64_t workers) {
  if (!config.timing_speeds.empty()) return config.timing_speeds;
  std::vector<double> speeds;
  for (int64_t i = 0; i < workers; ++i) {
    double position =
        workers == 1 ? 0.5 : static_cast<double>(i) / static_cast<double>(workers - 1);
    speeds.push_back(1.0 - config.timing_spread + 2.0 * config.timing_spread * position);
  }
  return speeds;
}

}  // namespace dsgd
