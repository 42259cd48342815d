// Tests of the asynchronous parameter-server rules (src/algos/): each rule against values
// computed by hand for a few steps (η changing), the equivalences DESIGN.md promises (with
// torch's SGD at constant η, with dsgd's sgd under any schedule, DANA-Slim with DANA-Zero,
// DC-ASGD with ASGD-M, DANA-DC with DANA-Zero), the server memory each rule reports, that
// state() is enough to resume bit for bit, and the error for an unknown algorithm name.
#include <ATen/CPUGeneratorImpl.h>
#include <c10/core/CPUAllocator.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "algos/async_rule.h"
#include "algos/local_sgd.h"
#include "async_rule_helpers.h"
#include "core/errors.h"
#include "core/torch_compat.h"
#include "train/config.h"

namespace dsgd {
namespace {

// ---------------------------------------------------------------------------------------------
// Plain double arithmetic on 3-vectors, for the hand-computed references.

using namespace testing;  // NOLINT(build/namespaces): the shared helpers of async_rule_helpers.h
// Overloaded below (⊙): declared here too, or the ones below would hide them.
using testing::operator*;

// Element-wise product and quotient (⊙ and ⊘).
Vec operator*(const Vec& a, const Vec& b) { return {a[0] * b[0], a[1] * b[1], a[2] * b[2]}; }
Vec operator/(const Vec& a, const Vec& b) { return {a[0] / b[0], a[1] / b[1], a[2] / b[2]}; }
Vec sqrt_of(const Vec& a) { return {std::sqrt(a[0]), std::sqrt(a[1]), std::sqrt(a[2])}; }
Vec plus(const Vec& a, double s) { return {a[0] + s, a[1] + s, a[2] + s}; }

torch::Tensor tensor_of(const Vec& v) {
  return torch::tensor(
      {static_cast<float>(v[0]), static_cast<float>(v[1]), static_cast<float>(v[2])},
      torch::kFloat);
}

Vec vec_of(const torch::Tensor& t) {
  auto a = t.to(torch::kDouble).contiguous();
  const double* p = a.data_ptr<double>();
  return {p[0], p[1], p[2]};
}

void expect_close(const torch::Tensor& actual, const Vec& expected, const std::string& what) {
  Vec a = vec_of(actual);
  for (int k = 0; k < 3; ++k) {
    // float32 state: a relative tolerance, with an absolute floor near zero.
    EXPECT_NEAR(a[k], expected[k], 2e-6 * std::max(1.0, std::abs(expected[k])))
        << what << ", element " << k;
  }
}

double relative_error(const torch::Tensor& actual, const torch::Tensor& expected) {
  return (actual.to(torch::kDouble) - expected.to(torch::kDouble)).norm().item<double>() /
         expected.to(torch::kDouble).norm().item<double>();
}

// ---------------------------------------------------------------------------------------------
// The protocol, as an engine runs it: every worker is sent parameters, computes a gradient
// there, its message is applied by the server, and it is sent fresh parameters (the rules as
// async_rule_helpers.h holds them).

// Worker i's gradient g (computed at rules.sent[i]) reaches the server as a message built at
// learning rate `lr`; i gets fresh parameters.
void deliver(Rules& rules, int64_t i, const torch::Tensor& g, double lr) {
  // The message may alias worker state: the engine sends a copy.
  torch::Tensor message = rules.workers[i]->message(g, rules.sent[i], lr).clone();
  rules.server->apply(i, message, lr);
  rules.server->parameters_for(i, rules.sent[i]);
}

// DANA-Slim's actual parameters θ = Θ + γΣ_j v_j, from the workers' checkpointed state.
torch::Tensor slim_parameters(const Rules& rules, double momentum) {
  torch::Tensor theta = rules.server->center().clone();
  for (const auto& worker : rules.workers) {
    for (auto& [name, tensor] : worker->state()) {
      if (name == "v") theta.add_(tensor, momentum);
    }
  }
  return theta;
}

// g(θ) = Aᵀ(Aθ − b) of ½‖Aθ − b‖², with A, b fixed by the seed.
class LeastSquares {
 public:
  LeastSquares(int64_t rows, int64_t cols, uint64_t seed, torch::Dtype dtype = torch::kFloat) {
    at::Generator generator = at::detail::createCPUGenerator(seed);
    a_ = torch::randn({rows, cols}, generator, torch::kDouble).div(std::sqrt(rows)).to(dtype);
    b_ = torch::randn({rows}, generator, torch::kDouble).to(dtype);
    theta0_ = torch::randn({cols}, generator, torch::kDouble).to(dtype);
  }
  torch::Tensor gradient(const torch::Tensor& theta) const {
    return torch::mv(a_.t(), torch::mv(a_, theta) - b_);
  }
  const torch::Tensor& theta0() const { return theta0_; }

