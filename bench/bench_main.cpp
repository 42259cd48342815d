// Benchmarks that print ratios against a reference measured in the same run, so the figures
// mean the same on any machine. Run: build/dsgd_bench (add --benchmark_filter=... to select).
//   augment vs step        assembling an augmented CIFAR batch of 128 vs one ResNet-20 step
//   step pairs             dsgd's single-worker step vs a bare LibTorch loop, same batch, timed in
//                          alternation, in the default format and in channels-last fp32 and bf16;
//                          a TorchScript ResNet-20 vs the built-in; a simulated update vs a bare
//                          step
//   format pairs           the bare loop in channels-last vs contiguous, and bf16 vs fp32: what
//                          each compute format buys per model
//   replicas               simulated updates/s on the automatic plan vs the sequential simulator,
//                          and vs R replicas at the one-thread bare step rate
//   server update          each asynchronous rule's update vs a copy of the same 10M vector
//   group average          averaging 4 in-process learners' 10M vectors vs a copy and vs stack-mean
//   network model          a simulator run with links priced vs the same run with links free, at
//                          N = 256 async workers and P = 1024 sync learners
//   sweep overhead         `dsgd sweep` of 8 short runs (--jobs 1) vs the same 8 `dsgd run` calls
#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <stb/stb_image_write.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <thread>

#include "algos/async_rule.h"
#include "algos/catalog.h"
#include "algos/communicator.h"
#include "algos/local_adamw.h"
#include "algos/local_sgd.h"
#include "core/allocator.h"
#include "core/flat_model.h"
#include "core/host_staging.h"
#include "core/torch_compat.h"
#include "data/dataset.h"
#include "data/worker_stream.h"
#include "engine/sim/simulators.h"
#include "models/model.h"
#include "models/transformer.h"
#include "run/session.h"

namespace dsgd {
namespace {

constexpr int64_t kBatch = 128;
// oneDNN builds its kernels on first use: keep that out of the timed steps.
constexpr int kWarmupSteps = 3;

// The step benchmarks run on the GPU when LibTorch sees one (a CUDA build: scripts/gpu-check.sh),
// else on the CPU; a timed step on the GPU ends when the device has finished it.
const torch::Device kDevice = torch::cuda::is_available() ? torch::kCUDA : torch::kCPU;
const DeviceKind kDeviceKind = torch::cuda::is_available() ? DeviceKind::kCuda : DeviceKind::kCpu;
void finish_device_work() {
  if (kDevice.is_cuda()) torch::cuda::synchronize();
}

Batch random_batch(int64_t channels, int64_t size) {
  return {torch::randn({kBatch, channels, size, size}), torch::randint(0, 10, {kBatch})};
}

// The reference: the loop a LibTorch user writes by hand, in a compute format as PyTorch's
// tutorials write it: the batch converted to channels-last, and autocast switched on around the
// forward pass, its cache of bf16 weight copies emptied after it.
class BareLoop {
 public:
  BareLoop(const std::string& model_name, int64_t channels, int64_t size, ComputeFormat format = {})
      : net_((torch::manual_seed(0), make_model(model_name, {channels, size, size, 10}))),
        optimizer_((net_->to(kDevice), net_->parameters()),
                   torch::optim::SGDOptions(0.01).momentum(0.9)),
        batch_(random_batch(channels, size)),
        format_(format) {}
  // The batch is on the host, as dsgd's are: both loops copy it to the device in their step.
  void step() {
    optimizer_.zero_grad();
    torch::Tensor inputs = batch_.inputs.to(kDevice);
    if (format_.memory_format == MemoryFormat::kChannelsLast) {
      inputs = inputs.contiguous(torch::MemoryFormat::ChannelsLast);
    }
    const bool bf16 = format_.precision == Precision::kBFloat16;
    if (bf16) {
      compat::set_autocast_dtype(kDevice.type(), torch::kBFloat16);
      compat::set_autocast_enabled(kDevice.type(), true);
    }
    torch::Tensor logits = net_->forward(inputs);
    if (bf16) {
      compat::set_autocast_enabled(kDevice.type(), false);
      at::autocast::clear_cache();
    }
    auto loss =
        torch::nn::functional::cross_entropy(logits.to(torch::kFloat), batch_.labels.to(kDevice));
    loss.backward();
    optimizer_.step();
    finish_device_work();
  }

 private:
  std::shared_ptr<Model> net_;
  torch::optim::SGD optimizer_;
  Batch batch_;
  ComputeFormat format_;
};

const ComputeFormat kContiguousFp32{};
const ComputeFormat kChannelsLastFp32{MemoryFormat::kChannelsLast, Precision::kFloat32};
const ComputeFormat kChannelsLastBf16{MemoryFormat::kChannelsLast, Precision::kBFloat16};

DatasetPair synthetic_pair(int64_t train, int64_t test, int64_t channels, int64_t size) {
  DatasetPair data;
  data.train = make_synthetic(train, channels, size, size, 10, 1);
  data.test = make_synthetic(test, channels, size, size, 10, 2);
  data.normalization = {std::vector<float>(static_cast<size_t>(channels), 0.5f),
                        std::vector<float>(static_cast<size_t>(channels), 0.25f)};
  return data;
}

// dsgd's own single-worker step: Session::compute_gradient plus the flat optimizer, at `threads`.
class DsgdLoop {
 public:
  DsgdLoop(const std::string& model_name, int64_t channels, int64_t size, int64_t threads,
           ComputeFormat format = {})
      : session_(config(model_name, threads, format), synthetic_pair(1024, 256, channels, size)),
        optimizer_({0.9, false, 0.0}, session_.model().params()),
        batch_(random_batch(channels, size)) {}
  void step() {
    session_.compute_gradient(batch_);
    optimizer_.step(session_.model().params(), session_.model().grads(), 0.01);
    finish_device_work();
  }

