// The resolved configuration of one run: every key of the interface contract with its default,
// read from a TOML file plus `--set KEY=VALUE` overrides, validated once, and written back as the
// run folder's config.toml. The defaults are the embedded default job.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "algos/local_optimizer.h"
#include "algos/options.h"
#include "data/tokenizer.h"
#include "models/compute_format.h"
#include "train/collective_cost.h"
#include "train/config_choices.h"

namespace dsgd {

// The defaults are the default job: DANA-Slim with 8 simulated workers, lenet5-bn on
// Fashion-MNIST, 1-epoch warm-up and a cosine schedule over 4 epochs (docs/performance.md).
struct RunConfig {
  std::string algo = "dana-slim";
  EngineKind engine = EngineKind::kSim;  // ask mpi()
  int64_t workers = 8;                   // 1 when algo = "sgd" and workers is not set
  std::string model = "lenet5-bn";
  std::string dataset = "fashion-mnist";
  std::string data_dir;                 // empty: the dataset's default place
  int64_t image_size = 0;               // image folders: resize to this square size (0: keep)
  Augment augment = Augment::kDefault;  // the dataset's own, crop-flip or none
  std::vector<double> data_mean;        // per-channel normalisation (empty: the dataset's own)
  std::vector<double> data_std;
  // Token corpora and the language models that read them (data/token_corpus.h, models/
  // transformer.h): the context a model sees, how a text is tokenised, the vocabulary a run
  // recorded (its resume reads the text the same way), a prepared folder's vocabulary size, the
  // validation windows an evaluation reads (0: all), and the built-in transformer's sizes.
  int64_t seq_len = 256;
  Tokenizer tokenizer = Tokenizer::kCharacters;
  std::string vocabulary;
  int64_t vocabulary_size = 50257;
  int64_t eval_windows = 0;
  int64_t transformer_layers = 6;
  int64_t transformer_heads = 6;
  int64_t transformer_width = 384;
  double epochs = 4;
  int64_t batch_size = 128;
  double lr = 0.05;
  double momentum = 0.9;
  bool nesterov = false;
  // Where the learning rate sits: v ← γv + ηd, θ ← θ − v (true, the DANA paper's equations) or
  // v ← γv + d, θ ← θ − ηv (false, PyTorch's SGD). Equal at a constant rate.
  bool lr_in_velocity = true;
  double weight_decay = 0.0;
  // The optimizer of sgd and of synchronous learners (algos/local_optimizer.h): SGD (momentum,
  // nesterov, lr_in_velocity) or AdamW (adam.*, weight_decay decoupled).
  LocalOptimizerKind optimizer = LocalOptimizerKind::kSgd;
  double adam_beta1 = 0.9;
  double adam_beta2 = 0.999;
  double adam_eps = 1e-8;
  double grad_clip = 0.0;  // the optimizer's gradient clipped to this L2 norm first; 0: off
  LrScheduleKind lr_schedule = LrScheduleKind::kCosine;
  std::vector<double> lr_milestones;
  double lr_gamma = 0.1;
  double warmup_epochs = 1.0;
  LrScaling lr_scaling = LrScaling::kNone;  // sync family: linear multiplies lr by P, sqrt by √P
  bool stop_on_collapse = true;             // end a run whose loss stays at a uniform guess's
  int64_t seed = 1;
  int64_t cores = 0;         // of this host, for this run; 0: all (train/compute_plan.h)
  int64_t threads = 0;       // per model replica; 0: chosen (train/compute_plan.h)
  bool check_limits = true;  // hold resource keys against the host's cores (run/host_limits.h)
  double eval_every = 1.0;   // epochs between evaluations
  int64_t bn_batches = 20;   // training batches that re-estimate BatchNorm statistics
  DeviceKind device = DeviceKind::kCpu;
  // How the model computes (models/compute_format.h): the activations' layout, contiguous or
  // channels-last, and fp32 or bf16 mixed precision (weights, gradients and rule state fp32).
  // Nothing: "auto", the run chooses (models/format_choice.h).
  std::optional<MemoryFormat> memory_format = MemoryFormat::kContiguous;
  std::optional<Precision> precision = Precision::kFloat32;
  // Not a key: set by resume_config where the resume leaves `precision` to the run's record
  // ("auto" or not given). A recorded bf16 then continues in fp32 on a device that only emulates
  // bf16 (models/format_choice.h); a precision the resume names is kept as named.
  bool precision_from_record = false;

  // Simulator timing (async and sync families).
  double timing_shape = 100.0;        // gamma shape k: minibatch time ~ Gamma(k, B/k)
  std::vector<double> timing_speeds;  // per-worker speed factors (time divides by it)
  double timing_spread = 0.0;  // speeds spread evenly over [1 - s, 1 + s] when no list is given
  double timing_straggler_prob = 0.0;
  double timing_straggler_factor = 1.0;
  std::string timing_trace;         // replay this arrival order
  std::string timing_record_trace;  // write the arrival order here
  // Synchronous learners taking turns on shared cores (a cluster whose ranks share them sets it to
  // the step's stretch s): a round's compute is the larger of the draws' mean and their max / s,
  // the scheduler spreading the work, in place of the max.
  double timing_core_sharing = 1.0;
  // Seconds on the cluster's device per second this machine spends in a run's evaluations and
  // checkpoints (a cluster sets it: the device's step over the run's own); 0: not priced. The
  // metrics' predicted_wall is the training clock's seconds plus those seconds so priced.
  double timing_overhead_scale = 0.0;