 private:
  torch::Tensor a_, b_, theta0_;
};

using Schedule = std::function<double(int)>;  // η of the k-th message

// `updates` deliveries in a pseudo-random worker order drawn from `order`; each worker's gradient
// is computed at the parameters it was sent, possibly many updates ago. Returns the parameters
// sent after each update (the points at which the next gradients are evaluated).
std::vector<torch::Tensor> simulate(Rules& rules, const LeastSquares& problem, int updates,
                                    const Schedule& lr, std::mt19937& order) {
  std::vector<torch::Tensor> points;
  const auto n = static_cast<uint32_t>(rules.workers.size());
  for (int k = 0; k < updates; ++k) {
    int64_t i = order() % n;
    deliver(rules, i, problem.gradient(rules.sent[i]), lr(k));
    points.push_back(rules.sent[i].clone());
  }
  return points;
}
std::vector<torch::Tensor> simulate(Rules& rules, const LeastSquares& problem, int updates,
                                    double lr, std::mt19937& order) {
  return simulate(
      rules, problem, updates, [lr](int) { return lr; }, order);
}

// ---------------------------------------------------------------------------------------------
// Hand checks: N = 2 workers, θ0 = (1, −2, 0.5), γ = 0.9, λ = 0.01, and four messages with
// fixed gradients, so that each worker's second gradient is stale; the last message is built at
// half the learning rate, so that a changing η is part of every check. Every rule: d = g + λθ̂_i
// at the point θ̂_i the worker was sent, η inside the velocity.

constexpr double kLr = 0.1;
constexpr double kMomentum = 0.9;
constexpr double kDecay = 0.01;
const Vec kTheta0 = {1.0, -2.0, 0.5};

struct Event {
  int worker;
  Vec g;
  double lr;
};
const std::vector<Event> kEvents = {{0, {0.5, -1.0, 2.0}, kLr},
                                    {1, {-0.3, 0.2, 0.1}, kLr},
                                    {0, {0.4, 0.0, -0.6}, kLr},
                                    {1, {1.0, 0.5, -0.2}, kLr / 2}};

AsyncOptions hand_options() {
  AsyncOptions options;
  options.momentum = kMomentum;
  options.weight_decay = kDecay;
  return options;
}

// What the test expects after each event: the parameters then sent to that event's worker,
// and the server's center().
struct Expected {
  Vec sent;
  Vec center;
};

// Runs kEvents through the rules of `name` and compares with `expected`; `initial` is what
// workers 0 and 1 are sent before any message.
void check_hand_run(const std::string& name, const AsyncOptions& options, const Vec& initial,
                    const std::vector<Expected>& expected) {
  Rules rules = make_rules(name, options, tensor_of(kTheta0), 2);
  expect_close(rules.sent[0], initial, name + ": initial parameters of worker 0");
  expect_close(rules.sent[1], initial, name + ": initial parameters of worker 1");
  ASSERT_EQ(expected.size(), kEvents.size());
  for (size_t k = 0; k < kEvents.size(); ++k) {
    const Event& e = kEvents[k];
    deliver(rules, e.worker, tensor_of(e.g), e.lr);
    expect_close(rules.sent[e.worker], expected[k].sent,
                 name + ": parameters sent after message " + std::to_string(k));
    expect_close(rules.server->center(), expected[k].center,
                 name + ": center after message " + std::to_string(k));
  }
}

TEST(AsyncRulesHand, Asgd) {
  Vec theta = kTheta0;
  std::vector<Vec> sent = {kTheta0, kTheta0};
  std::vector<Expected> expected;
  for (const Event& e : kEvents) {
    // θ ← θ − ηd,  d = g + λθ̂_i
    theta = theta - e.lr * (e.g + kDecay * sent[e.worker]);
    sent[e.worker] = theta;
    expected.push_back({theta, theta});
  }
  // By hand, element 0 after the first message: 1 − 0.1·(0.5 + 0.01·1) = 0.949.
  EXPECT_NEAR(expected[0].center[0], 0.949, 1e-12);
  check_hand_run("asgd", hand_options(), kTheta0, expected);
}

// Delay-adaptive ASGD with τ_C = 0.5: kEvents' messages are τ = 0, 1, 1, 1 updates stale, so the
// first takes the full step and the others half of it.
TEST(AsyncRulesHand, DelayAdaptiveAsgd) {
  const double tau_c = 0.5;
  const std::vector<double> staleness = {0, 1, 1, 1};
  Vec theta = kTheta0;
  std::vector<Vec> sent = {kTheta0, kTheta0};
  std::vector<Expected> expected;
  for (size_t k = 0; k < kEvents.size(); ++k) {
    const Event& e = kEvents[k];
    // θ ← θ − η·min(1, τ_C/τ)·d,  d = g + λθ̂_i
    const double scale = staleness[k] <= tau_c ? 1.0 : tau_c / staleness[k];
    theta = theta - e.lr * scale * (e.g + kDecay * sent[e.worker]);
    sent[e.worker] = theta;
    expected.push_back({theta, theta});
  }
  // By hand, element 0 after the second message: 0.949 − 0.1·0.5·(−0.3 + 0.01·1) = 0.9635.
  EXPECT_NEAR(expected[1].center[0], 0.9635, 1e-12);
  AsyncOptions options = hand_options();
  options.values.set("da.tau_c", tau_c);
  check_hand_run("asgd-da", options, kTheta0, expected);
}

TEST(AsyncRulesHand, AsgdMomentum) {
  Vec theta = kTheta0, v = {0, 0, 0};
  std::vector<Vec> sent = {kTheta0, kTheta0};
  std::vector<Expected> expected;
  for (const Event& e : kEvents) {
    // v ← γv + ηd;  θ ← θ − v   (one v shared by both workers)
    v = kMomentum * v + e.lr * (e.g + kDecay * sent[e.worker]);
    theta = theta - v;
    sent[e.worker] = theta;
    expected.push_back({theta, theta});
  }
  // By hand, element 0: v = 0.051, θ = 0.949; then d = −0.3 + 0.01·1 (worker 1 was sent θ0),
  // v = 0.9·0.051 − 0.029 = 0.0169, θ = 0.949 − 0.0169 = 0.9321.
  EXPECT_NEAR(expected[1].center[0], 0.9321, 1e-12);
  check_hand_run("asgd-m", hand_options(), kTheta0, expected);
}

TEST(AsyncRulesHand, NagAsgd) {
  Vec theta = kTheta0, v = {0, 0, 0};
  std::vector<Vec> sent = {kTheta0, kTheta0};
  std::vector<Expected> expected;
  for (const Event& e : kEvents) {
    // v ← γv + ηd;  θ ← θ − (γv + ηd)
    Vec step = e.lr * (e.g + kDecay * sent[e.worker]);
    v = kMomentum * v + step;
    theta = theta - (kMomentum * v + step);
    sent[e.worker] = theta;
    expected.push_back({theta, theta});
  }
  // By hand, element 0: ηd = 0.051, v = 0.051, θ = 1 − (0.0459 + 0.051) = 0.9031.
  EXPECT_NEAR(expected[0].center[0], 0.9031, 1e-12);
  check_hand_run("nag-asgd", hand_options(), kTheta0, expected);
}

TEST(AsyncRulesHand, MultiAsgd) {
  Vec theta = kTheta0;
  std::vector<Vec> v = {{0, 0, 0}, {0, 0, 0}};
  std::vector<Vec> sent = {kTheta0, kTheta0};
  std::vector<Expected> expected;
  for (const Event& e : kEvents) {
    // v_i ← γv_i + ηd;  θ ← θ − v_i   (worker i's own buffer)
    Vec& vi = v[e.worker];
    vi = kMomentum * vi + e.lr * (e.g + kDecay * sent[e.worker]);
    theta = theta - vi;
    sent[e.worker] = theta;
    expected.push_back({theta, theta});
  }
  // By hand, element 0: v_0 = 0.051, θ = 0.949; v_1 = 0.1·(−0.3 + 0.01) = −0.029, θ = 0.978.
  EXPECT_NEAR(expected[1].center[0], 0.978, 1e-12);
  check_hand_run("multi-asgd", hand_options(), kTheta0, expected);
}

TEST(AsyncRulesHand, DanaZero) {
  Vec theta = kTheta0;
  std::vector<Vec> v = {{0, 0, 0}, {0, 0, 0}};
  std::vector<Vec> sent = {kTheta0, kTheta0};
  std::vector<Expected> expected;
  for (const Event& e : kEvents) {
    // v_i ← γv_i + ηd;  θ ← θ − v_i;  sent: θ − γ(v_0 + v_1)
    Vec& vi = v[e.worker];
    vi = kMomentum * vi + e.lr * (e.g + kDecay * sent[e.worker]);
    theta = theta - vi;
    sent[e.worker] = theta - kMomentum * (v[0] + v[1]);
    expected.push_back({sent[e.worker], theta});
  }
  // By hand, element 0: v_0 = 0.051, θ = 0.949, sent 0.949 − 0.9·0.051 = 0.9031.
  EXPECT_NEAR(expected[0].sent[0], 0.9031, 1e-12);
  check_hand_run("dana-zero", hand_options(), kTheta0, expected);
}

// Gap-Aware's penalty C = 1 + |θ − θ̂_i| / (η_max·(sqrt(r / (1 − β^(t+1))) + ε)) and its running
// mean r of the squared step over its rate, by hand over the shared events (ga.beta and
// ga.epsilon at their defaults; FTPipe's form, gap_aware.h).
struct GapAwareHand {
  double beta = 0.999, epsilon = 1e-8, max_lr = 0.0;
  Vec r = {0, 0, 0};
  int t = 0;
  Vec penalty(const Vec& theta, const Vec& hat, double lr) {
    max_lr = std::max(max_lr, lr);
    const double correction = 1.0 / (1.0 - std::pow(beta, t + 1));
    Vec typical = max_lr * plus(sqrt_of(correction * r), epsilon);
    Vec gap = theta - hat;
    for (double& x : gap) x = std::fabs(x);
    return plus(gap / typical, 1.0);
  }
  void step(const Vec& before, const Vec& after, double lr) {
    const Vec step = (1.0 / lr) * (before - after);
    r = beta * r + (1.0 - beta) * (step * step);
    ++t;
  }
};

TEST(AsyncRulesHand, GapAwareAsgd) {
  Vec theta = kTheta0, v = {0, 0, 0};
  std::vector<Vec> sent = {kTheta0, kTheta0};
  GapAwareHand ga;
  std::vector<Expected> expected;
  std::vector<double> penalties;
  for (const Event& e : kEvents) {
    // d' = d / C;  v ← γv + ηd';  θ ← θ − v;  r ← βr + (1 − β)((θ_before − θ)/η)²
    const Vec c = ga.penalty(theta, sent[e.worker], e.lr);
    penalties.push_back(c[0]);
    v = kMomentum * v + e.lr * ((e.g + kDecay * sent[e.worker]) / c);
    const Vec before = theta;
    theta = theta - v;
    ga.step(before, theta, e.lr);
    sent[e.worker] = theta;
    expected.push_back({theta, theta});
  }
  // By hand, element 0: the first message is fresh (C = 1); the second was taken at θ0, one step
  // of 0.051 = η·0.51 ago; r = 0.001·0.51², debiased over t + 1 = 2 samples (the zero before the
  // first step counts, as in FTPipe): r̂ = 0.51²/1.999, so the typical step is
  // η·0.51/sqrt(1.999) and C = 1 + sqrt(1.999) = 2.413860...
  EXPECT_EQ(penalties[0], 1.0);
  EXPECT_NEAR(penalties[1], 1.0 + std::sqrt(1.999), 1e-6);
  check_hand_run("ga-asgd", hand_options(), kTheta0, expected);
}

TEST(AsyncRulesHand, DanaGapAware) {
  Vec theta = kTheta0;
  std::vector<Vec> v = {{0, 0, 0}, {0, 0, 0}};
  std::vector<Vec> sent = {kTheta0, kTheta0};
  GapAwareHand ga;
  std::vector<Expected> expected;
  for (const Event& e : kEvents) {
    // d' = d / C (gap to the look-ahead the worker was sent);  DANA-Zero with d'
    const Vec c = ga.penalty(theta, sent[e.worker], e.lr);
    Vec& vi = v[e.worker];
    vi = kMomentum * vi + e.lr * ((e.g + kDecay * sent[e.worker]) / c);
    const Vec before = theta;
    theta = theta - vi;
    ga.step(before, theta, e.lr);
    sent[e.worker] = theta - kMomentum * (v[0] + v[1]);
    expected.push_back({sent[e.worker], theta});
  }
  check_hand_run("dana-ga", hand_options(), kTheta0, expected);
}

TEST(AsyncRulesHand, DanaSlim) {
  Vec big_theta = kTheta0;
  std::vector<Vec> v = {{0, 0, 0}, {0, 0, 0}};
  std::vector<Vec> received = {kTheta0, kTheta0};
  std::vector<Expected> expected;
  for (const Event& e : kEvents) {
    // Worker i, at the Θ it received: v_i ← γv_i + ηd;  m = γv_i + ηd,  d = g + λΘ.
    Vec step = e.lr * (e.g + kDecay * received[e.worker]);
    Vec& vi = v[e.worker];
    vi = kMomentum * vi + step;
    Vec m = kMomentum * vi + step;
    // Server: Θ ← Θ − m; it sends Θ.
    big_theta = big_theta - m;
    received[e.worker] = big_theta;
    expected.push_back({big_theta, big_theta});
  }
  // By hand, element 0: ηd = 0.051, v_0 = 0.051, m = 0.0969, Θ = 0.9031 (DANA-Zero's point).
  EXPECT_NEAR(expected[0].center[0], 0.9031, 1e-12);
  check_hand_run("dana-slim", hand_options(), kTheta0, expected);
}

// DC-ASGD-c with server momentum and the published constant λ_dc = 0.04 (the default).
TEST(AsyncRulesHand, DcAsgdWithMomentum) {
  AsyncOptions options = hand_options();
  const double dc_lambda = 0.04;  // dc.lambda's declared default
  Vec theta = kTheta0, v = {0, 0, 0};
  std::vector<Vec> hat = {kTheta0, kTheta0};
  std::vector<Expected> expected;
  for (const Event& e : kEvents) {
    // d = g + λθ̂_i;  v ← γv + η(d + λ_dc·g⊙g⊙(θ − θ̂_i));  θ ← θ − v;  θ̂_i ← θ (sent)
    // (the raw gradient squared, as MXNet's DCASGD and the DANA authors' simulator)
    const Vec& g = e.g;
    Vec d = g + kDecay * hat[e.worker];
    v = kMomentum * v + e.lr * (d + dc_lambda * (g * g * (theta - hat[e.worker])));
    theta = theta - v;
    hat[e.worker] = theta;
    expected.push_back({theta, theta});
  }
  check_hand_run("dc-asgd", options, kTheta0, expected);
}

// The paper's DC-ASGD-c (no momentum) with its λ_dc = 0.04, literal numbers worked out by hand.
TEST(AsyncRulesHand, DcAsgdWithoutMomentum) {
  AsyncOptions options;
  options.momentum = 0.0;
  options.weight_decay = 0.0;
  const double dc_lambda = 0.04;  // dc.lambda's declared default
  Vec theta = kTheta0;
  std::vector<Vec> hat = {kTheta0, kTheta0};
  std::vector<Expected> expected;
  for (const Event& e : kEvents) {
    // θ ← θ − η(g + λ_dc·g⊙g⊙(θ − θ̂_i));  θ̂_i ← θ
    const Vec& g = e.g;
    theta = theta - e.lr * (g + dc_lambda * (g * g * (theta - hat[e.worker])));
    hat[e.worker] = theta;
    expected.push_back({theta, theta});
  }
  // By hand, element 0:
  //   message 0 (worker 0, θ̂_0 = θ = 1, no correction): θ = 1 − 0.1·0.5 = 0.95
  //   message 1 (worker 1, θ̂_1 = 1): g' = −0.3 + 0.04·0.09·(0.95 − 1) = −0.30018,
  //                                   θ = 0.95 + 0.030018 = 0.980018
  //   message 2 (worker 0, θ̂_0 = 0.95): g' = 0.4 + 0.04·0.16·0.030018 = 0.40019211520,
  //                                      θ = 0.980018 − 0.04001921152 = 0.93999878848
  EXPECT_NEAR(expected[0].center[0], 0.95, 1e-12);
  EXPECT_NEAR(expected[1].center[0], 0.980018, 1e-12);
  EXPECT_NEAR(expected[2].center[0], 0.93999878848, 1e-12);
  check_hand_run("dc-asgd", options, kTheta0, expected);
}

// DC-ASGD-a with the published λ₀ = 2, m = 0.95, ε = 1e-7.
TEST(AsyncRulesHand, DcAsgdAdaptive) {
  AsyncOptions options;
  options.momentum = 0.0;
  options.weight_decay = 0.0;
  options.values.set("dc.lambda", 2.0);
  options.values.set("dc.adaptive", true);
  const double dc_lambda = 2.0, m = 0.95, eps = 1e-7;  // m: dc.ms_decay's default
  Vec theta = kTheta0;
  std::vector<Vec> hat = {kTheta0, kTheta0};
  std::vector<Vec> ms = {{0, 0, 0}, {0, 0, 0}};
  std::vector<Expected> expected;
  for (const Event& e : kEvents) {
    // MS_i ← m·MS_i + (1−m)·g⊙g;  λ_t = λ_dc / sqrt(MS_i + ε);
    // θ ← θ − η(g + λ_t⊙g⊙g⊙(θ − θ̂_i));  θ̂_i ← θ
    const Vec& g = e.g;
    Vec& msi = ms[e.worker];
    msi = m * msi + (1 - m) * (g * g);
    Vec lambda_t = dc_lambda * (Vec{1, 1, 1} / sqrt_of(plus(msi, eps)));
    theta = theta - e.lr * (g + lambda_t * (g * g * (theta - hat[e.worker])));
    hat[e.worker] = theta;
    expected.push_back({theta, theta});
  }
  // By hand, element 0 of message 1 (worker 1, g = −0.3, θ = 0.95, θ̂_1 = 1):
  //   MS_1 = 0.05·0.09 = 0.0045, λ_t = 2/sqrt(0.0045001) = 29.81391...,
  //   g' = −0.3 + 29.81391·0.09·(−0.05) = −0.4341626, θ = 0.95 + 0.04341626 = 0.99341626
  EXPECT_NEAR(expected[1].center[0], 0.99341626, 1e-7);
  check_hand_run("dc-asgd", options, kTheta0, expected);
}

TEST(AsyncRulesHand, DanaDc) {
  for (bool adaptive : {false, true}) {
    SCOPED_TRACE(adaptive ? "adaptive" : "constant lambda");
    AsyncOptions options = hand_options();
    options.values.set("dc.lambda", adaptive ? 2.0 : 0.04);
    options.values.set("dc.adaptive", adaptive);
    const double dc_lambda = adaptive ? 2.0 : 0.04, m = 0.95, eps = 1e-7;
    Vec theta = kTheta0;
    std::vector<Vec> v = {{0, 0, 0}, {0, 0, 0}};
    std::vector<Vec> hat = {kTheta0, kTheta0};  // look-ahead sent; equals θ0 at the start
    std::vector<Vec> ms = {{0, 0, 0}, {0, 0, 0}};
    std::vector<Expected> expected;
    for (const Event& e : kEvents) {
      const Vec& g = e.g;
      const Vec d = g + kDecay * hat[e.worker];
      // λ_t = λ_dc, or λ_dc / sqrt(MS_i + ε) after MS_i ← m·MS_i + (1−m)·g⊙g
      Vec lambda_t = {dc_lambda, dc_lambda, dc_lambda};
      if (adaptive) {
        ms[e.worker] = m * ms[e.worker] + (1 - m) * (g * g);
        lambda_t = dc_lambda * (Vec{1, 1, 1} / sqrt_of(plus(ms[e.worker], eps)));
      }
      // v_i ← γv_i + η(d + λ_t⊙g⊙g⊙(θ − θ̂_i));  θ ← θ − v_i   (θ: the server's, not the look-ahead;
      // g the raw gradient, as the DANA authors' simulator squares it)
      Vec corrected = d + lambda_t * (g * g * (theta - hat[e.worker]));
      Vec& vi = v[e.worker];
      vi = kMomentum * vi + e.lr * corrected;
      theta = theta - vi;
      // sent (and recorded as θ̂_i): θ − γ(v_0 + v_1)
      hat[e.worker] = theta - kMomentum * (v[0] + v[1]);
      expected.push_back({hat[e.worker], theta});
    }
    check_hand_run("dana-dc", options, kTheta0, expected);
  }
}

// The keys that select yellowfin's former form, dsgd's default before the rule followed the
// authors' PyTorch tuner: the debiased running means μ*, α* applied, the rate inside the velocity,
// linear h smoothing, the first message tuned, floors instead of the authors' ε, no clipping, and
// weight decay folded into the message by the worker (yf.closed_loop was on as well).
void set_former_yellowfin(AsyncOptions& options) {
  options.values.set("yf.smoothed", 1.0);
  options.values.set("yf.rate_in_velocity", 1.0);
  options.values.set("yf.log_curvature", 0.0);
  options.values.set("yf.tune_first_step", 1.0);
  options.values.set("yf.eps_floors", 1.0);
  options.values.set("yf.adaptive_clip", 0.0);
  options.values.set("decay_at_server", 0.0);
}

// YellowFin's former tuner by hand (yellowfin_tuner.h's equations under set_former_yellowfin), with
// the single-step cubic solved by bisection rather than Vieta's formula, and the closed loop's
// median over the three coordinates.
struct YellowFinHand {
  double beta = 0.999, gain = 0.01;
  size_t window = 20;
  bool closed_loop = true;
  int t = 0;
  std::vector<double> recent;  // h of the last `window` messages
  double curv_max = 0, curv_min = 0, norm = 0, norm_sq = 0, distance = 0, mu_avg = 0, rate_avg = 0;
  double target = 0, rate = 0, mu = 0;
  Vec average = {0, 0, 0};

