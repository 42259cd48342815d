// The training context; see training_context.h.
#include "train/training_context.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Parallel.h>
#include <dlfcn.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

#include "core/errors.h"
#include "core/fault_injection.h"
#include "core/interrupt.h"
#include "models/blas_kernels.h"
#include "models/model.h"
#include "train/cluster.h"

namespace dsgd {

torch::Device choose_device(DeviceKind device, int64_t local_rank) {
  if (device == DeviceKind::kCuda) {
    if (!torch::cuda::is_available()) {
      throw ConfigError("device = \"cuda\", but this LibTorch has no CUDA support or sees no GPU",
                        "use device = \"cpu\", or build dsgd against a CUDA-enabled LibTorch");
    }
    const int64_t gpus = static_cast<int64_t>(torch::cuda::device_count());
    return torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(local_rank % gpus));
  }
  return torch::Device(torch::kCPU);
}

namespace {

// LibTorch's intra-op pool and, when the BLAS is OpenBLAS, its own thread pool, which LibTorch
// does not size: left alone it follows the CPU affinity, so the same config gave different
// rounding under mpirun (bound to one core) than in a shell.
void set_compute_threads(int threads) {
  torch::set_num_threads(threads);
  using SetThreads = void (*)(int);
  if (auto openblas =
          reinterpret_cast<SetThreads>(::dlsym(RTLD_DEFAULT, "openblas_set_num_threads"))) {
    openblas(threads);
  }
}

}  // namespace

TrainingContext::TrainingContext(const RunConfig& config, const ContextShape& shape,
                                 const HostShare& share)
    : TrainingContext(config, shape, load_run_dataset(config), share) {}

DatasetPair load_run_dataset(const RunConfig& config) {
  if (!is_token_corpus(config.dataset)) {
    // A text key on an image run would be read by nothing: say so rather than ignore it.
    const RunConfig defaults;
    const char* text_key = config.seq_len != defaults.seq_len         ? "seq_len"
                           : config.tokenizer != defaults.tokenizer   ? "text.tokenizer"
                           : config.vocabulary != defaults.vocabulary ? "text.vocabulary"
                           : config.vocabulary_size != defaults.vocabulary_size
                               ? "text.vocabulary_size"
                           : config.eval_windows != defaults.eval_windows ? "text.eval_windows"
                                                                          : nullptr;
    if (text_key != nullptr) {
      throw ConfigError(fmt::format("{} is set, and dataset = \"{}\" holds images: the key is "
                                    "for a language model's token corpus",
                                    text_key, config.dataset),
                        "drop the key, or name a text file, a text folder or a prepared corpus");
    }
    return load_dataset(config.dataset, config.data_dir, static_cast<uint64_t>(config.seed),
                        config.image_size);
  }
  if (config.image_size > 0 || config.augment == Augment::kCropFlip || !config.data_mean.empty() ||
      !config.data_std.empty()) {
    throw ConfigError(fmt::format("dataset = \"{}\" is a token corpus: image_size, augment and "
                                  "data.mean/std are for images",
                                  config.dataset),
                      "drop those keys, or name an image dataset");
  }
  DatasetPair pair;
  pair.text = std::make_shared<const TokenCorpus>(
      load_token_corpus(config.dataset, config.data_dir,
                        TextSource{config.tokenizer, config.vocabulary, config.vocabulary_size}));
  return pair;
}

