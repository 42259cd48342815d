// Config parsing, validation and LR schedules: every bad input names the key.
#include <gtest/gtest.h>

#include <cmath>

#include "core/errors.h"
#include "train/config.h"
#include "train/config_table.h"
#include "train/lr_schedule.h"

namespace dsgd {
namespace {

// Expects a ConfigError whose message or hint contains each of `needles`.
template <class Fn>
void expect_config_error(Fn fn, std::vector<std::string> needles) {
  try {
    fn();
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    std::string text = std::string(e.what()) + " | " + e.hint();
    for (const auto& n : needles) EXPECT_NE(text.find(n), std::string::npos) << text;
  }
}

TEST(Config, DefaultsAreTheDefaultJob) {
  RunConfig c = parse_config("", {});
  EXPECT_EQ(c.algo, "dana-slim");
  EXPECT_EQ(c.workers, 8);
  EXPECT_EQ(c.model, "lenet5-bn");
  EXPECT_EQ(c.dataset, "fashion-mnist");
  EXPECT_EQ(c.batch_size, 128);
  EXPECT_DOUBLE_EQ(c.lr, 0.05);
  EXPECT_DOUBLE_EQ(c.momentum, 0.9);
  EXPECT_EQ(c.lr_schedule, LrScheduleKind::kCosine);
  EXPECT_DOUBLE_EQ(c.warmup_epochs, 1);
}

TEST(Config, SgdDefaultsToOneWorker) {
  EXPECT_EQ(parse_config("", {"algo=sgd"}).workers, 1);
  EXPECT_EQ(parse_config("algo = 'sgd'\nworkers = 1", {}).workers, 1);
}

TEST(Config, FileThenOverridesInOrder) {
  RunConfig c = parse_config(
      "algo = 'dana-zero'\nworkers = 4\nlr = 0.05\nepochs = 2\nlr_schedule = 'multistep'\n"
      "lr_milestones = [1, 1.5]\n[timing]\nshape = 10\n",
      {"lr=0.2", "model=mlp", "weight_decay=0.001", "lr=0.3"});
  EXPECT_DOUBLE_EQ(c.lr, 0.3);
  EXPECT_DOUBLE_EQ(c.epochs, 2);
  EXPECT_EQ(c.model, "mlp");
  EXPECT_DOUBLE_EQ(c.weight_decay, 0.001);
  EXPECT_DOUBLE_EQ(c.timing_shape, 10);
  EXPECT_EQ(c.workers, 4);
  ASSERT_EQ(c.lr_milestones.size(), 2u);
  EXPECT_DOUBLE_EQ(c.lr_milestones[1], 1.5);
}

// A table of keys (how Python's dict crosses, python/bindings/boundary.h) reads as the same keys
// given with --set: nested tables and dotted names alike, after the file, with the same errors.
TEST(Config, ATableOfKeysIsReadAsTheSameKeysSet) {
  toml::table keys{{"algo", "dana-zero"},
                   {"workers", 4},
                   {"lr", 0.3},
                   {"timing.shape", 10.0},
                   {"lr_milestones", toml::array{1.0, 1.5}},
                   {"lr_schedule", "multistep"},
                   {"epochs", 2}};
  const RunConfig from_table = load_config("", keys);
  const RunConfig from_set =
      parse_config("", {"algo=dana-zero", "workers=4", "lr=0.3", "timing.shape=10",
                        "lr_milestones=[1, 1.5]", "lr_schedule=multistep", "epochs=2"});
  EXPECT_EQ(to_toml(from_table), to_toml(from_set));
  toml::table nested{{"timing", toml::table{{"shape", 10.0}}}};
  EXPECT_DOUBLE_EQ(load_config("", nested).timing_shape, 10.0);
  expect_config_error([] { load_config("", toml::table{{"wrokers", 8}}); }, {"wrokers", "workers"});
  expect_config_error([] { load_config("", toml::table{{"lr", "fast"}}); }, {"lr"});
}

TEST(Config, UnknownKeySuggestsClosest) {
  expect_config_error([] { parse_config("", {"learning_rat=0.1"}); }, {"learning_rat"});
  expect_config_error([] { parse_config("bach_size = 64", {}); }, {"bach_size", "batch_size"});
  expect_config_error([] { parse_config("[hier]\ngroup_sze = 2", {}); },
                      {"hier.group_sze", "hier.group_size"});
}

TEST(Config, WrongTypeNamesKey) {
  expect_config_error([] { parse_config("lr = 'fast'", {}); }, {"lr", "number"});
  expect_config_error([] { parse_config("", {"batch_size=12.5"}); }, {"batch_size", "integer"});
  expect_config_error(
      [] {
        parse_config("", {"algo=sgd", "nesterov=yes"});
      },
      {"nesterov", "boolean"});
}

TEST(Config, OutOfRangeNamesKey) {
  expect_config_error([] { parse_config("", {"lr=-1"}); }, {"lr"});
  expect_config_error([] { parse_config("", {"momentum=1.0"}); }, {"momentum"});
  expect_config_error([] { parse_config("", {"lr_schedule=cosin"}); }, {"lr_schedule", "cosine"});
  expect_config_error([] { parse_config("", {"device=gpu"}); }, {"device"});
}

TEST(Config, UnknownAlgorithmSuggests) {
  expect_config_error([] { parse_config("", {"algo=sdg"}); }, {"sdg", "sgd"});
}

TEST(Config, KeyOfAnotherAlgorithmIsRejected) {
  expect_config_error(
      [] {
        parse_config("", {"algo=sgd", "hier.group_size=2"});
      },
      {"hier.group_size", "hier-avg"});
  expect_config_error([] { parse_config("", {"kavg.period=4"}); }, {"kavg.period"});
  expect_config_error(
      [] {
        parse_config("", {"algo=dana-zero", "workers=4", "nesterov=true"});
      },
      {"nesterov"});
  expect_config_error(
      [] {
        parse_config("", {"algo=asgd", "workers=4", "dc.lambda=1"});
      },
      {"dc.lambda", "dc-asgd"});
}

TEST(Config, MpiTakesTheGpuAndNotReplicas) {
  // Messages of GPU ranks go through host buffers: the config is valid (whether a GPU is there is
  // the training context's question).
  EXPECT_EQ(parse_config("", {"algo=asgd", "workers=2", "engine=mpi", "device=cuda"}).device,
            DeviceKind::kCuda);
  expect_config_error(
      [] {
        parse_config("", {"algo=asgd", "workers=2", "engine=mpi", "sim.replicas=2"});
      },
      {"sim.replicas"});
  expect_config_error([] { parse_config("", {"algo=sgd", "gap_sample=10"}); }, {"gap_sample"});
}

TEST(Config, MalformedTomlNamesLine) {
  expect_config_error([] { parse_config("lr = 0.1\nepochs = [", {}); }, {"config:2"});
  expect_config_error([] { parse_config("", {"lr"}); }, {"KEY=VALUE"});
}

TEST(Config, SgdNeedsOneWorker) {
  expect_config_error([] { parse_config("", {"algo=sgd", "workers=4"}); }, {"workers"});
}

// AdamW takes its momentum from adam.beta1: the SGD default momentum gives way to it, a momentum
// or Nesterov given beside it is refused, as are adam.* keys without it and AdamW on a server
// rule; the resolved config reads back as the same.
TEST(Config, AdamWOwnsItsKeys) {
  const RunConfig adamw =
      parse_config("", {"algo=kavg", "workers=4", "optimizer=adamw", "adam.beta2=0.95"});
  EXPECT_EQ(adamw.momentum, 0.0);
  EXPECT_EQ(adamw.adam_beta2, 0.95);
  EXPECT_EQ(adamw.adam_beta1, 0.9);
  EXPECT_EQ(to_toml(parse_config(to_toml(adamw), {})), to_toml(adamw));
  EXPECT_EQ(parse_config("", {"algo=sgd", "optimizer=adamw", "momentum=0"}).optimizer,
            LocalOptimizerKind::kAdamw);
  EXPECT_EQ(parse_config("", {"algo=async-local-sgd", "workers=2", "optimizer=adamw"}).momentum,
            0.0);
  expect_config_error(
      [] {
        parse_config("", {"algo=sgd", "optimizer=adamw", "momentum=0.9"});
      },
      {"adam.beta1", "momentum = 0.9", "momentum = 0"});
  expect_config_error(
      [] {
        parse_config("", {"algo=ssgd", "workers=2", "optimizer=adamw", "nesterov=true"});
      },
      {"nesterov = true"});
  expect_config_error(
      [] {
        parse_config("", {"algo=sgd", "adam.eps=1e-6"});
      },
      {"adam.eps", "optimizer = \"adamw\""});
  expect_config_error(
      [] {
        parse_config("", {"algo=sgd", "optimizer=adam"});
      },
      {"optimizer", "adamw"});
  expect_config_error(
      [] {
        parse_config("", {"algo=dana-slim", "optimizer=adamw"});
      },
      {"optimizer", "asynchronous local SGD"});
}

// grad_clip belongs to the optimizers it clips for, and is a norm.
TEST(Config, GradClipBelongsToTheLocalOptimizers) {
  EXPECT_EQ(parse_config("", {"algo=kavg", "workers=2", "grad_clip=1"}).grad_clip, 1.0);
  EXPECT_EQ(parse_config("", {"algo=async-local-sgd", "workers=2", "grad_clip=0.5"}).grad_clip,
            0.5);
  expect_config_error(
      [] {
        parse_config("", {"algo=dana-slim", "grad_clip=1"});
      },
      {"grad_clip", "asynchronous local SGD"});
  expect_config_error([] { parse_config("", {"algo=sgd", "grad_clip=-1"}); }, {"grad_clip"});
}

TEST(Config, ResolvedTomlRoundTrips) {
  RunConfig c = parse_config(
      "", {"lr=0.25", "epochs=7", "lr_schedule=multistep", "lr_milestones=[3,5]", "seed=42"});
  RunConfig again = parse_config(to_toml(c), {});
  EXPECT_EQ(to_toml(again), to_toml(c));
  EXPECT_DOUBLE_EQ(again.lr, 0.25);
  EXPECT_EQ(again.seed, 42);
  EXPECT_EQ(again.lr_milestones, (std::vector<double>{3, 5}));
}

// Enum-like keys are read once into enums, "auto" into nothing chosen, and written back by the
// same names; an unknown name is refused where it is read, naming the valid ones and the closest.
TEST(Config, EnumLikeKeysAreEnumsByTheirNames) {
  RunConfig c =
      parse_config("", {"algo=ssgd", "workers=2", "engine=mpi", "allreduce=tree", "bn_policy=local",
                        "lr_scaling=sqrt", "augment=crop-flip", "memory_format=auto",
                        "precision=bf16", "optimizer=adamw", "momentum=0"});
  EXPECT_EQ(c.engine, EngineKind::kMpi);
  EXPECT_TRUE(c.on_ranks());
  EXPECT_EQ(c.allreduce, AllreduceAlgorithm::kTree);
  EXPECT_EQ(c.bn_policy, BnPolicy::kLocal);
  EXPECT_EQ(c.lr_scaling, LrScaling::kSqrt);
  EXPECT_EQ(c.augment, Augment::kCropFlip);
  EXPECT_FALSE(c.memory_format.has_value());
  EXPECT_EQ(c.precision, Precision::kBFloat16);
  EXPECT_EQ(c.optimizer, LocalOptimizerKind::kAdamw);
  const std::string toml = to_toml(c);
  for (const char* line : {"engine = 'mpi'", "allreduce = 'tree'", "bn_policy = 'local'",
                           "lr_scaling = 'sqrt'", "augment = 'crop-flip'", "memory_format = 'auto'",
                           "precision = 'bf16'", "optimizer = 'adamw'"}) {
    EXPECT_NE(toml.find(line), std::string::npos) << line << "\n" << toml;
  }
  EXPECT_EQ(to_toml(parse_config(toml, {})), toml);
  EXPECT_FALSE(parse_config("", {}).allreduce.has_value());  // "auto" by default
  expect_config_error([] { parse_config("", {"engine=mpj"}); },
                      {"'engine'", "\"mpj\"", "sim, mpi", "did you mean 'mpi'"});
  expect_config_error(
      [] {
        parse_config("", {"algo=sgd", "optimizer=adam"});
      },
      {"optimizer", "did you mean 'adamw'"});
  expect_config_error(
      [] {
        parse_config("", {"algo=ssgd", "workers=2", "allreduce=halving"});
      },
      {"allreduce", "ring, tree, halving-doubling, rank-order, auto"});
  expect_config_error([] { parse_config("engine = 1", {}); }, {"engine", "string"});
}

// Zheng et al.'s published strengths: 0.04 for DC-ASGD-c, λ₀ = 2 with m = 0.95 for DC-ASGD-a;
// a value the user sets wins.
TEST(Config, DelayCompensationDefaultsArePublished) {
  RunConfig constant = parse_config("", {"algo=dc-asgd"});
  EXPECT_DOUBLE_EQ(constant.algo_options.number("dc.lambda"), 0.04);
  EXPECT_FALSE(constant.algo_options.flag("dc.adaptive"));
  RunConfig adaptive = parse_config("", {"algo=dana-dc", "dc.adaptive=true"});
  EXPECT_DOUBLE_EQ(adaptive.algo_options.number("dc.lambda"), 2.0);
  EXPECT_DOUBLE_EQ(adaptive.algo_options.number("dc.ms_decay"), 0.95);
  EXPECT_DOUBLE_EQ(parse_config("", {"algo=dc-asgd", "dc.adaptive=true", "dc.lambda=0.5"})
                       .algo_options.number("dc.lambda"),
                   0.5);
  // The resolved value is what config.toml keeps, so a resumed run uses it.
  EXPECT_DOUBLE_EQ(parse_config(to_toml(adaptive), {}).algo_options.number("dc.lambda"), 2.0);
}

// An algorithm's keys come from its registry entry: range errors name the key, every declared key
// is resolved (and only those), and `dsgd list keys` says which algorithms a key belongs to.
TEST(Config, AlgorithmsOwnTheirKeys) {
  struct Refusal {
    std::vector<std::string> overrides;
    std::vector<std::string> named;  // what the message must say
  };
  const std::vector<Refusal> refusals = {
      {{"algo=dc-asgd", "dc.ms_decay=1"}, {"dc.ms_decay", "[0, 1)"}},
      {{"algo=dana-ga", "ga.beta=1"}, {"ga.beta", "[0, 1)"}},
      {{"algo=ga-asgd", "ga.epsilon=0"}, {"ga.epsilon", "1e-12"}},
      {{"algo=kavg", "kavg.period=0"}, {"kavg.period", ">= 1"}},
      {{"algo=yellowfin", "yf.window=0"}, {"yf.window", ">= 1"}},
      {{"algo=yellowfin", "yf.beta=1"}, {"yf.beta", "[0, 1)"}},
      {{"algo=yellowfin", "yf.gain=-0.1"}, {"yf.gain", "[0, 1)"}},
      {{"algo=yellowfin", "yf.tune_steps=-1"}, {"yf.tune_steps", ">= 0"}},
      {{"algo=yellowfin", "yf.lr_factor=0"}, {"yf.lr_factor", "> 0"}},
      {{"algo=easgd", "easgd.tau=0"}, {"easgd.tau", ">= 1"}},
      {{"algo=dana-easgd", "easgd.beta=1.5"}, {"easgd.beta", "[0, 1]"}},
      {{"algo=kavg", "kavg.period=2.5"}, {"kavg.period", "integer"}},
      {{"algo=hier-avg", "hier.node_groups=1"}, {"hier.node_groups", "boolean"}},
      {{"algo=hier-avg", "hier.local_period=4", "hier.global_period=6"},
       {"hier.global_period", "multiple"}},
      {{"algo=hier-avg", "hier.node_groups=true"}, {"hier.node_groups", "mpi"}},
      {{"algo=dc-asgd", "dc.lamda=1"}, {"dc.lambda"}},
      {{"algo=hier-avg", "workers=8", "hier.levels=[4, 2]"},
       {"hier.levels", "rows of numbers", "[[4, 2], [16, 8]]"}},
      {{"algo=hier-avg", "workers=8", "hier.levels=[[4, 'x'], [8, 2]]"},
       {"hier.levels", "rows of numbers"}},
      {{"algo=kavg", "hier.levels=[[2, 1], [8, 2]]"}, {"hier.levels", "hier-avg"}},
  };
  for (const Refusal& r : refusals) {
    SCOPED_TRACE(r.overrides.back());
    expect_config_error([&r] { parse_config("", r.overrides); }, r.named);
  }
  RunConfig hier = parse_config("", {"algo=hier-avg", "workers=8", "hier.group_size=4"});
  EXPECT_EQ(hier.algo_options.integer("hier.group_size"), 4);
  EXPECT_EQ(hier.algo_options.integer("hier.local_period"), 1);
  EXPECT_FALSE(hier.algo_options.has("kavg.period"));
  // asgd declares only the decay convention (its server holds θ); sgd declares nothing.
  EXPECT_EQ(parse_config("", {"algo=asgd"}).algo_options.keys(),
            std::vector<std::string>{"decay_at_server"});
  EXPECT_TRUE(parse_config("", {"algo=sgd"}).algo_options.keys().empty());
  // A table key reads from --set and from the file to_toml writes, and compares by value.
  RunConfig levels =
      parse_config("", {"algo=hier-avg", "workers=8", "hier.levels=[[2, 1], [8, 4, 10, 1e-3]]"});
  EXPECT_EQ(levels.algo_options.table("hier.levels"), (OptionTable{{2, 1}, {8, 4, 10, 1e-3}}));
  EXPECT_EQ(parse_config(to_toml(levels), {}).algo_options, levels.algo_options);
  expect_config_error(
      [&] {
        check_resume_changes(levels, parse_config("", {"algo=hier-avg", "workers=8",
                                                       "hier.levels=[[2, 1], [8, 2]]"}));
      },
      {"hier.levels", "[[2, 1], [8, 4, 10, 0.001]]", "[[2, 1], [8, 2]]"});
  EXPECT_NE(to_toml(hier).find("group_size = 4"), std::string::npos);
  EXPECT_EQ(to_toml(hier).find("kavg"), std::string::npos);
  // A key shared by algorithms with different defaults is listed once per default.
  std::vector<std::string> listed;
  for (const auto& k : config_keys()) {
    if (k.key == "dc.lambda") listed.push_back(k.default_value + " [" + k.applies_to + "]");
  }
  EXPECT_EQ(listed, (std::vector<std::string>{"0.04 (depends on other keys) [dc-asgd]",
                                              "2 (depends on other keys) [dana-dc]"}));
}

// lr_scaling = "linear": η·P, the warm-up from η (the single-worker rate) to η·P; sync only.
TEST(LrSchedule, LinearScalingForTheSynchronousFamily) {
  RunConfig c = parse_config("", {"algo=ssgd", "workers=8", "lr=0.1", "lr_scaling=linear",
                                  "lr_schedule=constant", "warmup_epochs=5"});
  LrSchedule schedule(c);
  EXPECT_NEAR(schedule.at(0), 0.1, 1e-12);
  EXPECT_NEAR(schedule.at(2.5), 0.45, 1e-12);
  EXPECT_NEAR(schedule.at(5), 0.8, 1e-12);
  expect_config_error(
      [] {
        parse_config("", {"algo=dana-zero", "lr_scaling=linear"});
      },
      {"lr_scaling", "synchronous"});
  expect_config_error(
      [] {
        parse_config("", {"algo=ssgd", "lr_scaling=square"});
      },
      {"lr_scaling", "linear"});
}

// Square-root scaling: η = lr·√P, the warm-up from η/P as for any η; at P = 16 the schedule of
// lr 0.1 is lr 0.4's without scaling (the Hier-AVG study's K-AVG rate).
TEST(LrSchedule, SquareRootScaling) {
  const std::vector<std::string> common = {"algo=kavg", "workers=16", "lr_schedule=multistep",
                                           "lr_milestones=[40, 60]", "warmup_epochs=5"};
  auto with = [&](std::vector<std::string> keys) {
    keys.insert(keys.end(), common.begin(), common.end());
    return parse_config("", keys);
  };
  LrSchedule sqrt_scaled(with({"lr=0.1", "lr_scaling=sqrt"}));
  LrSchedule explicit_rate(with({"lr=0.4"}));
  EXPECT_NEAR(sqrt_scaled.at(0), 0.025, 1e-12);
  EXPECT_NEAR(sqrt_scaled.at(2.5), 0.4 * (1.0 / 16 + 15.0 / 16 * 0.5), 1e-12);
  EXPECT_NEAR(sqrt_scaled.at(10), 0.4, 1e-12);
  EXPECT_NEAR(sqrt_scaled.at(50), 0.04, 1e-12);
  for (double epoch : {0.0, 1.3, 4.99, 5.0, 39.9, 40.0, 61.0}) {
    EXPECT_NEAR(sqrt_scaled.at(epoch), explicit_rate.at(epoch), 1e-15) << epoch;
  }
}

TEST(LrSchedule, MultistepCosineWarmup) {
  RunConfig c =
      parse_config("", {"lr=0.1", "epochs=160", "warmup_epochs=0", "lr_schedule=multistep",
                        "lr_milestones=[80,120]", "lr_gamma=0.1"});
  LrSchedule multistep(c);
  EXPECT_DOUBLE_EQ(multistep.at(0), 0.1);
  EXPECT_DOUBLE_EQ(multistep.at(79.9), 0.1);
  EXPECT_NEAR(multistep.at(80), 0.01, 1e-12);
  EXPECT_NEAR(multistep.at(130), 0.001, 1e-12);

  c.lr_schedule = LrScheduleKind::kCosine;
  LrSchedule cosine(c);
  EXPECT_NEAR(cosine.at(80), 0.05, 1e-12);
  EXPECT_NEAR(cosine.at(160), 0.0, 1e-12);

  // Warm-up from lr/N to lr: N = 8, W = 2 -> at epoch 1: 0.1 * (1/8 + 7/8 * 1/2) = 0.05625.
  c.lr_schedule = LrScheduleKind::kConstant;
  c.workers = 8;
  c.warmup_epochs = 2;
  LrSchedule warm(c);
  EXPECT_NEAR(warm.at(0), 0.1 / 8, 1e-12);
  EXPECT_NEAR(warm.at(1), 0.05625, 1e-12);
  EXPECT_NEAR(warm.at(2), 0.1, 1e-12);
}

}  // namespace
}  // namespace dsgd
