// Config keys as one table of typed specs: each spec knows its key, documentation, how to read
// and write its member, its range check and which family of algorithms it belongs to. Adding a
// key is one line in key_specs(); reading, writing, listing and errors follow from it. Keys of a
// single algorithm are not here: each algorithm declares its own (algos/options.h), and this
// module reads, checks, lists and writes them from the catalog without knowing any by name.
#include "train/config.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <toml++/toml.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "algos/catalog.h"
#include "core/errors.h"
#include "core/names.h"

namespace dsgd {
namespace {

using Applies = std::function<bool(const AlgorithmInfo&)>;

struct KeySpec {
  std::string key;
  std::string type;
  std::string help;
  std::function<void(RunConfig&, const toml::node&)> read;
  std::function<void(const RunConfig&, toml::table&)> write;
  std::function<std::string(const RunConfig&)> show;
  std::function<std::string(const RunConfig&)> check;  // "" when valid, else the reason
  Applies applies;                                     // empty: every algorithm
  std::string applies_to;                              // for the error message
};

std::string describe(const toml::node& node) {
  std::ostringstream out;
  if (node.is_string()) {
    out << '"' << node.value<std::string>().value_or("") << '"';
  } else {
    node.visit([&](auto&& v) { out << v; });
  }
  return out.str();
}

ConfigError type_error(const std::string& key, const std::string& type, const toml::node& node,
                       const std::string& example) {
  return ConfigError(fmt::format("config key '{}' must be {}, got {}", key, type, describe(node)),
                     fmt::format("for example: {} = {}", key, example));
}

// Typed reading and writing of one member.
template <class T>
struct Codec;

template <>
struct Codec<bool> {
  static constexpr const char* type = "a boolean";
  static bool read(const std::string& key, const toml::node& n) {
    if (!n.is_boolean()) throw type_error(key, type, n, "true");
    return *n.value<bool>();
  }
  static std::string show(bool v) { return v ? "true" : "false"; }
  static void put(toml::table& t, const std::string& k, bool v) { t.insert_or_assign(k, v); }
};

template <>
struct Codec<int64_t> {
  static constexpr const char* type = "an integer";
  static int64_t read(const std::string& key, const toml::node& n) {
    if (!n.is_integer()) throw type_error(key, type, n, "4");
    return *n.value<int64_t>();
  }
  static std::string show(int64_t v) { return std::to_string(v); }
  static void put(toml::table& t, const std::string& k, int64_t v) { t.insert_or_assign(k, v); }
};

template <>
struct Codec<double> {
  static constexpr const char* type = "a number";
  static double read(const std::string& key, const toml::node& n) {
    if (!n.is_number()) throw type_error(key, type, n, "0.1");
    return *n.value<double>();
  }
  static std::string show(double v) { return fmt::format("{}", v); }
  static void put(toml::table& t, const std::string& k, double v) { t.insert_or_assign(k, v); }
};

template <>
struct Codec<std::string> {
  static constexpr const char* type = "a string";
  static std::string read(const std::string& key, const toml::node& n) {
    if (!n.is_string()) throw type_error(key, type, n, "\"name\"");
    return *n.value<std::string>();
  }
  static std::string show(const std::string& v) { return '"' + v + '"'; }
  static void put(toml::table& t, const std::string& k, const std::string& v) {
    t.insert_or_assign(k, v);
  }
};

template <>
struct Codec<std::vector<double>> {
  static constexpr const char* type = "a list of numbers";
  static std::vector<double> read(const std::string& key, const toml::node& n) {
    const toml::array* array = n.as_array();
    if (array == nullptr) throw type_error(key, type, n, "[80, 120]");
    std::vector<double> values;
    for (const auto& item : *array) {
      if (!item.is_number()) throw type_error(key, type, n, "[80, 120]");
      values.push_back(*item.value<double>());
    }
    return values;
  }
  static std::string show(const std::vector<double>& v) {
    return fmt::format("[{}]", fmt::join(v, ", "));
  }
  static void put(toml::table& t, const std::string& k, const std::vector<double>& v) {
    toml::array array;
    for (double x : v) array.push_back(x);
    t.insert_or_assign(k, std::move(array));
  }
};

template <>
struct Codec<OptionTable> {
  static constexpr const char* type = "rows of numbers";
  static OptionTable read(const std::string& key, const toml::node& n) {
    const char* example = "[[4, 2], [16, 8]]";
    const toml::array* array = n.as_array();
    if (array == nullptr) throw type_error(key, type, n, example);
    OptionTable rows;
    for (const auto& item : *array) {
      const toml::array* row = item.as_array();
      if (row == nullptr) throw type_error(key, type, n, example);
      std::vector<double> numbers;
      for (const auto& x : *row) {
        if (!x.is_number()) throw type_error(key, type, n, example);
        numbers.push_back(*x.value<double>());
      }
      rows.push_back(std::move(numbers));
    }
    return rows;
  }
  static void put(toml::table& t, const std::string& k, const OptionTable& rows) {
    toml::array array;
    for (const auto& row : rows) {
      toml::array numbers;
      // Whole numbers as integers, so that the file reads back into integer columns.
      for (double x : row) {
        if (x == std::floor(x) && std::abs(x) < 9.0e15) {
          numbers.push_back(static_cast<int64_t>(x));
        } else {
          numbers.push_back(x);
        }
      }
      array.push_back(std::move(numbers));
    }
    t.insert_or_assign(k, std::move(array));
  }
};

// Writes `value` at a dotted path, creating intermediate tables.
template <class T>
void put_dotted(toml::table& root, const std::string& key, const T& value) {
  toml::table* table = &root;
  std::string rest = key;
  for (size_t dot; (dot = rest.find('.')) != std::string::npos;) {
    std::string part = rest.substr(0, dot);
    rest = rest.substr(dot + 1);
    if (!table->contains(part)) table->insert(part, toml::table{});
    table = (*table)[part].as_table();
  }
  Codec<T>::put(*table, rest, value);
}

template <class T>
KeySpec spec(std::string key, T RunConfig::*member, std::string help,
             std::function<std::string(const T&)> check = {}, Applies applies = {},
             std::string applies_to = "") {
  KeySpec s;
  s.key = key;
  s.type = Codec<T>::type;
  s.help = std::move(help);
  s.read = [key, member](RunConfig& c, const toml::node& n) { c.*member = Codec<T>::read(key, n); };
  s.write = [key, member](const RunConfig& c, toml::table& t) { put_dotted(t, key, c.*member); };
  s.show = [member](const RunConfig& c) { return Codec<T>::show(c.*member); };
  if (check) s.check = [member, check](const RunConfig& c) { return check(c.*member); };
  s.applies = std::move(applies);
  s.applies_to = std::move(applies_to);
  return s;
}

std::function<std::string(const double&)> at_least(double low, bool inclusive = true) {
  return [=](const double& v) -> std::string {
    if (!std::isfinite(v) || v < low || (!inclusive && v == low)) {
      return fmt::format("must be {} {}", inclusive ? ">=" : ">", low);
    }
    return "";
  };
}
std::function<std::string(const double&)> in_range(double low, double high_exclusive) {
  return [=](const double& v) -> std::string {
    if (!(v >= low && v < high_exclusive))
      return fmt::format("must be in [{}, {})", low, high_exclusive);
    return "";
  };
}
std::function<std::string(const int64_t&)> int_at_least(int64_t low) {
  return [=](const int64_t& v) -> std::string {
    return v < low ? fmt::format("must be >= {}", low) : "";
  };
}
std::function<std::string(const std::string&)> one_of(std::vector<std::string> names) {
  return [=](const std::string& v) -> std::string {
    for (const auto& n : names)
      if (n == v) return "";
    std::string suggestion = closest_name(v, names);
    return fmt::format("must be one of {}{}", fmt::join(names, ", "),
                       suggestion.empty() ? "" : " (did you mean '" + suggestion + "'?)");
  };
}

bool is_multi_worker(const AlgorithmInfo& a) { return a.family != AlgorithmFamily::kSingle; }
bool uses_local_optimizer(const AlgorithmInfo& a) { return a.family != AlgorithmFamily::kAsync; }
bool is_async(const AlgorithmInfo& a) { return a.family == AlgorithmFamily::kAsync; }
bool is_sync(const AlgorithmInfo& a) { return a.family == AlgorithmFamily::kSync; }

const std::vector<KeySpec>& key_specs() {
  static const std::vector<KeySpec> specs = {
      spec("algo", &RunConfig::algo, "algorithm (see `dsgd list`)"),
      spec("engine", &RunConfig::engine,
           "sim: simulated workers in one process; mpi: real processes", one_of({"sim", "mpi"})),
      spec("workers", &RunConfig::workers, "N asynchronous workers, or P synchronous learners",
           int_at_least(1)),
      spec("model", &RunConfig::model, "model (see `dsgd list`)"),
      spec("dataset", &RunConfig::dataset, "dataset (see `dsgd list`)"),
      spec("data_dir", &RunConfig::data_dir, "folder holding the dataset's files (empty: default)"),
      spec("image_size", &RunConfig::image_size,
           "image folders: resize every image to image_size x image_size (0: all must have the "
           "first one's size)",
           int_at_least(0)),
      spec("augment", &RunConfig::augment,
           "training-batch augmentation: default (the dataset's own: crop-flip for CIFAR, none "
           "otherwise), crop-flip (pad 4, random crop, horizontal flip) or none",
           one_of({"default", "crop-flip", "none"})),
      spec("data.mean", &RunConfig::data_mean,
           "per-channel mean to normalise with, in pixel/255 units for images (empty: the "
           "dataset's own, or the train split's for folders)"),
      spec("data.std", &RunConfig::data_std,
           "per-channel standard deviation to normalise with (empty: as data.mean)"),
      spec("epochs", &RunConfig::epochs,
           "training length in epochs (dataset size / B updates each)", at_least(0, false)),
      spec("batch_size", &RunConfig::batch_size, "minibatch size B per worker", int_at_least(1)),
      spec("lr", &RunConfig::lr, "learning rate η", at_least(0, false)),
      spec("momentum", &RunConfig::momentum, "momentum γ", in_range(0, 1)),
      spec("nesterov", &RunConfig::nesterov,
           "Nesterov momentum for sgd and sync learners (async: use nag-asgd or dana-*)", {},
           uses_local_optimizer, "sgd and the synchronous family"),
      spec("lr_in_velocity", &RunConfig::lr_in_velocity,
           "the rate inside every velocity, v = m*v + lr*d, theta -= v (the DANA paper's "
           "equations); false: v = m*v + d, theta -= lr*v, as PyTorch's SGD, the DANA authors' "
           "simulator and SlowMo's outer buffer; equal at a constant lr (yellowfin: "
           "yf.rate_in_velocity)"),
      spec("weight_decay", &RunConfig::weight_decay, "weight decay λ", at_least(0)),
      spec("lr_schedule", &RunConfig::lr_schedule, "constant, multistep or cosine",
           one_of({"constant", "multistep", "cosine"})),
      spec("lr_milestones", &RunConfig::lr_milestones,
           "epochs where multistep multiplies lr by lr_gamma"),
      spec("lr_gamma", &RunConfig::lr_gamma, "multistep factor", at_least(0, false)),
      spec("warmup_epochs", &RunConfig::warmup_epochs,
           "linear warm-up from lr/N to lr over this many epochs", at_least(0)),
      spec("lr_scaling", &RunConfig::lr_scaling,
           "none, or linear: lr (and the warm-up's end) times P learners, the warm-up starting "
           "from lr (Goyal et al. 2017)",
           one_of({"none", "linear"}), is_sync, "the synchronous family"),
      spec(
          "stop_on_collapse", &RunConfig::stop_on_collapse,
          "end with status collapsed (exit 3) when the training loss of an evaluation period after "
          "the warm-up (its mean, metrics.csv's train_loss) is at least ln(classes) - 0.01"),
      spec("seed", &RunConfig::seed, "seed of every random stream", int_at_least(0)),
      spec("threads", &RunConfig::threads,
           "compute threads per model (0: by the model's work per step, up to every core; under "
           "MPI, the host's cores / its ranks)",
           int_at_least(0)),
      spec("eval_every", &RunConfig::eval_every, "epochs between evaluations", at_least(0, false)),
      spec("bn_batches", &RunConfig::bn_batches,
           "training batches that re-estimate BatchNorm statistics before each evaluation",
           int_at_least(0)),
      spec("device", &RunConfig::device, "cpu or cuda", one_of({"cpu", "cuda"})),
      spec("timing.shape", &RunConfig::timing_shape,
           "gamma shape k of minibatch times (CV = 1/sqrt(k))", at_least(0, false), is_multi_worker,
           "multi-worker algorithms"),
      spec("timing.speeds", &RunConfig::timing_speeds, "per-worker speed factors, one per worker",
           {}, is_multi_worker, "multi-worker algorithms"),
      spec("timing.spread", &RunConfig::timing_spread, "speeds spread evenly over [1-s, 1+s]",
           in_range(0, 1), is_multi_worker, "multi-worker algorithms"),
      spec("timing.straggler_prob", &RunConfig::timing_straggler_prob,
           "probability that a minibatch is a straggler", in_range(0, 1), is_multi_worker,
           "multi-worker algorithms"),
      spec("timing.straggler_factor", &RunConfig::timing_straggler_factor,
           "slow-down factor of a straggler minibatch", at_least(1), is_multi_worker,
           "multi-worker algorithms"),
      spec("timing.trace", &RunConfig::timing_trace, "replay the worker arrival order in this file",
           {}, is_async, "the asynchronous family"),
      spec("timing.record_trace", &RunConfig::timing_record_trace,
           "record the arrival order to this file", {}, is_async, "the asynchronous family"),
      spec("sim.replicas", &RunConfig::sim_replicas,
           "simulator: model replicas that compute workers' (or learners') gradients in parallel, "
           "each with `threads` compute threads; results are identical for every value (0: fill "
           "the cores left by threads, within half the free memory)",
           int_at_least(0), is_multi_worker, "multi-worker algorithms"),
      spec("gap_sample", &RunConfig::gap_sample,
           "coordinates the gap RMS is estimated on, evenly spaced (0: all; exact below 2x this)",
           int_at_least(0), is_async, "the asynchronous family"),
      spec("servers", &RunConfig::servers,
           "shards of the parameter server's vector: MPI ranks 0..S-1; in the simulator, S links "
           "that split each message",
           int_at_least(1), is_async, "the asynchronous family"),
      spec(
          "mpi.hang_timeout", &RunConfig::mpi_hang_timeout,
          "MPI: seconds rank 0 waits for a rank that stopped answering (SIGSTOP, a lost host) "
          "before it ends the job with exit 4, naming it; half of it is spent waiting, half "
          "for an answer to a ping, so keep it above twice the longest step (0: wait forever, with "
          "blocking MPI calls)",
          at_least(0)),
      spec("average_momentum", &RunConfig::average_momentum,
           "also average momentum buffers when averaging parameters", {}, is_sync,
           "the synchronous family"),
      spec("bn_policy", &RunConfig::bn_policy,
           "BatchNorm running statistics of synchronous learners: average (with the parameters "
           "at every averaging, and with the gradients in SSGD; evaluated as the learners' mean, "
           "then re-estimated when bn_batches > 0), local (never exchanged; evaluation uses "
           "learner 0's as they are, as PyTorch's model averagers leave them) or reestimate "
           "(never exchanged; recomputed for the averaged parameters from bn_batches training "
           "batches before each evaluation)",
           one_of({"average", "local", "reestimate"}), is_sync, "the synchronous family"),
      spec("comm.group_alpha", &RunConfig::comm_group_alpha,
           "latency of an in-group all-reduce (simulated time units)", at_least(0), is_sync,
           "the synchronous family"),
      spec("comm.group_beta", &RunConfig::comm_group_beta,
           "in-group time per byte of ring all-reduce volume", at_least(0), is_sync,
           "the synchronous family"),
      spec("comm.global_alpha", &RunConfig::comm_global_alpha,
           "latency of a global all-reduce, or of a push or pull on the async server's link "
           "(simulated time units)",
           at_least(0), is_multi_worker, "multi-worker algorithms"),
      spec("comm.global_beta", &RunConfig::comm_global_beta,
           "time per byte of global ring all-reduce volume, or of an async push or pull",
           at_least(0), is_multi_worker, "multi-worker algorithms"),
  };
  return specs;
}

// Every key some algorithm declares, once, with the algorithms that declare it.
struct AlgorithmKey {
  OptionSpec spec;
  std::vector<std::string> algorithms;
  std::string applies_to() const { return fmt::format("{}", fmt::join(algorithms, ", ")); }
};

const std::vector<AlgorithmKey>& algorithm_keys() {
  static const std::vector<AlgorithmKey> keys = [] {
    std::vector<AlgorithmKey> all;
    for (const auto& algorithm : algorithm_catalog()) {
      for (const auto& spec : algorithm.options) {
        auto same = std::find_if(all.begin(), all.end(),
                                 [&](const AlgorithmKey& k) { return k.spec.key == spec.key; });
        if (same == all.end()) {
          all.push_back({spec, {algorithm.name}});
        } else {
          same->algorithms.push_back(algorithm.name);
        }
      }
    }
    return all;
  }();
  return keys;
}

const AlgorithmKey* find_algorithm_key(const std::string& key) {
  for (const auto& k : algorithm_keys()) {
    if (k.spec.key == key) return &k;
  }
  return nullptr;
}

const char* type_name(OptionType type) {
  switch (type) {
    case OptionType::kBoolean:
      return Codec<bool>::type;
    case OptionType::kInteger:
      return Codec<int64_t>::type;
    case OptionType::kTable:
      return Codec<OptionTable>::type;
    case OptionType::kNumber:
      break;
  }
  return Codec<double>::type;
}

void read_option(const OptionSpec& spec, const toml::node& node, OptionValues& values) {
  switch (spec.type) {
    case OptionType::kBoolean:
      values.set(spec.key, Codec<bool>::read(spec.key, node) ? 1.0 : 0.0);
      return;
    case OptionType::kInteger:
      values.set(spec.key, static_cast<double>(Codec<int64_t>::read(spec.key, node)));
      return;
    case OptionType::kTable:
      values.set_table(spec.key, Codec<OptionTable>::read(spec.key, node));
      return;
    case OptionType::kNumber:
      values.set(spec.key, Codec<double>::read(spec.key, node));
      return;
  }
}

void write_option(toml::table& root, const OptionSpec& spec, const OptionValues& values) {
  if (spec.type == OptionType::kTable) {
    put_dotted(root, spec.key, values.table(spec.key));
    return;
  }
  const double value = values.number(spec.key);
  switch (spec.type) {
    case OptionType::kBoolean:
      put_dotted(root, spec.key, value != 0.0);
      return;
    case OptionType::kInteger:
      put_dotted(root, spec.key, static_cast<int64_t>(value));
      return;
    case OptionType::kNumber:
    case OptionType::kTable:
      put_dotted(root, spec.key, value);
      return;
  }
}

const KeySpec* find_spec(const std::string& key) {
  for (const auto& s : key_specs()) {
    if (s.key == key) return &s;
  }
  return nullptr;
}

// Flattens nested tables into dotted keys.
void flatten(const toml::table& table, const std::string& prefix,
             std::vector<std::pair<std::string, const toml::node*>>& out) {
  for (auto&& [k, v] : table) {
    std::string key = prefix.empty() ? std::string(k.str()) : prefix + "." + std::string(k.str());
    if (const toml::table* sub = v.as_table()) {
      flatten(*sub, key, out);
    } else {
      out.emplace_back(key, &v);
    }
  }
}

std::vector<std::string> all_keys() {
  std::vector<std::string> keys;
  for (const auto& s : key_specs()) keys.push_back(s.key);
  for (const auto& k : algorithm_keys()) keys.push_back(k.spec.key);
  return keys;
}

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

toml::table parse_toml(const std::string& text, const std::string& source) {
  try {
    return toml::parse(text, source);
  } catch (const toml::parse_error& e) {
    throw ConfigError(fmt::format("{}:{}:{}: malformed TOML: {}", source, e.source().begin.line,
                                  e.source().begin.column, e.description()),
                      "fix the syntax; strings need quotes, e.g. algo = \"dana-slim\"");
  }
}

void validate(const RunConfig& c, const std::set<std::string>& set_keys) {
  for (const auto& s : key_specs()) {
    if (!s.check) continue;
    std::string problem = s.check(c);
    if (!problem.empty()) {
      throw ConfigError(fmt::format("config key '{}' = {} {}", s.key, s.show(c), problem),
                        s.key + ": " + s.help);
    }
  }
  const AlgorithmInfo& algo = find_algorithm(c.algo);
  for (const auto& key : set_keys) {
    const KeySpec* s = find_spec(key);
    if (s != nullptr && s->applies && !s->applies(algo)) {
      throw ConfigError(fmt::format("config key '{}' applies to {}, not to algo = \"{}\"", key,
                                    s->applies_to, c.algo),
                        "remove it, or choose an algorithm it belongs to");
    }
  }
  if (algo.family == AlgorithmFamily::kSingle && c.workers != 1) {
    throw ConfigError(fmt::format("algo = \"sgd\" trains one worker, but workers = {}", c.workers),
                      "use workers = 1, or a distributed algorithm (e.g. dana-slim, hier-avg)");
  }
  for (size_t i = 0; i < c.lr_milestones.size(); ++i) {
    if (c.lr_milestones[i] <= 0 || (i > 0 && c.lr_milestones[i] <= c.lr_milestones[i - 1])) {
      throw ConfigError("config key 'lr_milestones' must be positive and increasing",
                        "for example: lr_milestones = [80, 120]");
    }
  }
  if (c.lr_schedule == "multistep" && c.lr_milestones.empty()) {
    throw ConfigError("lr_schedule = \"multistep\" needs lr_milestones",
                      "for example: lr_milestones = [80, 120]");
  }
  for (double s : c.data_std) {
    if (!(s > 0)) {
      throw ConfigError(fmt::format("data.std = {}: every value must be > 0", s),
                        "give the per-channel standard deviations, e.g. [0.247, 0.243, 0.261]");
    }
  }
  if (!c.timing_speeds.empty()) {
    if (static_cast<int64_t>(c.timing_speeds.size()) != c.workers) {
      throw ConfigError(fmt::format("timing.speeds has {} entries but workers = {}",
                                    c.timing_speeds.size(), c.workers),
                        "give one speed factor per worker");
    }
    for (double s : c.timing_speeds) {
      if (!(s > 0)) throw ConfigError("timing.speeds must all be > 0", "for example: [1, 1, 0.5]");
    }
  }
  if (c.bn_policy == "reestimate" && c.bn_batches == 0) {
    throw ConfigError("bn_policy = \"reestimate\" needs bn_batches > 0",
                      "set bn_batches (e.g. 20), or bn_policy = \"average\"");
  }
  if (c.engine == "mpi" && c.sim_replicas > 1) {
    throw ConfigError(
        "sim.replicas parallelises the simulator; an MPI run has a process per worker",
        "drop sim.replicas, or use engine = \"sim\"");
  }
  if (c.engine == "mpi" && c.device != "cpu") {
    // Debian's Open MPI is not CUDA-aware: handing it device pointers would crash, not train.
    throw ConfigError(
        "engine = \"mpi\" sends host memory; device = \"cuda\" is not supported with it",
        "use device = \"cpu\" with engine = \"mpi\", or engine = \"sim\" on the GPU");
  }
}

// The chosen algorithm's own keys: each one set must be declared by it; then every declared key
// resolved (defaults, ranges) and checked against the run's shape.
OptionValues resolve_algorithm_options(const RunConfig& c, const OptionValues& given) {
  const AlgorithmInfo& algo = find_algorithm(c.algo);
  for (const auto& key : given.keys()) {
    if (find_option(algo.options, key) == nullptr) {
      throw ConfigError(fmt::format("config key '{}' applies to {}, not to algo = \"{}\"", key,
                                    find_algorithm_key(key)->applies_to(), c.algo),
                        "remove it, or choose an algorithm it belongs to");
    }
  }
  OptionValues resolved = resolve_options(algo.options, given);
  if (algo.check) algo.check(resolved, c.workers, c.engine == "mpi");
  return resolved;
}

RunConfig build(const toml::table* file_table, const std::vector<std::string>& overrides) {
  RunConfig config;
  OptionValues algorithm_values;
  std::set<std::string> set_keys;
  if (file_table != nullptr) {
    std::vector<std::pair<std::string, const toml::node*>> entries;
    flatten(*file_table, "", entries);
    for (const auto& [key, node] : entries) assign(config, algorithm_values, key, *node, set_keys);
  }
  for (const auto& override_text : overrides) {
    size_t eq = override_text.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw ConfigError("--set '" + override_text + "' is not KEY=VALUE",
                        "for example: --set lr=0.05");
    }
    std::string key = override_text.substr(0, eq);
    std::string value = override_text.substr(eq + 1);
    toml::table parsed;
    try {
      parsed = toml::parse("v = " + value);
    } catch (const toml::parse_error&) {
      parsed = toml::table{{"v", value}};  // a bare word: take it as a string
    }
    assign(config, algorithm_values, key, *parsed.get("v"), set_keys);
  }
  // The default worker count belongs to the distributed default job; sgd has one worker.
  if (set_keys.count("workers") == 0 &&
      find_algorithm(config.algo).family == AlgorithmFamily::kSingle) {
    config.workers = 1;
  }
  validate(config, set_keys);
  config.algo_options = resolve_algorithm_options(config, algorithm_values);
  return config;
}

}  // namespace

