// End-to-end checks of the dsgd executable: real runs, run folders, exit codes and messages.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli_helpers.h"

namespace {

using namespace dsgd::testing;  // NOLINT(build/namespaces): the shared helpers of cli_helpers.h
namespace fs = std::filesystem;

// Small, fast, learnable: an MLP on the synthetic dataset.
const std::string kQuick =
    "--set algo=sgd --set lr=0.1 --set lr_schedule=constant --set warmup_epochs=0 "
    "--set dataset=synthetic --set model=mlp --set epochs=1 --set threads=1 ";

TEST(Cli, QuickRunWritesRunFolder) {
  fs::path out = fresh_dir("quick");
  CliResult r = run_dsgd("run " + kQuick + "--set eval_every=0.5 --out " + out.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::string metrics = read_file(out / "metrics.csv");
  EXPECT_EQ(metrics.substr(0, metrics.find('\n')),
            "epoch,updates,sim_time,wall_time,lr,train_loss,test_loss,test_acc,staleness_mean,"
            "staleness_max,gap_rms");
  EXPECT_EQ(std::count(metrics.begin(), metrics.end(), '\n'), 3);  // header + 2 evaluations
  auto summary = nlohmann::json::parse(read_file(out / "summary.json"));
  EXPECT_EQ(summary["status"], "ok");
  EXPECT_DOUBLE_EQ(summary["epochs"].get<double>(), 1.0);
  EXPECT_GT(summary["final_test_acc"].get<double>(), 0.9);  // synthetic data is easy
  EXPECT_LE(summary["final_test_acc"].get<double>(), 1.0);
  EXPECT_NE(read_file(out / "config.toml").find("model = 'mlp'"), std::string::npos);
  // The resolved config is valid input again and reproduces the run exactly.
  fs::path again = fresh_dir("again");
  ASSERT_EQ(
      run_dsgd("run -c " + (out / "config.toml").string() + " --out " + again.string()).exit_code,
      0);
  EXPECT_EQ(without_columns(read_csv(again / "metrics.csv"), {"wall_time"}),
            without_columns(read_csv(out / "metrics.csv"), {"wall_time"}));
  fs::remove_all(out);
  fs::remove_all(again);
}

void expect_bad_input(const std::string& args, std::vector<std::string> needles) {
  fs::path out = fresh_dir("bad");
  CliResult r = run_dsgd("run " + args + " --out " + out.string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  for (const auto& n : needles) EXPECT_NE(r.output.find(n), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("hint:"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(out)) << "bad input left a run folder behind";
}

TEST(Cli, BadInputExitsTwoWithoutRunFolder) {
  expect_bad_input(kQuick + "--set lerning_rate=0.1", {"lerning_rate"});
  expect_bad_input(kQuick + "--set lr=abc", {"'lr'", "number"});
  expect_bad_input(kQuick + "--set model=resnet2", {"resnet2", "resnet20"});
  expect_bad_input("--set dataset=fashion-mnst", {"fashion-mnst", "fashion-mnist"});
  expect_bad_input("--set data_dir=/nonexistent/fmnist", {"/nonexistent/fmnist"});
  expect_bad_input("-c /nonexistent.toml", {"/nonexistent.toml"});
}

// `--resume` and `report` given a folder that holds no run: the message names the folder and what
// it lacks, and the hint is about that command (not -c's config file); nothing is written.
TEST(Cli, AFolderWithoutARunIsRefusedByName) {
  fs::path empty = fresh_dir("no_run");
  fs::create_directories(empty);
  CliResult resume = run_dsgd("run --resume " + empty.string());
  EXPECT_EQ(resume.exit_code, 2) << resume.output;
  EXPECT_NE(
      resume.output.find("'" + empty.string() + "' is not a run folder: it has no config.toml"),
      std::string::npos)
      << resume.output;
  EXPECT_NE(resume.output.find("hint: give the folder a run wrote"), std::string::npos)
      << resume.output;
  EXPECT_EQ(resume.output.find("check the path of the config file"), std::string::npos)
      << resume.output;

  CliResult gone = run_dsgd("run --resume " + (empty / "gone").string());
  EXPECT_EQ(gone.exit_code, 2) << gone.output;
  EXPECT_NE(gone.output.find("is not a run folder: there is no such folder"), std::string::npos)
      << gone.output;

  // The error alone: no "report: " line for a report that was never written.
  CliResult report = run_dsgd("report " + empty.string());
  EXPECT_EQ(report.exit_code, 2) << report.output;
  EXPECT_NE(report.output.find("dsgd: error: no runs in"), std::string::npos) << report.output;
  EXPECT_EQ(report.output.find("report:"), std::string::npos) << report.output;
  EXPECT_TRUE(fs::is_empty(empty));
  fs::remove_all(empty);
}

// A run that cannot fit in memory says so before anything is allocated or written: a million
// DANA-Slim workers on ResNet-20 would hold a terabyte (every worker's velocity and the server's
// record of what it sent each). The estimate's parts and the key to change are named.
TEST(Cli, RunThatCannotFitStopsBeforeItStarts) {
  expect_bad_input(
      "--set dataset=synthetic --set model=resnet20 --set algo=dana-slim "
      "--set workers=1000000",
      {"needs about", "GB are available", "server state", "workers' state",
       "lower workers (now 1000000)"});
}

TEST(Cli, TruncatedIdxFileExitsTwo) {
  fs::path data = fresh_dir("truncated");
  fs::create_directories(data);
  // A valid labels file and an images file whose header promises more pixels than it holds.
  auto write = [](const fs::path& p, const std::vector<unsigned char>& bytes) {
    std::ofstream f(p, std::ios::binary);
    f.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  };
  std::vector<unsigned char> images = {0, 0, 8, 3, 0, 0, 0, 4, 0, 0, 0, 28, 0, 0, 0, 28};
  images.resize(images.size() + 100, 7);
  std::vector<unsigned char> labels = {0, 0, 8, 1, 0, 0, 0, 4, 1, 2, 3, 4};
  for (std::string split : {"train", "t10k"}) {
    write(data / (split + "-images-idx3-ubyte"), images);
    write(data / (split + "-labels-idx1-ubyte"), labels);
  }
  expect_bad_input("--set data_dir=" + data.string(), {"images-idx3-ubyte"});
  fs::remove_all(data);
}

TEST(Cli, DivergenceExitsThreeAndKeepsResults) {
  fs::path out = fresh_dir("diverge");
  CliResult r =
      run_dsgd("run " + kQuick + "--set lr=1e30 --set momentum=0.99 --out " + out.string());
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find("diverged"), std::string::npos) << r.output;
  auto summary = nlohmann::json::parse(read_file(out / "summary.json"));
  EXPECT_EQ(summary["status"], "diverged");
  EXPECT_TRUE(summary.contains("diverged_at_epoch"));
  EXPECT_TRUE(fs::exists(out / "config.toml"));
  fs::remove_all(out);
}

TEST(Cli, RefusesToOverwriteAnEarlierRun) {
  fs::path out = fresh_dir("twice");
  ASSERT_EQ(run_dsgd("run " + kQuick + "--set epochs=0.2 --out " + out.string()).exit_code, 0);
  std::string before = read_file(out / "metrics.csv");
  CliResult r = run_dsgd("run " + kQuick + "--set epochs=0.2 --out " + out.string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_EQ(read_file(out / "metrics.csv"), before);
  fs::remove_all(out);
}

TEST(Cli, ListAndHelp) {
  CliResult r = run_dsgd("list");
  EXPECT_EQ(r.exit_code, 0);
  for (auto name : {"sgd", "lenet5-bn", "resnet20", "fashion-mnist", "cifar10"}) {
    EXPECT_NE(r.output.find(name), std::string::npos) << name;
  }
  CliResult keys = run_dsgd("list keys");
  EXPECT_NE(keys.output.find("hier.global_period"), std::string::npos);
  // Which keys a resume may change, as check_resume_changes decides.
  auto line_of = [&keys](const std::string& key) {
    const size_t at = keys.output.find("\n  " + key + " ");
    return at == std::string::npos
               ? std::string()
               : keys.output.substr(at + 1, keys.output.find('\n', at + 1) - at);
  };
  for (const char* key : {"epochs", "threads", "precision", "eval_every"}) {
    EXPECT_NE(line_of(key).find("(may change on --resume)"), std::string::npos) << line_of(key);
  }
  for (const char* key : {"workers", "lr", "momentum", "dc.lambda", "seed"}) {
    ASSERT_NE(line_of(key), "") << key;
    EXPECT_EQ(line_of(key).find("may change on --resume"), std::string::npos) << line_of(key);
  }
  EXPECT_EQ(run_dsgd("--help").exit_code, 0);
  EXPECT_EQ(run_dsgd("frobnicate").exit_code, 2);
}

TEST(Cli, CudaIsAClearErrorWithoutCuda) {
  CliResult r = run_dsgd("run " + kQuick + "--set device=cuda --out " + fresh_dir("cuda").string());
  if (r.exit_code == 0) GTEST_SKIP() << "this LibTorch has CUDA and a GPU";
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("cuda"), std::string::npos) << r.output;
}

// Convergence on real data: one epoch of single-worker SGD on lenet5-bn and Fashion-MNIST.
TEST(Cli, LeNet5BnLearnsFashionMnist) {
  if (!fs::exists("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz")) {
    GTEST_SKIP() << "Fashion-MNIST not installed (apt-get install dataset-fashion-mnist)";
  }
  fs::path out = fresh_dir("fmnist");
  CliResult r = run_dsgd(
      "run --set algo=sgd --set lr=0.1 --set lr_schedule=constant "
      "--set warmup_epochs=0 --set epochs=1 --out " +
      out.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto summary = nlohmann::json::parse(read_file(out / "summary.json"));
  EXPECT_GT(summary["final_test_acc"].get<double>(), 0.85);
  fs::remove_all(out);
}

}  // namespace
