// Flat parameters, the flat SGD optimizer and checkpoint archives: the pieces every engine
// builds on.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <csignal>

#include "algos/local_adamw.h"
#include "algos/local_optimizer.h"
#include "algos/local_sgd.h"
#include "core/checkpoint.h"
#include "core/crash_report.h"
#include "core/error_report.h"
#include "core/errors.h"
#include "core/flat_model.h"
#include "core/host_staging.h"
#include "models/model.h"

namespace dsgd {
namespace {

std::shared_ptr<Model> small_bn_model() {
  torch::manual_seed(0);
  return make_model("lenet5-bn", {1, 28, 28, 10});
}

TEST(FlatModel, KeepsValuesAndSizes) {
  auto net = small_bn_model();
  std::vector<torch::Tensor> before;
  int64_t total = 0;
  for (auto& p : net->parameters()) {
    before.push_back(p.detach().clone());
    total += p.numel();
  }
  FlatModel flat(net);
  EXPECT_EQ(flat.num_params(), total);
  auto params = net->parameters();
  for (size_t i = 0; i < params.size(); ++i) EXPECT_TRUE(torch::equal(params[i], before[i]));
  // Four BatchNorm modules, each with a running mean and a running variance.
  int64_t bn_floats = 0;
  for (auto& b : net->buffers()) {
    if (b.is_floating_point()) bn_floats += b.numel();
  }
  EXPECT_EQ(flat.num_buffers(), bn_floats);
  EXPECT_GT(bn_floats, 0);
}

TEST(FlatModel, WritingFlatTensorChangesModule) {
  auto net = small_bn_model();
  FlatModel flat(net);
  torch::NoGradGuard no_grad;
  flat.params().copy_(torch::arange(flat.num_params(), torch::kFloat));
  int64_t offset = 0;
  for (auto& p : net->parameters()) {
    EXPECT_FLOAT_EQ(p.flatten()[0].item<float>(), static_cast<float>(offset));
    offset += p.numel();
  }
  flat.buffers().fill_(7.0f);
  for (auto& b : net->buffers()) {
    if (b.is_floating_point()) {
      EXPECT_TRUE(torch::all(b == 7.0f).item<bool>());
    }
  }
}

TEST(FlatModel, BackwardFillsFlatGradient) {
  auto reference = small_bn_model();
  auto net = small_bn_model();
  FlatModel flat(net);
  auto x = torch::randn({8, 1, 28, 28});
  auto y = torch::randint(0, 10, {8});
  torch::nn::functional::cross_entropy(reference->forward(x), y).backward();
  // Twice: the second backward must overwrite after zero_grad, not accumulate or detach.
  for (int round = 0; round < 2; ++round) {
    flat.zero_grad();
    torch::nn::functional::cross_entropy(net->forward(x), y).backward();
    std::vector<torch::Tensor> expected;
    for (auto& p : reference->parameters()) expected.push_back(p.grad().flatten());
    EXPECT_TRUE(torch::allclose(flat.grads(), torch::cat(expected), 1e-5, 1e-6));
  }
  EXPECT_GT(flat.grads().abs().sum().item<double>(), 0.0);
}

// LocalSgd over a flat vector against torch::optim::SGD over the same parameters.
void expect_matches_torch_sgd(double momentum, bool nesterov, double weight_decay) {
  torch::manual_seed(1);
  auto a = torch::randn({20, 6});
  auto b = torch::randn({20});
  auto theta0 = torch::randn({6});
  auto gradient = [&](const torch::Tensor& theta) {
    return a.t().mm((a.mv(theta) - b).unsqueeze(1)).squeeze(1) / 20;
  };

  auto reference = theta0.clone().requires_grad_(true);
  torch::optim::SGD sgd(
      {reference},
      torch::optim::SGDOptions(0.05).momentum(momentum).nesterov(nesterov).weight_decay(
          weight_decay));
  auto theta = theta0.clone();
  LocalSgd local({momentum, nesterov, weight_decay}, theta);
  for (int step = 0; step < 50; ++step) {
    reference.mutable_grad() = gradient(reference.detach());
    sgd.step();
    auto g = gradient(theta);
    local.step(theta, g, 0.05);
  }
  EXPECT_TRUE(torch::allclose(theta, reference.detach(), 1e-5, 1e-6)) << theta << reference;
  EXPECT_FALSE(torch::allclose(theta, theta0));
}

TEST(LocalSgd, MatchesTorchPlain) { expect_matches_torch_sgd(0.0, false, 0.0); }
TEST(LocalSgd, MatchesTorchMomentum) { expect_matches_torch_sgd(0.9, false, 0.0); }
TEST(LocalSgd, MatchesTorchNesterov) { expect_matches_torch_sgd(0.9, true, 0.0); }
TEST(LocalSgd, MatchesTorchNesterovWeightDecay) { expect_matches_torch_sgd(0.9, true, 0.01); }
TEST(LocalSgd, MatchesTorchMomentumWeightDecay) { expect_matches_torch_sgd(0.5, false, 0.1); }

TEST(LocalSgd, HandComputedTwoSteps) {
  // θ0 = 1, g = 2 then 4, η = 0.1 then 0.05, γ = 0.5, λ = 0; η sits inside v:
  // step 1: v = 0.1·2 = 0.2, θ = 1 − 0.2 = 0.8;
  // step 2: v = 0.5·0.2 + 0.05·4 = 0.3, θ = 0.8 − 0.3 = 0.5.
  // (PyTorch's convention, v = γv + g, θ −= ηv, would give θ = 0.8 − 0.05·5 = 0.55.)
  auto theta = torch::ones({1});
  LocalSgd sgd({0.5, false, 0.0}, theta);
  auto g = torch::full({1}, 2.0f);
  sgd.step(theta, g, 0.1);
  EXPECT_FLOAT_EQ(theta.item<float>(), 0.8f);
  g = torch::full({1}, 4.0f);
  sgd.step(theta, g, 0.05);
  EXPECT_FLOAT_EQ(theta.item<float>(), 0.5f);
  EXPECT_FLOAT_EQ(sgd.momentum_buffer().item<float>(), 0.3f);
}

// LocalAdamW over a flat vector against LibTorch's torch::optim::AdamW over the same parameters,
// in float64, with the rate changing between steps (a schedule): the same operations in the same
// order, so the two agree to the last bits, and the moments are AdamW's exp_avg and exp_avg_sq.
TEST(LocalAdamW, MatchesTorchAdamWUnderASchedule) {
  torch::manual_seed(3);
  const auto f64 = torch::TensorOptions().dtype(torch::kFloat64);
  auto a = torch::randn({20, 6}, f64);
  auto b = torch::randn({20}, f64);
  auto theta0 = torch::randn({6}, f64);
  auto gradient = [&](const torch::Tensor& theta) {
    return a.t().mm((a.mv(theta) - b).unsqueeze(1)).squeeze(1) / 20;
  };
  for (const double weight_decay : {0.0, 0.1}) {
    SCOPED_TRACE(weight_decay);
    auto reference = theta0.clone().requires_grad_(true);
    torch::optim::AdamW adamw(
        {reference},
        torch::optim::AdamWOptions(0.01).betas({0.8, 0.99}).eps(1e-6).weight_decay(weight_decay));
    auto theta = theta0.clone();
    LocalAdamW local({0.8, 0.99, 1e-6, weight_decay}, theta);
    for (int64_t t = 1; t <= 40; ++t) {
      const double lr = t <= 20 ? 0.01 : 0.003;
      static_cast<torch::optim::AdamWOptions&>(adamw.param_groups()[0].options()).lr(lr);
      reference.mutable_grad() = gradient(reference.detach());
      adamw.step();
      auto g = gradient(theta);
      local.step(theta, g, lr, t);
    }
    EXPECT_TRUE(torch::allclose(theta, reference.detach(), 0.0, 1e-15)) << theta - reference;
    EXPECT_GT((theta - theta0).abs().max().item<double>(), 0.05);
    ASSERT_EQ(adamw.state().size(), 1u);  // one parameter (its key's type varies by version)
    auto& state = static_cast<torch::optim::AdamWParamState&>(*adamw.state().begin()->second);
    EXPECT_TRUE(torch::allclose(local.moments().narrow(0, 0, 6), state.exp_avg(), 0.0, 1e-15));
    EXPECT_TRUE(torch::allclose(local.moments().narrow(0, 6, 6), state.exp_avg_sq(), 0.0, 1e-15));
  }
}

TEST(LocalAdamW, HandComputedFirstTwoSteps) {
  // θ0 = 1, g = 0.5 then −1, η = 0.1, λ = 0.2, β₁ = 0.5, β₂ = 0.75, ε = 0:
  // step 1: θ = 1·(1 − 0.02) = 0.98; m = 0.25, v = 0.0625; m̂ = 0.5, v̂ = 0.25 (√ 0.5);
  //         θ = 0.98 − 0.1·0.5/0.5 = 0.88.
  // step 2: θ = 0.88·0.98 = 0.8624; m = 0.125 − 0.5 = −0.375, v = 0.046875 + 0.25 = 0.296875;
  //         m̂ = −0.375/0.75 = −0.5, v̂ = 0.296875/0.4375 = 0.678571…;
  //         θ = 0.8624 + 0.1·0.5/√0.678571… = 0.8624 + 0.0606977…
  auto theta = torch::ones({1}, torch::kFloat64);
  LocalAdamW adamw({0.5, 0.75, 0.0, 0.2}, theta);
  auto g = torch::full({1}, 0.5, torch::kFloat64);
  adamw.step(theta, g, 0.1, 1);
  EXPECT_DOUBLE_EQ(theta.item<double>(), 0.88);
  g = torch::full({1}, -1.0, torch::kFloat64);
  adamw.step(theta, g, 0.1, 2);
  EXPECT_NEAR(theta.item<double>(), 0.8624 + 0.05 / std::sqrt(0.296875 / 0.4375), 1e-15);
  EXPECT_DOUBLE_EQ(adamw.moments()[0].item<double>(), -0.375);
  EXPECT_DOUBLE_EQ(adamw.moments()[1].item<double>(), 0.296875);
  EXPECT_THROW(adamw.step(theta, g, 0.1, 0), dsgd::Error);
}

// The learners' optimizer holds SGD's velocity or AdamW's [m | v] as its state, and keeps it
// where an owner places it.
TEST(LocalOptimizer, StateIsTheVelocityOrBothMoments) {
  const auto theta0 = torch::zeros({3});
  LocalOptimizer plain(SgdOptions{}, theta0);
  EXPECT_FALSE(plain.state().defined());
  LocalOptimizer heavy(SgdOptions{0.9}, theta0);
  EXPECT_EQ(heavy.state().numel(), 3);
  LocalOptimizerOptions options;
  options.kind = LocalOptimizerKind::kAdamw;
  LocalOptimizer adamw(options, theta0);
  EXPECT_TRUE(adamw.is_adamw());
  EXPECT_EQ(adamw.state().numel(), 6);
  auto block = torch::zeros({10});
  adamw.keep_state_in(block.narrow(0, 4, 6));
  auto theta = theta0.clone();
  auto g = torch::full({3}, 2.0f);
  adamw.step(theta, g, 0.1, 1);
  // m = 0.1·2, v = 0.001·4, in the block's tail.
  EXPECT_TRUE(torch::allclose(block.narrow(0, 4, 3), torch::full({3}, 0.2f)));
  EXPECT_TRUE(torch::allclose(block.narrow(0, 7, 3), torch::full({3}, 0.004f)));
}

// Clipping a flat gradient is torch.nn.utils.clip_grad_norm_ over the same values held as
// separate tensors (to float rounding: the norm is summed in another order), a gradient within
// the limit is left as it is, and the optimizer steps with the clipped gradient.
TEST(LocalOptimizer, ClipsAsTorchClipGradNorm) {
  torch::manual_seed(5);
  std::vector<torch::Tensor> parameters = {torch::zeros({3, 4}, torch::requires_grad()),
                                           torch::zeros({7}, torch::requires_grad())};
  for (auto& p : parameters) p.mutable_grad() = torch::randn(p.sizes());
  torch::Tensor flat = torch::cat({parameters[0].grad().flatten(), parameters[1].grad().flatten()});
  const double norm = flat.norm().item<double>();
  torch::Tensor within = flat.clone();
  clip_gradient_norm(within, 2.0 * norm);
  EXPECT_TRUE(torch::equal(within, flat));
  torch::nn::utils::clip_grad_norm_(parameters, 0.25 * norm);
  clip_gradient_norm(flat, 0.25 * norm);
  EXPECT_TRUE(torch::allclose(
      flat, torch::cat({parameters[0].grad().flatten(), parameters[1].grad().flatten()}), 1e-6,
      1e-7));
  EXPECT_NEAR(flat.norm().item<double>(), 0.25 * norm, 1e-5 * norm);

  // θ = 0, g = [3, 4] (norm 5) clipped to 1: θ − η·[0.6, 0.8] with η = 0.5, plain SGD.
  LocalOptimizerOptions options{SgdOptions{}};
  options.clip_norm = 1.0;
  auto theta = torch::zeros({2}, torch::kFloat64);
  LocalOptimizer sgd(options, theta);
  auto g = torch::tensor({3.0, 4.0}, torch::kFloat64);
  sgd.step(theta, g, 0.5, 1);
  EXPECT_NEAR(theta[0].item<double>(), -0.3, 1e-6);
  EXPECT_NEAR(theta[1].item<double>(), -0.4, 1e-6);
}

// Engine state is often slices of one flat vector: each slice is written with a storage of its
// own (not the whole vector's) and reads back equal, an empty slice at an offset included
// (LibTorch 2.x could not read that one back when it was written as a view).
TEST(Checkpoint, SlicesOfOneVectorRoundTripAlone) {
  const torch::Tensor state = torch::arange(10000, torch::kFloat);
  const TensorMap tensors{{"empty", state.narrow(0, 1, 0)},
                          {"params", state.narrow(0, 5000, 3)},
                          {"strided", state.slice(0, 0, 10, 2)},
                          {"whole", torch::arange(4, torch::kDouble)}};
  const std::string bytes = checkpoint_bytes(tensors);
  EXPECT_LT(bytes.size(), 4u * 10000u) << "a slice was written with the whole vector's storage";
  const TensorMap back = parse_checkpoint(bytes, "slices");
  ASSERT_EQ(back.size(), tensors.size());
  for (const auto& [name, tensor] : tensors) {
    SCOPED_TRACE(name);
    EXPECT_TRUE(torch::equal(back.at(name), tensor));
    EXPECT_EQ(back.at(name).scalar_type(), tensor.scalar_type());
  }
}

}  // namespace
}  // namespace dsgd

