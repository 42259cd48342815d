// Tests of the run plan (src/run/run_plan.h): what each family decides about a run (ranks,
// samples per update, gradients computed at once, which engines exist), and the memory estimate
// against what the rules and the server actually allocate.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "algos/async_rule.h"
#include "core/errors.h"
#include "engine/async_server.h"
#include "engine/sync_learners.h"
#include "run/run_plan.h"
#include "run/session.h"
#include "train/config.h"

namespace dsgd {
namespace {

RunConfig config_of(std::vector<std::string> overrides) {
  overrides.insert(overrides.begin(), {"dataset=synthetic", "model=mlp", "batch_size=16"});
  return parse_config("", overrides);
}

TEST(RunPlan, EachFamilyDecidesItsShape) {
  const RunPlan single = plan_run(config_of({"algo=sgd"}));
  EXPECT_EQ(single.family, AlgorithmFamily::kSingle);
  EXPECT_EQ(single.shape.samples_per_update, 16);
  EXPECT_EQ(single.shape.compute_jobs, 1);
  EXPECT_FALSE(single.build_ranks);

  const RunPlan async = plan_run(config_of({"algo=dana-zero", "workers=8"}));
  EXPECT_EQ(async.shape.samples_per_update, 16);  // one worker's minibatch per update
  EXPECT_EQ(async.shape.compute_jobs, 8);
  EXPECT_TRUE(async.shape.shared_batchnorm);
  const RunPlan async_mpi =
      plan_run(config_of({"algo=dana-zero", "workers=8", "servers=2", "engine=mpi"}));
  EXPECT_TRUE(async_mpi.on_ranks);
  EXPECT_EQ(async_mpi.ranks, 10);  // a rank per worker and per server shard
  EXPECT_EQ(async_mpi.shape.compute_jobs, 1);

  const RunPlan sync = plan_run(config_of({"algo=kavg", "workers=4"}));
  EXPECT_EQ(sync.shape.samples_per_update, 64);  // a round takes a minibatch per learner
  EXPECT_EQ(sync.shape.compute_jobs, 4);
  EXPECT_FALSE(sync.shape.shared_batchnorm);
  EXPECT_EQ(plan_run(config_of({"algo=kavg", "workers=4", "engine=mpi"})).ranks, 4);
}

TEST(RunPlan, SgdHasNoMpiEngine) {
  try {
    plan_run(config_of({"algo=sgd", "engine=mpi"}));
    FAIL() << "sgd on MPI was planned";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("no MPI engine"), std::string::npos) << e.what();
  }
}

// The estimate's server part is what the server then allocates: the rule's state (measured on
// tiny probes and extrapolated) plus its record of what it sent each worker, for rules whose
// state is per worker (dana-zero, gap-aware), shared (asgd-m) or on the workers (dana-slim).
TEST(RunPlan, MemoryEstimateIsWhatTheServerAllocates) {
  for (const std::string algo : {"asgd-m", "dana-zero", "dana-slim", "dana-ga", "eamsgd"}) {
    SCOPED_TRACE(algo);
    const RunConfig config =
        config_of({"algo=" + algo, "workers=7", "threads=1", "sim.replicas=1"});
    Session session(config);
    const MemoryEstimate estimate = estimate_memory(session.plan(), session.context());
    const torch::Tensor theta0 = session.model().params().detach().clone();
    const AsyncAlgorithm& algorithm = find_async_algorithm(algo);
    const AsyncOptions options = async_options(config);
    const int64_t rule = algorithm.make_server(options, theta0, 7)->state_bytes();
    const int64_t sent = 7 * theta0.numel() * static_cast<int64_t>(sizeof(float));
    EXPECT_EQ(estimate.server, rule + sent);
    const int64_t worker = algorithm.make_worker(options, 0, theta0)->state_bytes();
    EXPECT_EQ(estimate.workers, 7 * worker);
    EXPECT_GT(estimate.dataset, 0);
    EXPECT_GT(estimate.replicas, 0);
    EXPECT_EQ(estimate.total(),
              estimate.server + estimate.workers + estimate.replicas + estimate.dataset);
  }
}

// A synchronous learner's part of the estimate is the block it allocates: gradient, buffers,
// parameters and its optimizer's state (none for plain SGD, the velocity, AdamW's two moments);
// the single worker's is that state alone.
TEST(RunPlan, MemoryEstimateIsWhatTheLearnersAllocate) {
  for (const std::vector<std::string>& optimizer :
       {std::vector<std::string>{"momentum=0"}, {"momentum=0.9"}, {"optimizer=adamw"}}) {
    SCOPED_TRACE(optimizer.front());
    std::vector<std::string> keys = {"algo=kavg", "workers=3", "threads=1", "sim.replicas=1"};
    keys.insert(keys.end(), optimizer.begin(), optimizer.end());
    const RunConfig config = config_of(keys);
    Session session(config);
    const MemoryEstimate estimate = estimate_memory(session.plan(), session.context());
    const Learner learner(local_optimizer_options(config), session.model().params().detach(),
                          session.model().buffers());
    EXPECT_EQ(estimate.workers, 3 * learner.state.numel() * static_cast<int64_t>(sizeof(float)));

    keys[0] = "algo=sgd";
    keys[1] = "workers=1";
    keys.erase(keys.begin() + 3);  // sim.replicas: a multi-worker key
    Session single(config_of(keys));
    const int64_t state = optimizer.front() == "momentum=0" ? 0
                          : optimizer.front() == "optimizer=adamw"
                              ? 2 * single.model().params().numel()
                              : single.model().params().numel();
    EXPECT_EQ(estimate_memory(single.plan(), single.context()).workers,
              state * static_cast<int64_t>(sizeof(float)));
  }
}

TEST(RunPlan, TooLittleMemoryNamesTheEstimateAndTheKey) {
  const RunConfig config = config_of({"algo=dana-zero", "workers=7"});
  MemoryEstimate estimate;
  estimate.server = 3'000'000'000;
  estimate.workers = 1'000'000'000;
  try {
    check_memory(estimate, 2'000'000'000, config);
    FAIL() << "a run twice the memory was allowed";
  } catch (const ConfigError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("needs about 4.00 GB"), std::string::npos) << message;
    EXPECT_NE(message.find("2.00 GB are available"), std::string::npos) << message;
    EXPECT_NE(e.hint().find("lower workers (now 7)"), std::string::npos) << e.hint();
  }
  check_memory(estimate, 0, config);              // unknown memory: no check
  check_memory(estimate, 5'000'000'000, config);  // it fits
}

}  // namespace
}  // namespace dsgd