std::vector<ConfigKeyInfo> config_keys() {
  RunConfig defaults;
  std::vector<ConfigKeyInfo> keys;
  for (const auto& s : key_specs()) {
    keys.push_back({s.key, s.type, s.show(defaults), s.help, s.applies_to});
  }
  for (const auto& k : algorithm_keys()) {
    keys.push_back(
        {k.spec.key, type_name(k.spec.type), k.spec.default_text(), k.spec.help, k.applies_to()});
  }
  return keys;
}

RunConfig parse_config(const std::string& toml_text, const std::vector<std::string>& overrides) {
  toml::table table = parse_toml(toml_text, "config");
  return build(&table, overrides);
}

RunConfig load_config(const std::string& toml_path, const std::vector<std::string>& overrides) {
  if (toml_path.empty()) return build(nullptr, overrides);
  std::ifstream in(toml_path);
  if (!in) {
    throw ConfigError("cannot read config file '" + toml_path + "'", "check the path given to -c");
  }
  std::stringstream text;
  text << in.rdbuf();
  toml::table table = parse_toml(text.str(), toml_path);
  return build(&table, overrides);
}

void check_resume_changes(const RunConfig& original, const RunConfig& resumed) {
  static const std::set<std::string> may_change = {
      "epochs",   "eval_every",          "lr_milestones",
      "lr_gamma", "stop_on_collapse",    "bn_batches",
      "threads",  "sim.replicas",        "gap_sample",
      "data_dir", "timing.record_trace", "mpi.hang_timeout"};
  auto refuse = [](const std::string& key, const std::string& before, const std::string& after) {
    throw ConfigError(fmt::format("--resume cannot change '{}': the run has {} = {}, the resume "
                                  "asks for {}",
                                  key, key, before, after),
                      "a checkpoint continues the run it came from; start a new run (--out) for "
                      "another " +
                          key);
  };
  for (const auto& s : key_specs()) {
    if (may_change.count(s.key) == 0 && s.show(original) != s.show(resumed)) {
      refuse(s.key, s.show(original), s.show(resumed));
    }
  }
  if (!(original.algo_options == resumed.algo_options)) {
    for (const auto& spec : find_algorithm(original.algo).options) {
      const std::string before = option_text(spec, original.algo_options);
      const std::string after = option_text(spec, resumed.algo_options);
      if (before != after) refuse(spec.key, before, after);
    }
  }
}

std::string to_toml(const RunConfig& config) {
  // Only the keys that belong to this algorithm, so that the file is valid input again.
  const AlgorithmInfo& algo = find_algorithm(config.algo);
  toml::table root;
  for (const auto& s : key_specs()) {
    if (!s.applies || s.applies(algo)) s.write(config, root);
  }
  for (const auto& spec : algo.options) {
    write_option(root, spec, config.algo_options);
  }
  std::ostringstream out;
  out << root << '\n';
  return out.str();
}

}  // namespace dsgd
