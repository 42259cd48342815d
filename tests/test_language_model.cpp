// The language-model task end to end: the task's loss is the mean cross-entropy over tokens (a
// classifier's, bit for bit, over images), its metric is perplexity with lower better, the
// evaluation's perplexity is exp of the hand-computed loss per token, and a run from the CLI on a
// text the test writes learns it (perplexity falling far below the vocabulary's size), records
// perplexity in metrics.csv and summary.json and its vocabulary in config.toml, resumes bit for
// bit, trains under DiLoCo (kavg with AdamW and a Nesterov outer step), and refuses a model that
// does not fit its data, a text that changed under a resume, or a text key on an image run, with
// exit 2 and nothing lost; a sweep started again skips its finished runs, and an estimate names
// its step by a cluster file's key.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_helpers.h"
#include "core/flat_model.h"
#include "data/token_corpus.h"
#include "models/model.h"
#include "models/task.h"
#include "run/evaluator.h"

namespace dsgd {
namespace {

using namespace dsgd::testing;  // NOLINT(build/namespaces): the shared helpers of cli_helpers.h

// A text with structure a small model learns within an epoch: lines of a few sentences, chosen by
// a fixed linear congruential sequence (about 40 KB, 20-odd characters).
fs::path write_learnable_text(const std::string& name) {
  const char* sentences[] = {"the cat sat on the mat", "a dog ran to the park", "we sing at dawn",
                             "to be or not to be", "all is well"};
  const fs::path path = fresh_dir(name);
  std::ofstream out(path);
  uint32_t state = 12345;
  for (int line = 0; line < 2000; ++line) {
    state = state * 1103515245u + 12345u;
    out << sentences[(state >> 16) % 5] << "\n";
  }
  return path;
}

std::string lm_job(const fs::path& text) {
  return "--set dataset=" + text.string() +
         " --set model=transformer --set seq_len=16 --set transformer.layers=1"
         " --set transformer.heads=2 --set transformer.width=32 --set batch_size=8"
         " --set optimizer=adamw --set lr=0.003 --set warmup_epochs=0"
         " --set lr_schedule=constant --set text.eval_windows=64 ";
}

TEST(Task, LanguageModelLossIsTheMeanCrossEntropyOverTokens) {
  torch::manual_seed(0);
  const torch::Tensor logits = torch::randn({2, 3, 5}, torch::kDouble);
  const torch::Tensor targets = torch::tensor({{0, 4, 2}, {1, 1, 3}}, torch::kLong);
  const Task task{TaskKind::kLanguageModel, 5};
  double by_hand = 0;
  for (int b = 0; b < 2; ++b) {
    for (int t = 0; t < 3; ++t) {
      const torch::Tensor row = logits[b][t];
      by_hand += (row.exp().sum().log() - row[targets[b][t].item<int64_t>()]).item<double>();
    }
  }
  EXPECT_NEAR(task.loss(logits, targets).item<double>(), by_hand / 6, 1e-12);
  // A classifier's loss is LibTorch's cross-entropy of [B, C] against [B], bit for bit.
  const torch::Tensor image_logits = torch::randn({4, 10});
  const torch::Tensor labels = torch::tensor({1, 9, 0, 3}, torch::kLong);
  EXPECT_TRUE(torch::equal(Task{}.loss(image_logits, labels),
                           torch::nn::functional::cross_entropy(image_logits, labels)));
  EXPECT_NEAR(task.chance_loss(), std::log(5.0), 1e-15);
}

TEST(Task, ShapeMismatchSaysWhatTheTargetsNeed) {
  const Task task{TaskKind::kLanguageModel, 65};
  const torch::Tensor targets = task.example_targets(2, 8);
  EXPECT_EQ(task.shape_mismatch(torch::zeros({2, 8, 65}), targets), "");
  const std::string wrong = task.shape_mismatch(torch::zeros({2, 65}), targets);
  EXPECT_NE(wrong.find("[2, 65] logits, where [2, 8, 65] are needed"), std::string::npos) << wrong;
  EXPECT_EQ(Task{}.shape_mismatch(torch::zeros({2, 10}), Task{}.example_targets(2, 0)), "");
}

TEST(Task, MainMetricKnowsWhichWayIsBetter) {
  const MainMetric& ppl = main_metric(TaskKind::kLanguageModel);
  const MainMetric& acc = main_metric(TaskKind::kClassification);
  EXPECT_STREQ(ppl.column, "test_ppl");
  EXPECT_STREQ(acc.column, "test_acc");
  EXPECT_TRUE(ppl.reaches(4.0, 5.0));
  EXPECT_FALSE(ppl.reaches(6.0, 5.0));
  EXPECT_TRUE(acc.reaches(0.9, 0.8));
  EXPECT_TRUE(ppl.better(4.0, 5.0));
  EXPECT_TRUE(acc.better(0.9, 0.8));
  EXPECT_DOUBLE_EQ(ppl.shortfall(6.0, 5.0), 1.0);    // a higher perplexity is worse
  EXPECT_DOUBLE_EQ(acc.shortfall(0.75, 1.0), 0.25);  // a lower accuracy is worse
}

// evaluate_tokens's loss is the mean over every target token of every window, its perplexity
// exp of that, and its accuracy the fraction of tokens whose argmax is the next token.
TEST(LanguageModel, EvaluationIsTheMeanOverEveryValidationToken) {
  torch::manual_seed(3);
  const InputShape shape{1, 1, 1, 7, 6};
  std::shared_ptr<Model> net = make_model("transformer", shape, {1, 1, 8});
  FlatModel flat(net);
  const torch::Tensor stream = torch::randint(0, 7, {100}, torch::kInt);
  const torch::Tensor windows = validation_windows(stream, 6);  // 16 windows, 96 targets
  const EvalResult result = evaluate_tokens(flat, windows, torch::kCPU);
  double loss = 0;
  int64_t right = 0;
  net->eval();
  torch::NoGradGuard no_grad;
  for (int64_t w = 0; w < windows.size(0); ++w) {
    const torch::Tensor tokens = windows[w].narrow(0, 0, 6).unsqueeze(0);
    const torch::Tensor next = windows[w].narrow(0, 1, 6);
    const torch::Tensor logits = net->predict(tokens)[0].to(torch::kDouble);
    for (int64_t t = 0; t < 6; ++t) {
      const int64_t target = next[t].item<int64_t>();
      loss += (logits[t].exp().sum().log() - logits[t][target]).item<double>();
      right += logits[t].argmax().item<int64_t>() == target;
    }
  }
  EXPECT_NEAR(result.loss, loss / 96, 1e-5);
  EXPECT_NEAR(result.perplexity(), std::exp(loss / 96), 1e-4);
  EXPECT_DOUBLE_EQ(result.accuracy, static_cast<double>(right) / 96);
}

TEST(LanguageModel, LearnsAText_RecordsPerplexity_AndResumesBitForBit) {
  const fs::path text = write_learnable_text("lm_text.txt");
  const fs::path out = fresh_dir("lm_run");
  run_ok("run " + lm_job(text) + "--set algo=sgd --set epochs=1 --set eval_every=0.25", out);
  const auto rows = read_csv(out / "metrics.csv");
  ASSERT_EQ(rows.size(), 5u);  // header + 4 evaluations
  const auto& header = rows[0];
  const auto column = [&](const std::string& name) {
    const auto at = std::find(header.begin(), header.end(), name);
    EXPECT_NE(at, header.end()) << name;
    return static_cast<size_t>(at - header.begin());
  };
  for (size_t r = 1; r < rows.size(); ++r) {
    const double loss = std::stod(rows[r][column("test_loss")]);
    EXPECT_NEAR(std::stod(rows[r][column("test_ppl")]), std::exp(loss), 1e-4 * std::exp(loss));
  }
  const double first = std::stod(rows[1][column("test_ppl")]);
  const double last = std::stod(rows.back()[column("test_ppl")]);
  const auto summary = nlohmann::json::parse(read_file(out / "summary.json"));
  const int64_t vocabulary = summary["tokens"]["vocabulary"];
  EXPECT_EQ(summary["task"], "language-model");
  EXPECT_EQ(summary["metric"], "test_ppl");
  EXPECT_NEAR(summary["final_test_ppl"].get<double>(), last, 1e-5 * last);
  EXPECT_LT(last, first);
  // A uniform guess is the vocabulary's size; the sentences leave a few choices per line.
  EXPECT_LT(last, vocabulary / 4.0) << "first " << first << ", vocabulary " << vocabulary;
  EXPECT_NE(read_file(out / "config.toml").find("vocabulary = '{"), std::string::npos);
  fs::remove_all(out);
  expect_resume_matches(lm_job(text), "--set algo=sgd --set epochs=1", 257);
  fs::remove(text);
}

TEST(LanguageModel, TrainsUnderDiLoCo) {
  const fs::path text = write_learnable_text("lm_diloco.txt");
  const fs::path out = fresh_dir("lm_diloco");
  run_ok("run " + lm_job(text) +
             "--set algo=kavg --set workers=4 --set kavg.period=10 --set outer.lr=0.7"
             " --set outer.momentum=0.9 --set outer.nesterov=true --set epochs=2",
         out);
  const auto summary = nlohmann::json::parse(read_file(out / "summary.json"));
  EXPECT_EQ(summary["status"], "ok");
  EXPECT_LT(summary["final_test_ppl"].get<double>(),
            summary["tokens"]["vocabulary"].get<double>() / 4.0);
  fs::remove_all(out);
  fs::remove(text);
}

TEST(LanguageModel, AModelThatDoesNotFitItsDataIsRefused) {
  const fs::path text = write_learnable_text("lm_refused.txt");
  const fs::path out = fresh_dir("lm_refused");
  CliResult r =
      run_dsgd("run " + lm_job(text) + "--set algo=sgd --set model=resnet20 --out " + out.string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("classifies images, and the dataset is a token corpus"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(out));
  r = run_dsgd("run --set algo=sgd --set dataset=synthetic --set model=transformer --out " +
               out.string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("is a language model, and the dataset holds images"), std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(out));
  // A text key on an image run is read by nothing: an error, not a silent no-op.
  r = run_dsgd(
      "run --set algo=sgd --set dataset=synthetic --set model=mlp --set seq_len=64 --out " +
      out.string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("seq_len is set, and dataset = \"synthetic\" holds images"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(out));
  fs::remove(text);
}

// `dsgd estimate --json` names the step it timed by the key a cluster file lists it under: a
// language model's carries the transformer's sizes and its windows x seq_len.
TEST(LanguageModel, AnEstimateNamesItsStepAsAClusterFileListsIt) {
  const fs::path text = write_learnable_text("lm_estimate.txt");
  CliResult r = run_dsgd("estimate --json " + lm_job(text) +
                         "--set algo=ssgd --set workers=2 --set epochs=0.05 "
                         "--set cluster=flat-25g --set memory_format=contiguous "
                         "--set precision=fp32");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto estimate = nlohmann::json::parse(r.output.substr(r.output.find('{')));
  EXPECT_EQ(estimate["step"]["key"], "transformer-1x2x32 8x16 contiguous fp32") << r.output;
  fs::remove(text);
}

// The vocabulary a run records is not a key a sweep sets: a sweep started again skips its finished
// language-model runs instead of calling them runs of another config.
TEST(LanguageModel, ASweepStartedAgainSkipsItsFinishedRuns) {
  const fs::path text = write_learnable_text("lm_sweep.txt");
  const fs::path dir = fresh_dir("lm_sweep");
  fs::create_directories(dir);
  const auto write_spec = [&](const char* seeds) {
    std::ofstream(dir / "s.toml") << "out = \"" << (dir / "out").string() << "\"\n"
                                  << "[set]\ndataset = \"" << text.string() << "\"\n"
                                  << "model = \"transformer\"\nseq_len = 16\n"
                                  << "transformer.layers = 1\ntransformer.heads = 2\n"
                                  << "transformer.width = 32\nbatch_size = 8\nepochs = 0.05\n"
                                  << "algo = \"sgd\"\ntext.eval_windows = 16\n"
                                  << "[grid]\nseed = " << seeds << "\n";
  };
  write_spec("[1]");
  CliResult first = run_dsgd("sweep " + (dir / "s.toml").string());
  ASSERT_EQ(first.exit_code, 0) << first.output;
  write_spec("[1, 2]");
  CliResult second = run_dsgd("sweep " + (dir / "s.toml").string());
  EXPECT_EQ(second.exit_code, 0) << second.output;
  EXPECT_NE(second.output.find("1 finished before, 1 to run"), std::string::npos) << second.output;
  fs::remove_all(dir);
  fs::remove(text);
}

// A resume reads the text with the vocabulary its run recorded: a character the run never saw is
// an error naming it, and the run's folder is left as it was.
TEST(LanguageModel, ResumeRefusesATextWithCharactersTheRunNeverSaw) {
  const fs::path text = write_learnable_text("lm_changed.txt");
  const fs::path out = fresh_dir("lm_changed");
  run_ok("run " + lm_job(text) + "--set algo=sgd --set epochs=0.1", out);
  const std::string metrics = read_file(out / "metrics.csv");
  std::ofstream(text, std::ios::app) << "Zebra!\n";
  CliResult r = run_dsgd("run --resume " + out.string() + " --set epochs=0.2");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("is not in the run's vocabulary"), std::string::npos) << r.output;
  EXPECT_EQ(read_file(out / "metrics.csv"), metrics);
  fs::remove_all(out);
  fs::remove(text);
}

}  // namespace
}  // namespace dsgd