// Staging for MPI: the identity on the CPU; forced (the GPU's path, with ordinary host buffers),
// every message goes through a buffer of the caller's that keeps its storage between calls.
TEST(HostStaging, IdentityOnTheCpuAndBuffersWhenForced) {
  torch::Tensor t = torch::arange(6, torch::kFloat);
  torch::Tensor buffer;
  dsgd::HostStaging direct(torch::kCPU, /*force=*/false);
  EXPECT_FALSE(direct.staged());
  EXPECT_TRUE(direct.outgoing(t, buffer).is_same(t));
  EXPECT_TRUE(direct.incoming(t, buffer).is_same(t));
  EXPECT_FALSE(buffer.defined());
  EXPECT_EQ(direct.copies(), 0);

  dsgd::HostStaging staged(torch::kCPU, /*force=*/true);
  torch::Tensor out = staged.outgoing(t, buffer);
  EXPECT_TRUE(out.is_same(buffer));
  EXPECT_NE(out.data_ptr(), t.data_ptr());
  EXPECT_TRUE(torch::equal(out, t));
  const void* storage = buffer.data_ptr();
  // A message received into the same buffer (the next one of this size) lands in `t` on arrival.
  torch::Tensor in = staged.incoming(t, buffer);
  EXPECT_EQ(in.data_ptr(), storage);
  in.fill_(7.0f);
  EXPECT_FLOAT_EQ(t[0].item<float>(), 0.0f);  // not before it has arrived
  staged.arrived(in, t);
  EXPECT_TRUE(torch::equal(t, torch::full({6}, 7.0f)));
  EXPECT_EQ(staged.copies(), 2);
  EXPECT_EQ(staged.bytes(), 2 * 6 * 4);
  // A message of another size gets a buffer of its size.
  torch::Tensor longer = torch::ones({9});
  EXPECT_EQ(staged.outgoing(longer, buffer).numel(), 9);
}

