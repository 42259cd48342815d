// The MPI engine under `mpirun --oversubscribe`, checked against the simulator: the async server
// with one worker is the simulator exactly; with three workers, the simulator replaying the MPI
// run's recorded arrival order reproduces its parameters; hier-avg on 4 ranks is the simulator's
// hier-avg; a run whose worker rank is killed resumes from its checkpoint; bad launches (rank
// count, mismatched configs, data missing on one rank) end every rank with exit 2, no hang.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli_helpers.h"
#include "core/checkpoint.h"
#include "models/compute_format.h"
#include "numeric_bound.h"

namespace {

using namespace dsgd::testing;  // NOLINT(build/namespaces): the shared helpers of cli_helpers.h
using dsgd::bounds::expect_within;
namespace fs = std::filesystem;

// Root is allowed (CI runs as root); cross-memory attach is off because containers often forbid
// it (ptrace), and its failure would look like a dsgd bug.
const std::string kMpirun =
    "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "
    "OMPI_MCA_btl_vader_single_copy_mechanism=none "
    "timeout 300 mpirun --oversubscribe --bind-to none ";

// `ranks` processes of dsgd with `args`; a command after ':' may give other ranks other args.
CliResult run_mpi(int ranks, const std::string& args, const std::string& more = "") {
  fs::path log = fresh_dir("mpi_log");
  std::string command = kMpirun + "-n " + std::to_string(ranks) + " " + DSGD_BINARY + " " + args +
                        more + " > " + log.string() + " 2>&1";
  int status = std::system(command.c_str());
  CliResult r{WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_file(log)};
  fs::remove(log);
  return r;
}

const std::string kSmall =
    "run --set dataset=synthetic --set model=mlp --set batch_size=16 --set epochs=1 "
    "--set threads=1 --set lr=0.01 --set lr_schedule=constant --set warmup_epochs=0 "
    "--set eval_every=0.5 ";

// η changes at every update and weight decay is on: a message's rate (sent with the parameters)
// and the decay taken at the point a gradient was computed both show in the parameters.
const std::string kChangingSchedule =
    "--set lr_schedule=cosine --set warmup_epochs=0.25 --set weight_decay=1e-3 ";

dsgd::TensorMap final_state(const fs::path& run) {
  return dsgd::load_checkpoint((run / "checkpoint.pt").string());
}
double relative_error(const torch::Tensor& a, const torch::Tensor& b) {
  return (a - b).norm().item<double>() / b.norm().item<double>();
}
// The server's final θ of two runs, bit for bit: an MPI run's server applies the messages in the
// order the simulator replays, each computed as the simulator computes it (a worker's step on
// its own rank's model, at the same thread count), so no sum is taken in another order.
void expect_same_theta(const fs::path& a_run, const fs::path& b_run) {
  expect_within(relative_error(dsgd::checkpoint_entry(final_state(a_run), "engine/server/theta"),
                               dsgd::checkpoint_entry(final_state(b_run), "engine/server/theta")),
                0.0, "relative_error(engine/server/theta)");
}

TEST(Mpi, AsyncOneWorkerIsTheSimulator) {
  // The third: a network from Python (TorchScript), whose BatchNorm buffers travel as the
  // built-ins' do.
  const std::string scripted =
      "dana-zero --set model=" + std::string(DSGD_SOURCE_DIR) + "/tests/fixtures/small_cnn.pt";
  for (const std::string& algo : {std::string("dana-slim"), std::string("dana-ga"),
                                  std::string("yellowfin"), std::string("dana-easgd"), scripted}) {
    SCOPED_TRACE(algo);
    fs::path mpi = fresh_dir("mpi_one"), sim = fresh_dir("sim_one");
    // A changing schedule and weight decay: the rate each worker gets with its parameters counts.
    const std::string job = kSmall + "--set algo=" + algo + " --set workers=1 " + kChangingSchedule;
    CliResult r = run_mpi(2, job + "--engine mpi --out " + mpi.string());
    ASSERT_EQ(r.exit_code, 0) << r.output;
    ASSERT_EQ(run_dsgd(job + "--out " + sim.string()).exit_code, 0);
    auto a = final_state(mpi), b = final_state(sim);
    EXPECT_EQ(relative_error(dsgd::checkpoint_entry(a, "engine/server/theta"),
                             dsgd::checkpoint_entry(b, "engine/server/theta")),
              0.0);
    // The gap aside: the simulator measures DANA-Slim's at the actual parameters Θ + γΣv_j,
    // which on MPI live on the workers, so the MPI server reports Θ_now − Θ_sent
    // (docs/design/algorithms.md).
    EXPECT_EQ(without_columns(read_csv(mpi / "metrics.csv"), {"wall_time", "sim_time", "gap_rms"}),
              without_columns(read_csv(sim / "metrics.csv"), {"wall_time", "sim_time", "gap_rms"}));
    fs::remove_all(mpi);
    fs::remove_all(sim);
  }
}

// Left to dsgd, each rank takes its share of its host's cores (as torchrun does), not every core:
// 4 ranks on one host get max(1, cores / 4) threads each, which the log and summary.json say.
TEST(Mpi, RanksShareTheHostsCores) {
  fs::path mpi = fresh_dir("mpi_threads");
  std::string job = kSmall + "--set algo=asgd --set workers=3 --set epochs=0.25 --engine mpi ";
  job.replace(job.find("--set threads=1 "), std::string("--set threads=1 ").size(), "");
  CliResult r = run_mpi(4, job + "--out " + mpi.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const int64_t share =
      std::max<int64_t>(1, static_cast<int64_t>(std::thread::hardware_concurrency()) / 4);
  EXPECT_NE(r.output.find("threads: " + std::to_string(share) + " per rank"), std::string::npos)
      << r.output;
  auto summary = nlohmann::json::parse(read_file(mpi / "summary.json"));
  EXPECT_EQ(summary["threads"].get<int64_t>(), share);
  fs::remove_all(mpi);
}

// Ranks on hosts with different CPUs compute in one format: with rank 1's CPU reading as one
// without bf16 units (the fault cpu:NO_BF16), precision = "auto" takes fp32 on every rank, rank 0
// included, and the record says which rank decided it; an explicit bf16 is kept, with a warning
// that names the rank and leaves out rank 0's timings (bf16 is native there). Where this CPU has
// no bf16 either, every rank computes in fp32 by its own CPU.
TEST(Mpi, RanksOnDifferentCpusComputeInOneFormat) {
  const bool native_here = dsgd::bf16_slowness(torch::kCPU).empty();
  const std::string rank_1 =
      "rank 1 computes without it (this CPU has neither AVX-512 BF16 nor AMX";
  ::setenv("DSGD_FAULT", "cpu:NO_BF16", 1);
  ::setenv("DSGD_FAULT_RANK", "1", 1);
  for (const std::string precision : {"auto", "bf16"}) {
    SCOPED_TRACE(precision);
    fs::path mpi = fresh_dir("mpi_one_format");
    CliResult r =
        run_mpi(2, kSmall + "--set algo=ssgd --set workers=2 --set precision=" + precision +
                       " --engine mpi --out " + mpi.string());
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const nlohmann::json compute =
        nlohmann::json::parse(read_file(mpi / "summary.json")).at("compute");
    if (precision == "auto") {
      EXPECT_EQ(compute.at("precision"), "fp32") << compute;
      if (native_here) {
        EXPECT_NE(compute.at("reason").get<std::string>().find("no bf16: " + rank_1),
                  std::string::npos)
            << compute;
      }
    } else {
      EXPECT_EQ(compute.at("precision"), "bf16") << compute;
      if (native_here) {
        EXPECT_NE(r.output.find("warning: precision = \"bf16\", but " + rank_1), std::string::npos)
            << r.output;
        EXPECT_EQ(r.output.find("a step took"), std::string::npos) << r.output;
      }
    }
    fs::remove_all(mpi);
  }
  ::unsetenv("DSGD_FAULT");
  ::unsetenv("DSGD_FAULT_RANK");
}

// Three workers race for real; replaying the recorded order in the simulator reproduces the
// server's parameters (same rules, same per-worker streams: only the engine differs).
TEST(Mpi, AsyncTraceReplayReproducesTheRun) {
  fs::path mpi = fresh_dir("mpi_three"), sim = fresh_dir("sim_three"), trace = fresh_dir("trace");
  const std::string job = kSmall + "--set algo=dana-zero --set workers=3 " + kChangingSchedule;
  CliResult r = run_mpi(4, job + "--engine mpi --set timing.record_trace=" + trace.string() +
                               " --out " + mpi.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = run_dsgd(job + "--set timing.trace=" + trace.string() + " --out " + sim.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_same_theta(mpi, sim);
  // The same staleness per period: the order, not the timing, decides it.
  auto staleness = [](const fs::path& run) {
    auto rows = read_csv(run / "metrics.csv");
    std::vector<std::string> column;
    for (size_t i = 0; i < rows[0].size(); ++i) {
      if (rows[0][i] != "staleness_mean") continue;
      for (auto& row : rows) column.push_back(row[i]);
    }
    return column;
  };
  EXPECT_EQ(staleness(mpi), staleness(sim));
  for (const auto& p : {mpi, sim, trace}) fs::remove_all(p);
}

// θ of a sharded run: shard 0's slice in the checkpoint, the others' in their serialized states.
torch::Tensor sharded_theta(const dsgd::TensorMap& state, int shards) {
  std::vector<torch::Tensor> slices = {dsgd::checkpoint_entry(state, "engine/server/theta")};
  for (int k = 1; k < shards; ++k) {
    torch::Tensor bytes =
        dsgd::checkpoint_entry(state, "engine/shard/" + std::to_string(k) + "/state").contiguous();
    std::string text(reinterpret_cast<const char*>(bytes.data_ptr<uint8_t>()),
                     static_cast<size_t>(bytes.numel()));
    slices.push_back(dsgd::checkpoint_entry(dsgd::parse_checkpoint(text, "shard"), "server/theta"));
  }
  return torch::cat(slices);
}

// Two shards (servers = 2) and three racing workers, stopped half-way and resumed: the simulator
// replaying the recorded order reproduces the whole θ. Sharding, sequencing, held messages and
// the resumed worker states are all the same algorithm as one server.
TEST(Mpi, ShardedServerResumedAndReplayedIsTheSimulator) {
  fs::path mpi = fresh_dir("mpi_sharded"), sim = fresh_dir("sim_sharded"),
           trace = fresh_dir("sharded_trace");
  const std::string job = kSmall + "--set algo=dana-zero --set workers=3 ";
  CliResult r =
      run_mpi(5, job + "--engine mpi --set servers=2 --set epochs=0.5 " +
                     "--set timing.record_trace=" + trace.string() + " --out " + mpi.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = run_mpi(5, "run --resume " + mpi.string() + " --set epochs=1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = run_dsgd(job + "--set timing.trace=" + trace.string() + " --out " + sim.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto a = final_state(mpi), b = final_state(sim);
  expect_within(
      relative_error(sharded_theta(a, 2), dsgd::checkpoint_entry(b, "engine/server/theta")), 0.0,
      "relative_error(sharded theta)");
  auto summary = nlohmann::json::parse(read_file(mpi / "summary.json"));
  EXPECT_EQ(summary["servers"], 2);
  EXPECT_EQ(summary["updates"], 256);
  for (const auto& p : {mpi, sim, trace}) fs::remove_all(p);
}

// Workers that take local steps, stopped half-way and resumed on MPI: the simulator replaying the
// recorded order reproduces θ, and an epoch is the same number of samples (256 minibatches in
// 256 / H exchanges).
void expect_local_steps_resumed_and_replayed(const std::string& algo_args, int64_t updates) {
  fs::path mpi = fresh_dir("mpi_local"), sim = fresh_dir("sim_local"),
           trace = fresh_dir("local_trace");
  // A constant rate: a schedule over `epochs` would change when the resume lengthens the run.
  const std::string job = kSmall + algo_args + " --set workers=3 --set weight_decay=1e-3 ";
  CliResult r =
      run_mpi(4, job + "--engine mpi --set epochs=0.5 --set timing.record_trace=" + trace.string() +
                     " --out " + mpi.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = run_mpi(4, "run --resume " + mpi.string() + " --set epochs=1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = run_dsgd(job + "--set timing.trace=" + trace.string() + " --out " + sim.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_same_theta(mpi, sim);
  EXPECT_EQ(nlohmann::json::parse(read_file(mpi / "summary.json"))["updates"], updates);
  for (const auto& p : {mpi, sim, trace}) fs::remove_all(p);
}

// Delayed Nesterov on the server; workers with a local velocity of their own and Dynamic Local
// Updates: at speeds 0.5, 1, 1 and H = 3 they take 1, 3 and 3 steps per exchange, so an epoch is
// 4096 / round(16 · 7/3) = 4096 / 37 = 110 exchanges.
TEST(Mpi, LocalStepsResumedAndReplayedAreTheSimulator) {
  expect_local_steps_resumed_and_replayed(
      "--set algo=async-local-dn --set local.steps=3 --set momentum=0.5 --set outer.momentum=0.5 "
      "--set local.dylu=true --set timing.speeds=[0.5,1,1]",
      110);
}

// The paper's AdamW workers: each worker's moments and local step count travel to rank 0 with its
// state, and come back on resume. H = 2 at a constant rate: 128 exchanges an epoch.
TEST(Mpi, AdamWLocalStepsResumedAndReplayedAreTheSimulator) {
  expect_local_steps_resumed_and_replayed(
      "--set algo=async-local-dn --set local.steps=2 --set optimizer=adamw --set lr=5e-4 "
      "--set outer.momentum=0.5",
      128);
}

// Elastic averaging as published: the workers' held gradients and velocities, and the replies
// the server keeps (resent to every worker on resume).
TEST(Mpi, ElasticLocalResumedAndReplayedIsTheSimulator) {
  expect_local_steps_resumed_and_replayed(
      "--set algo=eamsgd-local --set local.steps=4 --set momentum=0.5", 64);
}

// The largest relative difference between the learners' final parameters of two runs.
double learners_difference(const fs::path& a_run, const fs::path& b_run, int learners) {
  auto a = final_state(a_run), b = final_state(b_run);
  double largest = 0;
  for (int i = 0; i < learners; ++i) {
    std::string key = "engine/learner/" + std::to_string(i) + "/params";
    largest = std::max(
        largest, relative_error(dsgd::checkpoint_entry(a, key), dsgd::checkpoint_entry(b, key)));
  }
  return largest;
}

// Every learner's final parameters in two runs' checkpoints agree to `tolerance` (relative; 0:
// bit for bit).
void expect_learners_match(const fs::path& a_run, const fs::path& b_run, int learners,
                           double tolerance, const std::string& what = "learners") {
  expect_within(learners_difference(a_run, b_run, learners), tolerance,
                "relative_error(engine/learner/*/params), " + what);
}

// How far rounding alone moves this job's learners: the simulator against itself with every
// mean summed in the reverse order (the test fault reduce:REVERSED, communicator.h). An MPI run
// whose all-reduce sums in yet another order (Open MPI's ring, tree, halving-doubling) differs
// from the simulator by rounding of the same kind, amplified by the same training, so its bound
// is this spread times kOrderFactor: derived from the run, not read off one CPU's kernels.
constexpr double kOrderFactor = 10;
double reduction_order_spread(const std::string& job, int learners) {
  const fs::path forward = fresh_dir("sim_order_forward"),
                 reversed = fresh_dir("sim_order_reversed");
  EXPECT_EQ(run_dsgd(job + "--out " + forward.string()).exit_code, 0);
  ::setenv("DSGD_FAULT", "reduce:REVERSED", 1);
  EXPECT_EQ(run_dsgd(job + "--out " + reversed.string()).exit_code, 0);
  ::unsetenv("DSGD_FAULT");
  const double spread = learners_difference(forward, reversed, learners);
  fs::remove_all(forward);
  fs::remove_all(reversed);
  return spread;
}

const std::string kHier =
    "--set algo=hier-avg --set workers=4 --set hier.group_size=2 --set hier.local_period=2 "
    "--set hier.global_period=4 --set lr=0.05 --set batch_size=16 ";

// Summed in rank order (allreduce = "rank-order"), the MPI run's learners are the simulator's bit
// for bit. The second time with an outer optimizer at the global average (Nesterov, as DiLoCo's):
// its state is replicated on every rank, and the run is still the simulator's; the third time with
// DiLoCo's AdamW learners too, whose moments each rank keeps.
TEST(Mpi, HierAvgOnFourRanksIsTheSimulator) {
  const std::string nesterov_outer =
      "--set outer.lr=0.7 --set outer.momentum=0.6 --set outer.nesterov=true ";
  for (const std::string& variant :
       {std::string(), nesterov_outer,
        nesterov_outer + "--set optimizer=adamw --set lr=0.005 --set weight_decay=0.01 "}) {
    SCOPED_TRACE(variant);
    fs::path mpi = fresh_dir("mpi_hier"), sim = fresh_dir("sim_hier");
    const std::string job = kSmall + kHier + variant + "--set allreduce=rank-order ";
    CliResult r = run_mpi(4, job + "--engine mpi --out " + mpi.string());
    ASSERT_EQ(r.exit_code, 0) << r.output;
    ASSERT_EQ(run_dsgd(job + "--out " + sim.string()).exit_code, 0);
    expect_learners_match(mpi, sim, 4, 0.0, "rank-order");
    auto summary = nlohmann::json::parse(read_file(mpi / "summary.json"));
    EXPECT_EQ(summary["traffic"]["local_reductions"], 16);  // 64 rounds: K1 = 2, K2 = 4
    EXPECT_EQ(summary["traffic"]["global_reductions"], 16);
    if (variant.empty()) {
      // Re-timed on a cluster, the MPI run reads as its config made there on the simulator: the
      // clock replayed from the config, not the seconds its ranks measured on this machine.
      // A cluster of hosts of 2 whose device has a fixed step for this job (a measured one would
      // differ between the two runs).
      const fs::path table = fresh_dir("mpi_retime_table");
      fs::create_directories(table);
      std::ofstream(table / "clusters.toml") << kTestLinks << R"(
[devices.tiny]
source = "test"
[devices.tiny.step]
"mlp 16 contiguous fp32" = 0.004
[clusters.tiny-hosts]
workers_per_host = 2
intra = "fast"
inter = "slow"
device = "tiny"
source = "test"
)";
      const std::string cluster_file = (table / "clusters.toml").string();
      const fs::path priced = fresh_dir("sim_hier_priced");
      ASSERT_EQ(run_dsgd(job + "--set cluster=tiny-hosts --set cluster_file=" + cluster_file +
                         " --out " + priced.string())
                    .exit_code,
                0);
      const double made_there =
          nlohmann::json::parse(read_file(priced / "summary.json")).at("seconds").get<double>();
      const fs::path page = mpi.parent_path() / "mpi_retime.md";
      r = run_dsgd("report " + mpi.string() + " --no-plots --cluster tiny-hosts --cluster-file " +
                   cluster_file + " --out " + page.string());
      ASSERT_EQ(r.exit_code, 0) << r.output;
      const fs::path csv = mpi.parent_path() / "mpi_retime.csv";
      EXPECT_NEAR(std::stod(csv_cell(csv, "seconds")), made_there, 1e-9 * made_there);
      for (const fs::path& p : {table, priced, page, csv}) fs::remove_all(p);
    }
    fs::remove_all(mpi);
    fs::remove_all(sim);
  }
}

// `allreduce` chooses the algorithm of Open MPI's non-blocking all-reduce, which averages SSGD's
// gradients: each one's run is the simulator's to the rounding of another order of four sums (the
// bound derived from the simulator against itself reversed, reduction_order_spread), the log
// names the value MPI read back, and the ring's and the tree's runs differ in their last bits
// where two runs of the ring are equal bit for bit, so the setting reaches the library; dsgd's own
// rank-order is the simulator bit for bit. With the blocking all-reduce (mpi.hang_timeout = 0)
// Open MPI's choice would be ignored, so it is refused.
TEST(Mpi, TheAllreduceKeyChoosesOpenMpisAlgorithm) {
  const std::string job = kSmall + "--set algo=ssgd --set workers=4 ";
  const fs::path sim = fresh_dir("sim_ssgd_allreduce");
  ASSERT_EQ(run_dsgd(job + "--out " + sim.string()).exit_code, 0);
  const double spread = reduction_order_spread(job, 4);
  EXPECT_GT(spread, 0.0);  // the reversed order reached the simulator's sums
  const fs::path exact = fresh_dir("mpi_allreduce_rank_order");
  CliResult exact_run =
      run_mpi(4, job + "--engine mpi --set allreduce=rank-order --out " + exact.string());
  ASSERT_EQ(exact_run.exit_code, 0) << exact_run.output;
  expect_learners_match(exact, sim, 4, 0.0, "rank-order");
  fs::remove_all(exact);
  std::map<std::string, fs::path> runs;
  const std::pair<std::string, int> algorithms[] = {
      {"ring", 1}, {"tree", 2}, {"halving-doubling", 3}};
  for (const auto& [algorithm, value] : algorithms) {
    const fs::path mpi = fresh_dir("mpi_allreduce_" + algorithm);
    CliResult r =
        run_mpi(4, job + "--engine mpi --set allreduce=" + algorithm + " --out " + mpi.string());
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(
        r.output.find(fmt::format(
            "all-reduce: {} (Open MPI's coll_libnbc_iallreduce_algorithm = {})", algorithm, value)),
        std::string::npos)
        << r.output;
    expect_learners_match(mpi, sim, 4, kOrderFactor * spread, algorithm);
    runs[algorithm] = mpi;
  }
  const fs::path ring_again = fresh_dir("mpi_allreduce_ring_again");
  ASSERT_EQ(
      run_mpi(4, job + "--engine mpi --set allreduce=ring --out " + ring_again.string()).exit_code,
      0);
  const std::string key = "engine/learner/0/params";
  const torch::Tensor ring = dsgd::checkpoint_entry(final_state(runs["ring"]), key);
  EXPECT_TRUE(torch::equal(ring, dsgd::checkpoint_entry(final_state(ring_again), key)));
  EXPECT_FALSE(torch::equal(ring, dsgd::checkpoint_entry(final_state(runs["tree"]), key)));
  fs::remove_all(ring_again);
  const fs::path blocking = fresh_dir("mpi_allreduce_blocking");
  CliResult r = run_mpi(4, job +
                               "--engine mpi --set allreduce=tree --set mpi.hang_timeout=0 "
                               "--out " +
                               blocking.string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("which mpi.hang_timeout = 0 replaces by the blocking MPI_Allreduce"),
            std::string::npos)
      << r.output;
  for (const auto& [algorithm, run] : runs) fs::remove_all(run);
  fs::remove_all(sim);
}

// Ranks on a GPU send and receive through host buffers (core/host_staging.h). Forced on the CPU
// (DSGD_HOST_STAGING=always), that path trains exactly what the direct one does: an asynchronous
// run is the simulator replaying its order, a synchronous one the simulator's learners.
TEST(Mpi, MessagesThroughHostBuffersAreTheSimulator) {
  ASSERT_EQ(setenv("DSGD_HOST_STAGING", "always", 1), 0);
  fs::path mpi = fresh_dir("mpi_staged"), sim = fresh_dir("sim_staged"), trace = fresh_dir("trace");
  const std::string job = kSmall + "--set algo=dana-zero --set workers=3 " + kChangingSchedule;
  CliResult r = run_mpi(4, job + "--engine mpi --set timing.record_trace=" + trace.string() +
                               " --out " + mpi.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  ASSERT_EQ(unsetenv("DSGD_HOST_STAGING"), 0);
  r = run_dsgd(job + "--set timing.trace=" + trace.string() + " --out " + sim.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_same_theta(mpi, sim);

  ASSERT_EQ(setenv("DSGD_HOST_STAGING", "always", 1), 0);
  fs::path mpi_sync = fresh_dir("mpi_staged_hier"), sim_sync = fresh_dir("sim_staged_hier");
  const std::string sync_job = kSmall + kHier + "--set allreduce=rank-order ";
  r = run_mpi(4, sync_job + "--engine mpi --out " + mpi_sync.string());
  ASSERT_EQ(unsetenv("DSGD_HOST_STAGING"), 0);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  ASSERT_EQ(run_dsgd(sync_job + "--out " + sim_sync.string()).exit_code, 0);
  expect_learners_match(mpi_sync, sim_sync, 4, 0.0, "rank-order");
  for (const auto& p : {mpi, sim, trace, mpi_sync, sim_sync}) fs::remove_all(p);
}

// Three levels on 8 ranks (pairs every step, fours every 2, all every 4), each a split
// communicator: the simulator's learners, and each level's reductions and bytes.
TEST(Mpi, ThreeLevelsOnEightRanksAreTheSimulator) {
  fs::path mpi = fresh_dir("mpi_levels"), sim = fresh_dir("sim_levels");
  const std::string job = kSmall +
                          "--set algo=hier-avg --set workers=8 --set lr=0.05 --set batch_size=16 "
                          "--set epochs=0.5 --set 'hier.levels=[[2, 1], [4, 2], [8, 4]]' "
                          "--set allreduce=rank-order ";
  CliResult r = run_mpi(8, job + "--engine mpi --out " + mpi.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  ASSERT_EQ(run_dsgd(job + "--out " + sim.string()).exit_code, 0);
  expect_learners_match(mpi, sim, 8, 0.0, "rank-order");
  auto a = nlohmann::json::parse(read_file(mpi / "summary.json"))["traffic"];
  auto b = nlohmann::json::parse(read_file(sim / "summary.json"))["traffic"];
  EXPECT_EQ(a["level1_reductions"], 8);  // 16 rounds
  for (const char* column : {"level1_reductions", "level2_reductions", "level3_reductions",
                             "level1_bytes", "level2_bytes", "level3_bytes"}) {
    EXPECT_EQ(a[column], b[column]) << column;
  }
  EXPECT_GT(a["level3_comm_time"].get<double>(), 0.0);  // measured seconds
  fs::remove_all(mpi);
  fs::remove_all(sim);
}

// Synchronous MPI runs are deterministic, so a resumed one must match an uninterrupted one.
TEST(Mpi, HierAvgResumesExactly) {
  fs::path full = fresh_dir("mpi_full"), part = fresh_dir("mpi_part");
  const std::string job = kSmall + kHier + "--engine mpi --set eval_every=0.25 ";
  ASSERT_EQ(run_mpi(4, job + "--out " + full.string()).exit_code, 0);
  ASSERT_EQ(run_mpi(4, job + "--set epochs=0.5 --out " + part.string()).exit_code, 0);
  CliResult r = run_mpi(4, "run --resume " + part.string() + " --set epochs=1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto training = [](const fs::path& run) {
    return without_columns(read_csv(run / "metrics.csv"),
                           {"wall_time", "sim_time", "compute_time", "comm_time",
                            "level1_comm_time", "level2_comm_time"});
  };
  EXPECT_EQ(training(part), training(full));
  EXPECT_EQ(read_csv(part / "metrics.csv").size(), 5u);
  fs::remove_all(full);
  fs::remove_all(part);
}

// The pid of the dsgd process of MPI rank `rank` whose command line mentions `marker`.
pid_t rank_pid(const std::string& marker, int rank) {
  for (const auto& entry : fs::directory_iterator("/proc")) {
    std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string cmdline = read_file(entry.path() / "cmdline");
    if (cmdline.rfind(DSGD_BINARY, 0) != 0 || cmdline.find(marker) == std::string::npos) continue;
    std::string environ = read_file(entry.path() / "environ");
    if (environ.find("OMPI_COMM_WORLD_RANK=" + std::to_string(rank) + '\0') != std::string::npos) {
      return std::stoi(name);
    }
  }
  return -1;
}

// An MPI job started in the background: `ranks` processes of dsgd with `args`, its output in
// `log` and mpirun's exit code in `log`.rc once it ends. The code is written beside and renamed
// into place, so the file never exists empty: a loaded machine once let the test read it between
// the shell's creating and writing it.
struct BackgroundJob {
  fs::path log;
  BackgroundJob(int ranks, const std::string& args, const fs::path& log_path) : log(log_path) {
    const std::string rc = log.string() + ".rc";
    std::string command = "(" + kMpirun + "-n " + std::to_string(ranks) + " " + DSGD_BINARY + " " +
                          args + " > " + log.string() + " 2>&1; echo $? > " + rc + ".part; mv " +
                          rc + ".part " + rc + ") &";
    EXPECT_EQ(std::system(command.c_str()), 0);
  }
  // mpirun's exit code, or -1 if it has not ended within `seconds`.
  int exit_code(int seconds = 120) {
    fs::path rc = log.string() + ".rc";
    for (int i = 0; i < seconds * 1000 && !fs::exists(rc); ++i) ::usleep(1000);
    if (!fs::exists(rc)) return -1;
    return std::stoi(read_file(rc));
  }
  std::string output() const { return read_file(log); }
  ~BackgroundJob() {
    fs::remove(log);
    fs::remove(log.string() + ".rc");
  }
};

// Generous: a job of four ranks on two cores beside other tests (CI runs two at once) once took
// more than 60 s to write its first checkpoint (Mpi.SignalsStopEveryAsyncRankAtOneUpdateAndResume).
bool wait_for_file(const fs::path& path, int seconds = 240) {
  for (int i = 0; i < seconds * 1000 && !fs::exists(path); ++i) ::usleep(1000);
  return fs::exists(path);
}

// A worker rank killed outright (SIGKILL) after the first checkpoint: the job ends non-zero,
// mpirun names the rank, the log names the last checkpoint, and --resume finishes the run from
// it with everything written before the checkpoint intact.
TEST(Mpi, ResumesAfterAWorkerRankIsKilled) {
  fs::path run = fresh_dir("mpi_killed");
  const std::string job =
      "run --set dataset=synthetic --set model=mlp --set batch_size=16 "
      "--set epochs=12 --set threads=1 --set lr=0.01 --set eval_every=1 "
      "--set algo=dana-slim --set workers=3 --engine mpi --out " +
      run.string();
  BackgroundJob background(4, job, fresh_dir("mpi_killed_log"));
  ASSERT_TRUE(wait_for_file(run / "checkpoint.pt"));
  pid_t victim = rank_pid(run.string(), 2);
  ASSERT_GT(victim, 0);
  ::kill(victim, SIGKILL);
  int code = background.exit_code();
  ASSERT_NE(code, -1);
  EXPECT_NE(code, 0);
  std::string output = background.output();
  EXPECT_NE(output.find("checkpoint at update"), std::string::npos) << output;
  EXPECT_NE(output.find("rank 2"), std::string::npos) << output;  // mpirun names the dead rank
  auto before = read_csv(run / "metrics.csv");
  ASSERT_GE(before.size(), 2u);

  CliResult r = run_mpi(4, "run --resume " + run.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto after = read_csv(run / "metrics.csv");
  EXPECT_EQ(after.size(), 13u);  // header + 12 evaluations (seconds of work: the kill lands first)
  for (size_t row = 0; row + 1 < before.size() && row < after.size(); ++row) {
    EXPECT_EQ(after[row], before[row]) << "row " << row;  // rows up to the checkpoint survive
  }
  auto summary = nlohmann::json::parse(read_file(run / "summary.json"));
  EXPECT_EQ(summary["status"], "ok");
  EXPECT_EQ(summary["updates"], 3072);
  fs::remove_all(run);
}

// The summary of an interrupted job: status, and how many of `total` updates it did.
void expect_interrupted(const fs::path& run, const std::string& signal, int64_t total) {
  auto summary = nlohmann::json::parse(read_file(run / "summary.json"));
  EXPECT_EQ(summary["status"], "interrupted");
  EXPECT_NE(summary["error"].get<std::string>().find("interrupted by " + signal), std::string::npos)
      << summary.dump();
  EXPECT_GT(summary["updates"].get<int64_t>(), 0);
  EXPECT_LT(summary["updates"].get<int64_t>(), total);
}

// A 1+3-rank asynchronous job stopped by SIGTERM to every rank (what a scheduler's scancel does),
// then by SIGINT to one worker rank only (which reports it to the server with its next message):
// every rank stops, rank 0 writes one checkpoint mid-period, the job exits 128 + signal. Resumed,
// the run is the simulator replaying its recorded order: nothing was lost or applied twice.
TEST(Mpi, SignalsStopEveryAsyncRankAtOneUpdateAndResume) {
  for (const bool to_every_rank : {true, false}) {
    const int signal = to_every_rank ? SIGTERM : SIGINT;
    const std::string name = to_every_rank ? "SIGTERM" : "SIGINT";
    SCOPED_TRACE(name);
    fs::path mpi = fresh_dir("mpi_term"), sim = fresh_dir("sim_term"), trace = fresh_dir("trace");
    const std::string job = kSmall + "--set algo=dana-zero --set workers=3 --set epochs=8 " +
                            "--set eval_every=1 " + kChangingSchedule;
    {
      BackgroundJob background(4,
                               job + "--engine mpi --set timing.record_trace=" + trace.string() +
                                   " --out " + mpi.string(),
                               fresh_dir("mpi_term_log"));
      ASSERT_TRUE(wait_for_file(mpi / "checkpoint.pt"));
      if (to_every_rank) {
        for (int rank = 0; rank < 4; ++rank) ::kill(rank_pid(mpi.string(), rank), signal);
      } else {
        ::kill(rank_pid(mpi.string(), 2), signal);
      }
      EXPECT_EQ(background.exit_code(), 128 + signal) << background.output();
      std::string output = background.output();
      // Rank 0 reports it, once.
      size_t first = output.find("interrupted by " + name);
      EXPECT_NE(first, std::string::npos) << output;
      EXPECT_EQ(output.find("interrupted by " + name, first + 1), std::string::npos) << output;
    }
    expect_interrupted(mpi, name, 2048);
    CliResult r = run_mpi(4, "run --resume " + mpi.string());
    ASSERT_EQ(r.exit_code, 0) << r.output;
    r = run_dsgd(job + "--set timing.trace=" + trace.string() + " --out " + sim.string());
    ASSERT_EQ(r.exit_code, 0) << r.output;
    expect_same_theta(mpi, sim);
    auto summary = nlohmann::json::parse(read_file(mpi / "summary.json"));
    EXPECT_EQ(summary["status"], "ok");
    EXPECT_EQ(summary["updates"], 2048);
    for (const auto& p : {mpi, sim, trace}) fs::remove_all(p);
  }
}

// SIGUSR1 to mpirun, which Open MPI forwards to every rank without killing them (SIGTERM and
// SIGINT to mpirun are followed by SIGKILL a second later): a clean stop, exit 138.
TEST(Mpi, SigusrOneToMpirunStopsTheJobCleanly) {
  fs::path mpi = fresh_dir("mpi_usr1");
  const std::string job = kSmall + "--set algo=asgd --set workers=2 --set epochs=8 " +
                          "--set eval_every=1 --engine mpi --out " + mpi.string();
  BackgroundJob background(3, job, fresh_dir("mpi_usr1_log"));
  ASSERT_TRUE(wait_for_file(mpi / "checkpoint.pt"));
  ASSERT_EQ(std::system(("pkill -USR1 -f '^mpirun.*" + mpi.string() + "'").c_str()), 0);
  EXPECT_EQ(background.exit_code(), 138) << background.output();
  expect_interrupted(mpi, "SIGUSR1", 2048);
  fs::remove_all(mpi);
}

// SIGINT to one rank of a synchronous job: the ranks agree on it in the round's loss reduction,
// every rank stops after the same round, exit 130, and the resumed run is bit for bit the
// uninterrupted one.
TEST(Mpi, SigintToOneSyncRankStopsEveryRankAndResumesExactly) {
  fs::path full = fresh_dir("mpi_int_full"), part = fresh_dir("mpi_int_part");
  const std::string job = kSmall + kHier + "--engine mpi --set epochs=8 --set eval_every=1 ";
  ASSERT_EQ(run_mpi(4, job + "--out " + full.string()).exit_code, 0);
  {
    BackgroundJob background(4, job + "--out " + part.string(), fresh_dir("mpi_int_log"));
    ASSERT_TRUE(wait_for_file(part / "checkpoint.pt"));
    ::kill(rank_pid(part.string(), 2), SIGINT);
    EXPECT_EQ(background.exit_code(), 130) << background.output();
  }
  expect_interrupted(part, "SIGINT", 512);
  CliResult r = run_mpi(4, "run --resume " + part.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto training = [](const fs::path& run) {
    return without_columns(read_csv(run / "metrics.csv"),
                           {"wall_time", "sim_time", "compute_time", "comm_time",
                            "level1_comm_time", "level2_comm_time"});
  };
  EXPECT_EQ(training(part), training(full));
  expect_learners_match(part, full, 4, 0.0);
  fs::remove_all(full);
  fs::remove_all(part);
}

// A worker rank stopped (SIGSTOP, as a hung process or a host gone without closing its sockets
// looks) after the first checkpoint: rank 0 names it, the job exits 4 with status "hung", and the
// run resumes from its last checkpoint. Exit code 4 comes only from the watchdog, and exit_code()
// gives up after 120 s where mpirun's own timeout is 300 s, so a job the watchdog did not end
// fails here; how soon it ends is not asserted (a timed assertion): alone, 4.0 s after the stop;
// beside other MPI tests on two cores it has taken up to 38 s.
TEST(Mpi, StoppedWorkerRankEndsTheJobAndResumes) {
  fs::path run = fresh_dir("mpi_stopped");
  const std::string job = kSmall + "--set algo=dana-slim --set workers=3 --set epochs=8 " +
                          "--set eval_every=1 --set mpi.hang_timeout=4 --engine mpi --out " +
                          run.string();
  {
    BackgroundJob background(4, job, fresh_dir("mpi_stopped_log"));
    ASSERT_TRUE(wait_for_file(run / "checkpoint.pt"));
    ::kill(rank_pid(run.string(), 2), SIGSTOP);
    EXPECT_EQ(background.exit_code(), 4) << background.output();
    std::string output = background.output();
    EXPECT_NE(output.find("worker 1 (rank 2) stopped answering"), std::string::npos) << output;
    EXPECT_NE(output.find("continue with `mpirun -n 4 dsgd run --resume"), std::string::npos)
        << output;
  }
  auto summary = nlohmann::json::parse(read_file(run / "summary.json"));
  EXPECT_EQ(summary["status"], "hung");
  CliResult r = run_mpi(4, "run --resume " + run.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  summary = nlohmann::json::parse(read_file(run / "summary.json"));
  EXPECT_EQ(summary["status"], "ok");
  EXPECT_EQ(summary["updates"], 2048);
  fs::remove_all(run);
}

// The same for a synchronous job, where every rank waits in the all-reduce: rank 0 names the
// learner that does not answer, not the ones waiting with it.
TEST(Mpi, StoppedLearnerRankEndsTheSyncJob) {
  fs::path run = fresh_dir("mpi_stopped_sync");
  BackgroundJob background(4,
                           kSmall + kHier +
                               "--engine mpi --set epochs=16 --set eval_every=1 "
                               "--set mpi.hang_timeout=4 --out " +
                               run.string(),
                           fresh_dir("mpi_stopped_sync_log"));
  ASSERT_TRUE(wait_for_file(run / "checkpoint.pt"));
  ::kill(rank_pid(run.string(), 3), SIGSTOP);
  EXPECT_EQ(background.exit_code(), 4) << background.output();
  std::string output = background.output();
  EXPECT_NE(output.find("learner 3 (rank 3) stopped answering"), std::string::npos) << output;
  EXPECT_EQ(output.find("learner 1 (rank 1)"), std::string::npos) << output;
  fs::remove_all(run);
}

// A rank that is slow, not gone: stopped for longer than half the timeout, so rank 0 pings, but
// continued (SIGCONT) before the answer window closes. It answers, and the job finishes.
TEST(Mpi, ASlowRankThatAnswersThePingIsNotAHang) {
  fs::path run = fresh_dir("mpi_slow");
  const std::string job = kSmall + "--set algo=asgd --set workers=2 --set epochs=4 " +
                          "--set mpi.hang_timeout=10 --engine mpi --out " + run.string();
  BackgroundJob background(3, job, fresh_dir("mpi_slow_log"));
  ASSERT_TRUE(wait_for_file(run / "checkpoint.pt"));
  pid_t worker = rank_pid(run.string(), 1);
  ::kill(worker, SIGSTOP);
  ::usleep(7'500'000);  // rank 0 pings about 5 s after the worker's message was due
  ::kill(worker, SIGCONT);
  EXPECT_EQ(background.exit_code(), 0) << background.output();
  std::string output = background.output();
  EXPECT_NE(output.find("every rank answered: slow, not stuck"), std::string::npos) << output;
  EXPECT_EQ(output.find("stopped answering"), std::string::npos) << output;
  auto summary = nlohmann::json::parse(read_file(run / "summary.json"));
  EXPECT_EQ(summary["status"], "ok");
  fs::remove_all(run);
}

TEST(Mpi, BadLaunchesEndEveryRankWithExitTwo) {
  fs::path out = fresh_dir("mpi_bad");
  // 3 workers need 4 ranks ...
  CliResult r =
      run_mpi(3, kSmall + "--set algo=asgd --set workers=3 --engine mpi --out " + out.string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("needs 4 MPI ranks"), std::string::npos) << r.output;
  // ... and 5 with two servers (in the simulator, servers only split the priced link).
  r = run_mpi(4, kSmall + "--set algo=asgd --set workers=3 --set servers=2 --engine mpi --out " +
                     out.string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("needs 5 MPI ranks"), std::string::npos) << r.output;
  // Rank 1 with another learning rate.
  r = run_mpi(1, kSmall + "--set algo=kavg --set workers=2 --engine mpi --out " + out.string(),
              " : -n 1 " + std::string(DSGD_BINARY) + " " + kSmall +
                  "--set algo=kavg --set workers=2 --engine mpi --set lr=0.5 --out " +
                  out.string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("different config"), std::string::npos) << r.output;
  // The dataset is missing on rank 1 only.
  const std::string fashion =
      "run --set dataset=fashion-mnist --set algo=kavg --set workers=2 --engine mpi --out " +
      out.string();
  r = run_mpi(1, fashion,
              " : -n 1 " + std::string(DSGD_BINARY) + " " + fashion +
                  " --set data_dir=/nonexistent/fashion");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("/nonexistent/fashion"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("rank 1 could not start (see its message)"), std::string::npos)
      << r.output;
  // device = "cuda" where LibTorch sees no GPU: every rank says so, and nothing is written.
  if (!torch::cuda::is_available()) {
    r = run_mpi(3, kSmall +
                       "--set algo=asgd --set workers=2 --engine mpi --set device=cuda --out " +
                       out.string());
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("sees no GPU"), std::string::npos) << r.output;
  }
  EXPECT_FALSE(fs::exists(out));
}

// Two hosts on one machine: network namespaces joined by a veth pair, each with its own host
// name; mpirun in one starts the other's daemon through `ip netns exec` (its rsh agent) and
// Open MPI talks TCP across the pair. Hier-AVG with one group per node (MPI_Comm_split_type)
// must equal the simulator's hier-avg with S = 2, since ranks 0-1 and 2-3 share a host.
TEST(Mpi, TwoHostsOverTcpMatchTheSimulator) {
  const std::string tag = std::to_string(::getpid() % 100000);
  const std::string ns_a = "dsgdA" + tag, ns_b = "dsgdB" + tag;
  fs::path dir = fresh_dir("two_hosts");
  fs::create_directories(dir);
  auto sh = [](const std::string& command) { return std::system(command.c_str()); };
  if (sh("ip netns add " + ns_a + " > /dev/null 2>&1") != 0) {
    GTEST_SKIP() << "cannot create network namespaces here (needs root and CAP_SYS_ADMIN)";
  }
  const std::string setup =
      "set -e; ip netns add " + ns_b + "; ip link add va" + tag + " type veth peer name vb" + tag +
      "; ip link set va" + tag + " netns " + ns_a + "; ip link set vb" + tag + " netns " + ns_b +
      "; ip netns exec " + ns_a + " ip addr add 10.77.0.1/24 dev va" + tag + "; ip netns exec " +
      ns_a + " ip link set va" + tag + " up; ip netns exec " + ns_a + " ip link set lo up" +
      "; ip netns exec " + ns_b + " ip addr add 10.77.0.2/24 dev vb" + tag + "; ip netns exec " +
      ns_b + " ip link set vb" + tag + " up; ip netns exec " + ns_b + " ip link set lo up";
  auto teardown = [&] {
    sh("ip netns del " + ns_a + " > /dev/null 2>&1; ip netns del " + ns_b + " > /dev/null 2>&1");
    fs::remove_all(dir);
  };
  if (sh(setup + " > /dev/null 2>&1") != 0) {
    teardown();
    GTEST_SKIP() << "cannot join network namespaces with a veth pair here";
  }
  std::ofstream(dir / "hosts") << "10.77.0.1 slots=2\n10.77.0.2 slots=2\n";
  std::ofstream(dir / "agent.sh") << "#!/bin/sh\nshift\nexec ip netns exec " << ns_b
                                  << " unshare --uts sh -c \"hostname hostb; $*\"\n";
  fs::permissions(dir / "agent.sh", fs::perms::owner_all);

  fs::path mpi = dir / "mpi", sim = fresh_dir("two_hosts_sim");
  const std::string job = kSmall + kHier + "--set allreduce=rank-order ";
  const std::string mpirun =
      "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 300 ip netns exec " +
      ns_a + " unshare --uts sh -c 'hostname hosta; mpirun --hostfile " + (dir / "hosts").string() +
      " -n 4 --mca plm_rsh_agent " + (dir / "agent.sh").string() +
      " --mca btl tcp,self --mca btl_tcp_if_include 10.77.0.0/24"
      " --mca oob_tcp_if_include 10.77.0.0/24 " +
      DSGD_BINARY + " " + job + "--engine mpi --set hier.node_groups=true --out " + mpi.string() +
      "' > " + (dir / "log").string() + " 2>&1";
  int status = sh(mpirun);
  std::string log = read_file(dir / "log");
  ASSERT_EQ(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 0) << log;
  ASSERT_EQ(run_dsgd(job + "--out " + sim.string()).exit_code, 0);
  expect_learners_match(mpi, sim, 4, 0.0, "rank-order");
  auto summary = nlohmann::json::parse(read_file(mpi / "summary.json"));
  EXPECT_EQ(summary["traffic"]["local_reductions"], 16) << "node groups of 2";
  fs::remove_all(sim);
  teardown();
}

}  // namespace
