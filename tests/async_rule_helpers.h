// What the tests of asynchronous rules share (test_async_rules.cpp, test_async_local.cpp,
// test_elastic_local.cpp): 3-vectors of doubles for hand-computed references, the rules of one
// algorithm held and driven as an engine drives them, and, for the local-steps rules, a quadratic
// whose gradient depends on where it is taken and one exchange of H local steps.
#pragma once

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <array>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "algos/async_rule.h"

namespace dsgd::testing {

using Vec = std::array<double, 3>;

inline Vec operator+(const Vec& a, const Vec& b) { return {a[0] + b[0], a[1] + b[1], a[2] + b[2]}; }
inline Vec operator-(const Vec& a, const Vec& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
inline Vec operator*(double s, const Vec& a) { return {s * a[0], s * a[1], s * a[2]}; }

// The rules of one algorithm as an engine holds them, and the parameters each worker was sent.
struct Rules {
  std::unique_ptr<AsyncServerRule> server;
  std::vector<std::unique_ptr<AsyncWorkerRule>> workers;
  std::vector<torch::Tensor> sent;  // θ̂_i: the parameters worker i was last sent
};

// The options an algorithm takes, resolved as a run's config resolves them: tests share one
// option set between rules (dc.lambda with dana-zero, say), and an algorithm refuses keys it does
// not declare.
inline AsyncOptions options_for(const AsyncAlgorithm& algorithm, AsyncOptions options) {
  OptionValues own;
  for (const auto& key : options.values.keys()) {
    if (find_option(algorithm.options, key) != nullptr) own.set(key, options.values.number(key));
  }
  options.values = own;
  return with_defaults(algorithm, options);
}

// Algorithm `name`'s server and `n` workers from θ0, each worker sent its first parameters.
inline Rules make_rules(const std::string& name, const AsyncOptions& shared_options,
                        const torch::Tensor& theta0, int64_t n) {
  const AsyncAlgorithm& algorithm = find_async_algorithm(name);
  const AsyncOptions options = options_for(algorithm, shared_options);
  Rules rules;
  rules.server = algorithm.make_server(options, theta0, n);
  for (int64_t i = 0; i < n; ++i) {
    rules.workers.push_back(algorithm.make_worker(options, i, theta0));
    rules.sent.push_back(torch::empty_like(theta0));
    rules.server->parameters_for(i, rules.sent[i]);
  }
  return rules;
}

// g(x) = a⊙x − b: each coordinate a quadratic, so that every local step's gradient depends on
// where the step is.
inline const Vec kQuadraticA = {1.0, 0.5, 2.0};
inline const Vec kQuadraticB = {0.3, -0.2, 0.1};
inline Vec gradient_at(const Vec& x) {
  const Vec& a = kQuadraticA;
  const Vec& b = kQuadraticB;
  return {a[0] * x[0] - b[0], a[1] * x[1] - b[1], a[2] * x[2] - b[2]};
}
// The same in x's dtype.
inline torch::Tensor gradient_at(const torch::Tensor& x) {
  auto as_tensor = [&](const Vec& v) { return torch::tensor({v[0], v[1], v[2]}, x.scalar_type()); };
  return as_tensor(kQuadraticA) * x - as_tensor(kQuadraticB);
}

// Worker i's exchange as the engines run it (engine/worker_message.h): H local steps on the
// quadratic from the parameters it was sent, its message applied at rate `lr`, fresh parameters
// sent.
inline void exchange(Rules& rules, int64_t i, int64_t steps, double lr) {
  LocalRun* run = rules.workers[i]->local_run();
  ASSERT_NE(run, nullptr);
  run->begin(rules.sent[i]);
  for (int64_t h = 0; h < steps; ++h) {
    torch::Tensor g = gradient_at(run->point());
    run->step(g, lr);
  }
  torch::Tensor message = run->finish().clone();
  rules.server->apply(i, message, lr);
  run->commit();
  rules.server->parameters_for(i, rules.sent[i]);
}

}  // namespace dsgd::testing
