// Channels-last and bf16 mixed precision (models/compute_format.h): each computes what fp32 in
// the default layout computes, to rounding; dsgd's flat float32 state stays float32; autocast's
// cache of bf16 weight copies never outlives a forward pass (dsgd updates weights in place); and
// every thread that computes gradients computes in the run's precision.
#include <gtest/gtest.h>
#include <torch/script.h>

#include "cli_helpers.h"
#include "core/errors.h"
#include "core/flat_model.h"
#include "core/torch_compat.h"
#include "models/model.h"
#include "train/config.h"
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
  ModelReplica r{make_model(model, shape), nullptr};
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
  ComputeFormat format = compute_format_from(config.memory_format, config.precision);
  EXPECT_EQ(format.memory_format, MemoryFormat::kChannelsLast);
  EXPECT_EQ(format.precision, Precision::kBFloat16);
  EXPECT_EQ(describe(format), "channels-last, bf16 mixed precision");
  RunConfig defaults = parse_config("", {});
  EXPECT_EQ(describe(compute_format_from(defaults.memory_format, defaults.precision)),
            "contiguous, fp32");
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

// bf16 mixed precision: the loss and gradients approximate fp32's to bf16's 8 bits of mantissa,
// and everything dsgd keeps (parameters, gradients, BatchNorm statistics) is still float32.
TEST(ComputeFormat, Bf16KeepsFloat32StateAndApproximatesFp32) {
  const InputShape cifar{3, 32, 32, 10};
  for (const ComputeFormat& format : {kBf16, kChannelsLastBf16}) {
    SCOPED_TRACE(describe(format));
    ModelReplica fp32 = replica("resnet20", cifar, kFp32);
    ModelReplica bf16 = replica("resnet20", cifar, format);
    const Batch batch = cifar_batch();
    const double loss32 = fp32.compute_gradient(batch, torch::kCPU).item<double>();
    torch::Tensor loss16 = bf16.compute_gradient(batch, torch::kCPU);
    EXPECT_EQ(loss16.scalar_type(), torch::kFloat);
    EXPECT_NEAR(loss16.item<double>(), loss32, 0.02 * loss32);
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
    // Gradients point the same way: bf16's relative error is ~1e-2 per value, far less in sum.
    const double cosine =
        torch::nn::functional::cosine_similarity(bf16.flat->grads().to(torch::kDouble).unsqueeze(0),
                                                 fp32.flat->grads().to(torch::kDouble).unsqueeze(0))
            .item<double>();
    EXPECT_GT(cosine, 0.99);
    EXPECT_LT(relative_error(bf16.flat->buffers(), fp32.flat->buffers()), 0.02);
    // Autocast is off again on this thread: nothing outside predict() computes in bf16.
    EXPECT_FALSE(compat::autocast_enabled(c10::DeviceType::CPU));
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
  EXPECT_GT(torch::nn::functional::cosine_similarity(bf16.flat->grads().unsqueeze(0),
                                                     fp32.flat->grads().unsqueeze(0))
                .item<double>(),
            0.99);
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

}  // namespace
}  // namespace dsgd
