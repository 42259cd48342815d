// Reads a golden trajectory (tests/golden/README.md: a published implementation of a rule run on
// a tiny float64 problem) and drives dsgd's rule through the same steps, comparing every recorded
// vector. Header-only, for test_golden*.cpp.
#pragma once

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "algos/async_rule.h"
#include "algos/communicator.h"
#include "algos/sync_algorithm.h"
#include "algos/sync_round.h"
#include "numeric_bound.h"

namespace dsgd {
namespace golden {

// Every golden vector must agree to this, relative to the reference's largest coordinate.
constexpr double kTolerance = 1e-9;

inline nlohmann::json load(const std::string& name) {
  const std::string path = std::string(DSGD_SOURCE_DIR) + "/tests/golden/data/" + name + ".json";
  std::ifstream in(path);
  if (!in) throw std::runtime_error("golden file missing: " + path);
  return nlohmann::json::parse(in);
}

inline torch::Tensor vec(const nlohmann::json& values) {
  return torch::tensor(values.get<std::vector<double>>(), torch::kDouble);
}

// max|a − b| / max(max|b|, 1e-300): relative to the reference vector's scale.
inline double relative_difference(const torch::Tensor& actual, const torch::Tensor& expected) {
  const double scale = std::max(expected.abs().max().item<double>(), 1e-300);
  return (actual - expected).abs().max().item<double>() / scale;
}

// Expects `actual` to equal the file's `field` at step k; returns the difference.
inline double expect_step(const torch::Tensor& actual, const nlohmann::json& step,
                          const std::string& field, size_t k, const std::string& file) {
  const double difference = relative_difference(actual, vec(step.at(field)));
  bounds::expect_within(difference, kTolerance,
                        file + ": step " + std::to_string(k) + ", " + field);
  return difference;
}

// The rule's options from the file's `options` (momentum, weight_decay, the rule's own keys)
// plus `overrides` (a convention key where dsgd's default differs from the reference's).
inline AsyncOptions options_of(const nlohmann::json& file,
                               const std::map<std::string, double>& overrides) {
  AsyncOptions options;
  options.lr = 0.1;  // the files' base rate (README.md)
  for (const auto& [key, value] : file.at("options").items()) {
    const double number =
        value.is_boolean() ? (value.get<bool>() ? 1.0 : 0.0) : value.get<double>();
    if (key == "momentum") {
      options.momentum = number;
    } else if (key == "weight_decay") {
      options.weight_decay = number;
    } else {
      options.values.set(key, number);
    }
  }
  for (const auto& [key, value] : overrides) {
    if (key == "lr_in_velocity") {
      options.lr_in_velocity = value != 0.0;
    } else {
      options.values.set(key, value);
    }
  }
  return options;
}

// What a golden run measured: the largest relative difference over every compared vector.
struct Outcome {
  double max_difference = 0.0;
  int64_t compared = 0;
};

// Expects `actual` to equal `expected` (a number or a list, as a file holds it) to kTolerance, and
// records the difference in `outcome`; `what` names it in a failure.
inline void expect_value(Outcome& outcome, const torch::Tensor& actual,
                         const nlohmann::json& expected, const std::string& what, size_t k,
                         const std::string& file) {
  const torch::Tensor reference =
      expected.is_array() ? vec(expected) : torch::tensor({expected.get<double>()}, torch::kDouble);
  const double difference =
      relative_difference(actual.to(torch::kDouble).reshape(reference.sizes()), reference);
  bounds::expect_within(difference, kTolerance, file + ": step " + std::to_string(k) + ", " + what);
  outcome.max_difference = std::max(outcome.max_difference, difference);
  ++outcome.compared;
}
inline void expect_value(Outcome& outcome, double actual, const nlohmann::json& expected,
                         const std::string& what, size_t k, const std::string& file) {
  expect_value(outcome, torch::tensor({actual}, torch::kDouble), expected, what, k, file);
}

// What a test may add to run_async for a rule whose files need more than the common fields.
struct Hooks {
  // The rate step k's message is built and applied at (the run's scheduled rate); unset: the
  // step's `lr`. A rule that tunes its own rate records what it applied as `lr`, which is not
  // the schedule it was given.
  std::function<double(const nlohmann::json& step)> rate;
  // Called after step k's comparisons, with the server rule, to compare what the rule exposes
  // (report(), state()) with the step's own fields through expect_value.
  std::function<void(AsyncServerRule& server, const nlohmann::json& step, size_t k,
                     Outcome& outcome)>
      after_step;
  // False for a rule whose server holds no θ (dana-slim: only the look-ahead it sends).
  bool compare_center = true;
};

// Runs the README's asynchronous protocol: every worker is sent its parameters in order, then
// each step's worker computes g = a⊙(x − b) + e_k at what it was sent (or takes its local steps
// from there, one per recorded noise vector), its message is applied at the step's rate, and it
// is sent again. Compares received, gradient, sent, center (the server's
// θ) and, when recorded, evaluated; then whatever hooks.after_step compares.
inline Outcome run_async(const std::string& name, const std::string& algo,
                         const std::map<std::string, double>& overrides = {},
                         const Hooks& hooks = {}) {
  const nlohmann::json file = load(name);
  const AsyncAlgorithm& algorithm = find_async_algorithm(algo);
  const AsyncOptions options = with_defaults(algorithm, options_of(file, overrides));
  const int64_t workers = file.at("workers").get<int64_t>();
  const torch::Tensor a = vec(file.at("a")), b = vec(file.at("b")), x0 = vec(file.at("x0"));

  std::unique_ptr<AsyncServerRule> server = algorithm.make_server(options, x0, workers);
  std::vector<std::unique_ptr<AsyncWorkerRule>> worker_rules;
  std::vector<torch::Tensor> received;
  for (int64_t i = 0; i < workers; ++i) {
    worker_rules.push_back(algorithm.make_worker(options, i, x0));
    received.push_back(torch::empty_like(x0));
    server->parameters_for(i, received.back());
  }
  Outcome outcome;
  auto compare = [&](const torch::Tensor& actual, const nlohmann::json& step,
                     const std::string& field, size_t k) {
    if (!step.contains(field)) return;
    outcome.max_difference =
        std::max(outcome.max_difference, expect_step(actual, step, field, k, name));
    ++outcome.compared;
  };
  const auto& steps = file.at("steps");
  for (size_t k = 0; k < steps.size(); ++k) {
    const nlohmann::json& step = steps[k];
    const int64_t w = step.at("worker").get<int64_t>();
    const double lr = hooks.rate ? hooks.rate(step) : step.at("lr").get<double>();
    torch::Tensor& x = received[static_cast<size_t>(w)];
    compare(x, step, "received", k);
    AsyncWorkerRule& worker = *worker_rules[static_cast<size_t>(w)];
    torch::Tensor message;
    if (LocalRun* run = worker.local_run()) {
      // Local steps: one gradient per recorded noise vector, at the run's point.
      run->begin(x);
      for (const auto& noise : step.at("local_noise")) {
        torch::Tensor g = a * (run->point() - b) + vec(noise);
        run->step(g, lr);
      }
      message = run->finish().clone();
      compare(message, step, "delta", k);
    } else {
      const torch::Tensor gradient = a * (x - b) + vec(step.at("noise"));
      compare(gradient, step, "gradient", k);
      message = worker.message(gradient, x, lr);
    }
    server->apply(w, message, lr);
    if (LocalRun* run = worker.local_run()) run->commit();
    server->parameters_for(w, x);
    compare(x, step, "sent", k);
    if (hooks.compare_center) compare(server->center(), step, "center", k);
    compare(server->evaluated(), step, "evaluated", k);
    if (hooks.after_step) hooks.after_step(*server, step, k, outcome);
  }
  EXPECT_GT(outcome.compared, 0) << name << ": nothing compared";
  return outcome;
}

// Runs a synchronous file (tests/golden/README.md: every learner takes a local step at every
// step k on g = a⊙(x − b) + e_{k,i}; the plan averages when due) through dsgd's own round,
// finish_round, with the file's options as the algorithm's keys. Compares each learner's
// parameters before every step (`received`), after a step that does not average (`local`), the
// global parameters after an outer step (`center`) and, with the rate outside the velocity (where
// dsgd's buffer is SlowMo's), the outer momentum buffer.
inline Outcome run_sync(const std::string& name, const std::string& algo, bool lr_in_velocity) {
  const nlohmann::json file = load(name);
  const nlohmann::json& given = file.at("options");
  OptionValues values;
  SgdOptions sgd;
  sgd.lr_in_velocity = lr_in_velocity;
  for (const auto& [key, value] : given.items()) {
    const double number =
        value.is_boolean() ? (value.get<bool>() ? 1.0 : 0.0) : value.get<double>();
    if (key == "momentum") {
      sgd.momentum = number;
    } else if (key == "nesterov") {
      sgd.nesterov = number != 0.0;
    } else if (key == "weight_decay") {
      sgd.weight_decay = number;
    } else if (key != "average_momentum") {
      values.set(key, number);
    }
  }
  const int64_t learners = file.at("learners").get<int64_t>();
  const SyncAlgorithm& algorithm = find_sync_algorithm(algo);
  const SyncPlan plan = sync_plan(algorithm, with_defaults(algorithm, values), {learners, false});
  const torch::Tensor a = vec(file.at("a")), b = vec(file.at("b")), x0 = vec(file.at("x0"));
  std::vector<Learner> replicas;
  for (int64_t i = 0; i < learners; ++i) {
    replicas.emplace_back(sgd, x0, torch::empty({0}, torch::kDouble), plan.outer);
  }
  InProcessCommunicator communicator(learners, plan.group_sizes());
  Outcome outcome;
  auto compare = [&](const torch::Tensor& actual, const nlohmann::json& expected,
                     const std::string& what, size_t k) {
    const double difference = relative_difference(actual, vec(expected));
    bounds::expect_within(difference, kTolerance,
                          name + ": step " + std::to_string(k) + ", " + what);
    outcome.max_difference = std::max(outcome.max_difference, difference);
    ++outcome.compared;
  };
  const auto& steps = file.at("steps");
  for (size_t k = 0; k < steps.size(); ++k) {
    const nlohmann::json& step = steps[k];
    for (size_t i = 0; i < replicas.size(); ++i) {
      Learner& learner = replicas[i];
      compare(learner.params, step.at("received")[i], "received", k);
      learner.grad.copy_(a * (learner.params - b) + vec(step.at("noise")[i]));
    }
    finish_round(plan, static_cast<int64_t>(k) + 1, step.at("lr").get<double>(), false, replicas,
                 communicator);
    const bool outer_step = step.contains("center");
    for (size_t i = 0; i < replicas.size(); ++i) {
      if (outer_step) {
        compare(replicas[i].params, step.at("center"), "center", k);
      } else {
        compare(replicas[i].params, step.at("local")[i], "local", k);
      }
    }
    if (outer_step && !lr_in_velocity && replicas[0].outer) {
      compare(replicas[0].outer->momentum_buffer(), step.at("outer_momentum"), "outer_momentum", k);
    }
  }
  return outcome;
}

}  // namespace golden
}  // namespace dsgd