TrainingContext::TrainingContext(const RunConfig& config, const ContextShape& shape,
                                 DatasetPair data, const HostShare& share)
    : config_(config),
      shape_(shape),
      device_(choose_device(config.device, share.local_rank)),
      bf16_slow_(bf16_slowness(device_)),
      data_(std::move(data)),
      schedule_(config),
      format_{config.memory_format.value_or(MemoryFormat::kContiguous),
              config.precision.value_or(Precision::kFloat32)},
      prices_(prices_in(config)),
      recorded_(config) {
  bf16_slow_here_ = !bf16_slow_.empty();
  if (!bf16_slow_here_) bf16_slow_ = share.bf16_slow_on_another_rank;
  fault_point("setup");
  stop_if_interrupted("reading the data");
  replica_.task = input_shape().task();
  if (data_.is_text()) recorded_.vocabulary = vocabulary_record(data_.text->vocabulary);
  if (config_.augment != Augment::kDefault) data_.augment = config_.augment == Augment::kCropFlip;
  auto as_floats = [](const std::vector<double>& values) {
    return std::vector<float>(values.begin(), values.end());
  };
  if (!config_.data_mean.empty()) data_.normalization.mean = as_floats(config_.data_mean);
  if (!config_.data_std.empty()) data_.normalization.std = as_floats(config_.data_std);
  // On a GPU the training set is uploaded once: batches are gathered, augmented and normalised
  // there (data/worker_stream.cpp), and only each batch's indices cross the bus.
  if (device_.is_cuda() && !data_.is_text()) {
    data_.train.images = data_.train.images.to(device_);
    data_.train.labels = data_.train.labels.to(device_);
  }
  // A token corpus's samples are windows: as many as its training stream holds seq_len tokens.
  const int64_t train_samples =
      data_.is_text() ? data_.text->train.size(0) / config_.seq_len : data_.train.size();
  if (data_.is_text() && data_.text->train.size(0) <= config_.seq_len + 1) {
    throw ConfigError(fmt::format("seq_len = {} leaves no window of seq_len + 1 tokens in the {} "
                                  "training tokens of {}",
                                  config_.seq_len, data_.text->train.size(0), config_.dataset),
                      "use a shorter seq_len or a longer text");
  }
  if (config_.batch_size > train_samples) {
    throw ConfigError(fmt::format("batch_size = {} exceeds the {} training samples of {}",
                                  config_.batch_size, train_samples, config_.dataset),
                      "choose a smaller batch_size");
  }
  // Each evaluation re-estimates BatchNorm from bn_batches batches of one worker's stream: more
  // than the training set holds only repeats samples, and makes every evaluation longer. The
  // default is allowed on any data (a small set's batches then come round again).
  const int64_t batches_in_data = train_samples / config_.batch_size;
  const int64_t most_bn_batches = std::max(batches_in_data, RunConfig{}.bn_batches);
  if (config_.check_limits && config_.bn_batches > most_bn_batches) {
    throw ConfigError(
        fmt::format("bn_batches = {} re-estimates BatchNorm from {} samples at each evaluation, "
                    "more than the {} training samples of {} hold ({} batches of {})",
                    config_.bn_batches, config_.bn_batches * config_.batch_size, train_samples,
                    config_.dataset, batches_in_data, config_.batch_size),
        fmt::format("use at most bn_batches = {} (the default, {}, is plenty for most models), "
                    "or, if you mean it, set check_limits = false",
                    most_bn_batches, RunConfig{}.bn_batches));
  }
  torch::manual_seed(static_cast<uint64_t>(config_.seed));
  replica_.net = make_net();
  replica_.flat = std::make_unique<FlatModel>(replica_.net, device_);
  stop_if_interrupted("building the model");
  const int64_t samples_per_update =
      shape_.samples_per_update > 0 ? shape_.samples_per_update : config_.batch_size;
  if (samples_per_update > train_samples) {
    throw ConfigError(fmt::format("an update of {} minibatches x batch_size {} needs {} samples, "
                                  "but {} has {} training samples",
                                  samples_per_update / config_.batch_size, config_.batch_size,
                                  samples_per_update, config_.dataset, train_samples),
                      "use fewer learners or a smaller batch_size");
  }
  updates_per_epoch_ = train_samples / samples_per_update;
  total_updates_ =
      std::max<int64_t>(1, std::llround(config_.epochs * static_cast<double>(updates_per_epoch_)));
  plan_ = make_compute_plan(share.threads);
  set_compute_threads(static_cast<int>(plan_.threads));
  stop_if_interrupted("planning the compute");
  choose_format();
  price_clock();
}

void TrainingContext::choose_format() {
  const InputShape shape = input_shape();
  const bool takes_images = shape.height > 1 && shape.width > 1;
  format_choice_ = choose_compute_format(
      config_.memory_format, config_.precision, takes_images, bf16_slow_,
      /*measure=*/!config_.on_ranks(), [this](const ComputeFormat& f) { return time_step(f); },
      config_.precision_from_record);
  format_ = format_choice_.format;
  recorded_.memory_format = format_.memory_format;
  recorded_.precision = format_.precision;
  replica_.net->set_compute_format(format_);
  stop_if_interrupted("timing the compute format");
}

void TrainingContext::price_clock() {
  if (config_.cluster.empty() || config_.seconds_per_unit > 0) return;
  RunShape run = run_shape(config_);
  run.format = std::string(enum_name(format_.memory_format)) + " " + enum_name(format_.precision);
  run.group_size = shape_.group_size;
  run.asynchronous = shape_.asynchronous;
  run.measured_step_seconds = format_choice_.step_seconds();
  run.memory_format_auto = format_choice_.memory_format_auto;
  run.precision_auto = format_choice_.precision_auto;
  run.cores = static_cast<int64_t>(std::max(1u, std::thread::hardware_concurrency()));
  auto time_step_at = [this](int64_t threads) {
    const int all = at::get_num_threads();
    at::set_num_threads(static_cast<int>(threads));
    const double seconds = time_step(format_, /*steps=*/15, /*seconds=*/6.0);
    at::set_num_threads(all);
    return seconds;
  };
  prices_ = price_on_its_cluster(config_, run, time_step_at, cluster_note_);
  record_prices(prices_, !shape_.asynchronous, recorded_);
}