 private:
  static RunConfig config(const std::string& model_name, int64_t threads,
                          const ComputeFormat& format) {
    RunConfig c;
    c.device = kDeviceKind;
    c.memory_format = format.memory_format;
    c.precision = format.precision;
    c.model = model_name;
    c.lr = 0.01;
    c.threads = threads;
    return c;
  }
  Session session_;
  LocalSgd optimizer_;
  Batch batch_;
};

const int64_t kCores = static_cast<int64_t>(std::max(1u, std::thread::hardware_concurrency()));

template <typename Step>
double seconds_of(Step&& step) {
  auto start = std::chrono::steady_clock::now();
  step();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The seconds of one step of a loop; a loop with its own set-up to leave out overloads it.
template <typename Loop>
double timed_step(Loop& loop) {
  return seconds_of([&] { loop.step(); });
}

// Two loops timed in alternation, one step of each per iteration, so that the machine's speed
// drifting during the run (it moved the bare step by 1.5x between runs here) hits both alike.
// Counters: each one's ms per step, and `ratio`, the median over iterations of measured /
// reference (a burst of load from elsewhere spoils one iteration, not the figure).
template <typename Reference, typename Measured>
void alternate(benchmark::State& state, Reference& reference, Measured& measured,
               int warmup_steps = kWarmupSteps) {
  for (int i = 0; i < warmup_steps; ++i) {
    timed_step(reference);
    timed_step(measured);
  }
  double reference_s = 0, measured_s = 0;
  std::vector<double> ratios;
  for (auto _ : state) {
    const double r = timed_step(reference), m = timed_step(measured);
    reference_s += r;
    measured_s += m;
    ratios.push_back(m / r);
  }
  const auto n = static_cast<double>(state.iterations());
  state.counters["reference_ms"] = reference_s / n * 1e3;
  state.counters["measured_ms"] = measured_s / n * 1e3;
  std::nth_element(ratios.begin(), ratios.begin() + ratios.size() / 2, ratios.end());
  state.counters["ratio"] = ratios[ratios.size() / 2];
}

// AdamW's step alone: LibTorch's torch::optim::AdamW over a model's parameter tensors (what a
// LibTorch user writes, a few kernels per tensor) against dsgd's LocalAdamW over one flat vector of
// as many parameters (a few kernels in all). The flat step refills its gradient each time (it
// uses it as scratch), which the reference does not need: counted against dsgd.
class TorchAdamWStep {
 public:
  explicit TorchAdamWStep(const std::string& model_name)
      : net_((torch::manual_seed(0), make_model(model_name, {3, 32, 32, 10}))),
        optimizer_((net_->to(kDevice), net_->parameters()),
                   torch::optim::AdamWOptions(1e-3).weight_decay(0.1)) {
    for (auto& p : net_->parameters()) p.mutable_grad() = torch::randn_like(p);
  }
  int64_t parameters() const {
    int64_t n = 0;
    for (const auto& p : net_->parameters()) n += p.numel();
    return n;
  }
  void step() {
    optimizer_.step();
    finish_device_work();
  }

 private:
  std::shared_ptr<Model> net_;
  torch::optim::AdamW optimizer_;
};

class FlatAdamWStep {
 public:
  explicit FlatAdamWStep(int64_t parameters)
      : theta_(torch::randn({parameters}, torch::TensorOptions().device(kDevice))),
        gradient_(torch::randn_like(theta_)),
        scratch_(torch::empty_like(theta_)),
        adamw_({0.9, 0.999, 1e-8, 0.1}, theta_) {}
  void step() {
    scratch_.copy_(gradient_);
    adamw_.step(theta_, scratch_, 1e-3, ++steps_);
    finish_device_work();
  }

 private:
  torch::Tensor theta_, gradient_, scratch_;
  LocalAdamW adamw_;
  int64_t steps_ = 0;
};

void BM_AdamWPair(benchmark::State& state, const std::string& model) {
  TorchAdamWStep torch_adamw(model);
  FlatAdamWStep flat(torch_adamw.parameters());
  alternate(state, torch_adamw, flat);
}

// A language model's step: nanoGPT's GPT at EXO Gym's "small" shape (4 layers, 4 heads, width
// 128) on windows of 64 characters (a 65-character vocabulary, as shakespeare_char), batch 32,
// with AdamW (DiLoCo's inner optimizer). The bare loop is what a LibTorch user writes:
// torch::optim::AdamW over the module's tensors and the loss over the flattened tokens.
constexpr int64_t kLmVocabulary = 65, kLmSeqLen = 64, kLmBatch = 32;
TransformerShape lm_shape() {
  TransformerShape shape;
  shape.vocabulary = kLmVocabulary;
  shape.seq_len = kLmSeqLen;
  shape.layers = 4;
  shape.heads = 4;
  shape.width = 128;
  return shape;
}
Batch random_token_batch() {
  const torch::Tensor window = torch::randint(0, kLmVocabulary, {kLmBatch, kLmSeqLen + 1});
  return {window.narrow(1, 0, kLmSeqLen).contiguous(), window.narrow(1, 1, kLmSeqLen).contiguous()};
}

class BareTransformerLoop {
 public:
  BareTransformerLoop()
      : net_((torch::manual_seed(0), make_transformer(lm_shape()))),
        optimizer_((net_->to(kDevice), net_->parameters()),
                   torch::optim::AdamWOptions(1e-3).weight_decay(0.1)),
        batch_(random_token_batch()) {}
  void step() {
    optimizer_.zero_grad();
    torch::Tensor logits = net_->forward(batch_.inputs.to(kDevice));
    auto loss = torch::nn::functional::cross_entropy(logits.view({-1, kLmVocabulary}),
                                                     batch_.labels.to(kDevice).view({-1}));
    loss.backward();
    optimizer_.step();
    finish_device_work();
  }

 private:
  std::shared_ptr<Model> net_;
  torch::optim::AdamW optimizer_;
  Batch batch_;
};

// dsgd's single-worker language-model step: the session's gradient (the task's loss) and the
// flat AdamW every learner of DiLoCo steps with.
class DsgdTransformerLoop {
 public:
  DsgdTransformerLoop()
      : session_(config(), corpus()),
        optimizer_({0.9, 0.999, 1e-8, 0.1}, session_.model().params()),
        batch_(random_token_batch()) {}
  void step() {
    session_.compute_gradient(batch_);
    optimizer_.step(session_.model().params(), session_.model().grads(), 1e-3, ++steps_);
    finish_device_work();
  }

 private:
  static RunConfig config() {
    RunConfig c;
    c.device = kDeviceKind;
    c.algo = "sgd";
    c.workers = 1;
    c.model = "transformer";
    c.dataset = "random tokens";
    c.seq_len = kLmSeqLen;
    c.batch_size = kLmBatch;
    c.transformer_layers = lm_shape().layers;
    c.transformer_heads = lm_shape().heads;
    c.transformer_width = lm_shape().width;
    c.threads = kCores;
    return c;
  }
  static DatasetPair corpus() {
    auto text = std::make_shared<TokenCorpus>();
    text->name = "random tokens";
    text->train = torch::randint(0, kLmVocabulary, {200000}, torch::kInt);
    text->validation = torch::randint(0, kLmVocabulary, {20000}, torch::kInt);
    text->vocabulary = {Tokenizer::kGiven, kLmVocabulary, {}};
    DatasetPair data;
    data.text = text;
    return data;
  }
  Session session_;
  LocalAdamW optimizer_;
  Batch batch_;
  int64_t steps_ = 0;
};

void BM_TransformerStepPair(benchmark::State& state) {
  torch::set_num_threads(static_cast<int>(kCores));
  BareTransformerLoop bare;
  DsgdTransformerLoop dsgd;
  alternate(state, bare, dsgd);
}

// dsgd's step against the bare loop in the same compute format, both at every core.
void BM_StepPair(benchmark::State& state, const std::string& model, int64_t channels, int64_t size,
                 ComputeFormat format = {}) {
  torch::set_num_threads(static_cast<int>(kCores));
  BareLoop bare(model, channels, size, format);
  DsgdLoop dsgd(model, channels, size, kCores, format);
  alternate(state, bare, dsgd);
}
// The bare loop in two formats: what the measured one buys over the reference (ratio < 1:
// faster).
void BM_FormatPair(benchmark::State& state, const std::string& model, int64_t channels,
                   int64_t size, ComputeFormat reference_format, ComputeFormat measured_format) {
  torch::set_num_threads(static_cast<int>(kCores));
  BareLoop reference(model, channels, size, reference_format);
  BareLoop measured(model, channels, size, measured_format);
  alternate(state, reference, measured);
}
// The same network as TorchScript (`/usr/bin/python3 examples/export_model.py --resnet20`
// writes it) against the built-in: what a user's own model costs per step.
void BM_TorchScriptPair_ResNet20(benchmark::State& state) {
  const std::string path = std::string(DSGD_SOURCE_DIR) + "/examples/resnet20.pt";
  if (!std::filesystem::exists(path)) {
    state.SkipWithError("no examples/resnet20.pt: run examples/export_model.py --resnet20 first");
    return;
  }
  DsgdLoop builtin("resnet20", 3, 32, kCores);
  DsgdLoop scripted(path, 3, 32, kCores);
  alternate(state, builtin, scripted);
}
// The bare loop on one thread: what "R replicas use every core" is measured against.
void BM_BareStepOneThread(benchmark::State& state, const std::string& model, int64_t channels,
                          int64_t size) {
  torch::set_num_threads(1);
  BareLoop bare(model, channels, size);
  for (int i = 0; i < kWarmupSteps; ++i) bare.step();
  for (auto _ : state) bare.step();
  torch::set_num_threads(static_cast<int>(kCores));
}

void BM_AugmentedCifarBatch(benchmark::State& state) {
  Dataset data = make_synthetic(50000, 3, 32, 32, 10, 1);
  Normalization norm{{0.4914f, 0.4822f, 0.4465f}, {0.2470f, 0.2435f, 0.2616f}};
  WorkerStream stream(data, norm, /*augment=*/true, kBatch, 1, 0);
  int64_t k = 0;
  for (auto _ : state) benchmark::DoNotOptimize(stream.batch(k++).inputs.data_ptr());
}

std::string bench_folder(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("dsgd_bench_" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

// An image folder of 32x32 colour PNGs, two classes, written once per bench run: its first-epoch
// decode rate (decoding is all that reading a folder does; epochs never decode again) and its
// augmented batch of 128 against a ResNet-20 step, as for CIFAR.
constexpr int kFolderImages = 2048;
const std::string& image_folder() {
  static const std::string dir = [] {
    const std::string root = bench_folder("image_folder");
    std::mt19937 rng(1);
    std::vector<unsigned char> pixels(32 * 32 * 3);
    for (int i = 0; i < kFolderImages; ++i) {
      for (auto& p : pixels) p = static_cast<unsigned char>(rng());
      const std::string split = i % 8 == 0 ? "test" : "train";
      const std::string folder = fmt::format("{}/{}/class{}", root, split, i % 2);
      std::filesystem::create_directories(folder);
      stbi_write_png(fmt::format("{}/{}.png", folder, i).c_str(), 32, 32, 3, pixels.data(), 96);
    }
    return root;
  }();
  return dir;
}
void BM_ImageFolderDecode(benchmark::State& state) {
  const std::string& dir = image_folder();
  for (auto _ : state) benchmark::DoNotOptimize(read_image_folder(dir).train.images.data_ptr());
  state.counters["images/s"] = benchmark::Counter(static_cast<double>(kFolderImages),
                                                  benchmark::Counter::kIsIterationInvariantRate);
}
void BM_ImageFolderBatch(benchmark::State& state) {
  const DatasetPair pair = read_image_folder(image_folder());
  WorkerStream stream(pair.train, pair.normalization, /*augment=*/true, kBatch, 1, 0);
  int64_t k = 0;
  for (auto _ : state) benchmark::DoNotOptimize(stream.batch(k++).inputs.data_ptr());
}

// Synthetic data for `updates` batches of one epoch, and a tiny test set: the closing evaluation
// is negligible.
DatasetPair simulator_data(int64_t updates, int64_t channels, int64_t size) {
  return synthetic_pair(updates * kBatch, 8, channels, size);
}

// Whole simulator runs; run() returns the seconds of the run itself, set-up (data, model, rules)
// not counted.
class SimulatorLoop {
 public:
  // A config built by hand: the algorithm's own keys are resolved here, as parse_config does.
  SimulatorLoop(RunConfig config, DatasetPair data)
      : config_(std::move(config)), data_(std::move(data)) {
    config_.algo_options =
        resolve_options(find_algorithm(config_.algo).options, config_.algo_options);
  }
  double run() {
    Session session(config_, data_);
    std::unique_ptr<Engine> simulator =
        find_algorithm(config_.algo).family == AlgorithmFamily::kSync
            ? make_sync_simulator(session)
            : make_async_simulator(session);
    plan_ = session.context().compute_plan();
    return seconds_of([&] {
      simulator->run();
      finish_device_work();
    });
  }
  const ComputePlan& plan() const { return plan_; }

 private:
  RunConfig config_;
  DatasetPair data_;
  ComputePlan plan_;
};
double timed_step(SimulatorLoop& loop) { return loop.run(); }

// Times whole simulator runs (manual time); returns the runs' compute plan.
ComputePlan time_simulator(benchmark::State& state, const RunConfig& config,
                           const DatasetPair& data) {
  SimulatorLoop loop(config, data);
  for (auto _ : state) state.SetIterationTime(loop.run());
  return loop.plan();
}

// The simulator's cost per server update, dana-zero or dana-slim with N = 32 on ResNet-20 at every
// core (or on the GPU): every update is one gradient (the same work as a bare step) plus the
// rule, the copies and the event queue. Each iteration is one run of kSimUpdates updates,
// alternated with as many bare steps.
constexpr int64_t kSimUpdates = 16;
void BM_SimUpdatePair(benchmark::State& state, const std::string& algo) {
  torch::set_num_threads(static_cast<int>(kCores));
  RunConfig config;
  config.device = kDeviceKind;
  config.algo = algo;
  config.workers = 32;
  config.model = "resnet20";
  config.bn_batches = 0;
  config.epochs = 1;
  config.threads = kCores;
  config.sim_replicas = 1;
  SimulatorLoop simulator(config, simulator_data(kSimUpdates, 3, 32));
  struct BareUpdates {
    BareLoop bare{"resnet20", 3, 32};
    void step() {
      for (int64_t i = 0; i < kSimUpdates; ++i) bare.step();
    }
  } bare;
  alternate(state, bare, simulator, /*warmup_steps=*/1);
}

// The simulators' cost with the network model on (links priced as a cluster prices them: a
// latency per message and a time per byte, the clock in seconds) against the same run with it off
// (every link free), at N = 256 asynchronous workers (dana-slim: every push and pull through the
// server link's queues) and P = 1024 synchronous learners (hier-avg, groups of 32: both levels'
// all-reduces priced), on the MLP with batches of 8 so that the clock's share is as large as a
// model lets it be. Each iteration is one whole run of each, alternated.
void BM_ClockPair(benchmark::State& state, const std::string& algo, int64_t workers,
                  int64_t rounds) {
  torch::set_num_threads(static_cast<int>(kCores));
  std::vector<std::string> keys = {"algo=" + algo,
                                   "workers=" + std::to_string(workers),
                                   std::string("device=") + enum_name(kDeviceKind),
                                   "model=mlp",
                                   "batch_size=8",
                                   "bn_batches=0",
                                   "epochs=1",
                                   "threads=" + std::to_string(kCores),
                                   "sim.replicas=1"};
  std::vector<std::string> free_links = {"comm.global_alpha=0", "comm.global_beta=0"};
  // Round prices of the order a cluster sets for this step (simulated units).
  std::vector<std::string> priced_links = {"comm.global_alpha=30", "comm.global_beta=1e-4",
                                           "seconds_per_unit=1e-4"};
  if (algo == "hier-avg") {
    keys.insert(keys.end(), {"hier.group_size=32", "hier.local_period=2", "hier.global_period=4"});
    free_links.insert(free_links.end(), {"comm.group_alpha=0", "comm.group_beta=0"});
    priced_links.insert(priced_links.end(), {"comm.group_alpha=3", "comm.group_beta=1e-5"});
  }
  auto with = [&](std::vector<std::string> more) {
    more.insert(more.begin(), keys.begin(), keys.end());
    return load_config("", more);
  };
  // One epoch of `rounds` rounds (sync) or `rounds` x workers updates (async).
  const DatasetPair data = synthetic_pair(rounds * workers * 8, 8, 1, 28);
  SimulatorLoop off(with(free_links), data);
  SimulatorLoop on(with(priced_links), data);
  alternate(state, off, on, /*warmup_steps=*/1);
}

// On a GPU: what an MPI rank adds to each exchange by going through pinned host buffers
// (core/host_staging.h): its message to the host, parameters back to the device. Argument: the
// floats per message. Registered only when a GPU is seen.
void BM_HostStagingRoundTrip(benchmark::State& state) {
  const int64_t floats = state.range(0);
  torch::Tensor on_device = torch::randn({floats}, torch::TensorOptions().device(kDevice));
  HostStaging staging(kDevice);
  torch::Tensor out_buffer, in_buffer;
  for (auto _ : state) {
    torch::Tensor host = staging.outgoing(on_device, out_buffer);
    torch::Tensor in = staging.incoming(on_device, in_buffer);
    in.copy_(host);  // MPI's part, on one host: a memcpy
    staging.arrived(in, on_device);
  }
  state.counters["staging_ms_per_message"] =
      benchmark::Counter(staging.seconds() * 1e3 / static_cast<double>(staging.copies()));
  state.counters["GB/s"] =
      benchmark::Counter(static_cast<double>(staging.bytes()) * 1e-9 / staging.seconds());
}

// On a GPU: the simulator's updates/s for dana-slim, N = 32, ResNet-20 with R replicas, each on
// a stream of its own (argument: R; 0 for the plan's choice). kStreamUpdates updates, so that the
// 32 gradients every worker computes before the first update weigh little.
constexpr int64_t kStreamUpdates = 256;
void BM_SimStreams(benchmark::State& state) {
  RunConfig config;
  config.device = kDeviceKind;
  config.algo = "dana-slim";
  config.workers = 32;
  config.model = "resnet20";
  config.bn_batches = 1;
  config.epochs = 1;
  config.sim_replicas = state.range(0);
  const ComputePlan plan = time_simulator(state, config, simulator_data(kStreamUpdates, 3, 32));
  state.counters["updates/s"] = benchmark::Counter(static_cast<double>(kStreamUpdates),
                                                   benchmark::Counter::kIsIterationInvariantRate);
  state.counters["replicas"] = static_cast<double>(plan.replicas);
}

// Simulated updates/s on the automatic plan (sim.replicas = 0, threads = 0) against the
// sequential simulator at every core (replicas 1, threads = cores): dana-zero, N = 16, synthetic
// data shaped like the model's dataset. Argument: 1 for the automatic plan.
void BM_SimReplicas(benchmark::State& state, const std::string& model, int64_t channels,
                    int64_t size, int64_t updates) {
  RunConfig config;
  config.algo = "dana-zero";
  config.workers = 16;
  config.model = model;
  config.epochs = 1;
  config.bn_batches = 1;
  const bool automatic = state.range(0) == 1;
  config.sim_replicas = automatic ? 0 : 1;
  config.threads = automatic ? 0 : kCores;
  const ComputePlan plan = time_simulator(state, config, simulator_data(updates, channels, size));
  state.counters["updates/s"] = benchmark::Counter(static_cast<double>(updates),
                                                   benchmark::Counter::kIsIterationInvariantRate);
  state.counters["replicas"] = static_cast<double>(plan.replicas);
  state.counters["threads"] = static_cast<double>(plan.threads);
}
constexpr int64_t kLeNetUpdates = 128;
constexpr int64_t kResNetUpdates = 16;

// A server rule's update over 10M elements (parameters_for + apply, N = 4) against a plain copy
// of the same vector: how close the rule comes to the memory bandwidth it must use.
constexpr int64_t kVector = 10'000'000;
void BM_VectorCopy10M(benchmark::State& state) {
  auto source = torch::randn({kVector});
  auto target = torch::empty({kVector});
  for (auto _ : state) target.copy_(source);
}
void BM_ServerUpdate10M(benchmark::State& state, const std::string& algo) {
  const AsyncAlgorithm& algorithm = find_async_algorithm(algo);
  AsyncOptions options;
  options.weight_decay = 1e-4;
  options = with_defaults(algorithm, options);
  auto theta0 = torch::randn({kVector});
  auto server = algorithm.make_server(options, theta0, 4);
  auto worker = algorithm.make_worker(options, 0, theta0);
  auto sent = torch::empty({kVector});
  auto gradient = torch::randn({kVector}) * 1e-3;
  int64_t i = 0;
  for (auto _ : state) {
    int64_t w = i++ % 4;
    server->parameters_for(w, sent);
    server->apply(w, w == 0 ? worker->message(gradient, sent, 0.01) : gradient, 0.01);
  }
}

// Averaging a 10M-element vector among a group of S in-process learners (what the simulator
// does at every Hier-AVG/K-AVG reduction). Its floor is reading and writing every member once,
// i.e. S copies of the vector; the plain LibTorch way (stack, mean, copy back) is the reference.
constexpr int64_t kGroup = 4;
std::vector<torch::Tensor> group_members() {
  std::vector<torch::Tensor> members;
  for (int64_t j = 0; j < kGroup; ++j) members.push_back(torch::randn({kVector}));
  return members;
}
void BM_GroupAverage10M(benchmark::State& state) {
  auto members = group_members();
  InProcessCommunicator communicator(kGroup, {kGroup});
  for (auto _ : state) communicator.average(0, members);
}
// A three-level hierarchy's round of averages on 8 learners (groups of 2, 4, then all 8): one
// average at each level, as a schedule's longest period brings. Each level reads and writes every
// member once, so the same bytes copied are the 8 members copied into 8 others, three times; that
// reference (BM_CopyEightMembers10M, 640 MB, far past any cache) is the floor. A single 10M copy
// is not: its 80 MB can sit in a large last-level cache.
constexpr int64_t kLevelLearners = 8;
void BM_CopyEightMembers10M(benchmark::State& state) {
  std::vector<torch::Tensor> sources, targets;
  for (int64_t j = 0; j < kLevelLearners; ++j) {
    sources.push_back(torch::randn({kVector}));
    targets.push_back(torch::empty({kVector}));
  }
  for (auto _ : state) {
    for (int64_t j = 0; j < kLevelLearners; ++j) targets[j].copy_(sources[j]);
  }
}
void BM_ThreeLevelAverages10M(benchmark::State& state) {
  std::vector<torch::Tensor> members;
  for (int64_t j = 0; j < kLevelLearners; ++j) members.push_back(torch::randn({kVector}));
  InProcessCommunicator communicator(kLevelLearners, {2, 4, kLevelLearners});
  for (auto _ : state) {
    for (size_t level = 0; level < communicator.levels(); ++level) {
      communicator.average(level, members);
    }
  }
}
void BM_GroupAverageStackMean10M(benchmark::State& state) {
  auto members = group_members();
  for (auto _ : state) {
    torch::Tensor mean = torch::stack(members).mean(0);
    for (auto& m : members) m.copy_(mean);
  }
}

// Eight short runs, one after another: as `dsgd run` calls, and as one `dsgd sweep --jobs 1`.
// What the sweep adds (planning, a child process per run, reading each summary) should be lost in
// the runs' own start-up and training.
// The settings of each short run, as TOML values.
const std::vector<std::pair<std::string, std::string>> kShortRun = {
    {"dataset", "'synthetic'"}, {"model", "'mlp'"},    {"batch_size", "16"},
    {"epochs", "0.5"},          {"eval_every", "0.5"}, {"threads", "1"}};
constexpr int kSweepRuns = 8;

void run_or_fail(benchmark::State& state, const std::string& command) {
  if (std::system((command + " > /dev/null 2>&1").c_str()) != 0) {
    state.SkipWithError(("failed: " + command).c_str());
  }
}

void BM_EightRuns(benchmark::State& state) {
  for (auto _ : state) {
    state.PauseTiming();
    const std::string dir = bench_folder("runs");
    state.ResumeTiming();
    for (int seed = 1; seed <= kSweepRuns; ++seed) {
      std::string command = std::string(DSGD_BINARY) + " run";
      for (const auto& [key, value] : kShortRun) command += " --set \"" + key + "=" + value + "\"";
      run_or_fail(state, command + fmt::format(" --set seed={} --out {}/seed{}", seed, dir, seed));
    }
  }
}

void BM_SweepOfEight(benchmark::State& state) {
  for (auto _ : state) {
    state.PauseTiming();
    const std::string dir = bench_folder("sweep");
    std::ofstream spec(dir + "/eight.toml");
    spec << "out = \"" << dir << "/out\"\n[set]\n";
    for (const auto& [key, value] : kShortRun) spec << key << " = " << value << "\n";
    spec << "[grid]\nseed = [1, 2, 3, 4, 5, 6, 7, 8]\n";
    spec.close();
    state.ResumeTiming();
    run_or_fail(state, std::string(DSGD_BINARY) + " sweep " + dir + "/eight.toml --jobs 1");
  }
}

BENCHMARK(BM_EightRuns)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);
BENCHMARK(BM_SweepOfEight)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);

BENCHMARK(BM_VectorCopy10M)->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK(BM_GroupAverage10M)->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK(BM_GroupAverageStackMean10M)->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK(BM_ThreeLevelAverages10M)->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK(BM_CopyEightMembers10M)->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK_CAPTURE(BM_ClockPair, dana_slim_n256, "dana-slim", 256, 4)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(7);
BENCHMARK_CAPTURE(BM_ClockPair, hier_avg_p1024, "hier-avg", 1024, 4)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3);
BENCHMARK_CAPTURE(BM_SimUpdatePair, dana_zero32_resnet20, "dana-zero")
    ->Unit(benchmark::kMillisecond)
    ->Iterations(7);
BENCHMARK_CAPTURE(BM_SimUpdatePair, dana_slim32_resnet20, "dana-slim")
    ->Unit(benchmark::kMillisecond)
    ->Iterations(7);
BENCHMARK(BM_AugmentedCifarBatch)->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK(BM_ImageFolderDecode)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_ImageFolderBatch)->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK_CAPTURE(BM_StepPair, resnet20, "resnet20", 3, 32)
    ->Unit(benchmark::kMillisecond)
    ->MinTime(10.0);
BENCHMARK_CAPTURE(BM_AdamWPair, resnet20, "resnet20")->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK(BM_TorchScriptPair_ResNet20)->Unit(benchmark::kMillisecond)->MinTime(10.0);
BENCHMARK(BM_TransformerStepPair)->Unit(benchmark::kMillisecond)->MinTime(10.0);
BENCHMARK_CAPTURE(BM_StepPair, lenet5_bn, "lenet5-bn", 1, 28)
    ->Unit(benchmark::kMillisecond)
    ->MinTime(4.0);
BENCHMARK_CAPTURE(BM_StepPair, resnet20_channels_last, "resnet20", 3, 32, kChannelsLastFp32)
    ->Unit(benchmark::kMillisecond)
    ->MinTime(10.0);
BENCHMARK_CAPTURE(BM_StepPair, resnet20_channels_last_bf16, "resnet20", 3, 32, kChannelsLastBf16)
    ->Unit(benchmark::kMillisecond)
    ->MinTime(10.0);

// Per model: channels-last against contiguous (both fp32), bf16 against fp32 (both
// channels-last), and the two together against the default.
void register_format_pairs() {
  struct Model {
    const char* label;
    const char* name;
    int64_t channels, size;
    double min_time;
  };
  struct Pair {
    const char* label;
    ComputeFormat reference, measured;
  };
  for (const Model& m : {Model{"resnet20", "resnet20", 3, 32, 10.0},
                         Model{"resnet20_proj", "resnet20-proj", 3, 32, 10.0},
                         Model{"lenet5_bn", "lenet5-bn", 1, 28, 4.0}}) {
    for (const Pair& p : {Pair{"channels_last", kContiguousFp32, kChannelsLastFp32},
                          Pair{"bf16", kChannelsLastFp32, kChannelsLastBf16},
                          Pair{"channels_last_bf16", kContiguousFp32, kChannelsLastBf16}}) {
      benchmark::RegisterBenchmark(fmt::format("BM_FormatPair/{}/{}", m.label, p.label).c_str(),
                                   BM_FormatPair, m.name, m.channels, m.size, p.reference,
                                   p.measured)
          ->Unit(benchmark::kMillisecond)
          ->MinTime(m.min_time);
    }
  }
}

// One server-update benchmark per asynchronous rule (a new rule is measured without a line
// here), named like the rule with '_' for '-'; and the replicas comparison per model.
void register_per_case_benchmarks() {
  if (kDevice.is_cuda()) {
    benchmark::RegisterBenchmark("BM_HostStagingRoundTrip", BM_HostStagingRoundTrip)
        ->Arg(272'474)     // ResNet-20
        ->Arg(11'689'512)  // ResNet-18
        ->Unit(benchmark::kMillisecond)
        ->MinTime(0.5);
    benchmark::RegisterBenchmark("BM_SimStreams", BM_SimStreams)
        ->Arg(1)
        ->Arg(2)
        ->Arg(4)
        ->Arg(8)
        ->Arg(0)
        ->Unit(benchmark::kMillisecond)
        ->UseManualTime()
        ->Iterations(1);
  }
  for (const AsyncAlgorithm& algorithm : async_algorithms()) {
    std::string label = algorithm.name;
    std::replace(label.begin(), label.end(), '-', '_');
    benchmark::RegisterBenchmark(("BM_ServerUpdate10M/" + label).c_str(), BM_ServerUpdate10M,
                                 algorithm.name)
        ->Unit(benchmark::kMillisecond)
        ->MinTime(1.0);
  }
  struct Model {
    const char* label;
    const char* name;
    int64_t channels, size, updates;
  };
  for (const Model& m : {Model{"lenet5_bn", "lenet5-bn", 1, 28, kLeNetUpdates},
                         Model{"resnet20", "resnet20", 3, 32, kResNetUpdates}}) {
    benchmark::RegisterBenchmark((std::string("BM_BareStepOneThread/") + m.label).c_str(),
                                 BM_BareStepOneThread, m.name, m.channels, m.size)
        ->Unit(benchmark::kMillisecond)
        ->MinTime(2.0);
    benchmark::RegisterBenchmark((std::string("BM_SimReplicas/") + m.label).c_str(), BM_SimReplicas,
                                 m.name, m.channels, m.size, m.updates)
        ->Arg(0)
        ->Arg(1)
        ->Unit(benchmark::kMillisecond)
        ->UseManualTime()
        ->Iterations(2);
  }
}

// Collects each benchmark's seconds per iteration and its counters, so main() can print ratios.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  // Colours only on a terminal: a reporter given to RunSpecifiedBenchmarks ignores
  // --benchmark_color, and escape codes in a log break `grep ^BM_` (scripts/gpu-check.sh).
  RatioReporter() : ConsoleReporter(::isatty(::fileno(stdout)) ? OO_ColorTabular : OO_Tabular) {}
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const auto& run : runs) {
      seconds[run.benchmark_name()] =
          run.GetAdjustedRealTime() / benchmark::GetTimeUnitMultiplier(run.time_unit);
      for (const auto& [name, counter] : run.counters) {
        counters[run.benchmark_name()][name] = counter.value;
      }
    }
  }
  // The first benchmark whose name starts with `prefix`.
  const std::map<std::string, double>* counters_of(const std::string& prefix) const {
    auto it = counters.lower_bound(prefix);
    return it != counters.end() && it->first.rfind(prefix, 0) == 0 ? &it->second : nullptr;
  }
  double seconds_of(const std::string& prefix) const {
    auto it = seconds.lower_bound(prefix);
    return it != seconds.end() && it->first.rfind(prefix, 0) == 0 ? it->second : 0.0;
  }
  std::map<std::string, double> seconds;
  std::map<std::string, std::map<std::string, double>> counters;
};