  static double dot(const Vec& a, const Vec& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
  void tune(const Vec& d) {
    ++t;
    const double b = 1.0 - std::pow(beta, t), h = dot(d, d);
    recent.push_back(h);
    if (recent.size() > window) recent.erase(recent.begin());
    curv_max = beta * curv_max + (1 - beta) * *std::max_element(recent.begin(), recent.end());
    curv_min = beta * curv_min + (1 - beta) * *std::min_element(recent.begin(), recent.end());
    average = beta * average + (1 - beta) * d;
    norm_sq = beta * norm_sq + (1 - beta) * h;
    const double variance = std::max(norm_sq / b - dot(average, average) / (b * b), 1e-6);
    norm = beta * norm + (1 - beta) * std::sqrt(h);
    distance = beta * distance + (1 - beta) * norm / norm_sq;
    const double h_min = std::max(curv_min / b, 1e-6), h_max = std::max(curv_max / b, h_min);
    const double dist = distance / b;
    // x = √μ in (0, 1) with p·x = (1 − x)³, p = D²h_min²/(2C): (1 − x)³ − p·x falls from 1 to −p.
    const double p = dist * dist * h_min * h_min / (2 * variance);
    double lo = 0, hi = 1;
    for (int k = 0; k < 200; ++k) {
      const double mid = (lo + hi) / 2;
      (std::pow(1 - mid, 3) - p * mid > 0 ? lo : hi) = mid;
    }
    const double kappa = std::sqrt(h_max / h_min);
    const double mu_t = std::max(lo * lo, std::pow((kappa - 1) / (kappa + 1), 2));
    mu_avg = beta * mu_avg + (1 - beta) * mu_t;
    rate_avg = beta * rate_avg + (1 - beta) * std::pow(1 - std::sqrt(mu_t), 2) / h_min;
    target = mu_avg / b;
    rate = rate_avg / b * std::min(1.0, t / (10.0 * window));  // the slow start
    if (!closed_loop || t == 1) mu = target;
  }
};

void check_yellowfin_hand(bool closed_loop, size_t window) {
  SCOPED_TRACE(std::string(closed_loop ? "closed loop" : "open loop") + ", window " +
               std::to_string(window));
  AsyncOptions options = hand_options();
  options.lr = kLr;
  set_former_yellowfin(options);
  options.values.set("yf.closed_loop", closed_loop);
  options.values.set("yf.window", static_cast<double>(window));
  YellowFinHand yf;
  yf.closed_loop = closed_loop;
  yf.window = window;
  Vec theta = kTheta0, v = {0, 0, 0};
  std::vector<Vec> sent = {kTheta0, kTheta0};
  // The closed loop's record per worker: v_s when sent x_s, then v_{s+1} and η_{s+1}.
  std::vector<Vec> sent_step(2, Vec{0, 0, 0}), next_step(2, Vec{0, 0, 0});
  std::vector<double> next_rate = {0, 0};
  std::vector<bool> pending = {true, true};
  std::vector<double> medians;

  Rules rules = make_rules("yellowfin", options, tensor_of(kTheta0), 2);
  for (size_t k = 0; k < kEvents.size(); ++k) {
    const Event& e = kEvents[k];
    const Vec d = e.g + kDecay * sent[e.worker];
    yf.tune(d);
    // By hand, the first message: one h = ‖d‖² = 5.320525 in the window, so κ = 1; the variance
    // is at its floor 1e-6 and D = 1/‖d‖, so p = h/2e-6, x = 3.759e-7 and α* = (1 − x)²/h,
    // ramped by 1/200.
    if (k == 0 && window == 20) {
      EXPECT_NEAR(yf.rate, 0.18795124 / 200, 1e-10);
    }
    // v ← μv + ηd, η = (ℓ / lr)·α* (yf.lr_factor 1, lr = kLr);  θ ← θ − v
    const double rate = e.lr * (1.0 / kLr) * yf.rate;
    v = yf.mu * v + rate * d;
    theta = theta - v;
    if (closed_loop) {
      for (int j = 0; j < 2; ++j) {
        if (pending[j]) next_step[j] = v, next_rate[j] = rate, pending[j] = false;
      }
      // μ̂_T = median of (v_{s+1} − η_{s+1}d) / v_s where v_s ≠ 0
      std::vector<double> ratios;
      for (int c = 0; c < 3; ++c) {
        const double before = sent_step[e.worker][c];
        if (before != 0)
          ratios.push_back((next_step[e.worker][c] - next_rate[e.worker] * d[c]) / before);
      }
      if (!ratios.empty()) {
        std::sort(ratios.begin(), ratios.end());
        medians.push_back(ratios[(ratios.size() - 1) / 2]);
        yf.mu = std::clamp(yf.mu + yf.gain * (yf.target - medians.back()), -0.9, 0.999);
      }
      sent_step[e.worker] = v;
      pending[e.worker] = true;
    }
    sent[e.worker] = theta;

    deliver(rules, e.worker, tensor_of(e.g), e.lr);
    const std::string after = "after message " + std::to_string(k);
    expect_close(rules.sent[e.worker], theta, "parameters sent " + after);
    expect_close(rules.server->center(), theta, "center " + after);
    // The tuner's scalars: [t, ..., μ*, α*, μ applied] (yellowfin_tuner.cpp's Scalar).
    for (auto& [name, tensor] : rules.server->state()) {
      if (name != "yf_tuner") continue;
      const double* s = tensor.data_ptr<double>();
      EXPECT_EQ(s[0], static_cast<double>(k + 1)) << after;
      // The rule's statistics come from float32 messages: 1e-5 relative.
      EXPECT_NEAR(s[8], yf.target, 1e-5 * yf.target) << "mu* " << after;
      EXPECT_NEAR(s[9], yf.rate, 1e-5 * yf.rate) << "alpha* " << after;
      EXPECT_NEAR(s[10], yf.mu, 1e-5 * std::abs(yf.mu)) << "mu applied " << after;
      // What metrics.csv logs at an evaluation.
      std::map<std::string, double> columns;
      rules.server->report(columns);
      EXPECT_EQ(columns.at("yf_mu"), s[10]);
      EXPECT_EQ(columns.at("yf_mu_target"), s[8]);
      EXPECT_EQ(columns.at("yf_rate"), s[9]);
    }
  }
  if (closed_loop) {
    // Messages 1 and 2 were computed at x_0, whose step v_0 = 0: nothing to measure. Message 3
    // (worker 0, computed at x_1) and 4 (worker 1, at x_2) are measured.
    ASSERT_EQ(medians.size(), 2u);
  }
}

// Window 2: the ring of h wraps within the four messages (and the slow start ramps over 20).
TEST(AsyncRulesHand, YellowFinFormerOpenLoop) {
  for (size_t window : {20, 2}) check_yellowfin_hand(false, window);
}
TEST(AsyncRulesHand, YellowFinFormerClosedLoop) {
  for (size_t window : {20, 2}) check_yellowfin_hand(true, window);
}

// The authors' PyTorch tuner, YFOptimizer (tuner_utils/yellowfin.py; the yellowfin rule's default),
// by hand for one message d at the schedule's shape ℓ/lr: the clips before the statistics, the
// statistics (h_max, h_min smoothed in log space), μ_t and α_t applied as they are, the first
// message untuned, the catastrophic-move clamp and the exploding-gradient clip, then torch's SGD
// step (buf ← μ·buf + d, θ ← θ − η·buf; none into buf at μ = 0).
struct YellowFinReferenceHand {
  double beta = 0.999, eps = 1e-6, clip = 0.0, first_rate = 1e-4;
  size_t window = 20;
  int t = 0;
  std::vector<double> recent;  // h of the last `window` messages
  double log_max = 0, log_min = 0, norm = 0, norm_sq = 0, distance = 0;
  double h_min = 0, h_max = 0, mu = 0, rate = 0, step_rate = 0;
  Vec average = {0, 0, 0}, buf = {0, 0, 0};
  std::vector<std::string> clips;  // which clips acted, for the test to see they were exercised

