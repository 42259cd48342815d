// Channels-last and bf16 mixed precision (models/compute_format.h): each computes what fp32 in
// the default layout computes, to rounding, and bf16 to the bound its kernels' arithmetic gives
// (oneDNN's float32 sums where the CPU has AVX-512; ATen's reference kernels, forced here on any
// CPU, elsewhere); dsgd's flat float32 state stays float32; autocast's cache of bf16 weight
// copies never outlives a forward pass (dsgd updates weights in place); every thread that
// computes gradients computes in the run's precision; and "auto" (models/format_choice.h) chooses
// the fastest format the device computes well, records it, and keeps it on resuming.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <torch/script.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "cli_helpers.h"
#include "core/errors.h"
#include "core/flat_model.h"
#include "core/torch_compat.h"
#include "models/blas_kernels.h"
#include "models/format_choice.h"
#include "models/model.h"
#include "train/config.h"
#include "train/config_table.h"
#include "train/training_context.h"

namespace dsgd {
namespace {

using namespace dsgd::testing;  // NOLINT(build/namespaces): the shared helpers of cli_helpers.h

const ComputeFormat kFp32{};
const ComputeFormat kChannelsLast{MemoryFormat::kChannelsLast, Precision::kFloat32};
const ComputeFormat kBf16{MemoryFormat::kContiguous, Precision::kBFloat16};
const ComputeFormat kChannelsLastBf16{MemoryFormat::kChannelsLast, Precision::kBFloat16};

// A replica of `model` (seed 0) in `format`, its parameters flat.
ModelReplica replica(const std::string& model, const InputShape& shape,
                     const ComputeFormat& format) {
  torch::manual_seed(0);
  ModelReplica r{make_model(model, shape), nullptr, false, shape.task()};
  r.net->set_compute_format(format);
  r.flat = std::make_unique<FlatModel>(r.net);
  return r;
}

Batch cifar_batch(int64_t n = 32) {
  torch::manual_seed(1);
  return {torch::randn({n, 3, 32, 32}), torch::randint(0, 10, {n})};
}

// The gradient of `batch`'s loss in float64 (seed 0's initialisation, contiguous layout), in the
// flat vector's order: the reference both float32 layouts are held against.
torch::Tensor float64_gradient(const std::string& model, const InputShape& shape,
                               const Batch& batch) {
  torch::manual_seed(0);
  std::shared_ptr<Model> net = make_model(model, shape);
  net->to(torch::kDouble);
  torch::nn::functional::cross_entropy(net->forward(batch.inputs.to(torch::kDouble)), batch.labels)
      .backward();
  std::vector<torch::Tensor> grads;
  for (const auto& p : net->parameters()) grads.push_back(p.grad().flatten());
  return torch::cat(grads);
}

double relative_error(const torch::Tensor& a, const torch::Tensor& b) {
  return ((a.to(torch::kDouble) - b.to(torch::kDouble)).norm() / b.to(torch::kDouble).norm())
      .item<double>();
}

TEST(ComputeFormat, ConfigKeysChooseTheFormat) {
  RunConfig config = parse_config("", {"memory_format=channels-last", "precision=bf16"});
  EXPECT_EQ(config.memory_format, MemoryFormat::kChannelsLast);
  EXPECT_EQ(config.precision, Precision::kBFloat16);
  EXPECT_EQ(describe({*config.memory_format, *config.precision}),
            "channels-last, bf16 mixed precision");
  RunConfig defaults = parse_config("", {});
  EXPECT_EQ(describe({*defaults.memory_format, *defaults.precision}), "contiguous, fp32");
  try {
    parse_config("", {"memory_format=channels_last"});
    FAIL() << "channels_last was accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("memory_format"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("did you mean 'channels-last'"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(parse_config("", {"precision=fp16"}), ConfigError);
}

// Channels-last changes the order of the arithmetic, not its result: loss and gradients agree
// with the default layout's to float32 rounding (which a BatchNorm network in training mode
// amplifies to ~2e-3 relative here, in either layout: both are held against float64), and the
// parameters stay the flat vector's contiguous views (the layout never reaches checkpoints or
// rules).
TEST(ComputeFormat, ChannelsLastComputesTheSameGradients) {
  const InputShape cifar{3, 32, 32, 10};
  ModelReplica plain = replica("resnet20", cifar, kFp32);
  ModelReplica last = replica("resnet20", cifar, kChannelsLast);
  ASSERT_TRUE(plain.flat->params().equal(last.flat->params()));
  const Batch batch = cifar_batch();
  const double loss_plain = plain.compute_gradient(batch, torch::kCPU).item<double>();
  const double loss_last = last.compute_gradient(batch, torch::kCPU).item<double>();
  EXPECT_NEAR(loss_last, loss_plain, 1e-5 * std::abs(loss_plain));
  const torch::Tensor exact = float64_gradient("resnet20", cifar, batch);
  const double plain_error = relative_error(plain.flat->grads(), exact);
  const double last_error = relative_error(last.flat->grads(), exact);
  EXPECT_LT(plain_error, 1e-2);
  EXPECT_LT(last_error, 3 * plain_error) << "contiguous: " << plain_error;
  EXPECT_TRUE(last.flat->buffers().allclose(plain.flat->buffers(), 1e-4, 1e-5));
  for (const auto& p : last.net->parameters()) EXPECT_TRUE(p.is_contiguous());
  // The activations really are channels-last: the first convolution's output is.
  torch::NoGradGuard no_grad;
  torch::nn::Conv2dImpl* conv2d = nullptr;
  for (const auto& m : last.net->modules(/*include_self=*/false)) {
    if ((conv2d = m->as<torch::nn::Conv2dImpl>())) break;
  }
  ASSERT_NE(conv2d, nullptr);
  torch::Tensor out = conv2d->forward(to_memory_format(batch.inputs, MemoryFormat::kChannelsLast));
  EXPECT_TRUE(out.is_contiguous(torch::MemoryFormat::ChannelsLast));
  EXPECT_FALSE(out.is_contiguous());
}

// The unit roundoffs of bf16 (8 bits of significand) and float32 (24), and Higham's γ_n(u) =
// n u / (1 − n u): the relative bound on a sum of n products each rounded after it is added
// ("Accuracy and Stability of Numerical Algorithms", 2002, §3.1).
constexpr double kBf16Unit = 1.0 / 256;
constexpr double kFp32Unit = 1.0 / 16777216;
double gamma(int64_t n, double u) { return static_cast<double>(n) * u / (1 - n * u); }

// While alive, this process computes bf16 as a CPU without AVX-512 does: with oneDNN off, ATen
// takes its reference kernels for bf16 convolutions and matrix products, the routing such a CPU
// gets from ATen's check for AVX-512 BW, VL and DQ. (ONEDNN_MAX_CPU_ISA=AVX2 cannot do this:
// ATen still hands bf16 to oneDNN, which then has no kernel and fails; ATEN_CPU_CAPABILITY
// changes ATen's vector kernels, not this routing. docs/performance.md.)
class AtenReferenceBf16 {
 public:
  AtenReferenceBf16() : was_(at::globalContext().userEnabledMkldnn()) {
    at::globalContext().setUserEnabledMkldnn(false);
  }
  ~AtenReferenceBf16() { at::globalContext().setUserEnabledMkldnn(was_); }

 private:
  bool was_;
};

// A 3x3 convolution's bf16 forward pass, input gradient and weight gradient, each against the
// exact (float64) results on the same bf16-rounded operands: per element, the distance as a
// fraction of the sum of the absolute products it adds up, the scale in which every error bound
// of a sum is written; the worst element of each. `terms` is how many products each sums.
struct Bf16ConvErrors {
  double forward = 0, input_grad = 0, weight_grad = 0;
  int64_t forward_terms = 0, input_terms = 0, weight_terms = 0;
};

Bf16ConvErrors bf16_conv_errors(int64_t channels_in, int64_t channels_out) {
  namespace F = torch::nn::functional;
  const auto conv = [](const torch::Tensor& x, const torch::Tensor& w) {
    return F::conv2d(x, w, F::Conv2dFuncOptions().padding(1));
  };
  torch::manual_seed(4);
  const int64_t n = 8, side = 16;
  torch::Tensor x = torch::randn({n, channels_in, side, side}).requires_grad_();
  torch::Tensor w = (torch::randn({channels_out, channels_in, 3, 3}) * 0.1).requires_grad_();
  // The output's gradient, exactly representable in bf16.
  const torch::Tensor g = torch::randn({n, channels_out, side, side}).to(torch::kBFloat16);
  torch::Tensor y;
  {
    AutocastScope autocast(Precision::kBFloat16, torch::kCPU);
    y = conv(x, w);
  }
  EXPECT_EQ(y.scalar_type(), torch::kBFloat16);
  y.backward(g);
  auto rounded = [](const torch::Tensor& t) {
    return t.detach().to(torch::kBFloat16).to(torch::kDouble).requires_grad_();
  };
  torch::Tensor xd = rounded(x), wd = rounded(w);
  conv(xd, wd).backward(g.to(torch::kDouble));
  torch::Tensor xa = xd.detach().abs().requires_grad_(), wa = wd.detach().abs().requires_grad_();
  torch::Tensor scale = conv(xa, wa);
  scale.backward(g.to(torch::kDouble).abs());
  auto worst = [](const torch::Tensor& got, const torch::Tensor& exact, const torch::Tensor& s) {
    return ((got.to(torch::kDouble) - exact).abs() / s).max().item<double>();
  };
  Bf16ConvErrors e;
  {
    torch::NoGradGuard no_grad;
    e.forward = worst(y, conv(xd.detach(), wd.detach()), scale.detach());
  }
  e.input_grad = worst(x.grad(), xd.grad(), xa.grad());
  e.weight_grad = worst(w.grad(), wd.grad(), wa.grad());
  e.forward_terms = channels_in * 9;
  e.input_terms = channels_out * 9;
  e.weight_terms = n * side * side;
  return e;
}

// A result summed in float32 and rounded once to bf16: within u_bf16 of the exact sum, plus
// float32's own γ_n, in units of the sum of absolute products.
double rounded_once(int64_t terms) { return kBf16Unit + gamma(terms, kFp32Unit) * (1 + kBf16Unit); }

// Whether this CPU computes bf16 on oneDNN; if so, prints which of its paths the test checks.
bool bf16_on_onednn() {
  const Bf16Path path = cpu_bf16_path();
  if (path == Bf16Path::kAtenReference) return false;
  std::cout << "bf16 path checked: " << describe(path) << "\n";
  return true;
}

// oneDNN's path (CPUs with AVX-512, natively with AVX-512 BF16 or AMX): every result of the
// forward pass and both gradients is a float32 sum rounded once, so each lies within
// rounded_once(n) of the exact sum, at ResNet-20's convolutions' sizes. Summing in bf16 instead
// would miss it: the reference path reaches 1.4e-2 against 3.9e-3 (scripts/bf16-paths.py).
TEST(ComputeFormat, Bf16ConvolutionOnOneDnnRoundsEachResultOnce) {
  if (!bf16_on_onednn()) {
    GTEST_SKIP() << "this CPU computes bf16 through " << describe(Bf16Path::kAtenReference)
                 << "; Bf16ConvolutionOnAtenReferenceMeetsItsBound checks that path";
  }
  for (auto [in, out] : {std::pair<int64_t, int64_t>{3, 16}, {16, 16}, {64, 64}}) {
    SCOPED_TRACE(fmt::format("{} -> {} channels", in, out));
    const Bf16ConvErrors e = bf16_conv_errors(in, out);
    EXPECT_LE(e.forward, rounded_once(e.forward_terms));
    EXPECT_LE(e.input_grad, rounded_once(e.input_terms));
    EXPECT_LE(e.weight_grad, rounded_once(e.weight_terms));
  }
}

// ATen's reference path, which every CPU without AVX-512 takes, forced here on any CPU: the
// forward pass and the input gradient round products and partial sums to bf16, so each result is
// within γ_{n+1}(u_bf16) of the exact sum (n additions and the product's own rounding), which says
// something only for short sums: ResNet-20's first convolution (3 channels, n = 27) and a 4-channel
// one. The weight gradient sums in float32 and rounds once. And it is the reference path that
// ran: in LibTorch 1.13, a 16-channel convolution's forward pass misses the rounded-once bound.
TEST(ComputeFormat, Bf16ConvolutionOnAtenReferenceMeetsItsBound) {
  AtenReferenceBf16 reference;
  ASSERT_EQ(cpu_bf16_path(), Bf16Path::kAtenReference);
  std::cout << "bf16 path checked: " << describe(Bf16Path::kAtenReference) << "\n";
  for (auto [in, out] : {std::pair<int64_t, int64_t>{3, 4}, {4, 4}}) {
    SCOPED_TRACE(fmt::format("{} -> {} channels", in, out));
    const Bf16ConvErrors e = bf16_conv_errors(in, out);
    EXPECT_LE(e.forward, gamma(e.forward_terms + 1, kBf16Unit));
    EXPECT_LE(e.input_grad, gamma(e.input_terms + 1, kBf16Unit));
    EXPECT_LE(e.weight_grad, rounded_once(e.weight_terms));
  }
#if TORCH_VERSION_MAJOR < 2
  const Bf16ConvErrors wide = bf16_conv_errors(16, 16);
  EXPECT_GT(wide.forward, rounded_once(wide.forward_terms))
      << "oneDNN is off, yet the convolution rounded once: the reference path did not run";
#endif
}

// bf16 mixed precision on any path: everything dsgd keeps (parameters, gradients, BatchNorm
// statistics) is still float32, bf16 did compute (the loss differs from fp32's), and autocast is
// off again after the step.
TEST(ComputeFormat, Bf16KeepsFloat32State) {
  const InputShape cifar{3, 32, 32, 10};
  for (const ComputeFormat& format : {kBf16, kChannelsLastBf16}) {
    SCOPED_TRACE(describe(format));
    ModelReplica fp32 = replica("resnet20", cifar, kFp32);
    ModelReplica bf16 = replica("resnet20", cifar, format);
    const Batch batch = cifar_batch();
    const double loss32 = fp32.compute_gradient(batch, torch::kCPU).item<double>();
    torch::Tensor loss16 = bf16.compute_gradient(batch, torch::kCPU);
    EXPECT_EQ(loss16.scalar_type(), torch::kFloat);
    EXPECT_NE(loss16.item<double>(), loss32);  // bf16 did compute: rounding differs
    for (const auto& p : bf16.net->parameters()) {
      EXPECT_EQ(p.scalar_type(), torch::kFloat);
      EXPECT_EQ(p.grad().scalar_type(), torch::kFloat);
    }
    for (const auto& b : bf16.net->buffers()) {
      if (b.is_floating_point()) {
        EXPECT_EQ(b.scalar_type(), torch::kFloat);
      }
    }
    EXPECT_EQ(bf16.flat->grads().scalar_type(), torch::kFloat);
    // Autocast is off again on this thread: nothing outside predict() computes in bf16.
    EXPECT_FALSE(compat::autocast_enabled(c10::DeviceType::CPU));
  }
}

double cosine(const torch::Tensor& a, const torch::Tensor& b) {
  return torch::nn::functional::cosine_similarity(a.to(torch::kDouble).unsqueeze(0),
                                                  b.to(torch::kDouble).unsqueeze(0))
      .item<double>();
}

// Where bf16 rounds each convolution's result once (oneDNN's path), a whole ResNet-20's loss and
// gradient stay close to fp32's: the loss within 2 %, the gradients' cosine above 0.99 (20
// layers, each within 2^-8 of its exact result). The reference path's term-by-term bf16 sums
// leave 0.98 in contiguous layout (measured on an AVX2-only EPYC), so this holds only here.
TEST(ComputeFormat, Bf16OnOneDnnApproximatesFp32Gradients) {
  if (!bf16_on_onednn()) {
    GTEST_SKIP() << "this CPU computes bf16 through " << describe(Bf16Path::kAtenReference)
                 << ", whose gradients are further from fp32's";
  }
  const InputShape cifar{3, 32, 32, 10};
  for (const ComputeFormat& format : {kBf16, kChannelsLastBf16}) {
    SCOPED_TRACE(describe(format));
    ModelReplica fp32 = replica("resnet20", cifar, kFp32);
    ModelReplica bf16 = replica("resnet20", cifar, format);
    const Batch batch = cifar_batch();
    const double loss32 = fp32.compute_gradient(batch, torch::kCPU).item<double>();
    const double loss16 = bf16.compute_gradient(batch, torch::kCPU).item<double>();
    EXPECT_NEAR(loss16, loss32, 0.02 * loss32);
    EXPECT_GT(cosine(bf16.flat->grads(), fp32.flat->grads()), 0.99);
    EXPECT_LT(relative_error(bf16.flat->buffers(), fp32.flat->buffers()), 0.02);
  }
}

// The trap: autocast caches a bf16 copy of each weight it casts (convolutions', linear layers'),
// keyed by the weight tensor, and dsgd changes weights in place through the flat vector. A forward
// pass after an update must see the new weights, exactly as a fresh model holding them does. The
// second half shows the cache is real: kept across the update by hand, it computes with the old
// convolution weights.
TEST(ComputeFormat, Bf16SeesWeightsUpdatedInPlace) {
  const InputShape cifar{3, 32, 32, 10};
  ModelReplica trained = replica("resnet20", cifar, kChannelsLastBf16);
  ModelReplica fresh = replica("resnet20", cifar, kChannelsLastBf16);
  trained.net->eval();
  fresh.net->eval();
  const torch::Tensor x = cifar_batch(8).inputs;
  torch::Tensor before = trained.net->predict(x).detach();
  {
    // Only the convolutions' weights move, so that everything autocast does not cache (BatchNorm
    // runs in float32) stays as it was.
    torch::NoGradGuard no_grad;
    torch::manual_seed(2);
    for (auto& p : trained.net->parameters()) {
      if (p.dim() == 4) p.add_(torch::randn_like(p), 0.05);
    }
    fresh.flat->params().copy_(trained.flat->params());
  }
  torch::Tensor after = trained.net->predict(x).detach();
  EXPECT_FALSE(after.equal(before));
  EXPECT_TRUE(after.equal(fresh.net->predict(x).detach()));

  ModelReplica kept = replica("resnet20", cifar, kFp32);
  kept.net->eval();
  compat::set_autocast_dtype(c10::DeviceType::CPU, at::kBFloat16);
  compat::set_autocast_enabled(c10::DeviceType::CPU, true);
  at::autocast::increment_nesting();
  torch::Tensor cached_before = kept.net->forward(x).detach();
  {
    torch::NoGradGuard no_grad;
    kept.flat->params().copy_(trained.flat->params());
  }
  torch::Tensor cached_after = kept.net->forward(x).detach();
  at::autocast::decrement_nesting();
  at::autocast::clear_cache();
  compat::set_autocast_enabled(c10::DeviceType::CPU, false);
  EXPECT_TRUE(cached_after.equal(cached_before)) << "autocast no longer caches weight copies; "
                                                    "the first half of this test shows nothing";
}

// A TorchScript model computes in the format too: the scripted network's convolutions see the
// channels-last batch and run under autocast, its gradients land in the flat float32 vector.
TEST(ComputeFormat, TorchScriptModelsTakeTheFormat) {
  const std::string path = std::string(DSGD_SOURCE_DIR) + "/tests/fixtures/lenet5_bn.pt";
  const InputShape mnist{1, 28, 28, 10};
  ModelReplica fp32 = replica(path, mnist, kFp32);
  ModelReplica bf16 = replica(path, mnist, kChannelsLastBf16);
  torch::manual_seed(3);
  const Batch batch{torch::randn({16, 1, 28, 28}), torch::randint(0, 10, {16})};
  const double loss32 = fp32.compute_gradient(batch, torch::kCPU).item<double>();
  const double loss16 = bf16.compute_gradient(batch, torch::kCPU).item<double>();
  EXPECT_NE(loss16, loss32);
  EXPECT_NEAR(loss16, loss32, 0.02 * loss32);
  EXPECT_EQ(bf16.flat->grads().scalar_type(), torch::kFloat);
  // As close to fp32 as Bf16OnOneDnnApproximatesFp32Gradients asks, where bf16 rounds once.
  if (cpu_bf16_path() != Bf16Path::kAtenReference) {
    EXPECT_GT(cosine(bf16.flat->grads(), fp32.flat->grads()), 0.99);
  }
}

// Autocast's switch is per thread: the simulator's replicas compute gradients on threads of
// their own, and a thread left in fp32 would change the run. Two replicas in parallel give
// exactly what one gives, and both differ from the fp32 run.
TEST(ComputeFormat, EveryReplicaThreadComputesInBf16) {
  const std::string job =
      "run --set dataset=synthetic --set model=lenet5-bn --set batch_size=16 --set epochs=0.25 "
      "--set threads=1 --set lr=0.01 --set lr_schedule=constant --set warmup_epochs=0 "
      "--set algo=dana-zero --set workers=4 --set eval_every=0.125 --set bn_batches=2 ";
  fs::path one = fresh_dir("bf16_replicas1"), two = fresh_dir("bf16_replicas2"),
           fp32 = fresh_dir("bf16_replicas_fp32");
  run_ok(job + "--set precision=bf16 --set sim.replicas=1", one);
  CliResult parallel =
      run_dsgd(job + "--set precision=bf16 --set sim.replicas=2 --out " + two.string());
  ASSERT_EQ(parallel.exit_code, 0) << parallel.output;
  EXPECT_NE(parallel.output.find("compute: contiguous, bf16 mixed precision"), std::string::npos)
      << parallel.output;
  EXPECT_NE(parallel.output.find("on each of 2 replicas"), std::string::npos) << parallel.output;
  run_ok(job + "--set sim.replicas=1", fp32);
  auto metrics = [](const fs::path& run) {
    return without_columns(read_csv(run / "metrics.csv"), {"wall_time"});
  };
  EXPECT_EQ(metrics(two), metrics(one));
  EXPECT_NE(metrics(fp32), metrics(one));
  for (const auto& p : {one, two, fp32}) fs::remove_all(p);
}

// "auto" as a pure choice, with step times given: every candidate the device computes well is
// timed and the fastest wins; bf16 is a candidate only where it is native; a model without
// images has no layout to choose; MPI ranks take the rule without timing; an explicit bf16 where it
// is emulated is timed beside fp32 so that the warning states the slow-down.
TEST(ComputeFormat, AutoTimesTheCandidatesAndChoosesTheFastest) {
  std::vector<std::string> timed;
  auto times = [&](double contiguous32, double last32, double contiguous16, double last16) {
    return [=, &timed](const ComputeFormat& f) {
      timed.push_back(describe(f));
      const bool last = f.memory_format == MemoryFormat::kChannelsLast;
      if (f.precision == Precision::kBFloat16) return last ? last16 : contiguous16;
      return last ? last32 : contiguous32;
    };
  };
  FormatChoice native = choose_compute_format(std::nullopt, std::nullopt, true, "", true,
                                              times(0.204, 0.180, 0.150, 0.098));
  EXPECT_EQ(describe(native.format), "channels-last, bf16 mixed precision");
  EXPECT_TRUE(native.automatic);
  EXPECT_EQ(timed.size(), 4u * kFormatTimingRounds);
  EXPECT_DOUBLE_EQ(native.step_seconds(), 0.098);
  EXPECT_NE(native.reason.find("contiguous, fp32 0.204 s"), std::string::npos) << native.reason;
  // Native bf16 that is slower than fp32 (a small model, say) loses.
  timed.clear();
  EXPECT_EQ(describe(choose_compute_format(std::nullopt, std::nullopt, true, "", true,
                                           times(0.010, 0.012, 0.011, 0.013))
                         .format),
            "contiguous, fp32");
  // Emulated bf16 is no candidate: two layouts in fp32 only.
  timed.clear();
  FormatChoice avx2 = choose_compute_format(std::nullopt, std::nullopt, true, "no AVX-512 BF16",
                                            true, times(0.630, 0.534, 9.4, 9.4));
  EXPECT_EQ(describe(avx2.format), "channels-last, fp32");
  EXPECT_EQ(timed, (std::vector<std::string>{"contiguous, fp32", "channels-last, fp32",
                                             "contiguous, fp32", "channels-last, fp32",
                                             "contiguous, fp32", "channels-last, fp32"}));
  EXPECT_NE(avx2.reason.find("no bf16: no AVX-512 BF16"), std::string::npos) << avx2.reason;
  EXPECT_EQ(bf16_warning(avx2, "no AVX-512 BF16"), "");
  // No images: one layout. Which part auto chose is recorded.
  timed.clear();
  FormatChoice layout_only = choose_compute_format(std::nullopt, Precision::kFloat32, false, "",
                                                   true, times(0.01, 0.01, 0.01, 0.01));
  EXPECT_EQ(timed, (std::vector<std::string>{"contiguous, fp32"}));
  EXPECT_TRUE(layout_only.automatic && layout_only.memory_format_auto);
  EXPECT_FALSE(layout_only.precision_auto);
  // MPI ranks: the rule, one format timed.
  timed.clear();
  FormatChoice ranks =
      choose_compute_format(std::nullopt, std::nullopt, true, "", false, times(0.1, 0.2, 0.3, 0.4));
  EXPECT_EQ(describe(ranks.format), "channels-last, bf16 mixed precision");
  EXPECT_EQ(timed.size(), 1u);
  // An explicit format is kept whatever the times, and timed; an emulated bf16 beside fp32.
  timed.clear();
  FormatChoice asked =
      choose_compute_format(MemoryFormat::kContiguous, Precision::kBFloat16, true,
                            "no AVX-512 BF16", true, times(0.630, 0.534, 9.373, 9.4));
  EXPECT_FALSE(asked.automatic);
  EXPECT_EQ(describe(asked.format), "contiguous, bf16 mixed precision");
  EXPECT_EQ(timed,
            (std::vector<std::string>{"contiguous, bf16 mixed precision", "contiguous, fp32"}));
  const std::string warning = bf16_warning(asked, "no AVX-512 BF16");
  EXPECT_NE(warning.find("9.37 s in bf16 against 0.63 s in fp32 here (14.9x)"), std::string::npos)
      << warning;
}

// Other work loading the cores in a burst while one candidate is timed (a campaign's run starting
// beside a test suite) slows that timing, not the choice: the candidates are timed in turn, three
// rounds, each keeping its least time. Here channels-last's first timing takes 5 s (the burst),
// its others 0.5 s against contiguous's 0.6 s; one timing each would have chosen contiguous.
TEST(ComputeFormat, ABurstOfLoadDuringOneTimingDoesNotDecideTheFormat) {
  std::vector<std::string> timed;
  int channels_last_timings = 0;
  auto burst_at_first = [&](const ComputeFormat& f) {
    timed.push_back(describe(f));
    if (f.memory_format == MemoryFormat::kContiguous) return 0.6;
    return ++channels_last_timings == 1 ? 5.0 : 0.5;
  };
  const FormatChoice choice =
      choose_compute_format(std::nullopt, Precision::kFloat32, true, "", true, burst_at_first);
  EXPECT_EQ(describe(choice.format), "channels-last, fp32");
  EXPECT_DOUBLE_EQ(choice.step_seconds(), 0.5);
  ASSERT_EQ(choice.timings.size(), 2u);
  EXPECT_DOUBLE_EQ(choice.timings[0].step_seconds, 0.6);
  EXPECT_EQ(timed, (std::vector<std::string>{"contiguous, fp32", "channels-last, fp32",
                                             "contiguous, fp32", "channels-last, fp32",
                                             "contiguous, fp32", "channels-last, fp32"}));
}

// A CPU that lists bf16 units whose kernels cannot use them (oneDNN held to AVX2 by
// ONEDNN_MAX_CPU_ISA, found by scripts/kernel-matrix.sh): a bf16 step throws. "auto" leaves bf16
// out and says why, the rule of MPI ranks falls back to fp32, an explicit bf16 is a ConfigError.
TEST(ComputeFormat, ABf16StepThatFailsIsLeftOutOrRefused) {
  std::vector<std::string> timed;
  auto bf16_fails = [&timed](const ComputeFormat& f) {
    timed.push_back(describe(f));
    TORCH_CHECK(f.precision != Precision::kBFloat16,
                "could not create a primitive descriptor iterator");
    return f.memory_format == MemoryFormat::kChannelsLast ? 0.5 : 0.6;
  };
  const FormatChoice measured =
      choose_compute_format(std::nullopt, std::nullopt, true, "", true, bf16_fails);
  EXPECT_EQ(describe(measured.format), "channels-last, fp32");
  EXPECT_EQ(measured.timings.size(), 2u);
  EXPECT_NE(measured.reason.find("bf16 is native here but failed: could not create a primitive "
                                 "descriptor iterator"),
            std::string::npos)
      << measured.reason;
  timed.clear();
  const FormatChoice ranks =
      choose_compute_format(std::nullopt, std::nullopt, true, "", false, bf16_fails);
  EXPECT_EQ(describe(ranks.format), "channels-last, fp32");
  EXPECT_EQ(timed, (std::vector<std::string>{"channels-last, bf16 mixed precision",
                                             "channels-last, fp32"}));
  try {
    choose_compute_format(MemoryFormat::kContiguous, Precision::kBFloat16, true, "", true,
                          bf16_fails);
    ADD_FAILURE() << "an explicit bf16 that cannot run was accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("precision = \"bf16\" cannot compute on this device"),
              std::string::npos)
        << e.what();
  }
}

// A run with "auto" records the format it chose in config.toml (so that resuming keeps it) and in
// summary.json, with the reason and its step time; bf16 exactly where this CPU computes it
// natively and it was the faster. Resuming with "auto" again (as a sweep does) keeps the recorded
// format; a format named on resuming is a knowing change and stands.
TEST(ComputeFormat, AutoIsRecordedAndKeptOnResume) {
  const fs::path dir = fresh_dir("format_auto");
  run_ok(
      "run --set dataset=synthetic --set model=lenet5-bn --set batch_size=16 --set epochs=0.25 "
      "--set algo=sgd --set precision=auto --set memory_format=auto --set eval_every=0.25",
      dir);
  const RunConfig recorded =
      load_config((dir / "config.toml").string(), std::vector<std::string>{});
  EXPECT_TRUE(recorded.precision.has_value());
  EXPECT_TRUE(recorded.memory_format.has_value());
  const nlohmann::json summary = nlohmann::json::parse(read_file(dir / "summary.json"));
  const nlohmann::json& compute = summary.at("compute");
  EXPECT_EQ(compute.at("chosen_by"), "auto");
  EXPECT_EQ(compute.at("precision"), enum_name(recorded.precision));
  EXPECT_GT(compute.at("step_seconds").get<double>(), 0.0);
  EXPECT_NE(compute.at("reason").get<std::string>().find("auto"), std::string::npos);
  if (!bf16_slowness(torch::kCPU).empty()) {
    EXPECT_EQ(recorded.precision, Precision::kFloat32);
  }
  // The CPU it chose on, with the units that decided the choice.
  EXPECT_EQ(compute.at("cpu"), cpu_description());
  const std::string units = cpu_format_units();
  if (!units.empty()) {
    const std::string cpu = compute.at("cpu").get<std::string>();
    EXPECT_EQ(cpu.substr(cpu.size() - units.size() - 1), units + ")") << cpu;
  }
  // And the BLAS kernels its matrix products ran in ("" where the BLAS is not OpenBLAS).
  EXPECT_EQ(compute.at("openblas_kernels"), openblas_kernels());

  // The other format than the one recorded, written as if the run had chosen it elsewhere.
  const Precision other =
      recorded.precision == Precision::kBFloat16 ? Precision::kFloat32 : Precision::kBFloat16;
  std::string toml = read_file(dir / "config.toml");
  const size_t at = toml.find("\nprecision = ");
  ASSERT_NE(at, std::string::npos) << toml;
  toml.replace(at, toml.find('\n', at + 1) - at,
               "\nprecision = \"" + std::string(enum_name(other)) + "\"");
  std::ofstream(dir / "config.toml") << toml;
  EXPECT_EQ(resume_config(dir.string(), {"precision=auto", "epochs=0.5"}).precision, other);
  EXPECT_EQ(resume_config(dir.string(), {"precision=fp32"}).precision, Precision::kFloat32);
  // Whether the precision is the record's (auto or not given) or the resume's own choice.
  EXPECT_TRUE(resume_config(dir.string(), {"precision=auto"}).precision_from_record);
  EXPECT_TRUE(resume_config(dir.string(), {"epochs=0.5"}).precision_from_record);
  EXPECT_FALSE(resume_config(dir.string(), {std::string("precision=") + enum_name(other)})
                   .precision_from_record);
  toml::table keys;
  keys.insert("precision", enum_name(other));
  EXPECT_FALSE(resume_config(dir.string(), keys).precision_from_record);
  EXPECT_TRUE(resume_config(dir.string(), toml::table{}).precision_from_record);
  EXPECT_FALSE(load_config((dir / "config.toml").string(), std::vector<std::string>{})
                   .precision_from_record);
  fs::remove_all(dir);
}

// A resumed run whose record says bf16 keeps it where bf16 is native (so that it continues bit for
// bit on its machine) and continues in fp32, in its layout, where bf16 is only emulated (a resume
// on another machine), saying why; a bf16 the resume names is kept there, with the warning.
TEST(ComputeFormat, ARecordedBf16ContinuesInFp32WhereBf16IsEmulated) {
  std::vector<std::string> timed;
  auto time_step = [&timed](const ComputeFormat& f) {
    timed.push_back(describe(f));
    return f.precision == Precision::kBFloat16 ? 9.4 : 0.534;
  };
  const FormatChoice native =
      choose_compute_format(MemoryFormat::kChannelsLast, Precision::kBFloat16, true, "", true,
                            time_step, /*precision_from_record=*/true);
  EXPECT_EQ(describe(native.format), "channels-last, bf16 mixed precision");
  EXPECT_EQ(native.reason.find("not the bf16"), std::string::npos) << native.reason;

  timed.clear();
  const FormatChoice elsewhere =
      choose_compute_format(MemoryFormat::kChannelsLast, Precision::kBFloat16, true,
                            "this CPU has neither AVX-512 BF16 nor AMX", true, time_step,
                            /*precision_from_record=*/true);
  EXPECT_EQ(describe(elsewhere.format), "channels-last, fp32");
  EXPECT_EQ(timed, (std::vector<std::string>{"channels-last, fp32"}));  // emulated bf16 untimed
  EXPECT_FALSE(elsewhere.automatic);
  EXPECT_EQ(elsewhere.reason,
            "fp32, not the bf16 the run recorded, since this CPU has neither AVX-512 BF16 nor AMX "
            "(precision = \"bf16\" on resuming keeps bf16); a step channels-last, fp32 0.534 s");
  EXPECT_EQ(bf16_warning(elsewhere, "this CPU has neither AVX-512 BF16 nor AMX"), "");
  // A recorded fp32 is fp32 anywhere.
  EXPECT_EQ(describe(choose_compute_format(MemoryFormat::kContiguous, Precision::kFloat32, true,
                                           "no AVX-512 BF16", true, time_step,
                                           /*precision_from_record=*/true)
                         .format),
            "contiguous, fp32");

  const FormatChoice named = choose_compute_format(
      MemoryFormat::kChannelsLast, Precision::kBFloat16, true, "no AVX-512 BF16", true, time_step,
      /*precision_from_record=*/false);
  EXPECT_EQ(describe(named.format), "channels-last, bf16 mixed precision");
  EXPECT_NE(bf16_warning(named, "no AVX-512 BF16"), "");
}

// The units a run's record names agree with the check that decides whether bf16 is native: a
// record reading "AVX2, no AVX-512" beside a bf16 run would say the format was slow when it was
// not.
TEST(ComputeFormat, TheCpusUnitsSayWhetherBf16IsNative) {
  const std::string units = cpu_format_units();
  std::cout << "this CPU: " << cpu_description() << "\n";
  if (units.empty()) GTEST_SKIP() << "/proc/cpuinfo lists no flags here";
  const bool native = bf16_slowness(torch::kCPU).empty();
  const std::vector<std::string> native_units = {"AMX", "AVX-512 BF16, no AMX", "BF16"};
  const std::vector<std::string> emulated_units = {"AVX-512, no BF16", "AVX2, no AVX-512",
                                                   "no AVX2", "no BF16"};
  const auto& expected = native ? native_units : emulated_units;
  EXPECT_NE(std::find(expected.begin(), expected.end(), units), expected.end())
      << units << (native ? " on a CPU with native bf16" : " on a CPU that emulates bf16");
}

// OpenBLAS's oldest kernels on a CPU with AVX2 or AVX-512 (a model its release does not know) are
// named with the kernels to start with instead; the right kernels, a CPU without AVX2, another
// BLAS, or the user's own OPENBLAS_CORETYPE give no warning.
TEST(ComputeFormat, OpenBlasFallbackKernelsAreNamedWithTheFix) {
  const std::string avx512 = blas_fallback_warning("Prescott", "AVX-512 BF16, no AMX", false);
  EXPECT_NE(avx512.find("its Prescott kernels"), std::string::npos) << avx512;
  EXPECT_NE(avx512.find("OPENBLAS_CORETYPE=SkylakeX"), std::string::npos) << avx512;
  EXPECT_NE(blas_fallback_warning("Prescott", "AMX", false).find("OPENBLAS_CORETYPE=SkylakeX"),
            std::string::npos);
  const std::string avx2 = blas_fallback_warning("Sandybridge", "AVX2, no AVX-512", false);
  EXPECT_NE(avx2.find("OPENBLAS_CORETYPE=Haswell"), std::string::npos) << avx2;
  EXPECT_EQ(blas_fallback_warning("Prescott", "AVX-512 BF16, no AMX", true), "");
  EXPECT_EQ(blas_fallback_warning("SkylakeX", "AVX-512, no BF16", false), "");
  EXPECT_EQ(blas_fallback_warning("Cooperlake", "AVX-512 BF16, no AMX", false), "");
  EXPECT_EQ(blas_fallback_warning("Haswell", "AVX2, no AVX-512", false), "");
  EXPECT_EQ(blas_fallback_warning("ZEN", "AVX2, no AVX-512", false), "");
  EXPECT_EQ(blas_fallback_warning("Prescott", "no AVX2", false), "");
  EXPECT_EQ(blas_fallback_warning("Prescott", "", false), "");
  EXPECT_EQ(blas_fallback_warning("", "AVX-512 BF16, no AMX", false), "");
}

}  // namespace
}  // namespace dsgd