void print_ratio(const std::string& label, double ratio, const std::string& detail, double target,
                 const char* direction) {
  std::printf("RATIO %-40s %8.4f  (%s; target %s %.2f)\n", label.c_str(), ratio, detail.c_str(),
              direction, target);
}

// A ratio of two benchmarks' times (given by name prefix), when both ran.
void print_time_ratio(const RatioReporter& r, const std::string& label,
                      const std::string& numerator, const std::string& denominator, double target,
                      const char* direction) {
  const double n = r.seconds_of(numerator), d = r.seconds_of(denominator);
  if (n <= 0 || d <= 0) return;
  print_ratio(label, n / d,
              fmt::format("{} {:.3f} ms / {} {:.3f} ms", numerator, n * 1e3, denominator, d * 1e3),
              target, direction);
}

// An alternated pair's ratio (see alternate()).
void print_pair(const RatioReporter& r, const std::string& label, const std::string& benchmark,
                double target) {
  const auto* c = r.counters_of(benchmark);
  if (c == nullptr || c->count("ratio") == 0) return;
  print_ratio(label, c->at("ratio"),
              fmt::format("median of alternated; means {:.3f} ms / {:.3f} ms", c->at("measured_ms"),
                          c->at("reference_ms")),
              target, "<=");
}

}  // namespace
}  // namespace dsgd