  static double dot(const Vec& a, const Vec& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
  // torch.nn.utils.clip_grad_norm_: g·min(1, c/(‖g‖ + 1e-6))
  Vec clipped(const Vec& g, double c, const std::string& which) {
    const double coefficient = c / (std::sqrt(dot(g, g)) + 1e-6);
    if (coefficient >= 1.0) return g;
    clips.push_back(which + " at message " + std::to_string(t));
    return coefficient * g;
  }
  // θ after the step of message d; λθ is added to d after the tuner when decay_at_server.
  Vec apply(Vec d, double shape, const Vec& theta, double server_decay) {
    ++t;
    if (clip > 0) d = clipped(d, clip, "yf.clip");
    const double previous_max = h_max;
    if (t >= 3) d = clipped(d, std::sqrt(100 * previous_max) + eps, "stat-protect");
    const double h = dot(d, d), b = 1.0 - std::pow(beta, t);
    recent.push_back(h);
    if (recent.size() > window) recent.erase(recent.begin());
    const double largest = *std::max_element(recent.begin(), recent.end());
    const double smallest = *std::min_element(recent.begin(), recent.end());
    log_max = beta * log_max + (1 - beta) * std::log(largest + eps);
    log_min = beta * log_min + (1 - beta) * std::log(smallest + eps);
    h_max = std::exp(log_max / b);
    h_min = std::exp(log_min / b);
    average = beta * average + (1 - beta) * d;
    norm_sq = beta * norm_sq + (1 - beta) * h;
    const double variance = std::max(norm_sq / b - dot(average, average) / (b * b), eps);
    norm = beta * norm + (1 - beta) * std::sqrt(h);
    distance = beta * distance + (1 - beta) * norm / (norm_sq + eps);
    const double dist = distance / b;
    // x = √μ: the root of p·x = (1 − x)³, p = (D + ε)²(h_min + ε)²/(2(C + ε)), by Vieta's
    // substitution with the authors' ε in its last division.
    const double p = std::pow(dist + eps, 2) * std::pow(h_min + eps, 2) / (2 * (variance + eps));
    const double w = std::cbrt((-std::sqrt(p * p + 4.0 / 27.0 * p * p * p) - p) / 2);
    const double x = w - p / (3 * (w + eps)) + 1;
    const double kappa = std::sqrt(std::max((h_max + eps) / (h_min + eps), 1 + eps));
    const double mu_t = std::max(x * x, std::pow((kappa - 1) / (kappa + 1), 2));
    // α_t = (1 − √μ_t)²/(h_min + ε), slowly started over 10 windows
    const double alpha_t = std::pow(1 - std::sqrt(mu_t), 2) / (h_min + eps) *
                           std::min(1.0, t / (10.0 * static_cast<double>(window)));
    mu = t == 1 ? 0.0 : mu_t;
    rate = t == 1 ? first_rate : alpha_t;
    step_rate = shape * rate;
    if (step_rate * std::sqrt(h) >= 100) {
      step_rate = 100 / std::sqrt(h + eps);
      clips.push_back("catastrophic-move clamp at message " + std::to_string(t));
    }
    if (t >= 2 && h >= previous_max) d = clipped(d, std::sqrt(previous_max) + eps, "exploding");
    d = d + server_decay * theta;
    if (mu == 0.0) return theta - step_rate * d;
    buf = mu * buf + d;
    return theta - step_rate * buf;
  }
};

// The default against YellowFinReferenceHand over the shared events (a changing rate, weight
// decay); `clip` and `first_rate` > 1e-4 exercise the clips and the clamp.
void check_yellowfin_reference_hand(size_t window, bool decay_at_server, double clip,
                                    double first_rate, const std::vector<std::string>& clips) {
  SCOPED_TRACE("window " + std::to_string(window) +
               (decay_at_server ? ", decay at the server" : "") + ", yf.clip " +
               std::to_string(clip) + ", yf.first_rate " + std::to_string(first_rate));
  AsyncOptions options = hand_options();
  options.lr = kLr;
  options.values.set("yf.window", static_cast<double>(window));
  options.values.set("yf.clip", clip);
  options.values.set("yf.first_rate", first_rate);
  options.values.set("decay_at_server", decay_at_server);
  YellowFinReferenceHand yf;
  yf.window = window;
  yf.clip = clip;
  yf.first_rate = first_rate;
  Vec theta = kTheta0;
  std::vector<Vec> sent = {kTheta0, kTheta0};
  Rules rules = make_rules("yellowfin", options, tensor_of(kTheta0), 2);
  auto near = [](double actual, double expected, const std::string& what) {
    // Statistics of float32 messages: 1e-5 relative.
    EXPECT_NEAR(actual, expected, 1e-5 * std::abs(expected) + 1e-12) << what;
  };
  for (size_t k = 0; k < kEvents.size(); ++k) {
    const Event& e = kEvents[k];
    // d = g + λθ̂_i (the worker's), or g with λθ added at the server after the tuner
    const Vec d = decay_at_server ? e.g : e.g + kDecay * sent[e.worker];
    theta = yf.apply(d, e.lr / kLr, theta, decay_at_server ? kDecay : 0.0);
    sent[e.worker] = theta;

    deliver(rules, e.worker, tensor_of(e.g), e.lr);
    const std::string after = "after message " + std::to_string(k);
    expect_close(rules.sent[e.worker], theta, "parameters sent " + after);
    expect_close(rules.server->center(), theta, "center " + after);
    std::map<std::string, double> columns;
    rules.server->report(columns);
    near(columns.at("yf_mu"), yf.mu, "mu " + after);
    near(columns.at("yf_mu_target"), yf.mu, "tuner's mu " + after);
    near(columns.at("yf_rate"), yf.rate, "rate " + after);
    near(columns.at("yf_step_rate"), yf.step_rate, "rate applied " + after);
    near(columns.at("yf_h_min"), yf.h_min, "h_min " + after);
    near(columns.at("yf_h_max"), yf.h_max, "h_max " + after);
  }
  EXPECT_EQ(yf.clips, clips);
}

TEST(AsyncRulesHand, YellowFinDefault) {
  // By hand, the first message: untuned, a step of 1e-4·d with μ = 0.
  check_yellowfin_reference_hand(20, false, 0.0, 1e-4, {});
  check_yellowfin_reference_hand(2, false, 0.0, 1e-4, {});
  // yf.clip 1 shortens messages 1 and 4 (‖d‖ = 2.31, 1.14), so that message 4, still the longest
  // of the window of 2, exceeds h_max; a first rate of 1000 would move θ by 1000·‖d‖ ≥ 100.
  check_yellowfin_reference_hand(2, true, 1.0, 1000.0,
                                 {"yf.clip at message 1", "catastrophic-move clamp at message 1",
                                  "yf.clip at message 4", "exploding at message 4"});
}

// EASGD, EAMSGD and DANA-EASGD by hand (easgd.cpp's equations), β = 0.9 so α = 0.45: with τ = 1
// every message carries an exchange; with τ = 2 only each worker's first (t^i = 0), which meets a
// centre no one has moved yet.
std::vector<Expected> check_elastic_hand(const std::string& name, bool momentum, bool look_ahead,
                                         int tau) {
  SCOPED_TRACE(name + ", tau " + std::to_string(tau));
  AsyncOptions options = hand_options();
  options.values.set("easgd.tau", tau);
  options.values.set("easgd.beta", 0.9);
  const double alpha = 0.45, delta = momentum ? kMomentum : 0.0;
  Vec center = kTheta0;
  std::vector<Vec> x = {kTheta0, kTheta0}, v = {{0, 0, 0}, {0, 0, 0}}, sent = {kTheta0, kTheta0};
  std::vector<int> steps = {0, 0};
  std::vector<Expected> expected;
  for (const Event& e : kEvents) {
    const int i = e.worker, other = 1 - i;
    const Vec d = e.g + kDecay * sent[i];
    if (steps[i] % tau == 0) {
      // e = α(x − x̃);  x^i ← x^i − α(x − x̃_i);  x̃ ← x̃ + e,  x̃_i = x̃ + α(x^j − x̃) for DANA
      const Vec push = alpha * (x[i] - center);
      const Vec toward = look_ahead ? center + alpha * (x[other] - center) : center;
      x[i] = x[i] - alpha * (x[i] - toward);
      center = center + push;
    }
    v[i] = delta * v[i] + e.lr * d;
    x[i] = x[i] - v[i];
    ++steps[i];
    sent[i] = x[i] - delta * v[i];
    expected.push_back({sent[i], center});
  }
  check_hand_run(name, options, kTheta0, expected);
  return expected;
}

TEST(AsyncRulesHand, Easgd) {
  auto expected = check_elastic_hand("easgd", false, false, 1);
  // By hand, element 0, τ = 1: x^0 = 1 − 0.1·0.51 = 0.949 after message 1; at message 3 the push
  // is 0.45·(0.949 − 1) = −0.02295, so x̃ = 0.97705 and x^0 = 0.97195 − 0.1·(0.4 + 0.01·0.949).
  EXPECT_NEAR(expected[2].center[0], 0.97705, 1e-12);
  EXPECT_NEAR(expected[2].sent[0], 0.931001, 1e-12);
  check_elastic_hand("easgd", false, false, 2);
}
TEST(AsyncRulesHand, Eamsgd) {
  for (int tau : {1, 2}) check_elastic_hand("eamsgd", true, false, tau);
}
TEST(AsyncRulesHand, DanaEasgd) {
  for (int tau : {1, 2}) check_elastic_hand("dana-easgd", true, true, tau);
}

// ---------------------------------------------------------------------------------------------
// Equivalences with torch::optim::SGD at constant η (where the conventions agree): N = 1,
// λ = 0, 50 steps of a least-squares problem, compared at the points where the gradients are
// evaluated.

std::vector<torch::Tensor> torch_sgd_points(const LeastSquares& problem, double lr, bool nesterov,
                                            int steps) {
  torch::Tensor x = problem.theta0().clone().set_requires_grad(true);
  torch::optim::SGD optimizer({x}, torch::optim::SGDOptions(lr).momentum(0.9).nesterov(nesterov));
  std::vector<torch::Tensor> points;
  for (int k = 0; k < steps; ++k) {
    points.push_back(x.detach().clone());
    x.mutable_grad() = problem.gradient(x.detach());
    optimizer.step();
  }
  return points;
}

std::vector<torch::Tensor> single_worker_points(const std::string& name,
                                                const LeastSquares& problem, const Schedule& lr,
                                                int steps, const AsyncOptions& options) {
  Rules rules = make_rules(name, options, problem.theta0(), 1);
  std::vector<torch::Tensor> points;
  for (int k = 0; k < steps; ++k) {
    points.push_back(rules.sent[0].clone());
    deliver(rules, 0, problem.gradient(rules.sent[0]), lr(k));
  }
  return points;
}

std::vector<torch::Tensor> single_worker_points(const std::string& name,
                                                const LeastSquares& problem, double lr, int steps) {
  AsyncOptions options;
  options.momentum = 0.9;
  options.weight_decay = 0.0;
  options.values.set("dc.lambda", 0.0);
  return single_worker_points(
      name, problem, [lr](int) { return lr; }, steps, options);
}

void expect_same_points(const std::vector<torch::Tensor>& actual,
                        const std::vector<torch::Tensor>& expected, const std::string& what,
                        double tolerance = 1e-5) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t k = 0; k < actual.size(); ++k) {
    ASSERT_LT(relative_error(actual[k], expected[k]), tolerance) << what << ", step " << k;
  }
}

TEST(AsyncRulesEquivalence, HeavyBallRulesMatchTorchSgdMomentum) {
  LeastSquares problem(12, 6, 7);
  const double lr = 0.05;
  auto reference = torch_sgd_points(problem, lr, /*nesterov=*/false, 50);
  // The trajectory must move, or matching it proves nothing.
  ASSERT_GT(relative_error(reference.back(), reference.front()), 0.1);
  for (const std::string name : {"asgd-m", "multi-asgd", "dc-asgd"}) {
    expect_same_points(single_worker_points(name, problem, lr, 50), reference, name);
  }
}

TEST(AsyncRulesEquivalence, NesterovRulesMatchTorchSgdNesterov) {
  LeastSquares problem(12, 6, 7);
  const double lr = 0.05;
  auto reference = torch_sgd_points(problem, lr, /*nesterov=*/true, 50);
  ASSERT_GT(relative_error(reference.back(), reference.front()), 0.1);
  // dana-zero and dana-dc: the points sent, θ − γv; dana-slim: Θ.
  for (const std::string name : {"nag-asgd", "dana-zero", "dana-slim", "dana-dc"}) {
    expect_same_points(single_worker_points(name, problem, lr, 50), reference, name);
  }
}

// A warm-up from η/8 over 40 messages, then a cosine decay to 0 at message 300: η changes at
// every message, which is where the momentum conventions part.
double warmup_cosine(int k) {
  const double peak = 0.05;
  if (k < 40) return peak * (1.0 / 8 + (1 - 1.0 / 8) * k / 40.0);
  return peak * 0.5 * (1 + std::cos(M_PI * std::min(1.0, k / 300.0)));
}
double multistep(int k) { return k < 150 ? 0.05 : (k < 250 ? 0.005 : 0.0005); }

// dsgd's sgd (LocalSgd) under the same schedule: the parameters its gradients are taken at.
std::vector<torch::Tensor> local_sgd_points(const LeastSquares& problem, const Schedule& lr,
                                            int steps, const SgdOptions& sgd) {
  torch::Tensor theta = problem.theta0().clone();
  LocalSgd optimizer(sgd, theta);
  std::vector<torch::Tensor> points;
  for (int k = 0; k < steps; ++k) {
    points.push_back(theta.clone());
    torch::Tensor grad = problem.gradient(theta);
    optimizer.step(theta, grad, lr(k));
  }
  return points;
}

// With one worker every async rule is sgd, under any schedule and with weight decay; in float64
// so that rounding cannot hide a difference. DC rules included: with one worker θ̂ = θ, so the
// compensation vanishes (dana-dc compensates towards θ, not the look-ahead: only at λ_dc = 0).
TEST(AsyncRulesEquivalence, OneWorkerIsSgdUnderAChangingSchedule) {
  LeastSquares problem(12, 6, 7, torch::kDouble);
  const int steps = 300;
  for (const Schedule& lr : {Schedule(warmup_cosine), Schedule(multistep)}) {
    struct Case {
      std::string name;
      SgdOptions sgd;
      double dc_lambda;
    };
    const SgdOptions heavy{0.9, false, 5e-4}, nesterov{0.9, true, 5e-4}, plain{0.0, false, 5e-4};
    const std::vector<Case> cases = {
        {"asgd", plain, 0.04},         {"asgd-m", heavy, 0.04},      {"multi-asgd", heavy, 0.04},
        {"dc-asgd", heavy, 0.04},      {"nag-asgd", nesterov, 0.04}, {"dana-zero", nesterov, 0.04},
        {"dana-slim", nesterov, 0.04}, {"dana-dc", nesterov, 0.0},   {"asgd-da", plain, 0.04},
        {"ga-asgd", heavy, 0.04},  // one worker: every message is fresh, no gap
    };
    for (const Case& c : cases) {
      SCOPED_TRACE(c.name);
      AsyncOptions options;
      options.momentum = c.sgd.momentum == 0.0 ? 0.9 : c.sgd.momentum;  // asgd ignores it
      options.weight_decay = c.sgd.weight_decay;
      options.values.set("dc.lambda", c.dc_lambda);
      auto reference = local_sgd_points(problem, lr, steps, c.sgd);
      ASSERT_GT(relative_error(reference.back(), reference.front()), 0.1);
      expect_same_points(single_worker_points(c.name, problem, lr, steps, options), reference,
                         c.name, 1e-12);
    }
  }
}

// DANA-Slim ≡ DANA-Zero with stale gradients, under changing schedules and weight decay, over
// 500 updates with N = 4 and N = 16, in float64: the points sent, and the model's actual
// parameters (DANA-Zero's θ; DANA-Slim's Θ + γΣ_j v_j).
TEST(AsyncRulesEquivalence, DanaSlimIsDanaZeroUnderAnySchedule) {
  LeastSquares problem(12, 6, 11, torch::kDouble);
  const int updates = 500;
  for (int64_t n : {4, 16}) {
    for (const Schedule& lr : {Schedule(warmup_cosine), Schedule(multistep)}) {
      for (double decay : {0.0, 5e-4}) {
        SCOPED_TRACE("N = " + std::to_string(n) + ", weight decay " + std::to_string(decay));
        AsyncOptions options;
        options.momentum = 0.9;
        options.weight_decay = decay;
        Rules zero = make_rules("dana-zero", options, problem.theta0(), n);
        Rules slim = make_rules("dana-slim", options, problem.theta0(), n);
        std::mt19937 order_zero(123), order_slim(123);
        auto zero_points = simulate(zero, problem, updates, lr, order_zero);
        auto slim_points = simulate(slim, problem, updates, lr, order_slim);
        ASSERT_GT(relative_error(zero_points.back(), problem.theta0()), 0.1);
        expect_same_points(slim_points, zero_points, "dana-slim vs dana-zero", 1e-9);
        EXPECT_LT(relative_error(slim_parameters(slim, 0.9), zero.server->center()), 1e-9);
        // And the centers: Θ against the point DANA-Zero would send now.
        torch::Tensor look_ahead = torch::empty_like(problem.theta0());
        zero.server->parameters_for(0, look_ahead);
        EXPECT_LT(relative_error(slim.server->center(), look_ahead), 1e-9);
      }
    }
  }
}

// The points two rules send from one start, with the same options, N and worker order.
std::pair<std::vector<torch::Tensor>, std::vector<torch::Tensor>> same_order_points(
    const std::string& first, const std::string& second, const AsyncOptions& options,
    const LeastSquares& problem, int64_t workers, int updates, const Schedule& lr) {
  Rules a = make_rules(first, options, problem.theta0(), workers);
  Rules b = make_rules(second, options, problem.theta0(), workers);
  std::mt19937 order_a(5), order_b(5);
  auto points_a = simulate(a, problem, updates, lr, order_a);
  return {points_a, simulate(b, problem, updates, lr, order_b)};
}

// With τ_C above every delay it takes, delay-adaptive ASGD is ASGD; below, it is not.
TEST(AsyncRulesEquivalence, DelayAdaptiveAsgdWithALargeThresholdIsAsgd) {
  LeastSquares problem(12, 6, 13, torch::kDouble);
  AsyncOptions options;
  options.weight_decay = 0.01;
  options.values.set("da.tau_c", 1e9);
  const Schedule lr([](int) { return 0.02; });
  auto [adaptive, plain] = same_order_points("asgd-da", "asgd", options, problem, 4, 100, lr);
  expect_same_points(adaptive, plain, "asgd-da (tau_c 1e9) vs asgd", 1e-12);
  options.values.set("da.tau_c", 1.0);
  auto [damped, again] = same_order_points("asgd-da", "asgd", options, problem, 4, 100, lr);
  EXPECT_GT(relative_error(damped.back(), again.back()), 1e-6);
}

TEST(AsyncRulesEquivalence, DcAsgdWithoutCompensationIsAsgdMomentum) {
  LeastSquares problem(12, 6, 13);
  const double lr = 0.02;
  AsyncOptions options;
  options.momentum = 0.9;
  options.weight_decay = 0.01;
  options.values.set("dc.lambda", 0.0);
  auto [dc_points, momentum_points] = same_order_points("dc-asgd", "asgd-m", options, problem, 3,
                                                        100, Schedule([lr](int) { return lr; }));
  expect_same_points(dc_points, momentum_points, "dc-asgd (lambda 0) vs asgd-m");
}

TEST(AsyncRulesEquivalence, DanaDcWithoutCompensationIsDanaZero) {
  LeastSquares problem(12, 6, 13, torch::kDouble);
  AsyncOptions options;
  options.momentum = 0.9;
  options.weight_decay = 5e-4;
  options.values.set("dc.lambda", 0.0);
  auto [dc_points, zero_points] =
      same_order_points("dana-dc", "dana-zero", options, problem, 4, 200, warmup_cosine);
  expect_same_points(dc_points, zero_points, "dana-dc (lambda 0) vs dana-zero", 1e-12);
  // ... and a positive λ_dc changes the run, or the test above proves nothing.
  options.values.set("dc.lambda", 0.04);
  Rules compensated = make_rules("dana-dc", options, problem.theta0(), 4);
  std::mt19937 order_compensated(5);
  auto compensated_points = simulate(compensated, problem, 200, warmup_cosine, order_compensated);
  EXPECT_GT(relative_error(compensated_points.back(), zero_points.back()), 1e-9);
}

// DANA-Zero's incrementally kept look-ahead stays θ − γΣ_j v_j (in float64: in float32 the
// increments' rounding accumulates to ~1e-5 of a look-ahead step that shrinks as θ converges).
TEST(AsyncRulesEquivalence, DanaZeroLookAheadStaysThetaMinusMomentum) {
  LeastSquares problem(12, 6, 17, torch::kDouble);
  AsyncOptions options;
  options.weight_decay = 0.01;
  Rules rules = make_rules("dana-zero", options, problem.theta0(), 5);
  std::mt19937 order(9);
  simulate(rules, problem, 300, warmup_cosine, order);
  torch::Tensor theta, v, look_ahead;
  for (auto& [name, tensor] : rules.server->state()) {
    if (name == "theta") theta = tensor;
    if (name == "v") v = tensor;
    if (name == "look_ahead") look_ahead = tensor;
  }
  ASSERT_TRUE(theta.defined() && v.defined() && look_ahead.defined());
  torch::Tensor expected = theta - options.momentum * v.sum(0);
  EXPECT_LT((look_ahead - expected).norm().item<double>(), 1e-12 * expected.norm().item<double>());
}

// YellowFin with its tuner frozen after 10 updates is momentum SGD at the frozen μ and rate from
// there on, the adaptive clips stopped with the tuner (float64, 1e-12; the closed loop may freeze
// μ below 0, which asgd-m refuses, so the reference is the recurrence itself); without the freeze
// it is not. In torch's form (the default), with weight decay at θ̂_i or at the server's θ, and in
// the closed loop's rate-inside form.
TEST(AsyncRulesEquivalence, FrozenYellowFinIsHeavyBall) {
  LeastSquares problem(12, 6, 17, torch::kDouble);
  const int64_t n = 3;
  const int tuned_updates = 10;
  const double lr = 0.5, decay = 0.01;
  for (int form = 0; form < 3; ++form) {
    const bool closed_loop = form == 2, decay_at_server = form == 1;
    for (bool frozen : {true, false}) {
      SCOPED_TRACE(std::string(closed_loop ? "closed" : "open") +
                   (decay_at_server ? ", decay at the server" : "") + (frozen ? ", frozen" : ""));
      AsyncOptions options;
      options.weight_decay = decay;
      options.values.set("yf.closed_loop", closed_loop);
      options.values.set("decay_at_server", decay_at_server);
      options.values.set("yf.tune_steps", frozen ? tuned_updates : 0);
      Rules yf = make_rules("yellowfin", options, problem.theta0(), n);
      std::mt19937 order(9);
      simulate(yf, problem, tuned_updates, lr, order);
      std::map<std::string, double> tuned;
      yf.server->report(tuned);
      const double mu = tuned.at("yf_mu"), rate = tuned.at("yf_rate");
      torch::Tensor theta, v;
      for (auto& [name, tensor] : yf.server->state()) {
        if (name == "theta") theta = tensor.clone();
        if (name == "v") v = tensor.clone();
      }
      ASSERT_GT(rate, 0.0);
      ASSERT_NE(mu, 0.0);
      std::vector<torch::Tensor> sent;
      for (const auto& t : yf.sent) sent.push_back(t.clone());
      std::mt19937 order_copy = order;
      auto points = simulate(yf, problem, 30, lr, order);
      // η = ℓ·(yf.lr_factor / lr)·α;  d = g + λθ̂_i, or g + λθ (decay_at_server);
      // buf ← μ·buf + d, θ ← θ − η·buf;  closed loop: v ← μv + ηd, θ ← θ − v
      const double eta = lr * (1.0 / options.lr) * rate;
      double largest = 0.0;
      for (const torch::Tensor& point : points) {
        const auto i = static_cast<int64_t>(order_copy() % n);
        const torch::Tensor d =
            problem.gradient(sent[i]) + decay * (decay_at_server ? theta : sent[i]);
        if (closed_loop) {
          v = mu * v + eta * d;
          theta = theta - v;
        } else {
          v = mu * v + d;
          theta = theta - eta * v;
        }
        sent[i] = theta;
        largest = std::max(largest, relative_error(point, theta));
      }
      if (frozen) {
        EXPECT_LT(largest, 1e-12) << "mu " << mu;
      } else {
        EXPECT_GT(largest, 1e-6);
      }
    }
  }
}

// The elastic rules reduce to their bases where the maths says so (float64): EAMSGD without
// momentum is EASGD; DANA-EASGD with one worker is EAMSGD (bit for bit: the others' spread is an
// exact zero); with β = 0 one worker's run is plain SGD (EASGD, as asgd) or Nesterov SGD
// (EAMSGD, as nag-asgd).
TEST(AsyncRulesEquivalence, ElasticRulesReduceToTheirBases) {
  LeastSquares problem(12, 6, 23, torch::kDouble);
  AsyncOptions options;
  options.weight_decay = 0.01;
  options.values.set("easgd.tau", 3);
  options.values.set("easgd.beta", 0.9);
  const Schedule lr([](int k) { return k < 40 ? 0.05 : 0.02; });
  options.momentum = 0.0;
  auto [no_momentum, easgd] = same_order_points("eamsgd", "easgd", options, problem, 4, 120, lr);
  ASSERT_GT(relative_error(easgd.back(), problem.theta0()), 0.1);
  expect_same_points(no_momentum, easgd, "eamsgd (momentum 0) vs easgd", 1e-12);

  options.momentum = 0.9;
  auto [dana, eamsgd] = same_order_points("dana-easgd", "eamsgd", options, problem, 1, 120, lr);
  for (size_t k = 0; k < dana.size(); ++k) ASSERT_TRUE(torch::equal(dana[k], eamsgd[k])) << k;
  // With more workers the look-ahead pulls elsewhere.
  auto [dana4, eamsgd4] = same_order_points("dana-easgd", "eamsgd", options, problem, 4, 120, lr);
  EXPECT_GT(relative_error(dana4.back(), eamsgd4.back()), 1e-6);

  options.values.set("easgd.beta", 0.0);
  for (auto [elastic, base] :
       {std::pair<std::string, std::string>{"easgd", "asgd"}, {"eamsgd", "nag-asgd"}}) {
    auto [a, b] = same_order_points(elastic, base, options, problem, 1, 120, lr);
    expect_same_points(a, b, elastic + " (beta 0, one worker) vs " + base, 1e-12);
  }
}

// The exchange is symmetric, so at α = 1 it swaps x^i and x̃: one worker with τ = 1 and β = 1 is
// not SGD. Message 1 (at x_0) gives x^1 = x_0 − η·d_0; message 2 (at x^1) swaps, so the centre
// becomes x^1 and the worker restarts from x_0: x^2 = x_0 − η·d_1.
TEST(AsyncRulesEquivalence, EasgdAtAlphaOneSwapsWorkerAndCentre) {
  AsyncOptions options;
  options.values.set("easgd.tau", 1);
  options.values.set("easgd.beta", 1.0);
  Rules rules = make_rules("easgd", options, tensor_of(kTheta0), 1);
  const Vec g0 = kEvents[0].g, g1 = kEvents[1].g;
  deliver(rules, 0, tensor_of(g0), kLr);
  const Vec x1 = kTheta0 - kLr * g0;
  expect_close(rules.sent[0], x1, "after message 1");
  deliver(rules, 0, tensor_of(g1), kLr);
  expect_close(rules.server->center(), x1, "centre after message 2");
  expect_close(rules.sent[0], kTheta0 - kLr * g1, "worker after message 2");
}

// ---------------------------------------------------------------------------------------------
// Memory and checkpoints.

int64_t named_bytes(const NamedTensors& tensors) {
  int64_t total = 0;
  for (const auto& [name, tensor] : tensors) total += tensor.numel() * tensor.element_size();
  return total;
}

TEST(AsyncRulesState, ServerBytesAreWhatTheTableLists) {
  const int64_t p = 10, n = 3, f = 4;  // parameters, workers, bytes per float
  struct Case {
    std::string name;
    bool adaptive;
    int64_t bytes;
    int64_t scratch = 0;  // rebuilt every update, so not checkpointed
  };
  const std::vector<Case> cases = {
      {"asgd", false, f * p},
      {"asgd-m", false, f * p * 2},
      {"nag-asgd", false, f * p * 2},
      {"multi-asgd", false, f * p * (n + 1)},
      {"dana-zero", false, f * p * (n + 3), f * p},
      {"dana-slim", false, f * p},
      {"dc-asgd", false, f * p * (n + 3), f * p},
      {"dc-asgd", true, f * p * (n + 3) + f * p * n, f * p},
      // DANA-Zero's server plus θ̂_1..θ̂_N and the compensated message d' (scratch).
      {"dana-dc", false, f * p * (2 * n + 4), 2 * f * p},
      {"dana-dc", true, f * p * (2 * n + 4) + f * p * n, 2 * f * p},
      {"asgd-da", false, f * p + 8 * (n + 1)},  // θ, and N + 1 update counters
      // The base rule, θ̂_1..θ̂_N, r, the update count and the largest rate so far; θ before the
      // step and d' (scratch).
      {"ga-asgd", false, f * p * (n + 5) + 16, 2 * f * p},
      {"dana-ga", false, f * p * (2 * n + 6) + 16, 3 * f * p},
      // θ, buf, E[g], 14 tuner scalars, a window of 20 h; the clipped message (scratch). The
      // closed loop's records: YellowFinServerBytes.
      {"yellowfin", false, f * p * 4 + 8 * 14 + 8 * 20, f * p},
      // x̃, x^1..x^N, t^1..t^N, the push e (scratch); v^1..v^N; S and the others' spread (scratch).
      {"easgd", false, f * p * (n + 2) + 8 * n, f * p},
      {"eamsgd", false, f * p * (2 * n + 2) + 8 * n, f * p},
      {"dana-easgd", false, f * p * (2 * n + 4) + 8 * n, 2 * f * p},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name + (c.adaptive ? " (adaptive)" : ""));
    AsyncOptions options;
    if (c.adaptive) options.values.set("dc.adaptive", true);
    const AsyncAlgorithm& algorithm = find_async_algorithm(c.name);
    auto server = algorithm.make_server(with_defaults(algorithm, options), torch::zeros({p}), n);
    EXPECT_EQ(server->state_bytes(), c.bytes);
    // What is checkpointed is all the server holds but scratch, and no tensor twice.
    NamedTensors state = server->state();
    EXPECT_EQ(named_bytes(state), c.bytes - c.scratch);
    for (size_t a = 0; a < state.size(); ++a) {
      for (size_t b = a + 1; b < state.size(); ++b) EXPECT_NE(state[a].first, state[b].first);
    }
    // state() aliases the rule's own tensors.
    EXPECT_EQ(state.at(0).first, "theta");
    EXPECT_TRUE(state.at(0).second.is_same(server->center()));
  }
}

// YellowFin's server memory in its forms: the closed loop's records, and the clipped message and
// the decayed one (scratch).
TEST(AsyncRulesState, YellowFinServerBytes) {
  const int64_t p = 10, n = 3, f = 4;
  // θ, buf (or v), E[g]; 14 tuner scalars; a window of 20 h
  const int64_t own = f * p * 3 + 8 * 14 + 8 * 20;
  // the closed loop's two steps per worker and measured coordinate (here all 10, in float64),
  // η_{s+1} and a pending flag per worker; the measured message (scratch)
  const int64_t loop = 16 * n * p + 16 * n + 8 * p, loop_scratch = 8 * p;
  struct Case {
    std::map<std::string, double> keys;
    double weight_decay;
    int64_t bytes;
    int64_t scratch;
  };
  const std::vector<Case> cases = {
      {{}, 0.0, own + f * p, f * p},
      {{{"yf.adaptive_clip", 0.0}}, 0.01, own, 0},
      {{{"yf.adaptive_clip", 0.0}, {"yf.closed_loop", 1.0}}, 0.01, own + loop, loop_scratch},
      {{{"yf.clip", 1.0}, {"yf.closed_loop", 1.0}, {"decay_at_server", 1.0}},
       0.01,
       own + loop + 2 * f * p,
       loop_scratch + 2 * f * p},
  };
  for (const Case& c : cases) {
    AsyncOptions options;
    options.weight_decay = c.weight_decay;
    std::string trace;
    for (const auto& [key, value] : c.keys) {
      options.values.set(key, value);
      trace += key + "=" + std::to_string(value) + " ";
    }
    SCOPED_TRACE(trace);
    const AsyncAlgorithm& yellowfin = find_async_algorithm("yellowfin");
    auto server = yellowfin.make_server(with_defaults(yellowfin, options), torch::zeros({p}), n);
    EXPECT_EQ(server->state_bytes(), c.bytes);
    EXPECT_EQ(named_bytes(server->state()), c.bytes - c.scratch);
  }
}

TEST(AsyncRulesState, WorkerState) {
  const int64_t p = 10;
  for (const AsyncAlgorithm& algorithm : async_algorithms()) {
    auto worker = algorithm.make_worker(with_defaults(algorithm, {}), 0, torch::zeros({p}));
    if (algorithm.name == "dana-slim") {
      // v_i is checkpointed; it and the message buffer are the worker's cost.
      EXPECT_EQ(named_bytes(worker->state()), 4 * p);
      EXPECT_EQ(worker->state_bytes(), 2 * 4 * p);
    } else if (algorithm.name == "easgd-local" || algorithm.name == "eamsgd-local") {
      // The held gradient, its rate (a double) and, with momentum, the velocity are checkpointed;
      // the run's variable, its running copies and the gradient point (momentum) are scratch.
      const bool momentum = algorithm.name == "eamsgd-local";
      EXPECT_EQ(named_bytes(worker->state()), (momentum ? 8 : 4) * p + 8) << algorithm.name;
      EXPECT_EQ(worker->state_bytes(), (momentum ? 6 : 3) * 4 * p + 8) << algorithm.name;
    } else if (worker->local_run() != nullptr) {
      // Local steps: the local velocity is checkpointed; the run's start (then Δ), its point and
      // its running velocity are scratch.
      EXPECT_EQ(named_bytes(worker->state()), 4 * p) << algorithm.name;
      EXPECT_EQ(worker->state_bytes(), 4 * 4 * p) << algorithm.name;
      // Driven as a rule without local steps (message()), it copies the gradient: P more floats,
      // which engines, calling the run, never allocate.
      worker->message(torch::ones({p}), torch::zeros({p}), 0.1);
      EXPECT_EQ(worker->state_bytes(), 5 * 4 * p) << algorithm.name;
    } else {
      EXPECT_EQ(worker->state_bytes(), 0) << algorithm.name;
      EXPECT_TRUE(worker->state().empty()) << algorithm.name;
    }
  }
}

// A rule restored from state() continues exactly as the original: state() holds everything.
TEST(AsyncRulesState, RestoredRulesContinueBitForBit) {
  LeastSquares problem(12, 6, 19);
  const double lr = 0.02;
  const int64_t n = 3;
  for (const AsyncAlgorithm& algorithm : async_algorithms()) {
    for (bool adaptive : {false, true}) {
      SCOPED_TRACE(algorithm.name + (adaptive ? " (adaptive)" : ""));
      AsyncOptions options;
      options.weight_decay = 0.01;
      options.values.set("dc.adaptive", adaptive);
      Rules original = make_rules(algorithm.name, options, problem.theta0(), n);
      std::mt19937 order(21);
      simulate(original, problem, 17, lr, order);

      Rules restored = make_rules(algorithm.name, options, torch::zeros_like(problem.theta0()), n);
      auto copy_state = [](NamedTensors from, NamedTensors to) {
        ASSERT_EQ(from.size(), to.size());
        for (size_t k = 0; k < from.size(); ++k) {
          ASSERT_EQ(from[k].first, to[k].first);
          to[k].second.copy_(from[k].second);
        }
      };
      copy_state(original.server->state(), restored.server->state());
      for (int64_t i = 0; i < n; ++i) {
        copy_state(original.workers[i]->state(), restored.workers[i]->state());
        restored.sent[i].copy_(original.sent[i]);  // in flight: the engine's to keep
      }
      std::mt19937 order_copy = order;
      auto expected = simulate(original, problem, 20, lr, order);
      auto actual = simulate(restored, problem, 20, lr, order_copy);
      for (size_t k = 0; k < expected.size(); ++k) {
        ASSERT_TRUE(torch::equal(actual[k], expected[k])) << "update " << k;
      }
      EXPECT_TRUE(torch::equal(restored.server->center(), original.server->center()));
    }
  }
}

// YellowFin's forms for the state and allocation tests: the default (the authors' PyTorch tuner),
// the closed loop, the former default (set_former_yellowfin with the closed loop), a manual clip
// that acts on every message with weight decay at the server, and a frozen tuner.
std::vector<std::map<std::string, double>> yellowfin_forms() {
  AsyncOptions former;
  set_former_yellowfin(former);
  std::map<std::string, double> former_keys = {{"yf.closed_loop", 1.0}};
  for (const auto& key : former.values.keys()) former_keys[key] = former.values.number(key);
  return {{},
          {{"yf.closed_loop", 1.0}},
          former_keys,
          {{"yf.clip", 1e-3}, {"decay_at_server", 1.0}, {"yf.window", 3.0}},
          {{"yf.tune_steps", 9.0}}};
}

std::string trace_of(const std::map<std::string, double>& keys) {
  std::string trace = "yellowfin";
  for (const auto& [key, value] : keys) trace += " " + key + "=" + std::to_string(value);
  return trace;
}

// A yellowfin restored from state() continues bit for bit in each of its forms.
TEST(AsyncRulesState, YellowFinRestoresBitForBitInEveryForm) {
  LeastSquares problem(12, 6, 19);
  const double lr = 0.02;
  const int64_t n = 3;
  for (const auto& keys : yellowfin_forms()) {
    SCOPED_TRACE(trace_of(keys));
    AsyncOptions options;
    options.weight_decay = 0.01;
    for (const auto& [key, value] : keys) options.values.set(key, value);
    Rules original = make_rules("yellowfin", options, problem.theta0(), n);
    std::mt19937 order(21);
    simulate(original, problem, 17, lr, order);
    Rules restored = make_rules("yellowfin", options, torch::zeros_like(problem.theta0()), n);
    NamedTensors from = original.server->state(), to = restored.server->state();
    ASSERT_EQ(from.size(), to.size());
    for (size_t k = 0; k < from.size(); ++k) {
      ASSERT_EQ(from[k].first, to[k].first);
      to[k].second.copy_(from[k].second);
    }
    for (int64_t i = 0; i < n; ++i) restored.sent[i].copy_(original.sent[i]);
    std::mt19937 order_copy = order;
    auto expected = simulate(original, problem, 20, lr, order);
    auto actual = simulate(restored, problem, 20, lr, order_copy);
    for (size_t k = 0; k < expected.size(); ++k) {
      ASSERT_TRUE(torch::equal(actual[k], expected[k])) << "update " << k;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The hot path: rules run on 10M-element vectors, so an update must not allocate.

// Counts CPU tensor allocations while installed; the previous allocator is restored on exit.
class CountingAllocator : public compat::ForwardingAllocator {
 public:
  CountingAllocator() : ForwardingAllocator(c10::GetCPUAllocator()) {
    c10::SetCPUAllocator(this, kPriority);
  }
  ~CountingAllocator() override { c10::SetCPUAllocator(base_, kPriority); }
  int64_t count() const { return count_; }

 private:
  void on_allocate(size_t) const override { ++count_; }
  static constexpr uint8_t kPriority = 100;
  mutable std::atomic<int64_t> count_{0};
};

TEST(AsyncRulesPerformance, UpdatesDoNotAllocate) {
  const int64_t p = 1000, n = 3;
  torch::Tensor theta0 = torch::randn({p});
  torch::Tensor gradient = torch::randn({p});
  for (const AsyncAlgorithm& algorithm : async_algorithms()) {
    for (int variant = 0; variant < 3; ++variant) {
      // 0: the defaults; 1: the adaptive delay compensation; 2: PyTorch's conventions (the rate
      // outside the velocity, weight decay at the server), where the rule has them.
      const bool adaptive = variant == 1, torch_conventions = variant == 2;
      SCOPED_TRACE(algorithm.name + (adaptive ? " (adaptive)" : "") +
                   (torch_conventions ? " (torch conventions)" : ""));
      AsyncOptions options;
      options.weight_decay = 0.01;
      options.values.set("dc.adaptive", adaptive);
      options.lr_in_velocity = !torch_conventions;
      options.values.set("decay_at_server", torch_conventions);
      Rules rules;
      try {
        rules = make_rules(algorithm.name, options, theta0, n);
      } catch (const ConfigError&) {
        ASSERT_TRUE(torch_conventions) << "only a convention a rule lacks may be refused";
        continue;
      }
      auto update = [&](int64_t i) {
        torch::Tensor message = rules.workers[i]->message(gradient, rules.sent[i], 0.1);
        rules.server->apply(i, message, 0.1);
        rules.server->parameters_for(i, rules.sent[i]);
      };
      // Each worker's first message once, uncounted: local-steps workers allocate the gradient
      // copy message() needs then (engines call their run and never do).
      for (int64_t i = 0; i < n; ++i) update(i);
      int64_t allocations = 0;
      {
        CountingAllocator counter;
        for (int k = 0; k < 10; ++k) update(k % n);
        allocations = counter.count();
      }
      EXPECT_EQ(allocations, 0);
    }
  }
}

// Every form of YellowFin updates without allocating, the clips included (in float32 and
// float64).
TEST(AsyncRulesPerformance, YellowFinUpdatesDoNotAllocate) {
  const int64_t p = 1000, n = 3;
  for (auto dtype : {torch::kFloat, torch::kDouble}) {
    torch::Tensor theta0 = torch::randn({p}, dtype);
    torch::Tensor gradient = torch::randn({p}, dtype);
    // Now and then a longer gradient, so that the exploding-gradient clip acts too.
    torch::Tensor longer = gradient * 10;
    for (const auto& keys : yellowfin_forms()) {
      SCOPED_TRACE(trace_of(keys));
      AsyncOptions options;
      options.weight_decay = 0.01;
      for (const auto& [key, value] : keys) options.values.set(key, value);
      Rules rules = make_rules("yellowfin", options, theta0, n);
      int64_t allocations = 0;
      {
        CountingAllocator counter;
        for (int k = 0; k < 12; ++k) {
          int64_t i = k % n;
          torch::Tensor message =
              rules.workers[i]->message(k % 4 == 3 ? longer : gradient, rules.sent[i], 0.1);
          rules.server->apply(i, message, 0.1);
          rules.server->parameters_for(i, rules.sent[i]);
        }
        allocations = counter.count();
      }
      EXPECT_EQ(allocations, 0);
    }
  }
}

// The closed loop measures momentum on the rate-inside velocity: it turns yf.rate_in_velocity on
// by default and refuses it off.
TEST(AsyncRulesRegistry, YellowFinClosedLoopNeedsTheRateInsideTheVelocity) {
  const AsyncAlgorithm& algorithm = find_async_algorithm("yellowfin");
  AsyncOptions options;
  options.values.set("yf.closed_loop", 1.0);
  EXPECT_NO_THROW(algorithm.make_server(with_defaults(algorithm, options), torch::zeros({4}), 2));
  options.values.set("yf.rate_in_velocity", 0.0);
  try {
    algorithm.make_server(with_defaults(algorithm, options), torch::zeros({4}), 2);
    FAIL() << "the closed loop accepted yf.rate_in_velocity = false";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("yf.rate_in_velocity"), std::string::npos) << e.what();
  }
  // Without the closed loop, either form.
  options.values.set("yf.closed_loop", 0.0);
  EXPECT_NO_THROW(algorithm.make_server(with_defaults(algorithm, options), torch::zeros({4}), 2));
}

// ---------------------------------------------------------------------------------------------
// Names and errors.

TEST(AsyncRulesRegistry, NamesInListOrder) {
  std::vector<std::string> names;
  for (const AsyncAlgorithm& algorithm : async_algorithms()) {
    names.push_back(algorithm.name);
    EXPECT_FALSE(algorithm.description.empty()) << algorithm.name;
    EXPECT_EQ(&find_async_algorithm(algorithm.name), &algorithm);
  }
  EXPECT_EQ(names,
            (std::vector<std::string>{
                "asgd",        "asgd-m",       "nag-asgd",        "multi-asgd",     "dana-zero",
                "dana-slim",   "dc-asgd",      "dana-dc",         "asgd-da",        "ga-asgd",
                "dana-ga",     "yellowfin",    "easgd",           "eamsgd",         "dana-easgd",
                "easgd-local", "eamsgd-local", "async-local-sgd", "async-local-dn", "dana-local"}));
}

TEST(AsyncRulesRegistry, UnknownNameSuggestsTheClosest) {
  try {
    find_async_algorithm("dana-zer0");
    FAIL() << "no error for an unknown name";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("dana-zer0"), std::string::npos) << e.what();
    EXPECT_NE(e.hint().find("did you mean 'dana-zero'"), std::string::npos) << e.hint();
  }
  EXPECT_THROW(find_async_algorithm("sgd-async-nothing-like-it"), ConfigError);
}

// Bad options are refused before a rule is made, naming the key: the run's momentum and weight
// decay by the config's key table, once for every rule; an algorithm's own keys by their
// resolution (with_defaults, as the config resolves them). A rule made from options nobody
// resolved is a bug, and says which key it missed.
TEST(AsyncRulesRegistry, BadOptionsNameTheKey) {
  const AsyncAlgorithm& algorithm = find_async_algorithm("dana-zero");
  for (const std::string bad :
       {"momentum=1.5", "momentum=nan", "weight_decay=-1", "weight_decay=inf"}) {
    SCOPED_TRACE(bad);
    try {
      parse_config("", {"algo=dana-zero", bad});
      FAIL() << bad << " accepted";
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(bad.substr(0, bad.find('='))), std::string::npos)
          << e.what();
    }
  }
  EXPECT_THROW(algorithm.make_server(with_defaults(algorithm, {}), torch::zeros({4}), 0),
               ConfigError);
  AsyncOptions bad_lambda;
  bad_lambda.values.set("dc.lambda", -1.0);
  EXPECT_THROW(with_defaults(find_async_algorithm("dc-asgd"), bad_lambda), ConfigError);
  // A key the algorithm does not declare is refused, not ignored.
  AsyncOptions stray;
  stray.values.set("dc.lambda", 0.5);
  EXPECT_THROW(with_defaults(algorithm, stray), ConfigError);
  try {
    algorithm.make_server(AsyncOptions{}, torch::zeros({4}), 2);
    FAIL() << "a rule was made from unresolved options";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("dana.eval_theta"), std::string::npos) << e.what();
  }
}

TEST(AsyncRulesRegistry, WorkerIndexOutOfRangeIsAnError) {
  const AsyncAlgorithm& multi = find_async_algorithm("multi-asgd");
  auto server = multi.make_server(with_defaults(multi, {}), torch::zeros({4}), 2);
  torch::Tensor out = torch::empty({4});
  EXPECT_THROW(server->parameters_for(2, out), Error);
  EXPECT_THROW(server->apply(-1, torch::zeros({4}), 0.1), Error);
  EXPECT_THROW(server->apply(0, torch::zeros({5}), 0.1), Error);
}

}  // namespace
}  // namespace dsgd
