// The asynchronous simulator end to end: staleness of homogeneous workers, determinism, trace
// record and replay, the N = 1 equivalence with Nesterov SGD, bad simulator input; and the
// server telemetry (staleness, gap) by hand.
#include <gtest/gtest.h>
#include <signal.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "cli_helpers.h"
#include "engine/async_telemetry.h"

namespace {

using dsgd::testing::CliResult;
using dsgd::testing::expect_resume_matches;
using dsgd::testing::fresh_dir;
using dsgd::testing::last_metric;
using dsgd::testing::read_csv;
using dsgd::testing::read_file;
using dsgd::testing::run_dsgd;
using dsgd::testing::without_columns;
namespace fs = std::filesystem;

TEST(AsyncTelemetry, StalenessAndGapByHand) {
  dsgd::AsyncTelemetry telemetry;
  // mean((θ − θ̂)²) = (1 + 4 + 9 + 16) / 4 = 7.5, then (0 + 0 + 0 + 4) / 4 = 1.
  telemetry.record(3, torch::tensor({1.0f, 2.0f, 3.0f, 4.0f}), torch::zeros({4}));
  telemetry.record(1, torch::ones({4}), torch::tensor({1.0f, 1.0f, 1.0f, 3.0f}));
  std::map<std::string, double> row = telemetry.end_period();
  EXPECT_DOUBLE_EQ(row["staleness_mean"], 2.0);
  EXPECT_DOUBLE_EQ(row["staleness_max"], 3.0);
  EXPECT_DOUBLE_EQ(row["gap_rms"], std::sqrt((7.5 + 1.0) / 2));
  EXPECT_EQ(telemetry.histogram(), (std::vector<int64_t>{0, 1, 0, 1}));
  // A new period starts empty; the histogram spans the run.
  row = telemetry.end_period();
  EXPECT_EQ(row["staleness_mean"], 0.0);
  EXPECT_EQ(row["gap_rms"], 0.0);
  EXPECT_EQ(telemetry.histogram().size(), 4u);
}

// θ − θ̂ = 0, 1, ..., n−1: the gap's mean square over the sampled coordinates is Σk² over them.
double sampled_gap_square(int64_t gap_sample, int64_t n) {
  dsgd::AsyncTelemetry telemetry(gap_sample);
  telemetry.record(0, torch::arange(n, torch::kFloat), torch::zeros({n}));
  double rms = telemetry.end_period()["gap_rms"];
  return rms * rms;
}

TEST(AsyncTelemetry, GapSampleTakesEvenlySpacedRuns) {
  const double all = 285.0 / 10;  // Σ k² for k < 10, over 10
  EXPECT_NEAR(sampled_gap_square(0, 10), all, 1e-9);
  EXPECT_NEAR(sampled_gap_square(6, 10), all, 1e-9);                     // n < 2·sample: exact
  EXPECT_NEAR(sampled_gap_square(5, 10), (1 + 4 + 9 + 16) / 5.0, 1e-9);  // one run: k < 5
  // Two runs of 64 at multiples of 1000 / 2: k in [0, 64) and [500, 564).
  // Σ_{k<64} k² = 63·64·127/6 = 85,344; Σ_{500≤k<564} k² = 563·564·1127/6 − 499·500·999/6.
  EXPECT_NEAR(sampled_gap_square(128, 1000), (85344.0 + 18101344.0) / 128, 1e-3);
}

// 256 updates an epoch of a small MLP on learnable synthetic data.
const std::string kSmall =
    "--set dataset=synthetic --set model=mlp --set batch_size=16 --set epochs=1 --set threads=1 "
    "--set lr=0.01 --set lr_schedule=constant --set warmup_epochs=0 ";

TEST(AsyncSim, HomogeneousStalenessIsNMinusOne) {
  for (int workers : {4, 8}) {
    fs::path out = fresh_dir("staleness");
    CliResult r =
        run_dsgd("run " + kSmall + "--set algo=asgd --set workers=" + std::to_string(workers) +
                 " --out " + out.string());
    ASSERT_EQ(r.exit_code, 0) << r.output;
    double mean = last_metric(out / "metrics.csv", "staleness_mean");
    EXPECT_NEAR(mean, workers - 1, 0.1 * (workers - 1)) << "N = " << workers;
    auto summary = nlohmann::json::parse(read_file(out / "summary.json"));
    auto histogram = summary["staleness_histogram"].get<std::vector<int64_t>>();
    int64_t total = 0;
    for (auto c : histogram) total += c;
    EXPECT_EQ(total, 256);
    EXPECT_EQ(summary["server_bytes"].get<int64_t>(), 4 * summary["parameters"].get<int64_t>());
    fs::remove_all(out);
  }
}

TEST(AsyncSim, SameSeedSameMetricsAndTraceReplays) {
  fs::path a = fresh_dir("det_a"), b = fresh_dir("det_b"), c = fresh_dir("det_c");
  fs::path trace = fresh_dir("trace");
  std::string job = "run " + kSmall +
                    "--set algo=dana-zero --set workers=6 --set timing.shape=2 "
                    "--set eval_every=0.5 ";
  ASSERT_EQ(run_dsgd(job + "--set timing.record_trace=" + trace.string() + " --out " + a.string())
                .exit_code,
            0);
  ASSERT_EQ(run_dsgd(job + "--out " + b.string()).exit_code, 0);
  EXPECT_EQ(without_columns(read_csv(a / "metrics.csv"), {"wall_time"}),
            without_columns(read_csv(b / "metrics.csv"), {"wall_time"}));
  // Replaying the recorded order under very different timing reproduces the training exactly.
  std::string replay = "run " + kSmall +
                       "--set algo=dana-zero --set workers=6 --set timing.shape=500 "
                       "--set timing.spread=0.5 --set eval_every=0.5 --set timing.trace=" +
                       trace.string() + " --out " + c.string();
  CliResult r = run_dsgd(replay);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(without_columns(read_csv(a / "metrics.csv"), {"wall_time", "sim_time"}),
            without_columns(read_csv(c / "metrics.csv"), {"wall_time", "sim_time"}));
  // Without the trace, that timing gives another order and so other numbers.
  fs::path d = fresh_dir("det_d");
  ASSERT_EQ(run_dsgd("run " + kSmall +
                     "--set algo=dana-zero --set workers=6 --set timing.shape=500 "
                     "--set timing.spread=0.5 --set eval_every=0.5 --out " +
                     d.string())
                .exit_code,
            0);
  EXPECT_NE(without_columns(read_csv(a / "metrics.csv"), {"wall_time", "sim_time"}),
            without_columns(read_csv(d / "metrics.csv"), {"wall_time", "sim_time"}));
  for (const auto& p : {a, b, c, d, trace}) fs::remove_all(p);
}

TEST(AsyncSim, OneWorkerDanaMatchesNesterovSgd) {
  fs::path sgd = fresh_dir("n1_sgd"), slim = fresh_dir("n1_slim"), zero = fresh_dir("n1_zero");
  std::string job =
      "run --set dataset=synthetic --set model=lenet5-bn --set epochs=0.5 "
      "--set threads=1 --set lr=0.05 --set lr_schedule=constant ";
  ASSERT_EQ(run_dsgd(job + "--set algo=sgd --set nesterov=true --out " + sgd.string()).exit_code,
            0);
  ASSERT_EQ(run_dsgd(job + "--set algo=dana-slim --set workers=1 --out " + slim.string()).exit_code,
            0);
  ASSERT_EQ(run_dsgd(job + "--set algo=nag-asgd --set workers=1 --out " + zero.string()).exit_code,
            0);
  double reference = last_metric(sgd / "metrics.csv", "train_loss");
  EXPECT_NEAR(last_metric(slim / "metrics.csv", "train_loss"), reference, 1e-4 * reference);
  EXPECT_NEAR(last_metric(zero / "metrics.csv", "train_loss"), reference, 1e-4 * reference);
  EXPECT_EQ(last_metric(slim / "metrics.csv", "staleness_max"), 0);
  for (const auto& p : {sgd, slim, zero}) fs::remove_all(p);
}

TEST(AsyncSim, BadSimulatorInputExitsTwo) {
  fs::path trace = fresh_dir("bad_trace");
  std::ofstream(trace) << "# dsgd arrival trace v1\nworkers 4\n0\n1\nseven\n";
  fs::path out = fresh_dir("bad_out");
  CliResult r = run_dsgd("run " + kSmall + "--set algo=asgd --set workers=4 --set timing.trace=" +
                         trace.string() + " --out " + out.string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find(":5: malformed trace"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(out));

  std::ofstream(trace) << "# dsgd arrival trace v1\nworkers 4\n0\n1\n2\n";
  r = run_dsgd("run " + kSmall + "--set algo=asgd --set workers=3 --set timing.trace=" +
               trace.string() + " --out " + out.string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("4 workers"), std::string::npos) << r.output;

  r = run_dsgd("run " + kSmall + "--set algo=asgd --set workers=0 --out " + out.string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("workers"), std::string::npos) << r.output;

  r = run_dsgd("run " + kSmall + "--set algo=dana-fast --set workers=4 --out " + out.string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("dana-"), std::string::npos) << r.output;

  r = run_dsgd("run " + kSmall + "--set algo=asgd --set workers=4 --set hier.group_size=2 --out " +
               out.string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_FALSE(fs::exists(out));
  fs::remove_all(trace);
}

}  // namespace

namespace {

TEST(Resume, SingleWorkerContinuesExactly) { expect_resume_matches(kSmall, "--set algo=sgd", 256); }
TEST(Resume, DanaZeroContinuesExactly) {
  expect_resume_matches(kSmall, "--set algo=dana-zero --set workers=4 --set timing.shape=3", 256);
}
TEST(Resume, DanaSlimContinuesExactly) {
  expect_resume_matches(kSmall, "--set algo=dana-slim --set workers=3", 256);
}

// A worker process killed outright (SIGKILL) after its first checkpoint: resuming loses nothing.
TEST(Resume, AfterKillMatchesUninterruptedRun) {
  fs::path full = fresh_dir("kill_full"), part = fresh_dir("kill_part"), pid = fresh_dir("pid");
  std::string job =
      "run " + kSmall + "--set algo=dana-zero --set workers=4 --set eval_every=0.125 ";
  ASSERT_EQ(run_dsgd(job + "--out " + full.string()).exit_code, 0);
  std::string background = "(" + std::string(DSGD_BINARY) + " " + job + "--out " + part.string() +
                           " > /dev/null 2>&1 & echo $! > " + pid.string() + ")";
  ASSERT_EQ(std::system(background.c_str()), 0);
  while (!fs::exists(part / "checkpoint.pt")) ::usleep(2000);
  pid_t process = std::stoi(read_file(pid));
  ::kill(process, SIGKILL);
  // Gone, or a zombie nobody has reaped yet (its files are closed either way).
  auto alive = [&] {
    std::string stat = read_file("/proc/" + std::to_string(process) + "/stat");
    size_t paren = stat.rfind(')');
    return !stat.empty() && paren != std::string::npos && stat.substr(paren + 2, 1) != "Z";
  };
  for (int i = 0; i < 5000 && alive(); ++i) ::usleep(2000);
  CliResult r = run_dsgd("run --resume " + part.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(without_columns(read_csv(part / "metrics.csv"), {"wall_time"}),
            without_columns(read_csv(full / "metrics.csv"), {"wall_time"}));
  for (const auto& p : {full, part, pid}) fs::remove_all(p);
}

TEST(Resume, WithoutCheckpointExitsTwo) {
  CliResult r = run_dsgd("run --resume /nonexistent/run");
  EXPECT_EQ(r.exit_code, 2) << r.output;
}

}  // namespace