// One mapping from an exception to the CLI's exit code, message and hint, which the CLI, the MPI
// launcher and the Python module share.
TEST(ErrorReport, EachErrorKeepsItsExitCodeAndHint) {
  auto report_of = [](auto error) { return dsgd::report_error(std::make_exception_ptr(error)); };
  const dsgd::ErrorReport config = report_of(dsgd::ConfigError("bad key", "did you mean"));
  EXPECT_EQ(config.exit_code, 2);
  EXPECT_EQ(config.message, "bad key");
  EXPECT_EQ(config.hint, "did you mean");
  EXPECT_EQ(report_of(dsgd::DataError("no file")).exit_code, 2);
  EXPECT_EQ(report_of(dsgd::DivergedError("nan")).exit_code, 3);
  EXPECT_EQ(report_of(dsgd::CollapsedError("uniform")).exit_code, 3);
  EXPECT_EQ(report_of(dsgd::HangError("rank 2")).exit_code, 4);
  EXPECT_EQ(report_of(dsgd::InterruptedError("stopped", "resume", 15)).exit_code, 143);
  EXPECT_EQ(report_of(dsgd::Error("other")).exit_code, 1);
  const dsgd::ErrorReport plain = report_of(std::runtime_error("plain"));
  EXPECT_EQ(plain.exit_code, 1);
  EXPECT_EQ(plain.message, "plain");
  EXPECT_TRUE(plain.hint.empty());
  EXPECT_EQ(dsgd::report_error(std::make_exception_ptr(42)).exit_code, 1);
}

// A crash prints the program, the signal and a stack, then ends the process by that signal (the
// exit status and any core file stay what they would have been).
TEST(CrashReport, ACrashPrintsItsStackAndDiesOfItsSignal) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const auto crash = [](int signal_number) {
    dsgd::install_crash_report("crash-test");
    raise(signal_number);
  };
  EXPECT_EXIT(crash(SIGSEGV), ::testing::KilledBySignal(SIGSEGV),
              "crash-test: crashed: Segmentation fault\\. The stack, innermost first:\n.*"
              "please report it");
  EXPECT_EXIT(crash(SIGABRT), ::testing::KilledBySignal(SIGABRT), "crash-test: crashed: Aborted");
}
