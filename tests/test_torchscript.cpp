// Networks from Python: a TorchScript LeNet-5-BN, given the built-in's initial parameters, trains
// to the built-in's parameters; a TorchScript model runs through the CLI under the simulators;
// files that cannot be trained are refused before training, naming the problem. The fixtures in
// tests/fixtures/ were written by `/usr/bin/python3 examples/export_model.py --fixtures` (Debian's
// PyTorch 1.13); one test exports with the linked LibTorch's own PyTorch when there is one, and
// is skipped otherwise: no test needs Python.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "algos/async_rule.h"
#include "algos/local_sgd.h"
#include "cli_helpers.h"
#include "core/errors.h"
#include "core/flat_model.h"
#include "models/model.h"
#include "train/training_context.h"

namespace dsgd {
namespace {

using testing::fresh_dir;
using testing::run_dsgd;

const std::string kFixtures = std::string(DSGD_SOURCE_DIR) + "/tests/fixtures/";
const InputShape kMnist{1, 28, 28, 10};

double relative_error(const torch::Tensor& a, const torch::Tensor& b) {
  return (a - b).norm().item<double>() / b.norm().item<double>();
}

// The built-in lenet5-bn and the TorchScript one with the built-in's initial parameters and
// buffers copied in.
struct Twins {
  ModelReplica builtin{make_model("lenet5-bn", kMnist), nullptr, false, kMnist.task()};
  ModelReplica scripted{make_model(kFixtures + "lenet5_bn.pt", kMnist), nullptr, false,
                        kMnist.task()};
  Twins() {
    builtin.flat = std::make_unique<FlatModel>(builtin.net, torch::kCPU);
    scripted.flat = std::make_unique<FlatModel>(scripted.net, torch::kCPU);
    EXPECT_EQ(scripted.flat->num_params(), builtin.flat->num_params());
    EXPECT_EQ(scripted.flat->num_buffers(), builtin.flat->num_buffers());
    torch::NoGradGuard no_grad;
    scripted.flat->params().copy_(builtin.flat->params());
    scripted.flat->buffers().copy_(builtin.flat->buffers());
  }
};

Batch random_batch() {
  return {torch::randn({16, 1, 28, 28}), torch::randint(10, {16}, torch::kLong)};
}

TEST(TorchScript, LeNet5BnTrainsLikeTheBuiltIn) {
  torch::manual_seed(11);
  Twins twins;
  ModelReplica& builtin = twins.builtin;
  ModelReplica& scripted = twins.scripted;
  const SgdOptions sgd{0.9, false, 5e-4};
  LocalSgd builtin_sgd(sgd, builtin.flat->params());
  LocalSgd scripted_sgd(sgd, scripted.flat->params());
  const torch::Tensor start = builtin.flat->params().clone();
  for (int step = 0; step < 50; ++step) {
    Batch batch = random_batch();
    for (auto [replica, optimizer] :
         {std::make_pair(&builtin, &builtin_sgd), std::make_pair(&scripted, &scripted_sgd)}) {
      replica->compute_gradient(batch, torch::kCPU);
      optimizer->step(replica->flat->params(), replica->flat->grads(), 0.05);
    }
  }
  // Training moved the parameters far more than the two differ.
  EXPECT_GT(relative_error(builtin.flat->params(), start), 1e-2);
  EXPECT_LT(relative_error(scripted.flat->params(), builtin.flat->params()), 1e-5);
  // BatchNorm running statistics are buffers of both, updated alike in train mode.
  EXPECT_LT(relative_error(scripted.flat->buffers(), builtin.flat->buffers()), 1e-5);
  // BatchNorm re-estimation (what every evaluation does first): the exact average over the
  // batches, although a scripted BatchNorm's momentum cannot be set to None.
  torch::NoGradGuard no_grad;
  const std::vector<torch::Tensor> bn_batches = {torch::randn({16, 1, 28, 28}),
                                                 torch::randn({16, 1, 28, 28}) * 2 + 1,
                                                 torch::randn({16, 1, 28, 28})};
  for (Model* model : {builtin.net.get(), scripted.net.get()}) {
    ASSERT_TRUE(model->has_batchnorm());
    model->start_batchnorm_average();
    for (const auto& x : bn_batches) model->forward(x);
    model->end_batchnorm_average();
  }
  EXPECT_LT(relative_error(scripted.flat->buffers(), builtin.flat->buffers()), 1e-5);
  // eval() reaches the scripted module: the same logits from the running statistics.
  builtin.net->eval();
  scripted.net->eval();
  const torch::Tensor x = torch::randn({4, 1, 28, 28});
  EXPECT_LT(relative_error(scripted.net->forward(x), builtin.net->forward(x)), 1e-5);
}

// 50 dana-zero updates from N = 4 workers in one fixed, shuffled arrival order, each gradient
// computed on the model at the parameters its worker was sent, as the simulator does.
TEST(TorchScript, LeNet5BnUnderDanaZeroLikeTheBuiltIn) {
  torch::manual_seed(12);
  Twins twins;
  const AsyncAlgorithm& dana = find_async_algorithm("dana-zero");
  AsyncOptions options;
  options.weight_decay = 5e-4;
  options = with_defaults(dana, options);
  const int64_t workers = 4;
  std::vector<int64_t> order;
  for (int k = 0; k < 50; ++k) order.push_back((k * 7 + k / 3) % workers);
  std::vector<Batch> batches;
  for (int k = 0; k < 50; ++k) batches.push_back(random_batch());
  std::vector<torch::Tensor> centers;
  const torch::Tensor start = twins.builtin.flat->params().detach().clone();
  for (ModelReplica* replica : {&twins.builtin, &twins.scripted}) {
    const torch::Tensor theta0 = replica->flat->params().detach().clone();
    auto server = dana.make_server(options, theta0, workers);
    std::vector<std::unique_ptr<AsyncWorkerRule>> rules;
    std::vector<torch::Tensor> sent;
    for (int64_t i = 0; i < workers; ++i) {
      rules.push_back(dana.make_worker(options, i, theta0));
      sent.push_back(torch::empty_like(theta0));
      server->parameters_for(i, sent.back());
    }
    for (size_t k = 0; k < order.size(); ++k) {
      const int64_t i = order[k];
      {
        torch::NoGradGuard no_grad;
        replica->flat->params().copy_(sent[i]);
      }
      replica->compute_gradient(batches[k], torch::kCPU);
      const torch::Tensor message = rules[i]->message(replica->flat->grads(), sent[i], 0.05);
      server->apply(i, message, 0.05);
      server->parameters_for(i, sent[i]);
    }
    centers.push_back(server->center().clone());
  }
  // The updates moved θ far more than the two runs differ.
  EXPECT_GT(relative_error(centers[0], start), 1e-2);
  EXPECT_LT(relative_error(centers[1], centers[0]), 1e-5);
}

std::string error_of(const std::string& model, const InputShape& shape) {
  try {
    make_model(model, shape);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(TorchScript, FilesThatCannotTrainAreRefusedBeforeTraining) {
  EXPECT_NE(error_of(kFixtures + "not_a_module.pt", kMnist).find("is not a TorchScript module"),
            std::string::npos);
  EXPECT_NE(error_of(kFixtures + "missing.pt", kMnist).find("is not a TorchScript module"),
            std::string::npos);
  EXPECT_NE(error_of(kFixtures + "no_parameters.pt", kMnist).find("has no parameters"),
            std::string::npos);
  // lenet5_bn.pt was exported for 1x28x28: 3x32x32 images do not fit its first linear layer.
  const std::string wrong_input = error_of(kFixtures + "lenet5_bn.pt", {3, 32, 32, 10});
  EXPECT_NE(wrong_input.find("cannot take the dataset's input [2, 3, 32, 32]"), std::string::npos)
      << wrong_input;
  // Ten logits where the dataset has 100 classes: both shapes named.
  const std::string wrong_output = error_of(kFixtures + "small_cnn.pt", {1, 28, 28, 100});
  EXPECT_NE(wrong_output.find("to [2, 10] logits, where [2, 100] are needed"), std::string::npos)
      << wrong_output;
}

TEST(TorchScript, RunsUnderBothSimulatorsThroughTheCli) {
  for (const char* algo : {"dana-zero", "hier-avg --set hier.group_size=2"}) {
    SCOPED_TRACE(algo);
    const auto out = fresh_dir("torchscript_run");
    const testing::CliResult r =
        run_dsgd(std::string("run --set dataset=synthetic --set model=") + kFixtures +
                 "small_cnn.pt --set workers=4 --set epochs=0.5 --set eval_every=0.5 "
                 "--set threads=1 --set algo=" +
                 algo + " --out " + out.string());
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const auto summary = nlohmann::json::parse(testing::read_file(out / "summary.json"));
    EXPECT_EQ(summary["status"], "ok");
    EXPECT_GT(summary["parameters"].get<int64_t>(), 0);
    std::filesystem::remove_all(out);
  }
  const testing::CliResult bad = run_dsgd("run --set model=" + kFixtures + "no_parameters.pt");
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_NE(bad.output.find("has no parameters"), std::string::npos) << bad.output;
}

// The Python whose PyTorch is the LibTorch linked here (the same major.minor version):
// $DSGD_TORCH_PYTHON (scripts/build-torch.sh has CMake set it for ctest), else python3. Empty,
// with what was found in `why`, when there is none.
std::string python_of_linked_torch(std::string& why) {
  std::vector<std::string> candidates;
  if (const char* python = std::getenv("DSGD_TORCH_PYTHON"); python != nullptr && *python) {
    candidates.push_back(python);
  }
  candidates.push_back("python3");
  const std::string linked =
      std::to_string(TORCH_VERSION_MAJOR) + "." + std::to_string(TORCH_VERSION_MINOR) + ".";
  for (const std::string& python : candidates) {
    const std::string command = python + " -c 'import torch; print(torch.__version__)' 2>/dev/null";
    std::string version;
    if (FILE* pipe = ::popen(command.c_str(), "r")) {
      char line[256];
      while (std::fgets(line, sizeof line, pipe) != nullptr) version = line;
      ::pclose(pipe);
    }
    while (!version.empty() && std::isspace(static_cast<unsigned char>(version.back()))) {
      version.pop_back();
    }
    if (version.rfind(linked, 0) == 0) return python;
    why += python + (version.empty() ? " has no PyTorch; " : " has PyTorch " + version + "; ");
  }
  why += "dsgd links LibTorch " + std::string(TORCH_VERSION);
  return "";
}

// A network exported now, by the PyTorch of the LibTorch dsgd links (examples/export_model.py, as
// the README has users do), trains under a simulator: the file format of that version, not only
// the fixtures above (exported by Debian's PyTorch 1.13), is read, trained and checkpointed.
TEST(TorchScript, ExportedByTheLinkedPyTorchTrains) {
  std::string why;
  const std::string python = python_of_linked_torch(why);
  if (python.empty()) GTEST_SKIP() << "no Python with the linked LibTorch's PyTorch: " << why;
  const auto dir = fresh_dir("torchscript_export");
  std::filesystem::create_directories(dir);
  const std::string model = (dir / "small_cnn.pt").string();
  const std::string export_command = python + " " + DSGD_SOURCE_DIR +
                                     "/examples/export_model.py --out " + model + " > " +
                                     (dir / "export.log").string() + " 2>&1";
  ASSERT_EQ(std::system(export_command.c_str()), 0) << testing::read_file(dir / "export.log");
  const auto out = dir / "run";
  const testing::CliResult r =
      run_dsgd("run --set dataset=synthetic --set model=" + model +
               " --set algo=dana-zero --set workers=4 --set lr=0.05 --set lr_schedule=constant "
               "--set warmup_epochs=0 --set epochs=3 --set threads=1 --out " +
               out.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto summary = nlohmann::json::parse(testing::read_file(out / "summary.json"));
  EXPECT_EQ(summary["status"], "ok");
  // Ten classes: chance is 0.1; three epochs (96 updates) reach about 0.7.
  EXPECT_GT(summary["final_test_acc"].get<double>(), 0.5) << r.output;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace dsgd