  int64_t sim_replicas = 0;         // simulator: model replicas computing gradients (0: choose)
  int64_t gap_sample = 65536;       // coordinates the gap telemetry is estimated on (0: all)
  int64_t servers = 1;              // MPI: ranks that shard the asynchronous server's vector
  double mpi_hang_timeout = 300.0;  // MPI: seconds until a silent rank ends the job (0: never)

  // Synchronous family.
  // The all-reduce's algorithm: what the MPI engine's learners run and what a cluster prices;
  // nothing ("auto"): the MPI engine's default (ring) and the cluster's own.
  std::optional<AllreduceAlgorithm> allreduce;
  bool average_momentum = false;
  // Synchronous family: what happens to BatchNorm running statistics (docs/design/synchronous.md).
  BnPolicy bn_policy = BnPolicy::kAverage;
  // Simulated communication: an all-reduce among n learners of M bytes each takes
  // alpha + beta * 2(n-1)/n * M (ring volume), in the simulator's time unit (one sample's compute
  // time). The defaults read one sample as ~10 us: a node-local link of ~10 us latency and
  // ~100 GB/s inside groups, a ~100 us, ~1 GB/s network between them. The asynchronous server's
  // link is a global link: each push and each pull of M bytes takes alpha + beta * M / servers,
  // and messages queue for it (one queue in, one out).
  double comm_group_alpha = 1.0;
  double comm_group_beta = 1e-6;
  double comm_global_alpha = 10.0;
  double comm_global_beta = 1e-4;
  // Time in seconds (train/cluster.h): a named cluster prices compute and links, setting the
  // comm.* keys and the seconds of one simulated time unit when the run starts (config.toml keeps
  // the priced values, so a resume keeps them); seconds_per_unit alone turns sim_time into seconds.
  std::string cluster;         // "" for none
  std::string cluster_file;    // a table of one's own beside the built-in one
  std::string cluster_device;  // the device to price compute with, "" for the cluster's own
  double seconds_per_unit = 0.0;

  // The chosen algorithm's own keys (dc.lambda, hier.group_size, ...), as its registry entry
  // declares them (algos/catalog.h): every declared key, resolved to its value or default. The
  // one resolution: rules and plans are made from these values as they are.
  OptionValues algo_options;

  // Whether the run's workers are ranks, each its own process (engine = "mpi"), rather than
  // simulated in one.
  bool on_ranks() const { return runs_on_ranks(engine); }
};

// A config key's documentation, for `dsgd list keys` and error hints.
struct ConfigKeyInfo {
  std::string key;
  std::string type;
  std::string default_value;
  std::string help;
  std::string applies_to;             // "" for every algorithm, else e.g. "dc-asgd, dana-dc"
  bool may_change_on_resume = false;  // else `--resume` refuses a change (check_resume_changes)
};
std::vector<ConfigKeyInfo> config_keys();

// Builds the config: defaults, then the TOML file (if not empty), then each "KEY=VALUE" override
// in order. VALUE is read as a TOML value, and as a plain string when it is not one (so
// `--set algo=dana-zero` works unquoted). Throws ConfigError naming the key for unknown keys
// (with the closest valid name), wrong types, out-of-range values, and keys that belong to an
// algorithm other than the one chosen.
RunConfig load_config(const std::string& toml_path, const std::vector<std::string>& overrides);

// Parses TOML text (for tests and embedded configs) the same way.
RunConfig parse_config(const std::string& toml_text, const std::vector<std::string>& overrides);

// Refuses a resumed run's config that changes what the checkpoint was computed with: every key
// but those the key table marks as changeable on resume (its resume column, config_keys.cpp: the
// keys that only say how long to go on, how often to evaluate, and how to compute). An
// algorithm's own keys never change. The ConfigError names the key and both values.
void check_resume_changes(const RunConfig& original, const RunConfig& resumed);

// A resumed run keeps what was chosen when it started: where `resumed` says "auto" for a format (a
// sweep passes its points' keys again), the format the run recorded; the vocabulary a language
// model's run recorded, where `resumed` has none; where it names the run's cluster unpriced, the
// prices the run recorded (comm.*, timing.core_sharing and overhead_scale, seconds_per_unit and
// the middle levels' alpha and beta in hier.levels), measured on the machine it started on. A
// format or price named explicitly on resuming is a knowing change, and stands.
void keep_resolved_choices(const RunConfig& original, RunConfig& resumed);

// The config that continues the run in `run_dir`: its config.toml with `overrides`, checked by
// check_resume_changes, its compute format kept (keep_resolved_choices). The CLI's --resume and the
// Python module's resume both come here.
RunConfig resume_config(const std::string& run_dir, const std::vector<std::string>& overrides);

// The resolved config as TOML, every key present.
std::string to_toml(const RunConfig& config);

// The workers' speed factors: timing.speeds, or evenly spread over [1 − s, 1 + s] (s =
// timing.spread), worker 0 the slowest. What DyLU sizes local runs by (async_server.h), on either
// engine.
std::vector<double> worker_speeds(const RunConfig& config, int64_t workers);

}  // namespace dsgd