int main(int argc, char** argv) {
  using dsgd::print_pair;
  using dsgd::print_time_ratio;
  benchmark::Initialize(&argc, argv);
  dsgd::keep_freed_memory();  // as the dsgd executable does, for the references too
  // The same thread count for every benchmark that does not set its own (dsgd's old default:
  // every core). LibTorch's own default may differ, which would make the reference unfair.
  torch::set_num_threads(static_cast<int>(dsgd::kCores));
  dsgd::register_per_case_benchmarks();
  dsgd::register_format_pairs();
  dsgd::RatioReporter r;
  benchmark::RunSpecifiedBenchmarks(&r);
  std::printf("\n");
  if (const auto* pair = r.counters_of("BM_StepPair/resnet20")) {
    for (const auto& [label, benchmark] :
         {std::pair<const char*, const char*>{"augmented CIFAR batch / ResNet-20 step",
                                              "BM_AugmentedCifarBatch/"},
          {"image-folder batch / ResNet-20 step", "BM_ImageFolderBatch/"}}) {
      const double batch = r.seconds_of(benchmark);
      if (batch <= 0) continue;
      dsgd::print_ratio(label, batch * 1e3 / pair->at("reference_ms"),
                        fmt::format("{:.3f} ms / {:.3f} ms", batch * 1e3, pair->at("reference_ms")),
                        0.05, "<=");
    }
  }
  if (const auto* decode = r.counters_of("BM_ImageFolderDecode/")) {
    std::printf("RATE  %-40s %8.0f images/s (32x32 colour PNGs, first epoch, %lld cores)\n",
                "image-folder decode", decode->at("images/s"),
                static_cast<long long>(dsgd::kCores));
  }
  print_pair(r, "dsgd step / LibTorch step (ResNet-20)", "BM_StepPair/resnet20", 1.05);
  print_pair(r, "dsgd step / LibTorch step (lenet5-bn)", "BM_StepPair/lenet5_bn", 1.05);
  print_pair(r, "dsgd step / LibTorch step (transformer 4x128, AdamW)", "BM_TransformerStepPair",
             1.05);
  print_pair(r, "dsgd step / LibTorch step (ResNet-20, CL)", "BM_StepPair/resnet20_channels_last/",
             1.05);
  print_pair(r, "dsgd step / LibTorch step (ResNet-20, CL bf16)",
             "BM_StepPair/resnet20_channels_last_bf16", 1.05);
  // What each format buys: the measured format's step over the reference format's (below 1 is
  // faster; the speed-up is its inverse).
  for (const char* model : {"resnet20", "resnet20_proj", "lenet5_bn"}) {
    for (const auto& [pair, label] :
         {std::pair<const char*, const char*>{"channels_last/", "channels-last / contiguous"},
          {"bf16/", "bf16 / fp32 (channels-last)"},
          {"channels_last_bf16/", "CL bf16 / contiguous fp32"}}) {
      print_pair(r, fmt::format("{} ({})", label, model),
                 fmt::format("BM_FormatPair/{}/{}", model, pair), 1.0);
    }
  }
  print_pair(r, "flat AdamW step / LibTorch's AdamW (ResNet-20)", "BM_AdamWPair/resnet20", 1.0);
  print_pair(r, "TorchScript step / built-in (ResNet-20)", "BM_TorchScriptPair_ResNet20", 1.10);
  print_pair(r, "sim with network model / without (dana-slim N=256)", "BM_ClockPair/dana_slim_n256",
             1.05);
  print_pair(r, "sim with network model / without (hier-avg P=1024)", "BM_ClockPair/hier_avg_p1024",
             1.05);
  print_pair(r, "sim update (dana-zero N=32) / step", "BM_SimUpdatePair/dana_zero32", 1.03);
  print_pair(r, "sim update (dana-slim N=32) / step", "BM_SimUpdatePair/dana_slim32", 1.03);
  // The automatic plan against the sequential simulator at every core (issue 17 aims at >= 2.5
  // for lenet5-bn and >= 1.0 for ResNet-20 on 2 cores), and against R replicas each at the bare
  // one-thread step rate (>= 0.85: the replicas use their cores).
  for (const auto& [model, aim] : {std::pair<const char*, double>{"lenet5_bn", 2.5},
                                   std::pair<const char*, double>{"resnet20", 1.0}}) {
    const std::string prefix = std::string("BM_SimReplicas/") + model + "/";
    const auto* sequential = r.counters_of(prefix + "0/");
    const auto* automatic = r.counters_of(prefix + "1/");
    if (sequential == nullptr || automatic == nullptr) continue;
    const double rate = automatic->at("updates/s");
    const double replicas = automatic->at("replicas"), threads = automatic->at("threads");
    dsgd::print_ratio(
        std::string("sim automatic / sequential, ") + model, rate / sequential->at("updates/s"),
        fmt::format("{:.1f} updates/s with {:.0f} x {:.0f} threads / {:.1f} with "
                    "1 x {}",
                    rate, replicas, threads, sequential->at("updates/s"), dsgd::kCores),
        aim, ">=");
    const double one_thread = r.seconds_of(std::string("BM_BareStepOneThread/") + model);
    if (one_thread > 0) {
      dsgd::print_ratio(std::string("sim automatic / (R x 1-thread step), ") + model,
                        rate / (replicas / one_thread),
                        fmt::format("{:.1f} updates/s / ({:.0f} x {:.1f} bare steps/s)", rate,
                                    replicas, 1.0 / one_thread),
                        0.85, ">=");
    }
  }
  // On a GPU: replicas on streams against one, and the time per simulated DANA update (the GPU
  // issue aims at 4.8 ms: 160 epochs of CIFAR-10 in 5 minutes).
  if (const auto* one = r.counters_of("BM_SimStreams/1/")) {
    for (const char* arg : {"2", "4", "8", "0"}) {
      const auto* many = r.counters_of(std::string("BM_SimStreams/") + arg + "/");
      if (many == nullptr) continue;
      dsgd::print_ratio(
          fmt::format("sim on GPU, {} replicas / 1 (dana-slim N=32)", many->at("replicas")),
          many->at("updates/s") / one->at("updates/s"),
          fmt::format("{:.1f} updates/s / {:.1f}{}", many->at("updates/s"), one->at("updates/s"),
                      std::string(arg) == "0" ? ", the plan's choice" : ""),
          1.0, ">=");
      std::printf("RATE  %-40s %8.2f ms per update (aim <= 4.8)\n",
                  fmt::format("sim dana-slim N=32 GPU, {} replicas", many->at("replicas")).c_str(),
                  1e3 / many->at("updates/s"));
    }
    std::printf("RATE  %-40s %8.2f ms per update (aim <= 4.8)\n",
                "sim dana-slim N=32 GPU, 1 replica", 1e3 / one->at("updates/s"));
  }
  for (const char* size : {"272474", "11689512"}) {
    if (const auto* staged = r.counters_of(std::string("BM_HostStagingRoundTrip/") + size)) {
      std::printf("RATE  %-40s %8.3f ms per message (%.1f GB/s, pinned)\n",
                  fmt::format("MPI host staging, {} floats", size).c_str(),
                  staged->at("staging_ms_per_message"), staged->at("GB/s"));
    }
  }
  print_time_ratio(r, "sweep of 8 runs / 8 dsgd run calls", "BM_SweepOfEight/", "BM_EightRuns/",
                   1.05, "<=");
  print_time_ratio(r, "group average S=4 / copy of 10M", "BM_GroupAverage10M/", "BM_VectorCopy10M/",
                   dsgd::kGroup, "<=");
  print_time_ratio(r, "group average S=4 / stack-mean", "BM_GroupAverage10M/",
                   "BM_GroupAverageStackMean10M/", 1.0, "<=");
  print_time_ratio(r, "3-level averages (2, 4, 8) / copy of 8 x 10M", "BM_ThreeLevelAverages10M/",
                   "BM_CopyEightMembers10M/", 3.0, "<=");
  const double copy = r.seconds_of("BM_VectorCopy10M/");
  for (const auto& [name, seconds] : r.seconds) {
    if (name.rfind("BM_ServerUpdate10M/", 0) != 0 || copy <= 0) continue;
    dsgd::print_ratio(name.substr(19, name.find('/', 19) - 19), seconds / copy,
                      fmt::format("copies of a 10M vector per update: {:.3f} ms / {:.3f} ms",
                                  seconds * 1e3, copy * 1e3),
                      0, ">=");
  }
  benchmark::Shutdown();
  return 0;
}
