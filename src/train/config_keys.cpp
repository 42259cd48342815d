// The key table; see config_keys.h (the index of algorithm keys is algorithm_keys.cpp). Each row of
// key_specs() is spec(key, member, resume column, help, range check, family it belongs to, that
// family's name).
#include "train/config_keys.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "train/config_codec.h"

namespace dsgd {
namespace {

using Applies = std::function<bool(const AlgorithmInfo&)>;

// The resume column's values, short so that each row of the table states its own.
constexpr OnResume kFixed = OnResume::kFixed;
constexpr OnResume kMayChange = OnResume::kMayChange;

// The algorithms a key belongs to, and how `dsgd list keys` names them; {} for every algorithm.
struct Family {
  Applies applies;
  std::string name;
};

template <class T>
KeySpec spec(std::string key, T RunConfig::*member, OnResume on_resume, std::string help,
             std::function<std::string(const T&)> check = {}, Family family = {}) {
  KeySpec s;
  s.key = key;
  s.type = Codec<T>::type;
  s.help = std::move(help);
  s.on_resume = on_resume;
  s.read = [key, member](RunConfig& c, const toml::node& n) { c.*member = Codec<T>::read(key, n); };
  s.write = [key, member](const RunConfig& c, toml::table& t) { put_dotted(t, key, c.*member); };
  s.show = [member](const RunConfig& c) { return Codec<T>::show(c.*member); };
  if (check) s.check = [member, check](const RunConfig& c) { return check(c.*member); };
  s.applies = std::move(family.applies);
  s.applies_to = std::move(family.name);
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

bool is_multi_worker(const AlgorithmInfo& a) { return a.family != AlgorithmFamily::kSingle; }
bool uses_local_optimizer(const AlgorithmInfo& a) { return a.family != AlgorithmFamily::kAsync; }
bool is_async(const AlgorithmInfo& a) { return a.family == AlgorithmFamily::kAsync; }
bool is_sync(const AlgorithmInfo& a) { return a.family == AlgorithmFamily::kSync; }
const Family kMultiWorker{is_multi_worker, "multi-worker algorithms"};
const Family kAsyncFamily{is_async, "the asynchronous family"};
const Family kSyncFamily{is_sync, "the synchronous family"};
const Family kLocalOptimizer{uses_local_optimizer, "sgd and the synchronous family"};
bool takes_optimizer(const AlgorithmInfo& a) { return a.local_optimizer; }
const Family kOptimizerChoice{takes_optimizer,
                              "sgd, the synchronous family and asynchronous local SGD "
                              "(async-local-sgd, async-local-dn, dana-local)"};

}  // namespace

const std::vector<KeySpec>& key_specs() {
  static const std::vector<KeySpec> specs = {
      spec("algo", &RunConfig::algo, kFixed, "algorithm (see `dsgd list`)"),
      spec("engine", &RunConfig::engine, kFixed,
           "sim: simulated workers in one process; mpi: real processes"),
      spec("workers", &RunConfig::workers, kFixed,
           "N asynchronous workers, or P synchronous learners", int_at_least(1)),
      spec("model", &RunConfig::model, kFixed, "model (see `dsgd list`)"),
      spec("dataset", &RunConfig::dataset, kFixed, "dataset (see `dsgd list`)"),
      spec("data_dir", &RunConfig::data_dir, kMayChange,
           "folder holding the dataset's files (empty: default)"),
      spec("image_size", &RunConfig::image_size, kFixed,
           "image folders: resize every image to image_size x image_size (0: all must have the "
           "first one's size)",
           int_at_least(0)),
      spec("augment", &RunConfig::augment, kFixed,
           "training-batch augmentation: default (the dataset's own: crop-flip for CIFAR, none "
           "otherwise), crop-flip (pad 4, random crop, horizontal flip) or none"),
      spec("data.mean", &RunConfig::data_mean, kFixed,
           "per-channel mean to normalise with, in pixel/255 units for images (empty: the "
           "dataset's own, or the train split's for folders)"),
      spec("data.std", &RunConfig::data_std, kFixed,
           "per-channel standard deviation to normalise with (empty: as data.mean)"),
      spec("seq_len", &RunConfig::seq_len, kFixed,
           "token corpora: the tokens a language model sees at once (its context); each sample "
           "is a window of seq_len + 1 tokens",
           int_at_least(1)),
      spec("text.tokenizer", &RunConfig::tokenizer, kFixed,
           "text corpora: characters (the text's own characters, sorted, as nanoGPT's "
           "shakespeare_char) or bytes (256 ids); a folder with train.bin and val.bin is read as "
           "it is",
           std::function<std::string(const Tokenizer&)>([](const Tokenizer& t) -> std::string {
             return t == Tokenizer::kGiven ? "must be characters or bytes (\"given\" is what a "
                                             "prepared folder's tokens are, not a choice)"
                                           : "";
           })),
      spec("text.vocabulary", &RunConfig::vocabulary, kFixed,
           "the vocabulary a run recorded (written by the run; a resume reads the text with it); "
           "empty: made from the text"),
      spec("text.vocabulary_size", &RunConfig::vocabulary_size, kFixed,
           "a folder with train.bin and val.bin: every token id is below it (GPT-2's BPE: 50257)",
           int_at_least(2)),
      spec("text.eval_windows", &RunConfig::eval_windows, kMayChange,
           "token corpora: the validation windows each evaluation reads, from the start of the "
           "validation text (0: all of it)",
           int_at_least(0)),
      spec("transformer.layers", &RunConfig::transformer_layers, kFixed,
           "model = transformer: blocks of attention and MLP", int_at_least(1)),
      spec("transformer.heads", &RunConfig::transformer_heads, kFixed,
           "model = transformer: attention heads (they divide transformer.width)", int_at_least(1)),
      spec("transformer.width", &RunConfig::transformer_width, kFixed,
           "model = transformer: the embedding width (nanoGPT's n_embd)", int_at_least(1)),
      spec("epochs", &RunConfig::epochs, kMayChange,
           "training length in epochs (dataset size / B updates each)", at_least(0, false)),
      spec("batch_size", &RunConfig::batch_size, kFixed, "minibatch size B per worker",
           int_at_least(1)),
      spec("lr", &RunConfig::lr, kFixed, "learning rate η", at_least(0, false)),
      spec("momentum", &RunConfig::momentum, kFixed, "momentum γ", in_range(0, 1)),
      spec("nesterov", &RunConfig::nesterov, kFixed,
           "Nesterov momentum for sgd and sync learners (async: use nag-asgd or dana-*)", {},
           kLocalOptimizer),
      spec("lr_in_velocity", &RunConfig::lr_in_velocity, kFixed,
           "the rate inside every velocity, v = m*v + lr*d, theta -= v (the DANA paper's "
           "equations); false: v = m*v + d, theta -= lr*v, as PyTorch's SGD, the DANA authors' "
           "simulator and SlowMo's outer buffer; equal at a constant lr (yellowfin: "
           "yf.rate_in_velocity)"),
      spec("weight_decay", &RunConfig::weight_decay, kFixed,
           "weight decay λ (optimizer = adamw: decoupled, theta *= 1 - lr*λ)", at_least(0)),
      spec("optimizer", &RunConfig::optimizer, kFixed,
           "the optimizer of sgd, of each synchronous learner and of asynchronous local SGD's "
           "local steps: sgd (momentum, nesterov) or "
           "adamw (adam.beta1, adam.beta2, adam.eps; PyTorch's AdamW: DiLoCo's inner optimizer "
           "with kavg's outer.nesterov)",
           {}, kOptimizerChoice),
      spec("adam.beta1", &RunConfig::adam_beta1, kFixed,
           "optimizer = adamw: decay of the first moment m", in_range(0, 1), kOptimizerChoice),
      spec("adam.beta2", &RunConfig::adam_beta2, kFixed,
           "optimizer = adamw: decay of the second moment v", in_range(0, 1), kOptimizerChoice),
      spec("adam.eps", &RunConfig::adam_eps, kFixed,
           "optimizer = adamw: added to sqrt(v) in the denominator", at_least(0, false),
           kOptimizerChoice),
      spec("grad_clip", &RunConfig::grad_clip, kFixed,
           "clip the gradient the optimizer steps with to this L2 norm first, as "
           "torch.nn.utils.clip_grad_norm_ (0: off): each learner's or worker's own minibatch "
           "gradient, and SSGD's all-reduced one, as DDP clips it",
           at_least(0), kOptimizerChoice),
      spec("lr_schedule", &RunConfig::lr_schedule, kFixed, "constant, multistep or cosine"),
      spec("lr_milestones", &RunConfig::lr_milestones, kMayChange,
           "epochs where multistep multiplies lr by lr_gamma"),
      spec("lr_gamma", &RunConfig::lr_gamma, kMayChange, "multistep factor", at_least(0, false)),
      spec("warmup_epochs", &RunConfig::warmup_epochs, kFixed,
           "linear warm-up from lr/N to lr over this many epochs", at_least(0)),
      spec("lr_scaling", &RunConfig::lr_scaling, kFixed,
           "none; linear: lr (and the warm-up's end) times P learners, the warm-up starting "
           "from lr (Goyal et al. 2017); sqrt: lr times sqrt(P), the warm-up from lr/sqrt(P) "
           "(Krizhevsky 2014)",
           {}, kSyncFamily),
      spec(
          "stop_on_collapse", &RunConfig::stop_on_collapse, kMayChange,
          "end with status collapsed (exit 3) when the training loss of an evaluation period after "
          "the warm-up (its mean, metrics.csv's train_loss) is at least ln(classes) - 0.01"),
      spec("seed", &RunConfig::seed, kFixed, "seed of every random stream", int_at_least(0)),
      spec("cores", &RunConfig::cores, kMayChange,
           "the host's cores this run may use, which its threads and replicas stay within (0: "
           "all of them; `dsgd sweep` sets each run's share)",
           int_at_least(0)),
      spec("threads", &RunConfig::threads, kMayChange,
           "compute threads per model (0: by the model's work per step, up to every core; under "
           "MPI, the host's cores / its ranks)",
           int_at_least(0)),
      spec("check_limits", &RunConfig::check_limits, kMayChange,
           "refuse threads and sim.replicas x threads beyond 4 per core of this host (its CPU "
           "affinity and cgroup quota; `dsgd list keys` shows the host), and more servers than "
           "workers, before anything starts; false: run whatever the keys ask for"),
      spec("eval_every", &RunConfig::eval_every, kMayChange, "epochs between evaluations",
           at_least(0, false)),
      spec("bn_batches", &RunConfig::bn_batches, kMayChange,
           "training batches that re-estimate BatchNorm statistics before each evaluation (at "
           "most the training set's batches, or 20 on a smaller set)",
           int_at_least(0)),
      // Checkpoints hold host tensors (core/checkpoint.cpp): a run saved on a GPU resumes on a
      // CPU and the other way.
      spec("device", &RunConfig::device, kMayChange, "cpu or cuda"),
      // Neither changes the flat vectors a checkpoint holds (models/compute_format.h).
      // "auto" resolves when the run starts; the run's config.toml records the format chosen, so
      // that a resumed run keeps it (config.h: keep_resolved_choices).
      spec("memory_format", &RunConfig::memory_format, kMayChange,
           "layout of the activations: contiguous (NCHW), channels-last (NHWC, what oneDNN and "
           "GPU tensor cores prefer: faster convolutions; results differ by rounding), or auto: "
           "the faster of the two on this device, timed when the run starts (summary.json "
           "records the choice and the step times)"),
      spec("precision", &RunConfig::precision, kMayChange,
           "fp32; bf16: mixed precision, convolutions and matrix products in bfloat16 under "
           "autocast, the weights, gradients, every rule's state and the loss in float32 (fast "
           "on CPUs with AVX-512 BF16 or AMX and GPUs from compute capability 8.0; elsewhere "
           "about 15 times slower, and the run states the measured slow-down); or auto: bf16 "
           "where the device computes it natively and it is faster, else fp32"),
      spec("timing.shape", &RunConfig::timing_shape, kFixed,
           "gamma shape k of minibatch times (CV = 1/sqrt(k))", at_least(0, false), kMultiWorker),
      spec("timing.speeds", &RunConfig::timing_speeds, kFixed,
           "per-worker speed factors, one per worker", {}, kMultiWorker),
      spec("timing.spread", &RunConfig::timing_spread, kFixed,
           "speeds spread evenly over [1-s, 1+s]", in_range(0, 1), kMultiWorker),
      spec("timing.straggler_prob", &RunConfig::timing_straggler_prob, kFixed,
           "probability that a minibatch is a straggler", in_range(0, 1), kMultiWorker),
      spec("timing.straggler_factor", &RunConfig::timing_straggler_factor, kFixed,
           "slow-down factor of a straggler minibatch", at_least(1), kMultiWorker),
      spec("timing.core_sharing", &RunConfig::timing_core_sharing, kFixed,
           "synchronous learners sharing cores s times over (set by a cluster whose ranks share "
           "them): a round's compute lasts max(mean, max / s) of the learners' draws, not their "
           "max",
           at_least(1), kSyncFamily),
      spec("timing.overhead_scale", &RunConfig::timing_overhead_scale, kFixed,
           "seconds on the cluster's device per second of this machine's evaluations and "
           "checkpoints (set by a cluster: its device's step over the run's own; 0: not priced)",
           at_least(0)),
      spec("timing.trace", &RunConfig::timing_trace, kFixed,
           "replay the worker arrival order in this file", {}, kAsyncFamily),
      spec("timing.record_trace", &RunConfig::timing_record_trace, kMayChange,
           "record the arrival order to this file", {}, kAsyncFamily),
      spec("sim.replicas", &RunConfig::sim_replicas, kMayChange,
           "simulator: model replicas that compute workers' (or learners') gradients in parallel, "
           "each with `threads` compute threads; results are identical for every value (0: fill "
           "the cores left by threads, within half the free memory)",
           int_at_least(0), kMultiWorker),
      spec("gap_sample", &RunConfig::gap_sample, kMayChange,
           "coordinates the gap RMS is estimated on, evenly spaced (0: all; exact below 2x this)",
           int_at_least(0), kAsyncFamily),
      spec("servers", &RunConfig::servers, kFixed,
           "shards of the parameter server's vector: MPI ranks 0..S-1; in the simulator, S links "
           "that split each message",
           int_at_least(1), kAsyncFamily),
      spec(
          "mpi.hang_timeout", &RunConfig::mpi_hang_timeout, kMayChange,
          "MPI: seconds rank 0 waits for a rank that stopped answering (SIGSTOP, a lost host) "
          "before it ends the job with exit 4, naming it; half of it is spent waiting, half "
          "for an answer to a ping, so keep it above twice the longest step (0: wait forever, with "
          "blocking MPI calls)",
          at_least(0)),
      spec("allreduce", &RunConfig::allreduce, kFixed,
           "the learners' all-reduce: ring, tree (a binomial reduce, then broadcast) or "
           "halving-doubling (Rabenseifner's): what the MPI engine runs (Open MPI's non-blocking "
           "all-reduce) and what a cluster prices on the simulator; rank-order: dsgd's own "
           "reduce-scatter and all-gather, each element summed in rank order, so that an MPI run's "
           "means are the simulator's bit for bit (the ring's bytes); auto: the MPI engine's "
           "ring, the cluster's own `allreduce`",
           {}, kSyncFamily),
      spec("average_momentum", &RunConfig::average_momentum, kFixed,
           "also average the learners' optimizer state when averaging parameters (sgd: the "
           "momentum buffers; adamw: both moments)",
           {}, kSyncFamily),
      spec("bn_policy", &RunConfig::bn_policy, kFixed,
           "BatchNorm running statistics of synchronous learners: average (with the parameters "
           "at every averaging, and with the gradients in SSGD; evaluated as the learners' mean, "
           "then re-estimated when bn_batches > 0), local (never exchanged; evaluation uses "
           "learner 0's as they are, as PyTorch's model averagers leave them) or reestimate "
           "(never exchanged; recomputed for the averaged parameters from bn_batches training "
           "batches before each evaluation)",
           {}, kSyncFamily),
      spec("comm.group_alpha", &RunConfig::comm_group_alpha, kFixed,
           "latency of an in-group all-reduce (simulated time units)", at_least(0), kSyncFamily),
      spec("comm.group_beta", &RunConfig::comm_group_beta, kFixed,
           "in-group time per byte of ring all-reduce volume", at_least(0), kSyncFamily),
      spec("comm.global_alpha", &RunConfig::comm_global_alpha, kFixed,
           "latency of a global all-reduce, or of a push or pull on the async server's link "
           "(simulated time units)",
           at_least(0), kMultiWorker),
      spec("comm.global_beta", &RunConfig::comm_global_beta, kFixed,
           "time per byte of global ring all-reduce volume, or of an async push or pull",
           at_least(0), kMultiWorker),
      spec("cluster", &RunConfig::cluster, kFixed,
           "a named cluster (`dsgd list clusters`) that prices compute and every link in "
           "seconds: sets comm.* and seconds_per_unit when the run starts, and the metrics get a "
           "seconds column beside sim_time ('' for none)"),
      spec("cluster_device", &RunConfig::cluster_device, kFixed,
           "the device (`dsgd list clusters`) whose step prices the cluster's compute in place of "
           "the cluster's own, e.g. one fixed step for runs compared across machines ('' for the "
           "cluster's)"),
      spec("cluster_file", &RunConfig::cluster_file, kMayChange,
           "a TOML table of links, devices and clusters of one's own, in configs/clusters.toml's "
           "format, beside the built-in one"),
      spec("seconds_per_unit", &RunConfig::seconds_per_unit, kFixed,
           "seconds of one simulated time unit (a sample's mean compute): sim_time x this is the "
           "metrics' seconds column (0: none; a cluster sets it)",
           at_least(0)),
  };
  return specs;
}

const KeySpec* find_spec(const std::string& key) {
  for (const auto& s : key_specs()) {
    if (s.key == key) return &s;
  }
  return nullptr;
}

}  // namespace dsgd
