// The synchronous family: plans (when learners average), the in-memory communicator, one round
// against hand-computed values, the simulator's communication-cost model, and end to end the
// equivalences that pin the algorithms down: kavg K=1 = ssgd for plain SGD, hier-avg S=1 =
// kavg K=K2, hier-avg S=P = kavg K=K1, one learner = single-worker sgd.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>

#include "algos/communicator.h"
#include "algos/sync_round.h"
#include "cli_helpers.h"
#include "core/checkpoint.h"
#include "core/errors.h"
#include "engine/sim/simulators.h"
#include "engine/sim/timing.h"
#include "engine/sync_learners.h"
#include "run/session.h"
#include "train/config.h"

namespace {

using namespace dsgd::testing;  // NOLINT(build/namespaces): the shared helpers of cli_helpers.h
namespace fs = std::filesystem;

// The plan from the options given, declared defaults filling the rest (as the config resolves a
// run's options).
dsgd::SyncPlan plan_of(const std::string& algo, const dsgd::OptionValues& options,
                       int64_t learners) {
  const dsgd::SyncAlgorithm& algorithm = dsgd::find_sync_algorithm(algo);
  return dsgd::sync_plan(algorithm, dsgd::with_defaults(algorithm, options), {learners, false});
}

// The averaging after each step: '.' none, else the level as the user counts them (1 = innermost).
std::string schedule(const dsgd::SyncPlan& plan, int steps) {
  std::string out;
  for (int s = 1; s <= steps; ++s) {
    auto level = plan.averaging_after(s);
    out += !level ? '.' : static_cast<char>('1' + *level);
  }
  return out;
}

TEST(SyncPlan, WhenEachAlgorithmAverages) {
  dsgd::OptionValues hier;
  hier.set("hier.group_size", 2);
  hier.set("hier.local_period", 2);
  hier.set("hier.global_period", 6);
  dsgd::OptionValues kavg;
  kavg.set("kavg.period", 3);
  EXPECT_EQ(schedule(plan_of("hier-avg", hier, 8), 12), ".1.1.2.1.1.2");
  EXPECT_EQ(schedule(plan_of("kavg", kavg, 8), 9), "..1..1..1");
  dsgd::SyncPlan ssgd = plan_of("ssgd", {}, 8);
  EXPECT_TRUE(ssgd.average_gradients);
  EXPECT_EQ(schedule(ssgd, 4), "....");
  EXPECT_EQ(plan_of("hier-avg", hier, 8).group_sizes(), (std::vector<int64_t>{2, 8}));
  EXPECT_EQ(plan_of("kavg", kavg, 8).group_sizes(), (std::vector<int64_t>{8}));
  // A plan takes only its own keys.
  EXPECT_THROW(plan_of("ssgd", kavg, 8), dsgd::ConfigError);
}

dsgd::OptionValues levels_option(dsgd::OptionTable rows) {
  dsgd::OptionValues options;
  options.set_table("hier.levels", std::move(rows));
  return options;
}

// hier.levels: pairs every step, fours every 2, all 8 every 4; the outermost level due wins.
// Two levels given as hier.levels make the shorthand's plan.
TEST(SyncPlan, ThreeLevelScheduleByHand) {
  dsgd::SyncPlan plan = plan_of("hier-avg", levels_option({{2, 1}, {4, 2}, {8, 4}}), 8);
  EXPECT_EQ(plan.group_sizes(), (std::vector<int64_t>{2, 4, 8}));
  EXPECT_EQ(schedule(plan, 12), "121312131213");
  EXPECT_FALSE(plan.levels[0].cost.has_value());

  dsgd::SyncPlan priced =
      plan_of("hier-avg", levels_option({{2, 1, 3, 0.5}, {4, 2}, {8, 4, 40, 0.01}}), 8);
  ASSERT_TRUE(priced.levels[0].cost.has_value());
  EXPECT_EQ(priced.levels[0].cost->alpha, 3);
  EXPECT_EQ(priced.levels[0].cost->beta, 0.5);
  EXPECT_FALSE(priced.levels[1].cost.has_value());

  dsgd::OptionValues shorthand;
  shorthand.set("hier.group_size", 2);
  shorthand.set("hier.local_period", 2);
  shorthand.set("hier.global_period", 6);
  dsgd::SyncPlan two = plan_of("hier-avg", levels_option({{2, 2}, {8, 6}}), 8);
  dsgd::SyncPlan short_two = plan_of("hier-avg", shorthand, 8);
  EXPECT_EQ(two.group_sizes(), short_two.group_sizes());
  EXPECT_EQ(schedule(two, 12), schedule(short_two, 12));
}

// The one price of the synchronous clock's reductions: α per all-reduce plus β per byte each
// learner sent, at the level's own link (hier.levels' third and fourth columns), else its place's:
// the global link for the last level, the in-group link for the first, a cluster's middle price
// between (the in-group one where the prices have none).
TEST(SyncPlan, ReductionPricesTakeTheLevelsOwnElseTheirPlacesPrice) {
  dsgd::ClockPrices prices;
  prices.group = {1, 2};
  prices.global = {10, 20};
  prices.middle = {{5, 6}};
  EXPECT_EQ(dsgd::ReductionPrices(1, prices).add(0, 0, 3, 100), 10 * 3 + 20 * 100);
  const dsgd::ReductionPrices four(4, prices);
  EXPECT_EQ(four.add(0, 0, 2, 10), 1 * 2 + 2 * 10);
  EXPECT_EQ(four.add(0, 1, 2, 10), 5 * 2 + 6 * 10);
  EXPECT_EQ(four.add(0, 2, 2, 10), 1 * 2 + 2 * 10);  // no middle price of its own: the group's
  EXPECT_EQ(four.add(0, 3, 2, 10), 10 * 2 + 20 * 10);
  EXPECT_EQ(four.add(100, 3, 2, 40, 4), 100 + 10 * 2 + 20 * 40 / 4);  // 4 learners sent 40 bytes

  dsgd::SyncPlan priced =
      plan_of("hier-avg", levels_option({{2, 1}, {4, 2, 3, 0.5}, {8, 4, 40, 0.25}}), 8);
  const dsgd::ReductionPrices own(priced, prices);
  ASSERT_EQ(own.levels(), 3u);
  EXPECT_EQ(own.add(0, 0, 1, 8), 1 + 2 * 8);
  EXPECT_EQ(own.add(0, 1, 1, 8), 3 + 0.5 * 8);
  EXPECT_EQ(own.add(0, 2, 1, 8), 40 + 0.25 * 8);
}

// Small integers: sums and divisions by 4 are exact in float, so "preserves the mean" can be
// checked exactly.
std::vector<torch::Tensor> integer_learners(int64_t count, int64_t length, int64_t seed) {
  torch::manual_seed(static_cast<uint64_t>(seed));
  std::vector<torch::Tensor> t;
  for (int64_t i = 0; i < count; ++i)
    t.push_back(torch::randint(-50, 50, {length}).to(torch::kFloat));
  return t;
}

TEST(Communicator, GroupAveragePreservesEachGroupMeanAndMixesNoGroups) {
  const int64_t length = 5000;  // more than one fused block
  auto tensors = integer_learners(8, length, 3);
  std::vector<torch::Tensor> before;
  for (auto& t : tensors) before.push_back(t.clone());
  dsgd::InProcessCommunicator communicator(8, {4});
  communicator.average(0, tensors);
  for (int g = 0; g < 2; ++g) {
    torch::Tensor mean =
        (before[4 * g] + before[4 * g + 1] + before[4 * g + 2] + before[4 * g + 3]) / 4;
    for (int j = 0; j < 4; ++j) EXPECT_TRUE(torch::equal(tensors[4 * g + j], mean)) << g << j;
  }
  // Group 1's result does not depend on group 0's inputs.
  auto changed = before;
  for (int j = 0; j < 4; ++j) changed[j] = changed[j] * 3 + 1;
  communicator.average(0, changed);
  for (int j = 4; j < 8; ++j) EXPECT_TRUE(torch::equal(changed[j], tensors[j]));

  auto all = before;
  for (auto& t : all) t = t.clone();
  communicator.average(communicator.global_level(), all);
  torch::Tensor sum = torch::zeros({length});
  for (auto& t : before) sum += t;
  for (auto& t : all) EXPECT_TRUE(torch::allclose(t, sum / 8, 0, 1e-6));
}

TEST(Communicator, FusedAndGenericPathsAgreeAndBadGroupsAreRejected) {
  auto fused = integer_learners(3, 3000, 5);
  std::vector<torch::Tensor> generic;
  for (auto& t : fused) generic.push_back(t.to(torch::kDouble));
  dsgd::average_in_place(fused);
  dsgd::average_in_place(generic);
  for (size_t j = 0; j < fused.size(); ++j) {
    EXPECT_TRUE(torch::allclose(fused[j].to(torch::kDouble), generic[j], 0, 1e-5));
    EXPECT_TRUE(torch::equal(fused[j], fused[0]));
  }
  EXPECT_THROW(dsgd::InProcessCommunicator(6, {4}), dsgd::ConfigError);
  EXPECT_THROW(dsgd::InProcessCommunicator(8, {4, 2}), dsgd::ConfigError);  // not nested
}

std::vector<dsgd::Learner> two_learners(double momentum) {
  std::vector<dsgd::Learner> learners;
  dsgd::SgdOptions sgd{momentum, false, 0.0};
  learners.emplace_back(sgd, torch::tensor({1.0f, 2.0f}), torch::tensor({10.0f}));
  learners.emplace_back(sgd, torch::tensor({3.0f, 4.0f}), torch::tensor({20.0f}));
  return learners;
}

void expect_values(const torch::Tensor& t, std::vector<float> values) {
  ASSERT_EQ(t.numel(), static_cast<int64_t>(values.size()));
  for (size_t k = 0; k < values.size(); ++k) {
    EXPECT_NEAR(t[static_cast<int64_t>(k)].item<float>(), values[k], 1e-6) << k;
  }
}

// K-AVG with K = 2, γ = 0.5, η = 0.1, two learners, worked by hand:
//   step 1: v0 = [1,1] θ0 = [0.9,1.9];  v1 = [2,0] θ1 = [2.8,4]       (no averaging)
//   step 2: v0 = [0.5,1.5] θ0 = [0.85,1.75];  v1 = [2,1] θ1 = [2.6,3.9]
//           then θ = mean = [1.725, 2.825], BN buffer = 15.
TEST(SyncRound, KavgStepsAndAveragesByHand) {
  for (bool average_momentum : {false, true}) {
    auto learners = two_learners(0.5);
    dsgd::InProcessCommunicator communicator(2, {2});
    dsgd::OptionValues k2;
    k2.set("kavg.period", 2);
    dsgd::SyncPlan plan = plan_of("kavg", k2, 2);
    learners[0].grad.copy_(torch::tensor({1.0f, 1.0f}));
    learners[1].grad.copy_(torch::tensor({2.0f, 0.0f}));
    dsgd::RoundTraffic first = finish_round(plan, 1, 0.1, average_momentum, learners, communicator);
    EXPECT_FALSE(first.level.has_value());
    expect_values(learners[0].params, {0.9f, 1.9f});
    expect_values(learners[1].params, {2.8f, 4.0f});
    learners[0].grad.copy_(torch::tensor({0.0f, 1.0f}));
    learners[1].grad.copy_(torch::tensor({1.0f, 1.0f}));
    dsgd::RoundTraffic second =
        finish_round(plan, 2, 0.1, average_momentum, learners, communicator);
    ASSERT_TRUE(second.level.has_value());
    EXPECT_EQ(*second.level, plan.global_level());
    EXPECT_EQ(second.learners_per_reduction, 2);
    // Parameters (2 floats) and BN buffers (1), plus the momentum buffer when it travels too.
    EXPECT_EQ(second.bytes_per_learner, average_momentum ? 20 : 12);
    for (auto& learner : learners) {
      expect_values(learner.params, {1.725f, 2.825f});
      expect_values(learner.buffers, {15.0f});
    }
    // Velocities hold η·d terms (η inside v): 0.1·(0.5·g1 + g2) per learner.
    if (average_momentum) {
      for (auto& learner : learners) expect_values(learner.optimizer.state(), {0.125f, 0.125f});
    } else {
      expect_values(learners[0].optimizer.state(), {0.05f, 0.15f});
      expect_values(learners[1].optimizer.state(), {0.2f, 0.1f});
    }
  }
}

// gradient clipping (grad_clip) by hand, c = 1, η = 0.1, no momentum, learners at [1, 2] and
// [3, 4] with gradients [3, 4] and [0, 0]: SSGD clips the all-reduced gradient, as DDP does
// ([1.5, 2], norm 2.5, to [0.6, 0.8]: both learners move by [-0.06, -0.08]); K-AVG each learner's
// own (learner 0's [3, 4], norm 5, to [0.6, 0.8]; learner 1 does not move).
TEST(SyncRound, ClippingIsOfTheGradientEachLearnerStepsWith) {
  dsgd::LocalOptimizerOptions clipped{dsgd::SgdOptions{}};
  clipped.clip_norm = 1.0;
  for (const std::string algo : {"ssgd", "kavg"}) {
    SCOPED_TRACE(algo);
    std::vector<dsgd::Learner> learners;
    learners.emplace_back(clipped, torch::tensor({1.0f, 2.0f}), torch::tensor({0.0f}));
    learners.emplace_back(clipped, torch::tensor({3.0f, 4.0f}), torch::tensor({0.0f}));
    dsgd::InProcessCommunicator communicator(2, {2});
    dsgd::OptionValues period;
    if (algo == "kavg") period.set("kavg.period", 2);
    const dsgd::SyncPlan plan = plan_of(algo, period, 2);
    learners[0].grad.copy_(torch::tensor({3.0f, 4.0f}));
    learners[1].grad.zero_();
    finish_round(plan, 1, 0.1, false, learners, communicator);
    if (algo == "ssgd") {
      expect_values(learners[0].params, {0.94f, 1.92f});
      expect_values(learners[1].params, {2.94f, 3.92f});
    } else {
      expect_values(learners[0].params, {0.94f, 1.92f});
      expect_values(learners[1].params, {3.0f, 4.0f});
    }
  }
}

// The outer optimizer by hand, from θ_anchor = [1, 2] with α = 0.5, β = 0.5 and the learners'
// means [0, 4], then [0.5, 2] (float64: every value is exact):
//   heavy ball: Δ = [1, -2], u = [1, -2], θ = [0.5, 3];  Δ = [0, 1], u = [0.5, 0], θ = [0.25, 3]
//   Nesterov:   Δ = [1, -2], u = [1, -2], θ = [1, 2] - 0.5·[1.5, -3] = [0.25, 3.5];
//               Δ = [-0.25, 1.5], u = [0.25, 0.5], θ = [0.25, 3.5] - 0.5·[-0.125, 1.75]
//                 = [0.3125, 2.625]
TEST(OuterOptimizer, HeavyBallAndNesterovStepsByHand) {
  auto run = [](bool nesterov) {
    dsgd::OuterOptimizer outer({0.5, 0.5, nesterov}, torch::tensor({1.0, 2.0}, torch::kDouble));
    std::vector<torch::Tensor> results;
    for (const auto& mean :
         {torch::tensor({0.0, 4.0}, torch::kDouble), torch::tensor({0.5, 2.0}, torch::kDouble)}) {
      torch::Tensor params = mean.clone();
      outer.step(params, 0.1);  // the inner rate: unused in the default form
      EXPECT_TRUE(torch::equal(outer.anchor(), params));  // the next anchor
      results.push_back(params);
    }
    return results;
  };
  auto heavy = run(false), nesterov = run(true);
  EXPECT_TRUE(torch::equal(heavy[0], torch::tensor({0.5, 3.0}, torch::kDouble))) << heavy[0];
  EXPECT_TRUE(torch::equal(heavy[1], torch::tensor({0.25, 3.0}, torch::kDouble))) << heavy[1];
  EXPECT_TRUE(torch::equal(nesterov[0], torch::tensor({0.25, 3.5}, torch::kDouble)));
  EXPECT_TRUE(torch::equal(nesterov[1], torch::tensor({0.3125, 2.625}, torch::kDouble)))
      << nesterov[1];
}

// Through a K-AVG round (K = 1, η = 1, plain SGD): both learners start at [1, 2], step to [0, 2]
// and [-2, 0], mean [-1, 1]; Δ = [2, 1], so α = 0.5 lands both at [0, 1.5]. Group averages
// (hier-avg's inner level) take no outer step.
TEST(SyncRound, GlobalAverageTakesTheOuterStep) {
  dsgd::OptionValues options;
  options.set("outer.lr", 0.5);
  dsgd::SyncPlan plan = plan_of("kavg", options, 2);
  EXPECT_EQ(plan.outer.lr, 0.5);
  std::vector<dsgd::Learner> learners;
  for (int i = 0; i < 2; ++i) {
    learners.emplace_back(dsgd::SgdOptions{}, torch::tensor({1.0f, 2.0f}), torch::tensor({0.0f}),
                          plan.outer);
  }
  learners[0].grad.copy_(torch::tensor({1.0f, 0.0f}));
  learners[1].grad.copy_(torch::tensor({3.0f, 2.0f}));
  dsgd::InProcessCommunicator communicator(2, {2});
  finish_round(plan, 1, 1.0, false, learners, communicator);
  for (auto& learner : learners) expect_values(learner.params, {0.0f, 1.5f});

  dsgd::OptionValues hier = options;
  hier.set("hier.group_size", 2);
  hier.set("hier.local_period", 1);
  hier.set("hier.global_period", 2);
  dsgd::SyncPlan grouped = plan_of("hier-avg", hier, 4);
  std::vector<dsgd::Learner> four;
  for (int i = 0; i < 4; ++i) {
    four.emplace_back(dsgd::SgdOptions{}, torch::tensor({1.0f, 2.0f}), torch::tensor({0.0f}),
                      grouped.outer);
    four.back().grad.copy_(torch::tensor({static_cast<float>(i), 0.0f}));
  }
  dsgd::InProcessCommunicator groups(4, {2});
  finish_round(grouped, 1, 1.0, false, four, groups);  // a group average: the plain mean
  expect_values(four[0].params, {0.5f, 2.0f});
  expect_values(four[3].params, {-1.5f, 2.0f});
}

// Post-local SGD's plan: with 10 steps an epoch and the switch at epoch 1.5, steps 1-15 average
// gradients and nothing else; from step 16 on, K-AVG's own schedule (K = 4: steps 16, 20, ...).
TEST(SyncPlan, PostLocalSgdIsSsgdUntilItsSwitch) {
  dsgd::OptionValues options;
  options.set("kavg.period", 4);
  options.set("post_local.switch_epoch", 1.5);
  const dsgd::SyncAlgorithm& kavg = dsgd::find_sync_algorithm("kavg");
  dsgd::SyncPlan plan = dsgd::sync_plan(kavg, dsgd::with_defaults(kavg, options), {4, false, 10});
  EXPECT_EQ(plan.average_gradients_until, 15);
  EXPECT_TRUE(plan.averages_gradients_at(1));
  EXPECT_TRUE(plan.averages_gradients_at(15));
  EXPECT_FALSE(plan.averages_gradients_at(16));
  // In a round: step 12 (a K-AVG averaging step) averages the gradients only.
  std::vector<dsgd::Learner> learners = two_learners(0.0);
  learners[0].grad.copy_(torch::tensor({1.0f, 1.0f}));
  learners[1].grad.copy_(torch::tensor({3.0f, 1.0f}));
  dsgd::InProcessCommunicator communicator(2, {2});
  dsgd::RoundTraffic traffic = finish_round(plan, 12, 0.1, false, learners, communicator);
  ASSERT_TRUE(traffic.level.has_value());
  EXPECT_EQ(traffic.bytes_per_learner, 12);         // [grad | buffers], as SSGD's
  expect_values(learners[0].params, {0.8f, 1.9f});  // each from its own start, mean gradient
  expect_values(learners[1].params, {2.8f, 3.9f});
}

// Three levels on 8 learners, plain SGD with zero gradients (the steps change nothing), θ_j = 8j
// and j²: after step 1 each pair holds its mean, after step 2 each four, after step 4 all eight.
// The values are exact in float; none crosses a group boundary before its level averages.
TEST(SyncRound, ThreeLevelsOnEightLearnersByHand) {
  dsgd::SyncPlan plan = plan_of("hier-avg", levels_option({{2, 1}, {4, 2}, {8, 4}}), 8);
  std::vector<dsgd::Learner> learners;
  for (int j = 0; j < 8; ++j) {
    learners.emplace_back(dsgd::SgdOptions{}, torch::tensor({8.0f * j, 1.0f * j * j}),
                          torch::tensor({1.0f * j}));
  }
  dsgd::InProcessCommunicator communicator(8, plan.group_sizes());
  auto round = [&](int64_t step) {
    for (auto& learner : learners) learner.grad.zero_();
    return finish_round(plan, step, 0.1, false, learners, communicator);
  };
  auto expect_all = [&](std::vector<std::vector<float>> params) {
    for (int j = 0; j < 8; ++j) {
      SCOPED_TRACE(j);
      expect_values(learners[static_cast<size_t>(j)].params, params[static_cast<size_t>(j)]);
    }
  };
  dsgd::RoundTraffic first = round(1);
  ASSERT_TRUE(first.level.has_value());
  EXPECT_EQ(*first.level, 0u);
  EXPECT_EQ(first.learners_per_reduction, 2);
  // Pairs: (0, 1), (2, 3), (4, 5), (6, 7); j² means 0.5, 6.5, 20.5, 42.5.
  expect_all({{4, 0.5f},
              {4, 0.5f},
              {20, 6.5f},
              {20, 6.5f},
              {36, 20.5f},
              {36, 20.5f},
              {52, 42.5f},
              {52, 42.5f}});
  expect_values(learners[2].buffers, {2.5f});
  dsgd::RoundTraffic second = round(2);
  EXPECT_EQ(*second.level, 1u);
  EXPECT_EQ(second.learners_per_reduction, 4);
  // Fours: (0..3) and (4..7).
  expect_all({{12, 3.5f},
              {12, 3.5f},
              {12, 3.5f},
              {12, 3.5f},
              {44, 31.5f},
              {44, 31.5f},
              {44, 31.5f},
              {44, 31.5f}});
  EXPECT_EQ(*round(3).level, 0u);  // pairs inside fours that already agree: nothing moves
  expect_values(learners[5].params, {44, 31.5f});
  dsgd::RoundTraffic fourth = round(4);
  EXPECT_EQ(*fourth.level, 2u);
  EXPECT_EQ(fourth.learners_per_reduction, 8);
  for (auto& learner : learners) {
    expect_values(learner.params, {28, 17.5f});
    expect_values(learner.buffers, {3.5f});
  }
}

// bn_policy local / reestimate: the averages carry parameters only, each learner keeps its own
// BatchNorm statistics; and the evaluated model takes learner 0's instead of the mean.
TEST(SyncRound, BuffersStayLocalUnlessThePlanAveragesThem) {
  auto learners = two_learners(0.0);
  dsgd::OptionValues k1;
  k1.set("kavg.period", 1);
  dsgd::SyncPlan plan = plan_of("kavg", k1, 2);
  plan.average_buffers = false;
  dsgd::InProcessCommunicator communicator(2, {2});
  for (auto& learner : learners) learner.grad.zero_();
  dsgd::RoundTraffic traffic = finish_round(plan, 1, 0.1, false, learners, communicator);
  EXPECT_EQ(traffic.bytes_per_learner, 8);  // the 2 parameters, not the buffer
  for (auto& learner : learners) expect_values(learner.params, {2.0f, 3.0f});
  expect_values(learners[0].buffers, {10.0f});
  expect_values(learners[1].buffers, {20.0f});

  // A model with 2 parameters and 2 float buffers (BatchNorm1d(1): weight, bias; mean, var).
  dsgd::FlatModel model(std::make_shared<torch::nn::BatchNorm1dImpl>(1));
  ASSERT_EQ(model.num_params(), 2);
  ASSERT_EQ(model.num_buffers(), 2);
  std::vector<dsgd::Learner> pair;
  pair.emplace_back(dsgd::SgdOptions{}, torch::tensor({1.0f, 2.0f}), torch::tensor({10.0f, 1.0f}));
  pair.emplace_back(dsgd::SgdOptions{}, torch::tensor({3.0f, 4.0f}), torch::tensor({20.0f, 3.0f}));
  dsgd::average_learners_into(model, pair, communicator, true);
  expect_values(model.params(), {2.0f, 3.0f});
  expect_values(model.buffers(), {15.0f, 2.0f});
  dsgd::average_learners_into(model, pair, communicator, false);
  expect_values(model.params(), {2.0f, 3.0f});
  expect_values(model.buffers(), {10.0f, 1.0f});
  // Each parameter 1 away from the mean.
  EXPECT_DOUBLE_EQ(dsgd::spread_columns(pair, communicator).at("learner_spread"), 1.0);
}

// The engines measure the learners' spread through finish_round's hook, which runs after the
// local steps and just before the average, where the spread is at its largest: two learners
// starting 1 apart per coordinate, K-AVG with period 2, zero gradients. Step 1 does not average
// (no call); at step 2 the hook sees the spread 1, and the average then leaves 0.
TEST(SyncRound, SpreadIsMeasuredBeforeTheAverage) {
  auto learners = two_learners(0.0);
  dsgd::OptionValues k2;
  k2.set("kavg.period", 2);
  dsgd::SyncPlan plan = plan_of("kavg", k2, 2);
  dsgd::InProcessCommunicator communicator(2, {2});
  std::vector<double> measured;
  auto measure = [&] {
    measured.push_back(dsgd::spread_columns(learners, communicator).at("learner_spread"));
  };
  for (int64_t step : {1, 2}) {
    for (auto& learner : learners) learner.grad.zero_();
    finish_round(plan, step, 0.1, false, learners, communicator, measure);
  }
  ASSERT_EQ(measured.size(), 1u);
  EXPECT_DOUBLE_EQ(measured[0], 1.0);
  EXPECT_DOUBLE_EQ(dsgd::spread_columns(learners, communicator).at("learner_spread"), 0.0);
}

// SSGD averages gradients (and BN buffers) first: both learners take the step of mean g.
TEST(SyncRound, SsgdAveragesGradientsByHand) {
  std::vector<dsgd::Learner> learners;
  for (int i = 0; i < 2; ++i) {
    learners.emplace_back(dsgd::SgdOptions{}, torch::tensor({1.0f, 2.0f}),
                          torch::tensor({10.0f * static_cast<float>(i + 1)}));
  }
  learners[0].grad.copy_(torch::tensor({1.0f, 1.0f}));
  learners[1].grad.copy_(torch::tensor({2.0f, 0.0f}));
  dsgd::InProcessCommunicator communicator(2, {2});
  dsgd::RoundTraffic traffic =
      finish_round(plan_of("ssgd", {}, 2), 1, 0.1, false, learners, communicator);
  ASSERT_TRUE(traffic.level.has_value());
  EXPECT_EQ(traffic.bytes_per_learner, 12);
  for (auto& learner : learners) {
    expect_values(learner.params, {0.85f, 1.95f});
    expect_values(learner.buffers, {15.0f});
  }
}

// The learners' compute clock by hand: each learner adds its own Gamma draws, and after step s
// the learners in each group of `group_after(s)` consecutive ones wait for its slowest.
double free_running_compute(const dsgd::TimingModel& timing, int64_t learners, int64_t rounds,
                            const std::function<int64_t(int64_t)>& group_after) {
  std::vector<double> clock(static_cast<size_t>(learners), 0.0);
  for (int64_t round = 0; round < rounds; ++round) {
    for (int64_t i = 0; i < learners; ++i) clock[i] += timing.duration(i, round);
    const int64_t group = group_after(round + 1);
    for (int64_t start = 0; start < learners; start += group) {
      double slowest = 0.0;
      for (int64_t i = start; i < start + group; ++i) slowest = std::max(slowest, clock[i]);
      for (int64_t i = start; i < start + group; ++i) clock[i] = slowest;
    }
  }
  return *std::max_element(clock.begin(), clock.end());
}

// Every round in step with the slowest learner: Σ_rounds max_i Gamma draw.
double lockstep_compute(const dsgd::TimingModel& timing, int64_t learners, int64_t rounds) {
  double compute = 0.0;
  for (int64_t round = 0; round < rounds; ++round) {
    double slowest = 0.0;
    for (int64_t i = 0; i < learners; ++i) slowest = std::max(slowest, timing.duration(i, round));
    compute += slowest;
  }
  return compute;
}

// Simulated time = the learners' compute clock (groups of 2 wait for each other after odd steps,
// all 4 after even ones) + Σ_reductions α + β·2(n−1)/n·M, recomputed here from the timing model
// and the cost formula.
TEST(SyncSim, SimulatedTimeFollowsTheCostModel) {
  dsgd::RunConfig config = dsgd::parse_config(
      "", {"algo=hier-avg", "workers=4", "hier.group_size=2", "hier.local_period=1",
           "hier.global_period=2", "dataset=synthetic", "model=mlp", "batch_size=16", "epochs=0.25",
           "threads=1", "timing.spread=0.5", "comm.group_alpha=3", "comm.group_beta=0.002",
           "comm.global_alpha=40", "comm.global_beta=0.01"});
  dsgd::Session session(config);
  dsgd::make_sync_simulator(session)->run();
  ASSERT_EQ(session.total_updates(), 16);  // 4096 samples / (4 learners x 16) / 4
  const double bytes = 4.0 * static_cast<double>(session.model().num_params());  // mlp: no BN
  const double compute = free_running_compute(dsgd::TimingModel(config, 4), 4, 16,
                                              [](int64_t step) { return step % 2 == 0 ? 4 : 2; });
  const double group = 3 + 0.002 * (2.0 * 1 / 2 * bytes);
  const double global = 40 + 0.01 * (2.0 * 3 / 4 * bytes);
  ASSERT_TRUE(session.report().traffic.has_value());
  const auto& traffic = *session.report().traffic;
  EXPECT_EQ(traffic.at("local_reductions"), 8);
  EXPECT_EQ(traffic.at("global_reductions"), 8);
  EXPECT_NEAR(traffic.at("compute_time"), compute, 1e-9 * compute);
  EXPECT_NEAR(traffic.at("comm_time"), 8 * group + 8 * global, 1e-9 * 8 * global);
  EXPECT_NEAR(traffic.at("local_bytes"), 8 * 4 * bytes, 1e-6);
  EXPECT_NEAR(traffic.at("global_bytes"), 8 * 4 * 1.5 * bytes, 1e-6);
  EXPECT_NEAR(session.sim_time(), compute + 8 * group + 8 * global, 1e-9 * session.sim_time());
}

// Learners sharing cores s times over take turns: a round's compute is max(mean, max / s) of the
// learners' draws. With speeds 0.5-1.5 the slowest draw is about 1.7 times the mean: at s = 2 the
// mean decides every round, at s = 1.2 the slowest learner's own draw does.
TEST(SyncSim, LearnersSharingCoresSpreadTheirWork) {
  for (const double sharing : {2.0, 1.2}) {
    dsgd::RunConfig config = dsgd::parse_config(
        "", {"algo=ssgd", "workers=4", "dataset=synthetic", "model=mlp", "batch_size=16",
             "epochs=0.25", "threads=1", "timing.spread=0.5", "comm.global_alpha=0",
             "comm.global_beta=0", "timing.core_sharing=" + std::to_string(sharing)});
    dsgd::Session session(config);
    dsgd::make_sync_simulator(session)->run();
    dsgd::TimingModel timing(config, 4);
    double compute = 0.0;
    int mean_decides = 0;
    for (int64_t round = 0; round < session.total_updates(); ++round) {
      double slowest = 0.0, total = 0.0;
      for (int64_t i = 0; i < 4; ++i) {
        slowest = std::max(slowest, timing.duration(i, round));
        total += timing.duration(i, round);
      }
      compute += std::max(total / 4, slowest / sharing);
      mean_decides += total / 4 > slowest / sharing ? 1 : 0;
    }
    EXPECT_EQ(mean_decides, sharing == 2.0 ? session.total_updates() : 0) << sharing;
    ASSERT_TRUE(session.report().traffic.has_value());
    EXPECT_NEAR(session.report().traffic->at("compute_time"), compute, 1e-9 * compute) << sharing;
    EXPECT_NEAR(session.sim_time(), compute, 1e-9 * compute) << sharing;
  }
}

// Between averages learners run free: K-AVG's learners wait only for the slowest at each
// average, so with equal speeds its compute clock is below SSGD's, which waits every step, and
// above the mean draw's; SSGD's is exactly Σ_rounds max_i draw. (A resumed run replays its clock:
// ResumedRunContinuesExactly's local steps compare every clock column.)
TEST(SyncSim, LearnersWaitOnlyAtTheirAverages) {
  const std::vector<std::string> common = {"workers=8",           "dataset=synthetic", "model=mlp",
                                           "batch_size=16",       "epochs=0.5",        "threads=1",
                                           "comm.global_alpha=0", "comm.global_beta=0"};
  auto compute_of = [&](std::vector<std::string> keys) {
    keys.insert(keys.end(), common.begin(), common.end());
    dsgd::Session session(dsgd::parse_config("", keys));
    dsgd::make_sync_simulator(session)->run();
    return session.report().traffic->at("compute_time");
  };
  const dsgd::RunConfig config = dsgd::parse_config("", common);
  const dsgd::TimingModel timing(config, 8);
  const int64_t rounds = 16;  // 4096 samples / (8 learners x 16) / 2
  const double kavg = compute_of({"algo=kavg", "kavg.period=4"});
  const double ssgd = compute_of({"algo=ssgd"});
  const double by_hand = free_running_compute(
      timing, 8, rounds, [](int64_t step) -> int64_t { return step % 4 == 0 ? 8 : 1; });
  EXPECT_NEAR(kavg, by_hand, 1e-9 * by_hand);
  EXPECT_DOUBLE_EQ(ssgd, lockstep_compute(timing, 8, rounds));
  double mean = 0.0;
  for (int64_t round = 0; round < rounds; ++round) {
    for (int64_t i = 0; i < 8; ++i) mean += timing.duration(i, round) / 8;
  }
  EXPECT_LT(kavg, 0.99 * ssgd);
  EXPECT_GT(kavg, mean);
}

// Three levels with their own (α, β) on 8 learners: 16 rounds, level 1 after the 8 odd steps,
// level 2 after steps 2, 6, 10, 14, level 3 after every fourth; each level's reductions, bytes
// and simulated time recomputed by hand, and the run's clock is compute + their sum. Without
// costs of their own, inner levels take comm.group_* and the outermost comm.global_*.
TEST(SyncSim, ThreeLevelCostModelByHand) {
  for (bool own_costs : {true, false}) {
    SCOPED_TRACE(own_costs);
    const std::string levels = own_costs ? "hier.levels=[[2, 1, 3, 0.002], [4, 2, 20, 0.005], "
                                           "[8, 4, 40, 0.01]]"
                                         : "hier.levels=[[2, 1], [4, 2], [8, 4]]";
    dsgd::RunConfig config = dsgd::parse_config(
        "", {"algo=hier-avg", "workers=8", levels, "dataset=synthetic", "model=mlp",
             "batch_size=16", "epochs=0.5", "threads=1", "timing.spread=0.5", "comm.group_alpha=1",
             "comm.group_beta=0.001", "comm.global_alpha=50", "comm.global_beta=0.02"});
    dsgd::Session session(config);
    dsgd::make_sync_simulator(session)->run();
    ASSERT_EQ(session.total_updates(), 16);  // 4096 samples / (8 learners x 16) / 2
    const double bytes = 4.0 * static_cast<double>(session.model().num_params());  // no BN
    const double compute =
        free_running_compute(dsgd::TimingModel(config, 8), 8, 16, [](int64_t step) -> int64_t {
          return step % 4 == 0 ? 8 : step % 2 == 0 ? 4 : 2;
        });
    // Ring volume per learner: 2(n−1)/n·M for groups of n.
    const double volume[3] = {2.0 * 1 / 2 * bytes, 2.0 * 3 / 4 * bytes, 2.0 * 7 / 8 * bytes};
    const double alpha[3] = {own_costs ? 3.0 : 1.0, own_costs ? 20.0 : 1.0, own_costs ? 40 : 50.0};
    const double beta[3] = {own_costs ? 0.002 : 0.001, own_costs ? 0.005 : 0.001,
                            own_costs ? 0.01 : 0.02};
    const double count[3] = {8, 4, 4};
    const auto& traffic = *session.report().traffic;
    double comm = 0.0;
    for (int l = 0; l < 3; ++l) {
      const std::string prefix = "level" + std::to_string(l + 1) + "_";
      const double each = alpha[l] + beta[l] * volume[l];
      EXPECT_EQ(traffic.at(prefix + "reductions"), count[l]) << prefix;
      EXPECT_NEAR(traffic.at(prefix + "bytes"), count[l] * 8 * volume[l], 1e-6) << prefix;
      EXPECT_NEAR(traffic.at(prefix + "comm_time"), count[l] * each, 1e-9 * count[l] * each)
          << prefix;
      comm += count[l] * each;
    }
    EXPECT_EQ(traffic.at("local_reductions"), 12);
    EXPECT_EQ(traffic.at("global_reductions"), 4);
    EXPECT_NEAR(traffic.at("comm_time"), comm, 1e-9 * comm);
    EXPECT_NEAR(session.sim_time(), compute + comm, 1e-9 * session.sim_time());
  }
}

// 64 rounds an epoch for 4 learners of a small MLP on learnable synthetic data.
const std::string kSyncOptions =
    "--set dataset=synthetic --set model=mlp --set batch_size=16 --set epochs=1 "
    "--set threads=1 --set lr=0.05 --set lr_schedule=constant --set warmup_epochs=0 "
    "--set eval_every=0.5 ";
const std::string kSync = "run " + kSyncOptions;

dsgd::TensorMap final_state(const fs::path& run) {
  return dsgd::load_checkpoint((run / "checkpoint.pt").string());
}
torch::Tensor learner_params(const dsgd::TensorMap& state, int learner) {
  return dsgd::checkpoint_entry(state, "engine/learner/" + std::to_string(learner) + "/params");
}

// The learners' gradients of a round computed on R replicas in parallel change nothing: R = 1,
// 2, 3 give the same metrics and learner states, also across a resume with R = 2.
TEST(SyncSim, ReplicasChangeNothing) {
  const std::string job = kSync +
                          "--set algo=hier-avg --set workers=8 --set hier.group_size=4 "
                          "--set hier.local_period=2 --set hier.global_period=4 ";
  fs::path one = fresh_dir("sync_r1"), two = fresh_dir("sync_r2"), three = fresh_dir("sync_r3"),
           part = fresh_dir("sync_rpart");
  run_ok(job, one);
  run_ok(job + "--set sim.replicas=2", two);
  run_ok(job + "--set sim.replicas=3", three);
  run_ok(job + "--set epochs=0.5", part);
  CliResult resumed =
      run_dsgd("run --resume " + part.string() + " --set epochs=1 --set sim.replicas=2");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  auto metrics = [](const fs::path& run) {
    return without_columns(read_csv(run / "metrics.csv"), {"wall_time"});
  };
  auto a = final_state(one);
  for (const auto& other : {two, three, part}) {
    EXPECT_EQ(metrics(other), metrics(one)) << other;
    auto b = final_state(other);
    for (int i = 0; i < 8; ++i) {
      EXPECT_TRUE(learner_params(b, i).equal(learner_params(a, i))) << other << " learner " << i;
    }
  }
  for (const auto& p : {one, two, three, part}) fs::remove_all(p);
}

TEST(SyncSim, KavgWithPeriodOneIsSsgdForPlainSgd) {
  fs::path kavg = fresh_dir("kavg1"), ssgd = fresh_dir("ssgd");
  run_ok(kSync + "--set momentum=0 --set workers=4 --set algo=kavg --set kavg.period=1", kavg);
  run_ok(kSync + "--set momentum=0 --set workers=4 --set algo=ssgd", ssgd);
  auto a = final_state(kavg), b = final_state(ssgd);
  for (int i = 0; i < 4; ++i) {
    torch::Tensor pa = learner_params(a, i), pb = learner_params(b, i);
    double rel = (pa - pb).norm().item<double>() / pb.norm().item<double>();
    EXPECT_LT(rel, 1e-5) << "learner " << i;
  }
  EXPECT_NEAR(dsgd::testing::last_metric(kavg / "metrics.csv", "train_loss"),
              dsgd::testing::last_metric(ssgd / "metrics.csv", "train_loss"), 1e-4);
  fs::remove_all(kavg);
  fs::remove_all(ssgd);
}

void expect_same_learners(const fs::path& a, const fs::path& b, int learners) {
  auto sa = final_state(a), sb = final_state(b);
  for (int i = 0; i < learners; ++i) {
    EXPECT_TRUE(torch::equal(learner_params(sa, i), learner_params(sb, i))) << "learner " << i;
  }
}

TEST(SyncSim, HierAvgReducesToKavgAtBothEnds) {
  fs::path hier = fresh_dir("hier"), kavg = fresh_dir("kavg");
  // S = 1: groups of one never communicate; only the global average every K2 = 8 remains.
  run_ok(kSync +
             "--set workers=4 --set algo=hier-avg --set hier.group_size=1 "
             "--set hier.local_period=2 --set hier.global_period=8",
         hier);
  run_ok(kSync + "--set workers=4 --set algo=kavg --set kavg.period=8", kavg);
  expect_same_learners(hier, kavg, 4);
  EXPECT_EQ(without_columns(without_columns_starting(read_csv(hier / "metrics.csv"), "level"),
                            {"wall_time"}),
            without_columns(read_csv(kavg / "metrics.csv"), {"wall_time"}));
  fs::remove_all(hier);
  fs::remove_all(kavg);

  // S = P: a group average is a global average, every K1 = 2 steps.
  run_ok(kSync +
             "--set workers=4 --set algo=hier-avg --set hier.group_size=4 "
             "--set hier.local_period=2 --set hier.global_period=8",
         hier);
  run_ok(kSync + "--set workers=4 --set algo=kavg --set kavg.period=2", kavg);
  expect_same_learners(hier, kavg, 4);
  auto training = [](const fs::path& run) {
    return without_columns(without_columns_starting(read_csv(run / "metrics.csv"), "level"),
                           {"wall_time", "sim_time", "comm_time", "local_bytes", "global_bytes",
                            "local_reductions", "global_reductions"});
  };
  EXPECT_EQ(training(hier), training(kavg));
  EXPECT_EQ(dsgd::testing::last_metric(hier / "metrics.csv", "local_reductions") +
                dsgd::testing::last_metric(hier / "metrics.csv", "global_reductions"),
            dsgd::testing::last_metric(kavg / "metrics.csv", "global_reductions"));
  fs::remove_all(hier);
  fs::remove_all(kavg);
}

TEST(SyncSim, OneLearnerIsSingleWorkerSgd) {
  const std::string job =
      "run --set dataset=synthetic --set model=lenet5-bn --set epochs=0.5 --set threads=1 "
      "--set lr=0.05 --set nesterov=true --set weight_decay=0.001 ";
  fs::path sgd = fresh_dir("one_sgd");
  run_ok(job + "--set algo=sgd", sgd);
  torch::Tensor reference = dsgd::checkpoint_entry(final_state(sgd), "engine/params");
  auto training = [](const fs::path& run) {
    auto rows = read_csv(run / "metrics.csv");
    std::vector<std::vector<std::string>> kept;
    for (auto& row : rows) kept.push_back({row[0], row[1], row[4], row[5], row[6], row[7]});
    return kept;  // epoch, updates, lr, train_loss, test_loss, test_acc
  };
  for (std::string algo : {"ssgd", "kavg --set kavg.period=3",
                           "hier-avg --set hier.local_period=2 --set hier.global_period=4"}) {
    fs::path one = fresh_dir("one_sync");
    run_ok(job + "--set workers=1 --set algo=" + algo, one);
    EXPECT_TRUE(torch::equal(learner_params(final_state(one), 0), reference)) << algo;
    EXPECT_EQ(training(one), training(sgd)) << algo;
    fs::remove_all(one);
  }
  fs::remove_all(sgd);
}

// grad_clip reaches both engines of the family: one SSGD learner clipping at a norm the
// gradients exceed is single-worker SGD clipping at it, and neither is the unclipped run.
TEST(SyncSim, OneClippedLearnerIsClippedSingleWorkerSgd) {
  const std::string job =
      "run --set dataset=synthetic --set model=mlp --set batch_size=16 --set epochs=0.25 "
      "--set threads=1 --set lr=0.05 ";
  fs::path sgd = fresh_dir("clip_sgd"), ssgd = fresh_dir("clip_ssgd"), plain = fresh_dir("plain");
  run_ok(job + "--set algo=sgd --set grad_clip=0.05", sgd);
  run_ok(job + "--set algo=ssgd --set workers=1 --set grad_clip=0.05", ssgd);
  run_ok(job + "--set algo=sgd", plain);
  const torch::Tensor clipped = dsgd::checkpoint_entry(final_state(sgd), "engine/params");
  EXPECT_TRUE(torch::equal(learner_params(final_state(ssgd), 0), clipped));
  EXPECT_FALSE(
      torch::allclose(dsgd::checkpoint_entry(final_state(plain), "engine/params"), clipped));
  for (const auto& p : {sgd, ssgd, plain}) fs::remove_all(p);
}

// lr_scaling = "linear" is the same run as lr·P set by hand (no warm-up here: with one, the
// scaled run's warm-up starts from lr instead of lr·P/P).
TEST(SyncSim, LinearLrScalingIsLrTimesP) {
  const std::string job =
      "run --set dataset=synthetic --set model=mlp --set batch_size=16 --set epochs=0.5 "
      "--set threads=1 --set algo=ssgd --set workers=4 --set warmup_epochs=0 ";
  fs::path scaled = fresh_dir("scaled"), by_hand = fresh_dir("by_hand");
  run_ok(job + "--set lr=0.01 --set lr_scaling=linear", scaled);
  run_ok(job + "--set lr=0.04", by_hand);
  EXPECT_EQ(without_columns(read_csv(scaled / "metrics.csv"), {"wall_time"}),
            without_columns(read_csv(by_hand / "metrics.csv"), {"wall_time"}));
  fs::remove_all(scaled);
  fs::remove_all(by_hand);
}

TEST(SyncSim, SameSeedSameMetrics) {
  fs::path a = fresh_dir("sync_a"), b = fresh_dir("sync_b");
  const std::string job = kSync +
                          "--set workers=4 --set algo=hier-avg --set hier.group_size=2 "
                          "--set hier.local_period=2 --set hier.global_period=4 "
                          "--set timing.spread=0.3 --set timing.straggler_prob=0.1 "
                          "--set timing.straggler_factor=4 --set average_momentum=true";
  run_ok(job, a);
  run_ok(job, b);
  EXPECT_EQ(without_columns(read_csv(a / "metrics.csv"), {"wall_time"}),
            without_columns(read_csv(b / "metrics.csv"), {"wall_time"}));
  auto summary = nlohmann::json::parse(read_file(a / "summary.json"));
  EXPECT_EQ(summary["status"], "ok");
  EXPECT_EQ(summary["updates"], 64);
  EXPECT_EQ(summary["traffic"]["local_reductions"], 16);
  EXPECT_EQ(summary["traffic"]["global_reductions"], 16);
  EXPECT_GT(dsgd::testing::last_metric(a / "metrics.csv", "test_acc"), 0.5);  // it learns
  fs::remove_all(a);
  fs::remove_all(b);
}

TEST(SyncSim, ResumedRunContinuesExactly) {
  dsgd::testing::expect_resume_matches(
      kSyncOptions,
      "--set algo=hier-avg --set workers=4 --set hier.group_size=2 --set hier.local_period=2 "
      "--set hier.global_period=4",
      64);
}

TEST(SyncSim, BadGroupShapesExitTwo) {
  fs::path out = fresh_dir("sync_bad");
  CliResult r = run_dsgd(
      kSync + "--set algo=hier-avg --set workers=6 --set hier.group_size=4 --out " + out.string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("workers = 6 is not a multiple of hier.group_size = 4"),
            std::string::npos)
      << r.output;
  r = run_dsgd(kSync +
               "--set algo=hier-avg --set workers=4 --set hier.local_period=3 "
               "--set hier.global_period=8 --out " +
               out.string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("hier.global_period = 8 is not a multiple of hier.local_period = 3"),
            std::string::npos)
      << r.output;
  r = run_dsgd(kSync + "--set algo=kavg --set workers=4 --set timing.trace=x --out " +
               out.string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  r = run_dsgd(kSync + "--set algo=ssgd --set workers=1000 --out " + out.string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("fewer learners"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(out));
}

// Levels that do not nest, a level larger than P, an outermost level short of P, a malformed
// row and the shorthand given too: exit 2 naming the level, before any folder is made.
TEST(SyncSim, BadLevelsExitTwoNamingTheLevel) {
  fs::path out = fresh_dir("levels_bad");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"[[4, 1], [2, 2], [8, 4]]", "level 2: group size 2 is not a multiple of level 1's 4"},
      {"[[2, 2], [4, 3], [8, 6]]", "level 2: period 3 is not a multiple of level 1's period 2"},
      {"[[2, 1], [16, 2]]", "level 2: group size 16 is larger than workers = 8"},
      {"[[3, 1], [6, 2]]", "level 1: workers = 8 is not a multiple of its group size 3"},
      {"[[2, 1], [4, 2]]", "level 2 (the outermost) has groups of 4, not all workers = 8"},
      {"[[2, 0], [8, 2]]", "level 1: group size 2 and period 0 must be whole numbers >= 1"},
      {"[[2, 1, -1, 0], [8, 2]]", "level 1: link cost alpha = -1, beta = 0 must be >= 0"},
      {"[[2], [8, 2]]", "'hier.levels' row 1 = [2] must hold 2 or 4 finite numbers"},
  };
  for (const auto& [levels, message] : cases) {
    CliResult r =
        run_dsgd(kSync + "--set algo=hier-avg --set workers=8 --set 'hier.levels=" + levels +
                 "' --out " + out.string());
    EXPECT_EQ(r.exit_code, 2) << levels << "\n" << r.output;
    EXPECT_NE(r.output.find(message), std::string::npos) << levels << "\n" << r.output;
  }
  CliResult r = run_dsgd(kSync +
                         "--set algo=hier-avg --set workers=8 --set hier.group_size=2 "
                         "--set 'hier.levels=[[2, 1], [8, 2]]' --out " +
                         out.string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("hier.group_size and hier.levels are both given"), std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(out));
}

// Two levels through hier.levels are today's hier-avg bit for bit (metrics and learners); three
// levels resume exactly, their table read back from the run's config.toml.
TEST(SyncSim, HierLevelsMatchTheShorthandAndResume) {
  fs::path levels = fresh_dir("levels_two"), shorthand = fresh_dir("levels_short");
  run_ok(kSync + "--set algo=hier-avg --set workers=4 --set 'hier.levels=[[2, 2], [4, 4]]'",
         levels);
  run_ok(kSync +
             "--set algo=hier-avg --set workers=4 --set hier.group_size=2 "
             "--set hier.local_period=2 --set hier.global_period=4",
         shorthand);
  expect_same_learners(levels, shorthand, 4);
  EXPECT_EQ(without_columns(read_csv(levels / "metrics.csv"), {"wall_time"}),
            without_columns(read_csv(shorthand / "metrics.csv"), {"wall_time"}));
  EXPECT_NE(read_file(levels / "config.toml").find("levels = [ [ 2, 2 ], [ 4, 4 ] ]"),
            std::string::npos)
      << read_file(levels / "config.toml");
  fs::remove_all(levels);
  fs::remove_all(shorthand);

  dsgd::testing::expect_resume_matches(
      kSyncOptions,
      "--set algo=hier-avg --set workers=8 --set 'hier.levels=[[2, 1], [4, 2, 5, 0.001], [8, 4]]' ",
      32);
}

// BatchNorm statistics do not enter a training-mode forward pass, so keeping them local changes
// no learner's trajectory: bn_policy = reestimate (re-estimated before each evaluation, as
// average's default bn_batches does too) has average's metrics with fewer bytes. local evaluates
// learner 0's own statistics; reestimate without bn_batches exits 2.
TEST(SyncSim, BnPolicyReestimateTrainsAsAverageWithFewerBytes) {
  fs::path average = fresh_dir("bn_average"), reestimate = fresh_dir("bn_reestimate"),
           local = fresh_dir("bn_local");
  const std::string job = kSync +
                          "--set model=lenet5-bn --set epochs=0.25 --set eval_every=0.125 "
                          "--set algo=hier-avg --set workers=4 --set hier.group_size=2 "
                          "--set hier.local_period=2 --set hier.global_period=4 ";
  run_ok(job, average);
  run_ok(job + "--set bn_policy=reestimate", reestimate);
  run_ok(job + "--set bn_policy=local", local);
  auto without_traffic = [](const fs::path& run) {
    return without_columns(
        read_csv(run / "metrics.csv"),
        {"wall_time", "sim_time", "comm_time", "local_bytes", "global_bytes", "level1_bytes",
         "level2_bytes", "level1_comm_time", "level2_comm_time"});
  };
  EXPECT_EQ(without_traffic(reestimate), without_traffic(average));
  EXPECT_LT(last_metric(reestimate / "metrics.csv", "global_bytes"),
            last_metric(average / "metrics.csv", "global_bytes"));
  EXPECT_EQ(last_metric(local / "metrics.csv", "global_bytes"),
            last_metric(reestimate / "metrics.csv", "global_bytes"));
  EXPECT_NE(last_metric(local / "metrics.csv", "test_loss"),
            last_metric(reestimate / "metrics.csv", "test_loss"));
  fs::path out = fresh_dir("bn_bad");
  CliResult r =
      run_dsgd(job + "--set bn_policy=reestimate --set bn_batches=0 --out " + out.string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("needs bn_batches > 0"), std::string::npos) << r.output;
  r = run_dsgd(kSync + "--set algo=ssgd --set workers=2 --set bn_policy=loca --out " +
               out.string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("did you mean 'local'"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(out));
  for (const auto& run : {average, reestimate, local}) fs::remove_all(run);
}

// α = 1, β = 0 is plain averaging: learners hold no outer optimizer, and the run is K-AVG's bit
// for bit; out-of-range values exit 2 naming the key; ssgd has no outer keys.
TEST(SyncSim, PlainOuterOptimizerIsKavgAndBadValuesExitTwo) {
  fs::path plain = fresh_dir("outer_plain"), kavg = fresh_dir("outer_kavg");
  const std::string job = kSync + "--set algo=kavg --set workers=4 --set kavg.period=2 ";
  ASSERT_EQ(run_dsgd(job + "--out " + kavg.string()).exit_code, 0);
  CliResult r =
      run_dsgd(job + "--set outer.lr=1 --set outer.momentum=0 --set outer.nesterov=true " +
               "--out " + plain.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(without_columns(read_csv(plain / "metrics.csv"), {"wall_time"}),
            without_columns(read_csv(kavg / "metrics.csv"), {"wall_time"}));
  fs::path out = fresh_dir("outer_bad");
  r = run_dsgd(job + "--set outer.momentum=1 --out " + out.string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("outer.momentum"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("[0, 1)"), std::string::npos) << r.output;
  r = run_dsgd(job + "--set outer.lr=0 --out " + out.string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("outer.lr"), std::string::npos) << r.output;
  r = run_dsgd(kSync + "--set algo=ssgd --set workers=4 --set outer.lr=0.5 --out " + out.string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_FALSE(fs::exists(out));
  fs::remove_all(plain);
  fs::remove_all(kavg);
}

// A Nesterov outer optimizer (DiLoCo's form; α = 0.7, β = 0.6: DiLoCo's β = 0.9 oscillates on
// this tiny task) on hier-avg: its anchor and momentum are in the checkpoint, so a run stopped
// half-way and resumed ends with the uninterrupted run's metrics and, bit for bit, its learners
// and outer state.
TEST(SyncSim, OuterOptimizerResumesExactly) {
  fs::path full = fresh_dir("outer_full"), part = fresh_dir("outer_part");
  const std::string job = kSync +
                          "--set algo=hier-avg --set workers=4 --set hier.group_size=2 "
                          "--set hier.local_period=2 --set hier.global_period=4 "
                          "--set outer.lr=0.7 --set outer.momentum=0.6 --set outer.nesterov=true "
                          "--set eval_every=0.25 ";
  ASSERT_EQ(run_dsgd(job + "--out " + full.string()).exit_code, 0);
  ASSERT_EQ(run_dsgd(job + "--set epochs=0.5 --out " + part.string()).exit_code, 0);
  CliResult r = run_dsgd("run --resume " + part.string() + " --set epochs=1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(without_columns(read_csv(part / "metrics.csv"), {"wall_time"}),
            without_columns(read_csv(full / "metrics.csv"), {"wall_time"}));
  auto a = dsgd::load_checkpoint((part / "checkpoint.pt").string());
  auto b = dsgd::load_checkpoint((full / "checkpoint.pt").string());
  for (const std::string key : {"params", "outer_anchor", "outer_momentum"}) {
    const std::string entry = "engine/learner/3/" + key;
    EXPECT_TRUE(torch::equal(dsgd::checkpoint_entry(a, entry), dsgd::checkpoint_entry(b, entry)))
        << entry;
  }
  // The outer step moved the model: the anchor is not the plain mean of the last round.
  EXPECT_GT(dsgd::checkpoint_entry(b, "engine/learner/3/outer_momentum").abs().max().item<float>(),
            0.0f);
  fs::remove_all(full);
  fs::remove_all(part);
}

// DiLoCo as its paper runs it: K-AVG whose learners step with AdamW and whose global average is
// a Nesterov outer step. AdamW's moments lie in each learner's checkpointed state ([m | v], twice
// the parameters), so a run stopped half-way resumes to the uninterrupted run's metrics and, bit
// for bit, its learners; with average_momentum the moments are averaged with the parameters, and
// the learners then hold one [m | v]. The loss falls.
TEST(SyncSim, AdamWLearnersResumeExactly) {
  for (const std::string& average : {std::string("false"), std::string("true")}) {
    SCOPED_TRACE(average);
    fs::path full = fresh_dir("adamw_full"), part = fresh_dir("adamw_part");
    const std::string job = kSync +
                            "--set algo=kavg --set workers=4 --set kavg.period=4 "
                            "--set optimizer=adamw --set lr=0.005 --set weight_decay=0.01 "
                            "--set outer.lr=0.7 --set outer.momentum=0.6 "
                            "--set outer.nesterov=true --set eval_every=0.25 "
                            "--set average_momentum=" +
                            average + " ";
    ASSERT_EQ(run_dsgd(job + "--out " + full.string()).exit_code, 0);
    ASSERT_EQ(run_dsgd(job + "--set epochs=0.5 --out " + part.string()).exit_code, 0);
    CliResult r = run_dsgd("run --resume " + part.string() + " --set epochs=1");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const auto metrics = without_columns(read_csv(full / "metrics.csv"), {"wall_time"});
    EXPECT_EQ(without_columns(read_csv(part / "metrics.csv"), {"wall_time"}), metrics);
    auto a = dsgd::load_checkpoint((part / "checkpoint.pt").string());
    auto b = dsgd::load_checkpoint((full / "checkpoint.pt").string());
    const torch::Tensor params = dsgd::checkpoint_entry(b, "engine/learner/3/params");
    const torch::Tensor moments = dsgd::checkpoint_entry(b, "engine/learner/3/velocity");
    EXPECT_EQ(moments.numel(), 2 * params.numel());
    const torch::Tensor second = moments.narrow(0, params.numel(), params.numel());
    EXPECT_GE(second.min().item<float>(), 0.0f);  // v, a mean of squares
    EXPECT_GT(second.max().item<float>(), 0.0f);
    for (const std::string key : {"params", "velocity", "outer_momentum"}) {
      const std::string entry = "engine/learner/3/" + key;
      EXPECT_TRUE(torch::equal(dsgd::checkpoint_entry(a, entry), dsgd::checkpoint_entry(b, entry)))
          << entry;
    }
    EXPECT_EQ(torch::equal(moments, dsgd::checkpoint_entry(b, "engine/learner/0/velocity")),
              average == "true");
    const size_t loss = static_cast<size_t>(
        std::find(metrics[0].begin(), metrics[0].end(), "train_loss") - metrics[0].begin());
    ASSERT_LT(loss, metrics[0].size());
    EXPECT_LT(std::stod(metrics.back()[loss]), 0.8 * std::stod(metrics[1][loss]));
    fs::remove_all(full);
    fs::remove_all(part);
  }
}

// Post-local SGD before its switch is SSGD: K-AVG (K = 4) switching at epoch 1 has SSGD's
// metrics rows for the first epoch exactly, and its own after.
TEST(SyncSim, PostLocalSgdBeforeItsSwitchIsSsgd) {
  fs::path ssgd = fresh_dir("post_ssgd"), post = fresh_dir("post_local");
  const std::string job = kSync + "--set workers=4 --set epochs=2 --set momentum=0.9 ";
  ASSERT_EQ(run_dsgd(job + "--set algo=ssgd --out " + ssgd.string()).exit_code, 0);
  CliResult r = run_dsgd(job +
                         "--set algo=kavg --set kavg.period=4 --set post_local.switch_epoch=1 "
                         "--out " +
                         post.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto a = without_columns(read_csv(post / "metrics.csv"), {"wall_time"});
  auto b = without_columns(read_csv(ssgd / "metrics.csv"), {"wall_time"});
  ASSERT_EQ(a.size(), 5u);  // header + evaluations at 0.5, 1, 1.5, 2
  ASSERT_EQ(b.size(), 5u);
  for (size_t row = 0; row < 3; ++row) EXPECT_EQ(a[row], b[row]) << "row " << row;
  EXPECT_NE(a[4], b[4]);  // local SGD after the switch
  fs::remove_all(ssgd);
  fs::remove_all(post);
}

}  // namespace