double TrainingContext::time_step(const ComputeFormat& format, size_t steps, double seconds) const {
  at::Generator generator = at::detail::getDefaultCPUGenerator();
  const torch::Tensor state = generator.get_state();
  ModelReplica probe = make_replica();
  probe.net->set_compute_format(format);
  // A stream of its own, past every worker's and the evaluation's ids: no run's batches move.
  WorkerStream stream = make_stream(config_.workers + 1000);
  const Batch batch = stream.batch(0);
  // A stop request ends the timing after the step in progress (a campaign's stop would otherwise
  // wait out every candidate's steps, seconds each where bf16 is emulated); the generator is put
  // back first, and nothing has been written.
  auto step = [&] {
    fault_point("timing");
    const auto start = std::chrono::steady_clock::now();
    probe.compute_gradient(batch, device_);
    probe.flat->grads().sum().item<double>();  // waits for a GPU
    const double took =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (pending_interrupt() != 0) {
      generator.set_state(state);
      stop_if_interrupted("timing the compute format (" + describe(format) + ")");
    }
    return took;
  };
  // A warm-up (oneDNN makes its primitives, autocast its copies), then up to `steps` steps or about
  // `seconds`, whichever ends first: an emulated bf16 step can take ten seconds.
  const double first = step();
  std::vector<double> times;
  double spent = first;
  while (times.size() < steps && (times.size() < 1 || spent < seconds)) {
    times.push_back(step());
    spent += times.back();
  }
  generator.set_state(state);
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

ComputePlan TrainingContext::make_compute_plan(int64_t default_threads) const {
  ComputePlanRequest request;
  request.threads = config_.threads > 0 ? config_.threads : default_threads;
  request.replicas = config_.sim_replicas;
  request.batch_size = config_.batch_size;
  request.jobs = shape_.compute_jobs;
  request.gpu = device_.is_cuda();
  // Simulated asynchronous workers share the model's BatchNorm statistics, which would land on
  // whichever replica computed a batch; evaluation re-estimates them, unless bn_batches = 0 asks
  // for the training-time ones. (Synchronous learners keep their own.)
  if (shape_.shared_batchnorm && config_.bn_batches == 0 && replica_.flat->num_buffers() > 0) {
    if (config_.sim_replicas > 1) {
      throw ConfigError(
          "sim.replicas > 1 needs bn_batches > 0 with a BatchNorm model: the "
          "statistics of training batches are spread over the replicas",
          "set bn_batches (e.g. 20), or sim.replicas = 1");
    }
    request.replicas_allowed = false;
  }
  // A throwaway replica: the counted forward pass moves BatchNorm statistics.
  ModelReplica probe = make_replica();
  return plan_compute(measure_model_cost(*probe.net, input_shape(), device_), request,
                      this_machine(config_.cores));
}

std::shared_ptr<Model> TrainingContext::make_net() const {
  std::shared_ptr<Model> net = make_model(
      config_.model, input_shape(),
      {config_.transformer_layers, config_.transformer_heads, config_.transformer_width});
  net->set_compute_format(format_);
  return net;
}

std::string TrainingContext::compute_format_note() const {
  std::string note =
      fmt::format("compute: {} ({})\n", describe(format_choice_.format), format_choice_.reason);
  if (!cluster_note_.empty()) note += cluster_note_ + "\n";
  // Where another rank emulates bf16, this one's timings of bf16 and fp32 say nothing of its cost.
  FormatChoice timed_here = format_choice_;
  if (!bf16_slow_here_) timed_here.timings.resize(1);
  const std::string warning = bf16_warning(timed_here, bf16_slow_);
  if (!warning.empty()) note += warning + "\n";
  // A CPU device's matrix products run in OpenBLAS's kernels (a GPU's do not).
  const std::string blas = device_.is_cpu() ? blas_fallback_warning() : "";
  return blas.empty() ? note : note + blas + "\n";
}

InputShape TrainingContext::input_shape() const {
  if (data_.is_text()) return {1, 1, 1, data_.text->vocabulary.size, config_.seq_len};
  return {data_.train.channels(), data_.train.height(), data_.train.width(),
          data_.train.num_classes};
}

WorkerStream TrainingContext::make_stream(int64_t worker) const {
  if (data_.is_text()) {
    return WorkerStream(*data_.text, config_.batch_size, config_.seq_len,
                        static_cast<uint64_t>(config_.seed), worker);
  }
  return WorkerStream(data_.train, data_.normalization, data_.augment, config_.batch_size,
                      static_cast<uint64_t>(config_.seed), worker);
}

torch::Tensor ModelReplica::compute_gradient(const Batch& batch, torch::Device device) {
  flat->zero_grad();
  if (clock_only) return torch::zeros({}, flat->params().options());
  torch::Tensor logits = net->predict(batch.inputs.to(device));
  torch::Tensor loss = task.loss(logits, batch.labels.to(device));
  loss.backward();
  return loss.detach();
}

ModelReplica TrainingContext::make_replica() const {
  ModelReplica replica;
  {
    // The new network's initialisation draws from the global generator: put its state back.
    // (Replicas are made before any thread computes, so no lock is needed.)
    at::Generator generator = at::detail::getDefaultCPUGenerator();
    torch::Tensor state = generator.get_state();
    replica.net = make_net();
    generator.set_state(state);
  }
  replica.flat = std::make_unique<FlatModel>(replica.net, device_);
  replica.clock_only = replica_.clock_only;
  replica.task = replica_.task;
  torch::NoGradGuard no_grad;
  replica.flat->params().copy_(replica_.flat->params());
  replica.flat->buffers().copy_(replica_.flat->buffers());
  return replica;
}

}  // namespace dsgd
