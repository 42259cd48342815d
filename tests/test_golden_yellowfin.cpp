// Golden tests of yellowfin against the authors' PyTorch tuner, YFOptimizer
// (JianGoForIt/YellowFin_Pytorch @ b87aed1, tuner_utils/yellowfin.py; tests/golden/README.md,
// generate/yellowfin_pytorch.py). Each file ran YFOptimizer with some constructor arguments
// (`reference_options`); the test translates them into dsgd's keys, so that the default file runs
// dsgd's defaults, and compares every vector of the protocol plus, per update, the momentum and
// rate applied, h_min, h_max and the momentum buffer. The companion tests show what dsgd's former
// default, and each option that restores a piece of it, changes on the same problem.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "golden_trajectory.h"

namespace dsgd {
namespace {

using golden::Outcome;

const std::vector<std::string> kFiles = {"default", "window5",        "clip",    "nodebias",
                                         "linear",  "linear-noadapt", "noadapt", "lrfactor"};

// YFOptimizer's constructor arguments (and set_lr_factor) as dsgd's keys.
std::map<std::string, double> keys_of(const nlohmann::json& reference_options) {
  std::map<std::string, double> keys;
  auto number = [](const nlohmann::json& value) {
    return value.is_boolean() ? (value.get<bool>() ? 1.0 : 0.0) : value.get<double>();
  };
  for (const auto& [name, value] : reference_options.items()) {
    if (name == "curv_win_width") {
      keys["yf.window"] = number(value);
    } else if (name == "beta") {
      keys["yf.beta"] = number(value);
    } else if (name == "lr_factor") {
      keys["yf.lr_factor"] = number(value);
    } else if (name == "lr") {
      keys["yf.first_rate"] = number(value);
    } else if (name == "clip_thresh") {
      keys["yf.clip"] = number(value);
    } else if (name == "adapt_clip") {
      keys["yf.adaptive_clip"] = number(value);
    } else if (name == "zero_debias") {
      keys["yf.zero_debias"] = number(value);
    } else if (name == "h_max_log_smooth" || name == "h_min_log_smooth") {
      // dsgd smooths both ends alike.
      EXPECT_EQ(reference_options.value("h_max_log_smooth", true),
                reference_options.value("h_min_log_smooth", true));
      keys["yf.log_curvature"] = number(value);
    } else {
      ADD_FAILURE() << "no dsgd key for YFOptimizer's " << name;
    }
  }
  return keys;
}

// The files record as `lr` the rate YFOptimizer applied; the run's schedule is constant at the
// base rate (its shape is 1, as the reference has no schedule).
golden::Hooks yellowfin_hooks(const std::string& file) {
  golden::Hooks hooks;
  hooks.rate = [](const nlohmann::json&) { return 0.1; };
  hooks.after_step = [file](AsyncServerRule& server, const nlohmann::json& step, size_t k,
                            Outcome& outcome) {
    std::map<std::string, double> columns;
    server.report(columns);
    golden::expect_value(outcome, columns.at("yf_step_rate"), step.at("lr"), "lr", k, file);
    golden::expect_value(outcome, columns.at("yf_mu"), step.at("momentum"), "momentum", k, file);
    golden::expect_value(outcome, columns.at("yf_h_min"), step.at("h_min"), "h_min", k, file);
    golden::expect_value(outcome, columns.at("yf_h_max"), step.at("h_max"), "h_max", k, file);
    // SGD's momentum buffer: none after update 0, whose gradient never enters it.
    for (auto& [name, tensor] : server.state()) {
      if (name != "v") continue;
      const nlohmann::json& buffer = step.at("tuner").at("buffer");
      if (buffer.is_null()) {
        EXPECT_EQ(tensor.abs().max().item<double>(), 0.0) << file << ": step " << k << ", buffer";
      } else {
        golden::expect_value(outcome, tensor, buffer, "buffer", k, file);
      }
    }
  };
  return hooks;
}

Outcome run_file(const std::string& variant, const std::map<std::string, double>& extra = {},
                 bool tuner = true) {
  const std::string name = "yellowfin-" + variant;
  std::map<std::string, double> keys = keys_of(golden::load(name).at("reference_options"));
  for (const auto& [key, value] : extra) keys[key] = value;
  golden::Hooks hooks = yellowfin_hooks(name);
  if (!tuner) hooks.after_step = nullptr;
  return golden::run_async(name, "yellowfin", keys, hooks);
}

// How far the trajectory (the vectors the protocol compares, not the tuner's scalars) moves from
// the reference's with `extra` keys, where a difference is the point: failures are counted, not
// reported.
double trajectory_difference(const std::string& variant,
                             const std::map<std::string, double>& extra) {
  ::testing::TestPartResultArray failures;
  Outcome outcome;
  {
    ::testing::ScopedFakeTestPartResultReporter reporter(
        ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &failures);
    const bounds::BoundsLogOff not_a_bound;
    outcome = run_file(variant, extra, /*tuner=*/false);
  }
  return outcome.max_difference;
}

TEST(Golden, YellowFin) {
  for (const std::string& variant : kFiles) {
    SCOPED_TRACE(variant);
    const Outcome outcome = run_file(variant);
    std::printf("yellowfin-%s: %lld values, largest relative difference %.2e\n", variant.c_str(),
                static_cast<long long>(outcome.compared), outcome.max_difference);
  }
  // YFOptimizer's defaults are dsgd's: the default file runs without a key.
  const std::map<std::string, double> default_keys = {{"yf.lr_factor", 1.0}};
  EXPECT_EQ(keys_of(golden::load("yellowfin-default").at("reference_options")), default_keys);
  golden::run_async("yellowfin-default", "yellowfin", {}, yellowfin_hooks("yellowfin-default"));
}

// The keys the files need are not no-ops: without each, its file is not reproduced.
TEST(Golden, YellowFinKeysMatterWhereTheyShould) {
  EXPECT_GT(trajectory_difference("clip", {{"yf.clip", 0.0}, {"yf.adaptive_clip", 0.0}}), 1e-3);
  EXPECT_GT(trajectory_difference("nodebias", {{"yf.zero_debias", 1.0}}), 1e-3);
  EXPECT_GT(trajectory_difference("linear", {{"yf.log_curvature", 1.0}}), 1e-4);
  EXPECT_GT(trajectory_difference("noadapt", {{"yf.adaptive_clip", 1.0}}), 1e-3);
  EXPECT_GT(trajectory_difference("lrfactor", {{"yf.lr_factor", 1.0}}), 1e-2);
}

// dsgd's yellowfin before it followed YFOptimizer, as keys: the closed loop (with the rate inside
// the velocity), debiased running means μ*, α* applied, linear h smoothing, the first message
// tuned, floors instead of ε, and no clipping. Each piece alone moves the default file's
// trajectory, and the whole is far from the reference.
const std::map<std::string, double> kFormerOpenLoop = {
    {"yf.smoothed", 1.0},        {"yf.rate_in_velocity", 1.0}, {"yf.log_curvature", 0.0},
    {"yf.tune_first_step", 1.0}, {"yf.eps_floors", 1.0},       {"yf.adaptive_clip", 0.0}};

TEST(Golden, YellowFinFormerDefaultDiffers) {
  for (const auto& [key, value] : kFormerOpenLoop) {
    const double difference = trajectory_difference("default", {{key, value}});
    std::printf("yellowfin-default with %s = %g: largest relative difference %.2e\n", key.c_str(),
                value, difference);
    EXPECT_GT(difference, key == "yf.eps_floors" ? 1e-7 : 1e-4) << key;
  }
  // The files whose YFOptimizer arguments the former rule had keys for.
  std::map<std::string, double> former = kFormerOpenLoop;
  for (const char* variant : {"default", "window5", "lrfactor", "linear-noadapt"}) {
    former["yf.closed_loop"] = 0.0;
    const double open_loop = trajectory_difference(variant, former);
    former["yf.closed_loop"] = 1.0;
    const double closed_loop = trajectory_difference(variant, former);
    std::printf("yellowfin-%s, former default: %.2e (closed loop off: %.2e)\n", variant,
                closed_loop, open_loop);
    EXPECT_GT(closed_loop, 1e-2) << variant;
    EXPECT_GT(open_loop, 1e-2) << variant;
  }
}

}  // namespace
}  // namespace dsgd
