// Tests of elastic averaging as published (src/algos/easgd_local.cpp): easgd-local and
// eamsgd-local against their protocol written out here in plain doubles (two workers, τ = 2, a
// stale exchange in every pair, the rate halved at the end), and with τ = 1 against easgd and
// eamsgd at easgd.tau = 1 — the same iterates with every run kept on the server — bit for bit in
// float32.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <array>
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "algos/async_rule.h"
#include "async_rule_helpers.h"

namespace dsgd {
namespace {

using namespace testing;  // NOLINT(build/namespaces): the shared helpers of async_rule_helpers.h

torch::Tensor tensor_of(const Vec& v, torch::Dtype dtype = torch::kDouble) {
  return torch::tensor({v[0], v[1], v[2]}, dtype);
}

constexpr double kMomentum = 0.9, kDecay = 0.01, kBeta = 0.9;
const Vec kTheta0 = {1.0, -2.0, 0.5};

AsyncOptions elastic_options(int64_t tau) {
  AsyncOptions options;
  options.momentum = kMomentum;
  options.weight_decay = kDecay;
  options.values.set("easgd.beta", kBeta);
  options.values.set("local.steps", static_cast<double>(tau));
  return options;
}

void expect_near(const torch::Tensor& actual, const Vec& expected, const std::string& what) {
  for (int k = 0; k < 3; ++k) {
    EXPECT_NEAR(actual[k].item<double>(), expected[k], 1e-12 * std::max(1.0, std::abs(expected[k])))
        << what << ", element " << k;
  }
}

// The protocol by hand: two workers, τ = 2, the order 0, 1, 0, 1, 0, 1, the last at half the
// rate. A worker's run: x ← reply; the held gradient's step; τ − 1 steps; the τ-th gradient held.
void check_by_hand(const std::string& name, bool momentum) {
  SCOPED_TRACE(name);
  const int64_t tau = 2, n = 2;
  const double alpha = kBeta / n;
  Rules rules = make_rules(name, elastic_options(tau), tensor_of(kTheta0), n);
  struct Worker {
    Vec reply = kTheta0, v = {0, 0, 0}, held = {0, 0, 0};
    double held_lr = 0.0;
  };
  std::vector<Worker> workers(n);
  Vec centre = kTheta0;
  const std::vector<std::pair<int, double>> order = {{0, 0.1}, {1, 0.1}, {0, 0.1},
                                                     {1, 0.1}, {0, 0.1}, {1, 0.05}};
  for (const auto& [i, lr] : order) {
    Worker& w = workers[i];
    auto take_step = [&](Vec& x, const Vec& d, double rate) {
      if (momentum) {
        w.v = kMomentum * w.v + rate * d;  // v ← δv + ηd;  x ← x − v
        x = x - w.v;
      } else {
        x = x - rate * d;  // x ← x − ηd
      }
    };
    Vec x = w.reply;
    take_step(x, w.held, w.held_lr);
    for (int64_t h = 0; h < tau; ++h) {
      const Vec point = momentum ? x - kMomentum * w.v : x;
      const Vec d = gradient_at(point) + kDecay * point;
      if (h + 1 < tau) {
        take_step(x, d, lr);
      } else {
        w.held = d;
        w.held_lr = lr;
      }
    }
    // e = α(x − x̃);  reply x − e;  x̃ ← x̃ + e
    const Vec e = alpha * (x - centre);
    w.reply = x - e;
    centre = centre + e;
    exchange(rules, i, tau, lr);
    expect_near(rules.sent[i], w.reply, "reply to worker " + std::to_string(i));
    expect_near(rules.server->center(), centre, "centre");
    expect_near(rules.server->evaluated(), centre, "evaluated");
  }
  // The held gradient, its rate and the velocity are the worker's checkpointed state.
  NamedTensors state = rules.workers[1]->state();
  ASSERT_EQ(state.size(), momentum ? 3u : 2u);
  expect_near(state[0].second, workers[1].held, "worker 1's held gradient");
  EXPECT_EQ(state[1].second.item<double>(), 0.05);
  if (momentum) expect_near(state[2].second, workers[1].v, "worker 1's velocity");
}

TEST(ElasticLocalHand, Easgd) { check_by_hand("easgd-local", false); }
TEST(ElasticLocalHand, Eamsgd) { check_by_hand("eamsgd-local", true); }

// τ = 1: the published protocol and the rule that keeps every run on the server make the same
// float32 operations in the same order, so their centres agree to the bit at every update.
TEST(ElasticLocalEquivalence, OneStepIsTheServerSideRuleBitForBit) {
  for (const auto& [local, server_side] :
       {std::pair<std::string, std::string>{"easgd-local", "easgd"}, {"eamsgd-local", "eamsgd"}}) {
    SCOPED_TRACE(local);
    const int64_t n = 3;
    torch::manual_seed(8);
    const torch::Tensor theta0 = torch::randn({3}, torch::kFloat);
    AsyncOptions options = elastic_options(1);
    Rules a = make_rules(local, options, theta0, n);
    options.values = {};
    options.values.set("easgd.beta", kBeta);
    options.values.set("easgd.tau", 1.0);
    Rules b = make_rules(server_side, options, theta0, n);
    std::mt19937 order(5);
    for (int k = 0; k < 80; ++k) {
      const int64_t i = order() % n;
      const double lr = k < 40 ? 0.1 : 0.03;
      exchange(a, i, 1, lr);
      torch::Tensor d = b.workers[i]->message(gradient_at(b.sent[i]), b.sent[i], lr).clone();
      b.server->apply(i, d, lr);
      b.server->parameters_for(i, b.sent[i]);
      ASSERT_TRUE(torch::equal(a.server->center(), b.server->center())) << "update " << k;
    }
    EXPECT_GT((a.server->center() - theta0).abs().max().item<double>(), 0.1) << "it moved";
  }
}

}  // namespace
}  // namespace dsgd
