// Tests of asynchronous local SGD (src/algos/async_local.h and its three rules), in float64: each
// outer rule against its equations computed here in plain doubles for a few exchanges of two
// local steps, Delayed Nesterov against torch's Nesterov SGD on the mean of each window of
// pseudo-gradients, and with one local step and no local momentum, the outer rules against the
// asynchronous rules they generalise (dana-local against dana-zero, async-local-sgd against asgd-m
// and nag-asgd).
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <array>
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "algos/async_rule.h"
#include "async_rule_helpers.h"
#include "core/errors.h"

namespace dsgd {
namespace {

using namespace testing;  // NOLINT(build/namespaces): the shared helpers of async_rule_helpers.h

torch::Tensor tensor_of(const Vec& v) { return torch::tensor({v[0], v[1], v[2]}, torch::kDouble); }

void expect_near(const torch::Tensor& actual, const Vec& expected, const std::string& what) {
  torch::Tensor a = actual.contiguous();
  for (int k = 0; k < 3; ++k) {
    EXPECT_NEAR(a[k].item<double>(), expected[k], 1e-12 * std::max(1.0, std::abs(expected[k])))
        << what << ", element " << k;
  }
}

// ---------------------------------------------------------------------------------------------
// By hand: two workers, two local steps each, the order 0, 1, 0, 1 (every second message stale),
// the last exchange at half the rate. Local SGD: d = g + λx, v ← γv + ηd, x ← x − v.

constexpr double kLr = 0.1, kMomentum = 0.9, kDecay = 0.01;
const Vec kTheta0 = {1.0, -2.0, 0.5};
const std::vector<std::pair<int, double>> kOrder = {{0, kLr}, {1, kLr}, {0, kLr}, {1, kLr / 2}};

// The local run from `x` with worker velocity `v` (updated); returns Δ = x_start − x_end.
Vec local_run(Vec x, Vec& v, int steps, double lr) {
  const Vec start = x;
  for (int h = 0; h < steps; ++h) {
    const Vec d = gradient_at(x) + kDecay * x;
    v = kMomentum * v + lr * d;
    x = x - v;
  }
  return start - x;
}

AsyncOptions hand_options(double outer_lr, double outer_momentum) {
  AsyncOptions options;
  options.momentum = kMomentum;
  options.weight_decay = kDecay;
  options.values.set("outer.lr", outer_lr);
  options.values.set("outer.momentum", outer_momentum);
  return options;
}

// The outer Nesterov step of the two hand tests below: rate α and momentum β.
constexpr double kOuterLr = 0.7, kOuterMomentum = 0.9;

AsyncOptions outer_nesterov_options() {
  AsyncOptions options = hand_options(kOuterLr, kOuterMomentum);
  options.values.set("outer.nesterov", 1.0);
  return options;
}

// The exchanges of kOrder under that outer step, each worker's local run computed by
// `local_run_of(worker, x, lr)` (returning Δ = x_start − x_end), checked against `rules` after
// every exchange.
template <typename LocalRunOf>
void expect_outer_nesterov_exchanges(Rules& rules, LocalRunOf local_run_of) {
  const double alpha = kOuterLr, beta = kOuterMomentum;
  Vec theta = kTheta0, u = {0, 0, 0};
  std::vector<Vec> sent = {kTheta0, kTheta0};
  for (const auto& [i, lr] : kOrder) {
    const Vec delta = local_run_of(i, sent[i], lr);
    // u ← βu + Δ;  θ ← θ − α(βu + Δ)
    u = beta * u + delta;
    theta = theta - alpha * (beta * u + delta);
    sent[i] = theta;
    exchange(rules, i, 2, lr);
    expect_near(rules.sent[i], sent[i], "sent");
    expect_near(rules.server->center(), theta, "theta");
  }
}

TEST(AsyncLocalHand, OuterNesterov) {
  Rules rules = make_rules("async-local-sgd", outer_nesterov_options(), tensor_of(kTheta0), 2);
  std::vector<Vec> v = {{0, 0, 0}, {0, 0, 0}};
  expect_outer_nesterov_exchanges(
      rules, [&](int i, const Vec& x, double lr) { return local_run(x, v[i], 2, lr); });
  // The local velocities are the workers' checkpointed state.
  expect_near(rules.workers[1]->state().at(0).second, v[1], "worker 1's velocity");
}

// The paper's workers: AdamW local steps (decoupled decay, β₁ = 0.8, β₂ = 0.95), each worker's
// moments and step count kept from one exchange to the next, the outer step Nesterov's.
struct AdamWState {
  Vec m = {0, 0, 0};
  Vec v = {0, 0, 0};
  int t = 0;
};
constexpr double kBeta1 = 0.8, kBeta2 = 0.95, kEps = 1e-8;

Vec adamw_local_run(Vec x, AdamWState& s, int steps, double lr) {
  const Vec start = x;
  for (int h = 0; h < steps; ++h) {
    const Vec g = gradient_at(x);
    ++s.t;
    const double correction1 = 1 - std::pow(kBeta1, s.t), correction2 = 1 - std::pow(kBeta2, s.t);
    for (size_t k = 0; k < 3; ++k) {
      x[k] *= 1 - lr * kDecay;
      s.m[k] = kBeta1 * s.m[k] + (1 - kBeta1) * g[k];
      s.v[k] = kBeta2 * s.v[k] + (1 - kBeta2) * g[k] * g[k];
      x[k] -= lr / correction1 * s.m[k] / (std::sqrt(s.v[k] / correction2) + kEps);
    }
  }
  return start - x;
}

TEST(AsyncLocalHand, AdamWLocalSteps) {
  AsyncOptions options = outer_nesterov_options();
  options.momentum = 0.0;
  options.optimizer = LocalOptimizerKind::kAdamw;
  options.adamw = {kBeta1, kBeta2, kEps, kDecay};
  Rules rules = make_rules("async-local-sgd", options, tensor_of(kTheta0), 2);
  std::vector<AdamWState> adamw(2);
  expect_outer_nesterov_exchanges(
      rules, [&](int i, const Vec& x, double lr) { return adamw_local_run(x, adamw[i], 2, lr); });
  // [m | v] and the step count are the workers' checkpointed state.
  const auto state = rules.workers[1]->state();
  ASSERT_EQ(state.size(), 2u);
  expect_near(state.at(0).second.narrow(0, 0, 3), adamw[1].m, "worker 1's m");
  expect_near(state.at(0).second.narrow(0, 3, 3), adamw[1].v, "worker 1's v");
  EXPECT_EQ(state.at(1).first, "local_steps");
  EXPECT_EQ(state.at(1).second.item<int64_t>(), 4);
}

TEST(AsyncLocalHand, DelayedNesterov) {
  for (double c : {0.0, 0.3}) {
    SCOPED_TRACE("c = " + std::to_string(c));
    const double alpha = 0.7, beta = 0.9;
    const int n = 2;  // dn.period 0: N = the number of workers
    AsyncOptions options = hand_options(alpha, beta);
    options.values.set("dn.c", c);
    Rules rules = make_rules("async-local-dn", options, tensor_of(kTheta0), n);
    Vec theta = kTheta0, u = {0, 0, 0}, pending = {0, 0, 0};
    std::vector<Vec> sent = {kTheta0, kTheta0}, v = {{0, 0, 0}, {0, 0, 0}};
    int t = 0;
    for (const auto& [i, lr] : kOrder) {
      const Vec delta = local_run(sent[i], v[i], 2, lr);
      pending = pending + delta;
      if (++t % n == 0) {
        u = beta * u + (1.0 / n) * pending;
        theta = theta - alpha * ((1 - c * n + c) * beta * u + (1.0 / n) * delta);
        pending = {0, 0, 0};
      } else {
        theta = theta - alpha * (c * beta * u + (1.0 / n) * delta);
      }
      sent[i] = theta;
      exchange(rules, i, 2, lr);
      expect_near(rules.sent[i], sent[i], "sent");
    }
  }
}

TEST(AsyncLocalHand, DanaLocal) {
  const double alpha = 0.8, beta = 0.9;
  Rules rules = make_rules("dana-local", hand_options(alpha, beta), tensor_of(kTheta0), 2);
  Vec theta = kTheta0;
  std::vector<Vec> sent = {kTheta0, kTheta0}, v = {{0, 0, 0}, {0, 0, 0}},
                   outer = {{0, 0, 0}, {0, 0, 0}};
  for (const auto& [i, lr] : kOrder) {
    const Vec delta = local_run(sent[i], v[i], 2, lr);
    // v_i ← βv_i + αΔ;  θ ← θ − v_i;  sent: θ − βΣ_j v_j
    outer[i] = beta * outer[i] + alpha * delta;
    theta = theta - outer[i];
    sent[i] = theta - beta * (outer[0] + outer[1]);
    exchange(rules, i, 2, lr);
    expect_near(rules.sent[i], sent[i], "sent");
    expect_near(rules.server->center(), theta, "theta");
    // The DANA family evaluates the look-ahead the workers are sent.
    expect_near(rules.server->evaluated(), sent[i], "evaluated");
  }
}

// ---------------------------------------------------------------------------------------------
// Delayed Nesterov with c = 0: each window of N arrivals moves θ as one step of torch's SGD
// (nesterov, momentum β, rate α) on the window's mean pseudo-gradient.

TEST(AsyncLocalEquivalence, DelayedNesterovWindowIsTorchNesterovOnTheMean) {
  const int n = 3;
  const double alpha = 0.7, beta = 0.9;
  AsyncOptions options = hand_options(alpha, beta);
  Rules rules = make_rules("async-local-dn", options, tensor_of(kTheta0), n);
  torch::Tensor param = tensor_of(kTheta0).requires_grad_(false).clone();
  torch::optim::SGD reference(
      std::vector<torch::Tensor>{param},
      torch::optim::SGDOptions(alpha).momentum(beta).nesterov(true).dampening(0));
  torch::manual_seed(3);
  for (int window = 0; window < 4; ++window) {
    torch::Tensor sum = torch::zeros({3}, torch::kDouble);
    for (int k = 0; k < n; ++k) {
      torch::Tensor delta = torch::randn({3}, torch::kDouble);
      sum += delta;
      rules.server->apply(k, delta, 0.1);
    }
    param.mutable_grad() = sum / n;
    reference.step();
    EXPECT_LT((rules.server->center() - param).abs().max().item<double>(), 1e-13)
        << "window " << window;
  }
}

// ---------------------------------------------------------------------------------------------
// One local step without local momentum sends Δ = η(g + λθ̂): the outer rules then are the
// asynchronous rules on d = g + λθ̂ (to rounding: Δ is a difference of parameters).

void expect_same_run(const std::string& local, const AsyncOptions& local_options,
                     const std::string& base, const AsyncOptions& base_options) {
  const int64_t n = 4;
  Rules a = make_rules(local, local_options, tensor_of(kTheta0), n);
  Rules b = make_rules(base, base_options, tensor_of(kTheta0), n);
  std::mt19937 order(5);
  for (int k = 0; k < 60; ++k) {
    const int64_t i = order() % n;
    const double lr = k < 30 ? 0.1 : 0.05;
    exchange(a, i, 1, lr);
    torch::Tensor d = b.workers[i]->message(gradient_at(b.sent[i]), b.sent[i], lr).clone();
    b.server->apply(i, d, lr);
    b.server->parameters_for(i, b.sent[i]);
    EXPECT_LT((a.sent[i] - b.sent[i]).abs().max().item<double>(), 1e-12) << "update " << k;
  }
  EXPECT_LT((a.server->evaluated() - b.server->evaluated()).abs().max().item<double>(), 1e-12);
}

TEST(AsyncLocalEquivalence, OneStepReducesToTheAsynchronousRules) {
  AsyncOptions base;
  base.momentum = kMomentum;
  base.weight_decay = kDecay;
  AsyncOptions local = hand_options(1.0, kMomentum);
  local.momentum = 0.0;  // no local momentum: the outer momentum is the rule's γ
  expect_same_run("dana-local", local, "dana-zero", base);
  expect_same_run("async-local-sgd", local, "asgd-m", base);
  local.values.set("outer.nesterov", 1.0);
  expect_same_run("async-local-sgd", local, "nag-asgd", base);
}

TEST(AsyncLocalErrors, DelayedNesterovRefusesTooLargeAShare) {
  const AsyncAlgorithm& dn = find_async_algorithm("async-local-dn");
  AsyncOptions options;
  options.values.set("dn.c", 0.5);
  try {
    dn.make_server(with_defaults(dn, options), torch::zeros({3}), 4);
    FAIL() << "dn.c = 0.5 > 1/4 accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("dn.c = 0.5 must be at most 1/N = 1/4"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace dsgd
