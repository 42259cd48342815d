// Resource keys held against the host before anything starts (run/host_limits.h), and a stop
// requested before training (core/interrupt.h): a typo such as threads = 100000 ends with exit 2
// before a thread or a folder exists; SIGTERM while an image folder decodes ends the run within
// the bound, naming the phase, with nothing written.
#include <gtest/gtest.h>
#include <signal.h>
#include <stb/stb_image_write.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "cli_helpers.h"
#include "core/interrupt.h"
#include "run/host_limits.h"
#include "run/session.h"
#include "train/config.h"

namespace {

using namespace dsgd::testing;  // NOLINT(build/namespaces): the shared helpers of cli_helpers.h

TEST(Limits, ThreadsBeyondTheHostStopBeforeAThreadOrAFolderExists) {
  const fs::path out = fresh_dir("limits_threads");
  CliResult r = run_dsgd("run --set threads=100000 --out " + out.string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  const dsgd::HostLimits limits = dsgd::host_limits();
  EXPECT_NE(r.output.find("threads = 100000 is more than this host can run: at most " +
                          std::to_string(dsgd::kThreadsPerCore * limits.cores)),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("check_limits = false"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(out));

  r = run_dsgd("run --set sim.replicas=100000 --set threads=1 --out " + out.string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("sim.replicas = 100000 with 1 thread each is 100000 compute threads"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(out));

  r = run_dsgd("run --set algo=dana-zero --set workers=2 --set servers=3 --out " + out.string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("servers = 3 is more than the 2 workers"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(out));
}

// bn_batches beyond the training set's batches (a typo that makes every evaluation re-read the
// data thousands of times) stops before the folder exists, naming the most that makes sense.
TEST(Limits, BnBatchesBeyondTheDataStopBeforeAFolderExists) {
  const fs::path out = fresh_dir("limits_bn_batches");
  const CliResult r = run_dsgd(
      "run --set dataset=synthetic --set model=lenet5-bn --set batch_size=32 "
      "--set bn_batches=1000000000 --out " +
      out.string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  // synthetic: 4096 training samples, 128 batches of 32.
  EXPECT_NE(r.output.find("bn_batches = 1000000000 re-estimates BatchNorm from 32000000000 "
                          "samples at each evaluation, more than the 4096 training samples"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("use at most bn_batches = 128 (the default"), std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(out));
}

TEST(Limits, TheOverrideRunsWhatTheKeysAskFor) {
  const fs::path out = fresh_dir("limits_override");
  const int64_t threads = dsgd::kThreadsPerCore * dsgd::host_limits().cores + 1;
  run_ok(
      "run --set dataset=synthetic --set model=mlp --set epochs=0.05 --set check_limits=false "
      "--set threads=" +
          std::to_string(threads),
      out);
  EXPECT_GT(last_metric(out / "metrics.csv", "epoch"), 0.0);
  EXPECT_EQ(nlohmann::json::parse(read_file(out / "summary.json"))["threads"], threads);
  fs::remove_all(out);
}

TEST(Limits, SweepJobsBeyondTheHostStopTheSweepBeforeItStarts) {
  const fs::path dir = fresh_dir("limits_sweep");
  fs::create_directories(dir);
  std::ofstream(dir / "spec.toml")
      << "out = \"" << (dir / "out").string() << "\"\n[grid]\nworkers = [2, 4]\n";
  const CliResult r = run_dsgd("sweep " + (dir / "spec.toml").string() + " --jobs 1000");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--jobs 1000 is more than this host can run"), std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(dir / "out"));
  fs::remove_all(dir);
}

// A folder whose decoding takes seconds: one 256 x 256 colour PNG, hard-linked 2000 times into
// each class of each split (decoding reads every link anew; 1.6 GB decoded).
fs::path slow_image_folder() {
  const fs::path dir = fresh_dir("limits_images");
  const int side = 256;
  std::vector<unsigned char> pixels(static_cast<size_t>(side * side * 3));
  for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<unsigned char>((i * 7) % 251);
  fs::create_directories(dir);
  const fs::path original = dir / "original.png";
  EXPECT_NE(stbi_write_png(original.c_str(), side, side, 3, pixels.data(), side * 3), 0);
  for (const char* split : {"train", "test"}) {
    for (const char* cls : {"a", "b"}) {
      fs::create_directories(dir / split / cls);
      for (int i = 0; i < 2000; ++i) {
        fs::create_hard_link(original, dir / split / cls / (std::to_string(i) + ".png"));
      }
    }
  }
  fs::remove(original);
  return dir;
}

TEST(Interrupts, SigtermWhileAnImageFolderDecodesEndsTheRunWithNothingWritten) {
  const fs::path data = slow_image_folder();
  const fs::path out = fresh_dir("limits_decode_run");
  const fs::path log = fresh_dir("limits_decode_log");
  const std::string command = std::string(DSGD_BINARY) + " run --set dataset=" + data.string() +
                              " --set model=mlp --out " + out.string() + " > " + log.string() +
                              " 2>&1";
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    execl("/bin/sh", "sh", "-c", ("exec " + command).c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  // Signal once the run has an image of the folder open: it is decoding.
  const fs::path fds = "/proc/" + std::to_string(child) + "/fd";
  const std::string folder = fs::canonical(data).string();
  bool decoding = false;
  for (int polls = 0; polls < 20000 && !decoding; ++polls) {
    std::error_code ec;
    for (const auto& fd : fs::directory_iterator(fds, ec)) {
      std::error_code link_error;
      const std::string target = fs::read_symlink(fd.path(), link_error).string();
      if (target.rfind(folder, 0) == 0 && target.size() > 4 &&
          target.compare(target.size() - 4, 4, ".png") == 0) {
        decoding = true;
      }
    }
    if (ec) break;  // the process has gone
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_TRUE(decoding) << read_file(log);
  const auto signalled = std::chrono::steady_clock::now();
  ASSERT_EQ(kill(child, SIGTERM), 0);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - signalled).count();
  const std::string output = read_file(log);
  ASSERT_TRUE(WIFEXITED(status)) << output;
  EXPECT_EQ(WEXITSTATUS(status), 143) << output;
  EXPECT_NE(output.find("interrupted by SIGTERM while decoding the image folder"),
            std::string::npos)
      << output;
  // The bound: decoding stops between images, far inside the grace period that would end it.
  EXPECT_LT(seconds, static_cast<double>(dsgd::kDefaultGraceSeconds)) << output;
  EXPECT_FALSE(fs::exists(out));
  for (const auto& p : {data, log}) fs::remove_all(p);
}

}  // namespace

namespace {

// A small synthetic run, `dsgd run --set dataset=synthetic --set model=lenet5-bn --set epochs=0.25
// --set threads=1 SETTINGS --out DIR/struck` with ENV before it and its output in DIR/log: the
// exit status and the log.
struct StruckRun {
  int status;
  std::string log;
};
StruckRun run_struck(const std::string& env, const std::string& settings, const fs::path& dir) {
  const std::string command = env + " " + std::string(DSGD_BINARY) +
                              " run --set dataset=synthetic --set model=lenet5-bn --set "
                              "epochs=0.25 --set threads=1 " +
                              settings + " --out " + (dir / "struck").string() + " > " +
                              (dir / "log").string() + " 2>&1";
  fs::create_directories(dir);
  const int status = std::system(command.c_str());
  return {status, read_file(dir / "log")};
}

// SIGTERM while a run times its compute-format candidates (here at the second step of the first,
// contiguous fp32) ends it after that step, naming the candidate, with nothing written: a stop does
// not wait out the other candidates' timing, seconds each where bf16 is emulated.
TEST(Interrupts, SigtermWhileTimingTheComputeFormatStopsAfterTheStepInProgress) {
  const fs::path out = fresh_dir("limits_timing");
  const StruckRun run = run_struck("DSGD_FAULT=timing:SIGTERM@2", "", out);
  ASSERT_TRUE(WIFEXITED(run.status)) << run.log;
  EXPECT_EQ(WEXITSTATUS(run.status), 128 + SIGTERM) << run.log;
  EXPECT_NE(
      run.log.find("interrupted by SIGTERM while timing the compute format (contiguous, fp32)"),
      std::string::npos)
      << run.log;
  EXPECT_FALSE(fs::exists(out / "struck")) << run.log;
  fs::remove_all(out);
}

// A run held up where it cannot look at the request (here: a BatchNorm re-estimation over 4000
// batches, beyond the data with the limits' override, struck by SIGTERM as it starts, which
// the evaluation's 10 s to finish let go on) is ended by the grace timer, with 128 + the signal, a
// line saying why, and the files it had written whole.
TEST(Interrupts, TheGraceTimerEndsARunHeldUpInALongCall) {
  const fs::path out = fresh_dir("limits_grace");
  const StruckRun run = run_struck("DSGD_GRACE_SECONDS=1 DSGD_FAULT=evaluation:SIGTERM",
                                   "--set bn_batches=4000 --set check_limits=false", out);
  ASSERT_TRUE(WIFEXITED(run.status)) << run.log;
  EXPECT_EQ(WEXITSTATUS(run.status), 128 + SIGTERM) << run.log;
  EXPECT_NE(run.log.find("did not stop within the grace period"), std::string::npos) << run.log;
  EXPECT_NO_THROW(nlohmann::json::parse(read_file(out / "struck" / "summary.json")));
  fs::remove_all(out);
}

}  // namespace

namespace {

// A second process on a run folder that is in use (here: `dsgd run --resume` while this process's
// session still holds it) is refused with exit 2 naming the process, and leaves the folder's files
// as they were.
TEST(Interrupts, AFolderInUseIsRefusedAndLeftAlone) {
  const fs::path dir = fresh_dir("limits_in_use");
  dsgd::Session session(dsgd::parse_config(
      "", {"dataset=synthetic", "model=mlp", "batch_size=16", "epochs=1", "eval_every=0.25"}));
  session.open_folder(dir.string());
  const torch::Tensor loss = torch::ones({});
  for (int64_t u = 1; !fs::exists(dir / "checkpoint.pt"); ++u) {
    session.after_update(u, loss, static_cast<double>(u), session.model().params(), {});
  }
  const std::string metrics = read_file(dir / "metrics.csv");
  const CliResult r = run_dsgd("run --resume " + dir.string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("is in use by another dsgd process (pid " + std::to_string(::getpid())),
            std::string::npos)
      << r.output;
  EXPECT_EQ(read_file(dir / "metrics.csv"), metrics);
  fs::remove_all(dir);
}

}  // namespace
