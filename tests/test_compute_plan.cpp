// The compute plan: threads per replica and simulator replicas from the model's counted work, by
// hand; the FLOP count of a model checked against its layers; and what `dsgd run` chooses, prints
// and records.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli_helpers.h"
#include "train/compute_plan.h"

namespace {

using dsgd::ComputePlan;
using dsgd::ComputePlanRequest;
using dsgd::Machine;
using dsgd::ModelCost;
using dsgd::plan_compute;
using namespace dsgd::testing;

// lenet5-bn-sized and ResNet-20-sized work per sample (forward FLOPs), as measured.
const ModelCost kSmall{1e6, 1e4, 1000};
const ModelCost kResNet{8.1e7, 1e6, 270000};

ComputePlanRequest simulated(int64_t jobs) {
  ComputePlanRequest request;
  request.jobs = jobs;
  request.batch_size = 128;
  return request;
}

TEST(ComputePlan, SmallModelsGetOneThreadAndAReplicaPerCore) {
  // 1e6 x 128 = 1.28e8 FLOPs per forward pass, under the 2e9 that pays for a second thread.
  ComputePlan plan = plan_compute(kSmall, simulated(16), Machine{8, 0});
  EXPECT_EQ(plan.threads, 1);
  EXPECT_EQ(plan.replicas, 8);
  EXPECT_EQ(plan.replica_bytes, 2 * 4 * 1000 + 128 * 10000);  // params and grads, activations
  // Never more replicas than gradients that can be computed at once.
  EXPECT_EQ(plan_compute(kSmall, simulated(3), Machine{8, 0}).replicas, 3);
  EXPECT_EQ(plan_compute(kSmall, simulated(1), Machine{8, 0}).replicas, 1);
}

TEST(ComputePlan, LargeModelsSplitTheCoresBetweenThreadsAndReplicas) {
  // 8.1e7 x 128 = 1.04e10 FLOPs: 5 threads' worth, rounded down to a power of two.
  ComputePlan on32 = plan_compute(kResNet, simulated(16), Machine{32, 0});
  EXPECT_EQ(on32.threads, 4);
  EXPECT_EQ(on32.replicas, 8);
  ComputePlan on2 = plan_compute(kResNet, simulated(16), Machine{2, 0});
  EXPECT_EQ(on2.threads, 2);
  EXPECT_EQ(on2.replicas, 1);
}

TEST(ComputePlan, ExplicitChoicesAreKept) {
  ComputePlanRequest request = simulated(16);
  request.threads = 2;
  ComputePlan plan = plan_compute(kSmall, request, Machine{8, 0});
  EXPECT_EQ(plan.threads, 2);
  EXPECT_EQ(plan.replicas, 4);  // the cores left
  request.threads = 0;
  request.replicas = 3;
  plan = plan_compute(kResNet, request, Machine{8, 0});
  EXPECT_EQ(plan.replicas, 3);
  EXPECT_EQ(plan.threads, 2);        // 4 would be worth it, but 3 replicas share 8 cores
  request.replicas_allowed = false;  // BatchNorm statistics shared by asynchronous workers
  request.replicas = 0;
  EXPECT_EQ(plan_compute(kSmall, request, Machine{8, 0}).replicas, 1);
}

TEST(ComputePlan, OnAGpuReplicasTakeStreamsAndOneHostThreadEach) {
  ComputePlanRequest request = simulated(32);
  request.gpu = true;
  // ResNet-20's work would get 4 threads on 32 cores; on a GPU its kernels run on the device.
  ComputePlan plan = plan_compute(kResNet, request, Machine{16, 0});
  EXPECT_TRUE(plan.streams);
  EXPECT_EQ(plan.threads, 1);
  EXPECT_EQ(plan.replicas, dsgd::kMaxGpuStreams);
  EXPECT_NE(plan.reason.find("GPU"), std::string::npos) << plan.reason;
  // No more than the gradients computable at once, or the host's cores.
  EXPECT_EQ(plan_compute(kResNet, simulated(3), Machine{16, 0}).streams, false);
  request.jobs = 3;
  EXPECT_EQ(plan_compute(kResNet, request, Machine{16, 0}).replicas, 3);
  request.jobs = 32;
  EXPECT_EQ(plan_compute(kResNet, request, Machine{2, 0}).replicas, 2);
  // The GPU's memory is not the host's: 1 MB free on the host caps nothing.
  EXPECT_EQ(plan_compute(kResNet, request, Machine{16, 1000000}).replicas, dsgd::kMaxGpuStreams);
  // Explicit choices and shared BatchNorm statistics as on the CPU.
  request.replicas = 3;
  request.threads = 2;
  plan = plan_compute(kResNet, request, Machine{16, 0});
  EXPECT_EQ(plan.replicas, 3);
  EXPECT_EQ(plan.threads, 2);
  request.replicas = 0;
  request.replicas_allowed = false;
  EXPECT_EQ(plan_compute(kResNet, request, Machine{16, 0}).replicas, 1);
}

TEST(ComputePlan, ReplicasStayWithinHalfTheFreeMemory) {
  // 1,288,000 bytes per replica; half of 10 MB affords 3 of the 8 the cores would allow.
  ComputePlan plan = plan_compute(kSmall, simulated(16), Machine{8, 10'000'000});
  EXPECT_EQ(plan.replicas, 3);
  EXPECT_NE(plan.reason.find("memory"), std::string::npos) << plan.reason;
  EXPECT_EQ(plan_compute(kSmall, simulated(16), Machine{8, 1000}).replicas, 1);  // at least one
}

// The profiler counts 2·in·out FLOPs per sample for each Linear (ReLU and the bias are free):
// mlp on 1x28x28 is 784->512->256->10.
TEST(ComputePlan, CountsAModelsForwardFlops) {
  const dsgd::InputShape shape{1, 28, 28, 10};
  auto net = dsgd::make_model("mlp", shape);
  ModelCost cost = dsgd::measure_model_cost(*net, shape, torch::kCPU);
  EXPECT_DOUBLE_EQ(cost.forward_flops, 2.0 * (784 * 512 + 512 * 256 + 256 * 10));
  EXPECT_EQ(cost.parameters, 784 * 512 + 512 + 512 * 256 + 256 + 256 * 10 + 10);
  // At least each layer's output and its ReLU's, in float32.
  EXPECT_GE(cost.activation_bytes, 4.0 * (512 + 512 + 256 + 256 + 10));
}

// Left to dsgd, a small model's simulator gets one thread per replica and a replica per core (at
// most one per worker); the log and summary.json say so. A BatchNorm model under an asynchronous
// rule with bn_batches = 0 keeps one replica.
TEST(ComputePlan, RunChoosesPrintsAndRecordsThePlan) {
  const int64_t cores = std::max(1u, std::thread::hardware_concurrency());
  fs::path out = fresh_dir("compute_plan");
  CliResult r = run_dsgd(
      "run --set dataset=synthetic --set model=mlp --set batch_size=16 --set epochs=0.25 "
      "--set algo=dana-zero --set workers=4 --out " +
      out.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const int64_t replicas = std::min<int64_t>(cores, 4);
  EXPECT_NE(
      r.output.find(replicas > 1 ? "threads: 1 on each of " + std::to_string(replicas) + " replicas"
                                 : "threads: 1 ("),
      std::string::npos)
      << r.output;
  auto summary = nlohmann::json::parse(read_file(out / "summary.json"));
  EXPECT_EQ(summary["threads"].get<int64_t>(), 1);
  EXPECT_EQ(summary["replicas"].get<int64_t>(), replicas);
  EXPECT_GT(summary["replica_bytes"].get<int64_t>(), 4 * 2 * 535818);  // mlp's params and grads
  fs::remove_all(out);

  r = run_dsgd(
      "run --set dataset=synthetic --set model=lenet5-bn --set batch_size=16 --set epochs=0.1 "
      "--set algo=dana-zero --set workers=4 --set bn_batches=0 --out " +
      out.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  summary = nlohmann::json::parse(read_file(out / "summary.json"));
  EXPECT_EQ(summary["replicas"].get<int64_t>(), 1);
  fs::remove_all(out);
}

// The key `cores` (which `dsgd sweep` sets to each run's share) bounds what the plan uses: one
// core gives one replica of one thread, however many workers could compute at once.
TEST(ComputePlan, TheCoresKeyBoundsThePlan) {
  const int64_t cores = std::max(1u, std::thread::hardware_concurrency());
  EXPECT_EQ(dsgd::this_machine().cores, cores);
  EXPECT_EQ(dsgd::this_machine(1).cores, 1);
  EXPECT_EQ(dsgd::this_machine(cores + 8).cores, cores);  // a share is never more than the host
  fs::path out = fresh_dir("compute_plan_cores");
  CliResult r = run_dsgd(
      "run --set dataset=synthetic --set model=mlp --set batch_size=16 --set epochs=0.25 "
      "--set algo=dana-zero --set workers=4 --set cores=1 --out " +
      out.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto summary = nlohmann::json::parse(read_file(out / "summary.json"));
  EXPECT_EQ(summary["threads"].get<int64_t>(), 1);
  EXPECT_EQ(summary["replicas"].get<int64_t>(), 1);
  fs::remove_all(out);
}

}  // namespace
