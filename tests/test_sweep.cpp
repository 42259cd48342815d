// Sweeps and reports: a spec expands to the points it declares, bad specs are refused before
// anything runs, a sweep runs every point once (also across an interruption), and the report's
// numbers are the runs' own.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <csignal>
#include <regex>
#include <thread>

#include "cli_helpers.h"
#include "core/errors.h"
#include "experiment/claim_verdict.h"
#include "experiment/plots.h"
#include "experiment/report.h"
#include "experiment/report_figures.h"
#include "experiment/run_results.h"
#include "experiment/seed_test.h"
#include "experiment/sweep_json.h"
#include "experiment/sweep_runner.h"
#include "experiment/sweep_spec.h"
#include "run/host_limits.h"

namespace dsgd {
namespace {

using testing::fresh_dir;
using testing::read_file;
using testing::run_dsgd;
namespace fs = std::filesystem;

// A few seconds per run on one thread: a synthetic problem a small MLP learns.
const char* const kTinySettings = R"(
[set]
dataset = "synthetic"
model = "mlp"
batch_size = 16
epochs = 1
eval_every = 0.5
lr = 0.05
)";

// The colour a figure's gnuplot script gives the line with this legend title.
std::string colour_of(const std::string& script, const std::string& title) {
  const size_t at = script.find("title \"" + title + "\"");
  const size_t rgb = script.rfind("lc rgb \"", at);
  return script.substr(rgb + 8, 7);
}

std::vector<std::string> dirs_of(const SweepSpec& spec) {
  std::vector<std::string> dirs;
  for (const auto& p : spec.points) dirs.push_back(p.dir);
  return dirs;
}

TEST(SweepSpec, GridExpandsInDeclaredOrderWithSeedsInnermost) {
  // workers is written first, so it is the outermost dimension although "algo" sorts first.
  SweepSpec spec = parse_sweep_spec(R"(
seeds = [1, 2]
[set]
lr = 0.05
[grid]
workers = [2, 4]
algo = ["dana-zero", "asgd"]
)",
                                    "grid.toml", ".");
  EXPECT_EQ(spec.dimensions, (std::vector<std::string>{"workers", "algo", "seed"}));
  ASSERT_EQ(spec.points.size(), 8u);
  EXPECT_EQ(spec.points[0].dir, "workers=2/algo=dana-zero/seed=1");
  EXPECT_EQ(spec.points[1].dir, "workers=2/algo=dana-zero/seed=2");
  EXPECT_EQ(spec.points[2].dir, "workers=2/algo=asgd/seed=1");
  EXPECT_EQ(spec.points[7].dir, "workers=4/algo=asgd/seed=2");
  EXPECT_EQ(spec.points[5].overrides,
            (std::vector<std::string>{"lr=0.05", "workers=4", "algo='dana-zero'", "seed=2"}));
  EXPECT_EQ(spec.points[5].labels,
            (Labels{{"workers", "4"}, {"algo", "dana-zero"}, {"seed", "2"}}));
  EXPECT_EQ(spec.out, "runs/grid");
}

TEST(SweepSpec, NamedConfigsCrossTheGridAndNameTheirFolders) {
  SweepSpec spec = parse_sweep_spec(R"(
dir = "{model}/n{workers}/{config}"
[grid]
model = ["lenet5", "mlp"]
workers = [16]
[[configs]]
name = "hier-avg S=4"
algo = "hier-avg"
hier.group_size = 4
[[configs]]
name = "ssgd"
algo = "ssgd"
lr_scaling = "linear"
[report]
columns = "workers"
target = 0.85
)",
                                    "named.toml", ".");
  EXPECT_EQ(spec.dimensions, (std::vector<std::string>{"model", "workers", "config"}));
  EXPECT_EQ(dirs_of(spec), (std::vector<std::string>{"lenet5/n16/hier-avg_S=4", "lenet5/n16/ssgd",
                                                     "mlp/n16/hier-avg_S=4", "mlp/n16/ssgd"}));
  EXPECT_EQ(spec.points[0].overrides,
            (std::vector<std::string>{"model='lenet5'", "workers=16", "algo='hier-avg'",
                                      "hier.group_size=4"}));
  EXPECT_EQ(spec.points[3].labels,
            (Labels{{"model", "mlp"}, {"workers", "16"}, {"config", "ssgd"}}));
  EXPECT_EQ(spec.report.rows, "config");
  EXPECT_EQ(spec.report.columns, "workers");
  EXPECT_DOUBLE_EQ(spec.report.target, 0.85);
}

// The ConfigError's message, which must name what is wrong.
std::string error_of(const std::string& text) {
  try {
    SweepSpec spec = parse_sweep_spec(text, "bad.toml", ".");
    check_sweep_points(spec);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(SweepSpec, BadSpecsAreRefusedNamingTheProblem) {
  EXPECT_NE(error_of("sed = [1]").find("unknown key 'sed'"), std::string::npos);
  EXPECT_NE(error_of("[grid]\nworkers = []").find("grid.workers is empty"), std::string::npos);
  EXPECT_NE(error_of("[grid]\nworkers = 4").find("grid.workers must be a list"), std::string::npos);
  EXPECT_NE(error_of("seeds = [\"one\"]").find("seeds must be"), std::string::npos);
  EXPECT_NE(error_of("[set]\nlr = 0.1\n[grid]\nlr = [0.1, 0.2]").find("'lr' is set both"),
            std::string::npos);
  EXPECT_NE(error_of("dir = \"{model}\"\n[grid]\nworkers = [2, 4]").find("not a dimension"),
            std::string::npos);
  EXPECT_NE(error_of("dir = \"same\"\n[grid]\nworkers = [2, 4]").find("share the folder"),
            std::string::npos);
  EXPECT_NE(error_of("[report]\nrows = \"seed\"\n").find("report.rows"), std::string::npos);
  EXPECT_NE(error_of("[report]\ndrops_from = [\"nope\"]")
                .find("report.drops_from: \"nope\" is not a value of the row dimension"),
            std::string::npos);
  EXPECT_NE(error_of("[report]\ndrops_from = \"sgd\"").find("report.drops_from must be a list"),
            std::string::npos);
  for (const std::string key : {"loss_epochs", "accuracy_epochs"}) {
    for (const char* epochs : {"[20, 10]", "[0, 10]", "[]", "\"10\"", "[\"ten\"]"}) {
      EXPECT_NE(error_of("[report]\n" + key + " = " + epochs)
                    .find("report." + key + " must be a list of increasing epochs > 0"),
                std::string::npos)
          << key << " = " << epochs;
    }
  }
  for (const char* targets : {"[0.9, 0.8]", "[0, 0.5]", "[1.5]", "[]", "0.9"}) {
    EXPECT_NE(error_of(std::string("[report]\naccuracy_targets = ") + targets)
                  .find("report.accuracy_targets must be a list of increasing test accuracies "
                        "in (0, 1]"),
              std::string::npos)
        << targets;
  }
  for (const char* targets : {"[5, 6]", "[0.5]", "[8, 8]", "[]", "5"}) {
    EXPECT_NE(error_of(std::string("[report]\nperplexity_targets = ") + targets)
                  .find("report.perplexity_targets must be a list of decreasing validation "
                        "perplexities, each at least 1"),
              std::string::npos)
        << targets;
  }
  EXPECT_EQ(error_of("[report]\nperplexity_targets = [8, 6, 5]"), "(no error)");
  EXPECT_NE(error_of("[grid\nworkers = [2]").find("malformed TOML"), std::string::npos);
  // Config keys and their values are checked by building each point's config.
  const std::string unknown = error_of("[grid]\nworkerz = [2, 4]");
  EXPECT_NE(unknown.find("sweep point 'workerz=2'"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("workerz"), std::string::npos) << unknown;
  const std::string wrong_type = error_of("[grid]\nworkers = [2, \"four\"]");
  EXPECT_NE(wrong_type.find("sweep point 'workers=four'"), std::string::npos) << wrong_type;
  EXPECT_NE(wrong_type.find("workers"), std::string::npos) << wrong_type;
}

TEST(SweepCli, InvalidSpecExitsTwoBeforeRunningAnything) {
  const fs::path dir = fresh_dir("sweep_bad");
  fs::create_directories(dir);
  const fs::path spec = dir / "bad.toml";
  std::ofstream(spec) << "out = \"" << (dir / "out").string() << "\"\n[grid]\nlr = [0.1, \"x\"]\n";
  testing::CliResult r = run_dsgd("sweep " + spec.string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("sweep point 'lr=x'"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir / "out"));
  fs::remove_all(dir);
}

// The "| label | label | seeds | final | ..." row of the report's first table for a config.
std::string table_row(const std::string& report, const std::string& start) {
  std::stringstream in(report);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(start, 0) == 0) return line;
  }
  return "";
}

bool is_png(const fs::path& path) {
  const std::string bytes = read_file(path);
  return bytes.size() > 100 && bytes.compare(0, 8, "\x89PNG\r\n\x1a\n") == 0;
}

bool is_svg(const fs::path& path) {
  const std::string text = read_file(path);
  return text.find("<svg") != std::string::npos && text.find("</svg>") != std::string::npos &&
         text.find("<path") != std::string::npos;
}

TEST(SweepCli, FourRunsTwoAtATimeAndAReportOfTheirNumbers) {
  const fs::path dir = fresh_dir("sweep_four");
  fs::create_directories(dir);
  const fs::path out = dir / "out";
  std::ofstream(dir / "four.toml") << "out = \"" << out.string() << "\"\nseeds = [1, 2]\n"
                                   << kTinySettings
                                   << "[grid]\nalgo = [\"dana-zero\", \"asgd\"]\n"
                                      "[report]\nrows = \"algo\"\ntarget = 0.5\n"
                                      "loss_epochs = [0.5, 1]\naccuracy_epochs = [0.5, 1]\n";
  testing::CliResult r = run_dsgd("sweep " + (dir / "four.toml").string() + " --jobs 2");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // Two jobs share the cores this process may use (one each on a 2-core machine).
  const int64_t cores_each = std::max<int64_t>(1, host_limits().cores / 2);
  EXPECT_NE(r.output.find(
                fmt::format("2 at a time, {} core{} each", cores_each, cores_each == 1 ? "" : "s")),
            std::string::npos)
      << r.output;
  for (const char* algo : {"dana-zero", "asgd"}) {
    std::vector<double> finals;
    std::vector<double> bests;
    std::vector<double> half_losses, end_losses;  // training loss at epochs 0.5 and 1
    std::vector<double> half_accs, end_accs;      // test accuracy there
    for (const char* seed : {"1", "2"}) {
      const fs::path run = out / (std::string("algo=") + algo) / (std::string("seed=") + seed);
      ASSERT_TRUE(fs::exists(run / "summary.json")) << run;
      auto summary = nlohmann::json::parse(read_file(run / "summary.json"));
      EXPECT_EQ(summary["status"], "ok");
      EXPECT_EQ(summary["algo"], algo);
      EXPECT_EQ(summary["threads"], 1);  // a small model: one thread, a replica per core
      finals.push_back(summary["final_test_acc"].get<double>());
      bests.push_back(summary["best_test_acc"].get<double>());
      const auto metrics = testing::read_csv(run / "metrics.csv");
      const auto column = [&](const std::string& name) {
        return std::find(metrics[0].begin(), metrics[0].end(), name) - metrics[0].begin();
      };
      ASSERT_EQ(metrics.size(), 3u);  // a header and two evaluations, at epochs 0.5 and 1
      half_losses.push_back(std::stod(metrics[1][column("train_loss")]));
      end_losses.push_back(std::stod(metrics[2][column("train_loss")]));
      half_accs.push_back(std::stod(metrics[1][column("test_acc")]));
      end_accs.push_back(std::stod(metrics[2][column("test_acc")]));
    }
    r = run_dsgd("report " + out.string() + (testing::have_gnuplot() ? "" : " --no-plots"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const std::string report = read_file(out / "report.md");
    const std::string row = table_row(report, std::string("| ") + algo + " | 2 |");
    ASSERT_FALSE(row.empty()) << report;
    const SeedStats final_acc = seed_stats(finals);
    const SeedStats best_acc = seed_stats(bests);
    EXPECT_NE(row.find(fmt::format("| {:.4f} ± {:.4f} |", final_acc.mean, final_acc.std)),
              std::string::npos)
        << row;
    EXPECT_NE(row.find(fmt::format("| {:.4f} ± {:.4f} |", best_acc.mean, best_acc.std)),
              std::string::npos)
        << row;
    // The spec's loss_epochs: each one's training loss, mean ± std over the two seeds.
    const std::string losses = report.substr(report.find("## Training loss by epoch"));
    const SeedStats half = seed_stats(half_losses), end = seed_stats(end_losses);
    EXPECT_NE(losses.find(fmt::format("| {} | {:.4f} ± {:.4f} | {:.4f} ± {:.4f} |", algo, half.mean,
                                      half.std, end.mean, end.std)),
              std::string::npos)
        << losses;
    // And accuracy_epochs: each one's test accuracy.
    const std::string accs = report.substr(report.find("## Test accuracy by epoch"));
    const SeedStats half_acc = seed_stats(half_accs), end_acc = seed_stats(end_accs);
    EXPECT_NE(accs.find(fmt::format("| {} | {:.4f} ± {:.4f} | {:.4f} ± {:.4f} |", algo,
                                    half_acc.mean, half_acc.std, end_acc.mean, end_acc.std)),
              std::string::npos)
        << accs;
  }
  const std::string csv = read_file(out / "report.csv");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 3);  // header and two configurations
  // Asynchronous runs report their exchanges, the bytes they moved and their simulated time:
  // columns, and a panel of accuracy against bytes.
  const std::string report = read_file(out / "report.md");
  EXPECT_NE(report.find("| global MB |"), std::string::npos) << report;
  EXPECT_NE(report.find("| exchanges |"), std::string::npos) << report;
  EXPECT_NE(report.find("| simulated time |"), std::string::npos) << report;
  if (testing::have_gnuplot()) {
    EXPECT_TRUE(is_png(out / "report-plots" / "all.png"));
    EXPECT_TRUE(is_svg(out / "report-plots" / "all.svg"));
    EXPECT_NE(read_file(out / "report-plots" / "all.gp").find("test accuracy against bytes moved"),
              std::string::npos);
  }
  fs::remove_all(dir);
}

// A one-panel figure named as its panel (accuracy against workers) says the name once; a grid of
// panels keeps the figure's name above them and each panel's own.
// A paper's figures beside the sweep's: the spec states them per configuration with their
// source; the report sets published and measured side by side with each one's drop from its own
// baseline, the measured drops computed from the runs' summaries, with the spread of their seeds
// where both sides have two; a figure marked unverified says so, and the section says why.
TEST(SweepCli, PublishedFiguresStandBesideTheMeasuredOnesWithTheirDrops) {
  const fs::path dir = fresh_dir("sweep_published");
  fs::create_directories(dir);
  const fs::path out = dir / "out";
  std::ofstream(dir / "paper.toml")
      << "out = \"" << out.string()
      << "\"\ndir = \"{config}/seed{seed}\"\nseeds = [1]\n"
      // So short that the three runs end at different accuracies, below 1.
      << "[set]\ndataset = \"synthetic\"\nmodel = \"mlp\"\nbatch_size = 16\nepochs = 0.0625\n"
         "lr = 0.002\nlr_schedule = \"constant\"\nwarmup_epochs = 0\n"
      << "[[configs]]\nname = \"sgd n1\"\nalgo = \"sgd\"\nseeds = [1, 2]\n"
         "[[configs]]\nname = \"asgd n4\"\nalgo = \"asgd\"\nworkers = 4\n"
         "[[configs]]\nname = \"dana-zero n4\"\nalgo = \"dana-zero\"\nworkers = 4\n"
         "seeds = [1, 2]\n"
         "[report.published]\nsource = \"A Paper 2019, Table 1\"\nbaseline = \"sgd n1\"\n"
         "[report.published.accuracy]\n\"sgd n1\" = 0.9163\n\"asgd n4\" = \"fails\"\n"
         "\"dana-zero n4\" = 0.9150\n"
         "[report.published.unverified]\nwhy = \"a survey quotes them; the paper is not at "
         "hand.\"\nconfigs = [\"asgd n4\"]\n";
  testing::CliResult r = run_dsgd("sweep " + (dir / "paper.toml").string() + " --jobs 2");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = run_dsgd("report " + out.string() + " --no-plots");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto final_acc = [&](const char* folder) {
    return nlohmann::json::parse(read_file(out / folder / "summary.json"))["final_test_acc"]
        .get<double>();
  };
  const double sgd1 = final_acc("sgd_n1/seed1"), sgd2 = final_acc("sgd_n1/seed2");
  const double dana1 = final_acc("dana-zero_n4/seed1"), dana2 = final_acc("dana-zero_n4/seed2");
  const double sgd = (sgd1 + sgd2) / 2, asgd = final_acc("asgd_n4/seed1"),
               dana = (dana1 + dana2) / 2;
  EXPECT_LT(sgd, 0.99);
  EXPECT_NE(asgd, sgd);
  // Welch's interval over two seeds a side (seed_test.h, tested by hand in
  // Report.WelchInterval...).
  const DifferenceInterval interval =
      *welch_interval(seed_stats({sgd1, sgd2}), seed_stats({dana1, dana2}));
  const std::string report = read_file(out / "report.md");
  EXPECT_NE(report.find("## Published and measured"), std::string::npos) << report;
  EXPECT_NE(report.find("Published: A Paper 2019, Table 1."), std::string::npos) << report;
  EXPECT_NE(report.find("\n\nFigures marked unverified: a survey quotes them; the paper is not at "
                        "hand.\n\n"),
            std::string::npos)
      << report;
  const std::string sgd_row = table_row(report, "| sgd n1 | 0.9163 |");
  EXPECT_EQ(sgd_row.rfind(fmt::format("| sgd n1 | 0.9163 | {:.4f} ± ", sgd), 0), 0u) << sgd_row;
  EXPECT_NE(sgd_row.find("| baseline | baseline |"), std::string::npos) << sgd_row;
  // One seed of asgd against sgd's two: its drop has no spread, and the cell says why.
  EXPECT_EQ(table_row(report, "| asgd n4 | fails"),
            fmt::format("| asgd n4 | fails (unverified) | {:.4f} | - | {:.2f} (1 seed against 2) |",
                        asgd, (sgd - asgd) * 100));
  const std::string dana_row = table_row(report, "| dana-zero n4 | 0.9150");
  EXPECT_NE(dana_row.find(fmt::format("| 0.13 | {:.2f} [{:.2f}, {:.2f}], {} |", (sgd - dana) * 100,
                                      interval.low * 100, interval.high * 100,
                                      interval.resolved() ? "resolved" : "not resolved")),
            std::string::npos)
      << dana_row;
  fs::remove_all(dir);
}

TEST(SweepSpec, BadPublishedFiguresAreRefusedNamingTheProblem) {
  const std::string configs =
      "[[configs]]\nname = \"sgd n1\"\nalgo = \"sgd\"\n"
      "[[configs]]\nname = \"dana n8\"\nalgo = \"dana-zero\"\nworkers = 8\n";
  const std::string misspelt =
      error_of(configs +
               "[report.published]\nsource = \"P\"\nbaseline = \"sgd n1\"\n"
               "[report.published.accuracy]\n\"sgd n1\" = 0.9\n\"dana n16\" = 0.8\n");
  EXPECT_NE(misspelt.find("'dana n16', which is not a configuration"), std::string::npos)
      << misspelt;
  EXPECT_NE(misspelt.find("did you mean 'dana n8'"), std::string::npos) << misspelt;
  EXPECT_NE(error_of(configs + "[report.published]\nbaseline = \"sgd n1\"\n"
                               "[report.published.accuracy]\n\"sgd n1\" = 0.9\n")
                .find("report.published.source is missing"),
            std::string::npos);
  EXPECT_NE(error_of(configs + "[report.published]\nsource = \"P\"\nbaseline = \"dana n8\"\n"
                               "[report.published.accuracy]\n\"sgd n1\" = 0.9\n")
                .find("baseline = \"dana n8\" must name a configuration with a published"),
            std::string::npos);
  EXPECT_NE(error_of(configs + "[report.published]\nsource = \"P\"\nbaseline = \"sgd n1\"\n"
                               "[report.published.accuracy]\n\"sgd n1\" = 91.63\n")
                .find("must be an accuracy in [0, 1]"),
            std::string::npos);
  EXPECT_NE(error_of("[grid]\nworkers = [2]\n[report.published]\nsource = \"P\"\n")
                .find("report.published needs named configurations"),
            std::string::npos);
  const std::string figures =
      configs +
      "[report.published]\nsource = \"P\"\nbaseline = \"sgd n1\"\n"
      "[report.published.accuracy]\n\"sgd n1\" = 0.9\n[report.published.unverified]\n";
  EXPECT_NE(error_of(figures + "why = \"quoted\"\nconfigs = [\"dana n8\"]\n")
                .find("report.published.unverified names 'dana n8', which has no figure"),
            std::string::npos);
  EXPECT_NE(error_of(figures + "configs = [\"sgd n1\"]\n")
                .find("report.published.unverified: expected why = "),
            std::string::npos);
}

// A claim names configurations the sweep has (a folder of another sweep's runs has a '/'), a test
// the report knows with the margin it needs, and either a test or stated figures, never both.
TEST(SweepSpec, BadClaimsAreRefusedNamingTheProblem) {
  const std::string configs =
      "[[configs]]\nname = \"sgd n1\"\nalgo = \"sgd\"\n"
      "[[configs]]\nname = \"dana n8\"\nalgo = \"dana-zero\"\nworkers = 8\n"
      "[[report.claims]]\nclaim = \"scales\"\npublished = \"no figure\"\n";
  const std::string misspelt =
      error_of(configs +
               "test = \"near\"\nconfig = \"dana n16\"\nagainst = \"sgd n1\"\n"
               "margin = 1.0\n");
  EXPECT_NE(misspelt.find("report.claims[1].config names 'dana n16', which is not a configuration"),
            std::string::npos)
      << misspelt;
  EXPECT_NE(misspelt.find("did you mean 'dana n8'"), std::string::npos) << misspelt;
  EXPECT_NE(error_of(configs + "test = \"similar\"\nconfig = \"dana n8\"\nagainst = \"sgd n1\"\n")
                .find("test = \"similar\": expected \"near\""),
            std::string::npos);
  EXPECT_NE(error_of(configs + "test = \"near\"\nconfig = \"dana n8\"\nagainst = \"sgd n1\"\n")
                .find("test = \"near\" needs a margin"),
            std::string::npos);
  EXPECT_NE(error_of(configs + "test = \"exceeds\"\nconfig = \"dana n8\"\n"
                               "against = [\"sgd n1\"]\nmargin = 1.0\n")
                .find("takes no margin"),
            std::string::npos);
  EXPECT_NE(error_of(configs + "test = \"exceeds\"\nconfig = \"dana n8\"\n")
                .find("needs config (the side the claim is about) and against"),
            std::string::npos);
  EXPECT_NE(error_of(configs + "test = \"exceeds\"\nconfig = \"dana n8\"\n"
                               "against = \"sgd n1\"\nverdict = \"holds\"\n")
                .find("measured figures and verdict are the report's"),
            std::string::npos);
  EXPECT_NE(error_of(configs + "measured = \"63x\"\n")
                .find("or measured and verdict (with where they come from)"),
            std::string::npos);
  EXPECT_NE(error_of(configs + "measured = \"63x\"\nverdict = \"holds\"\nmargin = 0\n")
                .find("margin must be a number > 0"),
            std::string::npos);
  EXPECT_NE(error_of(configs + "measured = \"63x\"\nverdict = \"holds\"\nsource = \"x\"\n")
                .find("unknown key report.claims[1].source"),
            std::string::npos);
  EXPECT_NE(error_of(configs.substr(0, configs.find("[[report")) +
                     "[[report.claims]]\npublished = \"no figure\"\nmeasured = \"63x\"\n"
                     "verdict = \"holds\"\n")
                .find("needs claim = \"...\""),
            std::string::npos);
  // A folder of another sweep's runs is taken from the spec's folder, and may not exist yet.
  const SweepSpec spec =
      parse_sweep_spec(configs +
                           "test = \"near\"\nconfig = \"dana n8\"\n"
                           "against = [\"sgd n1\", \"../other-runs/sgd_n1\"]\nmargin = 1.0\n",
                       "good.toml", "/specs/results");
  ASSERT_EQ(spec.report.claims.size(), 1u);
  EXPECT_EQ(spec.report.claims[0].against,
            (std::vector<std::string>{"sgd n1", "/specs/other-runs/sgd_n1"}));
  EXPECT_EQ(spec.report.claims[0].margin, 1.0);
  // sweep.json keeps the claims as the report reads them back.
  SweepSpec written = spec;
  written.out = fresh_dir("sweep_claims_json").string();
  write_sweep_json(written);
  const Experiment read = load_experiment({written.out});
  ASSERT_EQ(read.layout.claims.size(), 1u);
  EXPECT_EQ(read.layout.claims[0].text, "scales");
  EXPECT_EQ(read.layout.claims[0].test, "near");
  EXPECT_EQ(read.layout.claims[0].config, "dana n8");
  EXPECT_EQ(read.layout.claims[0].against, spec.report.claims[0].against);
  EXPECT_EQ(read.layout.claims[0].margin, 1.0);
  fs::remove_all(written.out);
}

TEST(Plots, AFigureSaysEachTitleOnce) {
  if (!testing::have_gnuplot()) GTEST_SKIP() << "gnuplot is not installed";
  const fs::path dir = fresh_dir("plots_titles");
  fs::create_directories(dir);
  const Curve line{"sgd", {1.0, 2.0}, {0.5, 0.6}, {0.5, 0.6}, {0.5, 0.6}};
  const auto occurrences = [](const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  draw_figure((dir / "one").string(), "accuracy", {Panel{"accuracy", "x", "y", false, {line}}});
  // Twice: the PNG's script and the SVG's.
  EXPECT_EQ(occurrences(read_file(dir / "one.gp"), "\"accuracy\""), 2u);
  draw_figure((dir / "two").string(), "run",
              {Panel{"accuracy", "x", "y", false, {line}}, Panel{"loss", "x", "y", true, {line}}});
  const std::string two = read_file(dir / "two.gp");
  EXPECT_EQ(occurrences(two, "title \"run\""), 2u) << two;
  EXPECT_EQ(occurrences(two, "\"accuracy\""), 2u) << two;
  fs::remove_all(dir);
}

// A panel's ceiling (a uniform guess's perplexity) leaves a diverged run's points off the chart
// and says so in its legend, so the other lines keep the panel's height; a line with no point
// under it is still named.
TEST(Plots, PointsPastTheCeilingAreLeftOffAndCounted) {
  if (!testing::have_gnuplot()) GTEST_SKIP() << "gnuplot is not installed";
  const fs::path dir = fresh_dir("plots_ceiling");
  fs::create_directories(dir);
  const Curve good{"diloco", {1.0, 2.0, 3.0}, {9.5, 7.7, 6.5}, {9.4, 7.6, 6.4}, {9.6, 7.8, 6.6}};
  const Curve diverging{
      "async", {1.0, 2.0, 3.0}, {20.0, 3e6, 4e27}, {20.0, 3e6, 4e27}, {90.0, 3e6, 4e27}};
  const Curve diverged{"plain", {1.0, 2.0}, {1e5, 1e16}, {1e5, 1e16}, {1e5, 1e16}};
  Panel panel{"validation perplexity", "epoch", "perplexity", true, {good, diverging, diverged}};
  panel.y_ceiling = 84.0;
  panel.past_ceiling = "past chance";
  draw_figure((dir / "ppl").string(), "ppl", {panel});
  const std::string data = read_file(dir / "ppl.dat");
  EXPECT_EQ(data.find("e+06"), std::string::npos) << data;
  EXPECT_EQ(data.find("e+27"), std::string::npos) << data;
  // The drawn point's band stops at the ceiling.
  EXPECT_NE(data.find("1 20 20 84\n"), std::string::npos) << data;
  const std::string script = read_file(dir / "ppl.gp");
  EXPECT_NE(script.find("\"async (2 points past chance)\""), std::string::npos) << script;
  EXPECT_NE(script.find("keyentry with linespoints"), std::string::npos) << script;
  EXPECT_NE(script.find("\"plain (2 points past chance)\""), std::string::npos) << script;
  EXPECT_NE(script.find("\"diloco\""), std::string::npos) << script;
  EXPECT_TRUE(fs::exists(dir / "ppl.png"));
  fs::remove_all(dir);
}

// Large values on a linear axis read 200k, 1.5M, at most six marks at a step of 1, 2 or 5 times a
// power of ten, each label with the decimals its mark needs (their digits ran into each other
// along x and widened the margin beside y); accuracies keep their own decimals.
TEST(Plots, LargeValuesOnALinearAxisReadInThousands) {
  if (!testing::have_gnuplot()) GTEST_SKIP() << "gnuplot is not installed";
  const fs::path dir = fresh_dir("plots_formats");
  fs::create_directories(dir);
  // y over 50k-250k: a step of 50k (five marks), no decimal; x, accuracies, as gnuplot chooses.
  const Curve reach{"sgd", {0.8, 0.9}, {5e4, 2e5}, {5e4, 2e5}, {5e4, 2.5e5}};
  draw_figure((dir / "reach").string(), "reach", {Panel{"reach", "x", "y", false, {reach}}});
  const std::string large_y = read_file(dir / "reach.gp");
  EXPECT_NE(large_y.find("set ytics 50000\nset format y \"%.0s%c\""), std::string::npos) << large_y;
  EXPECT_NE(large_y.find("set xtics autofreq\nset format x \"% h\""), std::string::npos) << large_y;
  EXPECT_NE(large_y.find("set yrange [*:*]"), std::string::npos) << large_y;
  // Times from near zero: the axis starts at zero, not at the margin's negative time.
  const Curve early{"sgd", {0.8, 0.9}, {100, 2e5}, {100, 2e5}, {100, 2e5}};
  draw_figure((dir / "early").string(), "early", {Panel{"early", "x", "y", false, {early}}});
  EXPECT_NE(read_file(dir / "early.gp").find("set yrange [0:*]"), std::string::npos);
  // x from 0 to 1.5M: marks every 500k, so 1.5M needs a decimal.
  const Curve accuracy{"sgd", {1e5, 1.5e6}, {0.5, 0.6}, {0.5, 0.6}, {0.5, 0.6}};
  draw_figure((dir / "acc").string(), "acc", {Panel{"acc", "x", "y", false, {accuracy}}});
  const std::string large_x = read_file(dir / "acc.gp");
  EXPECT_NE(large_x.find("set format y \"% h\""), std::string::npos) << large_x;
  EXPECT_NE(large_x.find("set xtics 500000\nset format x \"%.1s%c\""), std::string::npos)
      << large_x;
  fs::remove_all(dir);
}

// Across a report's figures a row keeps its colour (the order of panels does not move it), a line
// drawn exactly over an earlier one says so in the legend, and a published figure is an open
// marker in its row's colour.
TEST(Plots, ARowKeepsItsColourAndIdenticalLinesAreNamed) {
  if (!testing::have_gnuplot()) GTEST_SKIP() << "gnuplot is not installed";
  const fs::path dir = fresh_dir("plots_styles");
  fs::create_directories(dir);
  const Curve sgd{"sgd", {1.0, 2.0}, {0.5, 0.6}, {0.5, 0.6}, {0.5, 0.6}};
  const Curve dana{"dana", {1.0, 2.0}, {0.4, 0.5}, {0.4, 0.5}, {0.4, 0.5}};
  Curve slim{"dana-slim", {1.0, 2.0}, {0.4, 0.5}, {0.4, 0.5}, {0.4, 0.5}};
  Curve paper{"dana (published)", {2.0}, {0.55}, {0.55}, {0.55}};
  paper.points_only = true;
  std::vector<Figure> figures = {{"a", "a", {Panel{"p", "x", "y", false, {sgd, dana}}}},
                                 {"b", "b", {Panel{"p", "x", "y", false, {dana, slim, paper}}}}};
  style_by_title(figures);
  EXPECT_EQ(figures[1].panels[0].curves[0].style, figures[0].panels[0].curves[1].style);
  EXPECT_EQ(figures[1].panels[0].curves[2].style, figures[0].panels[0].curves[1].style);
  draw_figure((dir / "b").string(), "b", figures[1].panels);
  const std::string b = read_file(dir / "b.gp");
  EXPECT_NE(b.find("dana-slim (identical to dana)"), std::string::npos) << b;
  EXPECT_NE(b.find("with points pt"), std::string::npos) << b;
  // dana's colour in figure b is the one it had in figure a, where it came second.
  draw_figure((dir / "a").string(), "a", figures[0].panels);
  const std::string a = read_file(dir / "a.gp");
  EXPECT_EQ(colour_of(a, "dana"), colour_of(b, "dana"));
  EXPECT_NE(colour_of(a, "dana"), colour_of(a, "sgd"));
  fs::remove_all(dir);
}

// Accuracy against workers: one line per row through the worker counts that finished (a
// configuration with no finished run adds no point), the band across seeds, and the paper's figures
// as points beside them, those marked unverified in a curve of their own that says so; a word
// ("fails") draws nothing.
TEST(Plots, AccuracyAgainstWorkersSetsPublishedFiguresBesideTheMeasured) {
  auto configuration = [](const std::string& name, const std::string& workers,
                          std::vector<double> finals) {
    Configuration c;
    c.labels = {{"config", name}, {"algo", "dana"}, {"workers", workers}};
    for (double acc : finals) {
      RunResult run;
      run.status = "ok";
      run.final_metric = acc;
      c.runs.push_back(run);
    }
    return c;
  };
  const std::vector<Configuration> configs = {configuration("dana n4", "4", {0.80, 0.84}),
                                              configuration("dana n8", "8", {}),
                                              configuration("dana n16", "16", {0.70})};
  std::vector<const Configuration*> group;
  for (const Configuration& c : configs) group.push_back(&c);
  PublishedFigures published;
  published.figures = {{"dana n4", 0.9, "", false},
                       {"dana n8", std::nullopt, "fails", true},
                       {"dana n16", 0.85, "", true}};
  const Panel panel = accuracy_against(group, "algo", "workers", published);
  ASSERT_EQ(panel.curves.size(), 3u);
  const Curve& measured = panel.curves[0];
  EXPECT_EQ(measured.title, "dana");
  EXPECT_EQ(measured.x, (std::vector<double>{4.0, 16.0}));
  EXPECT_NEAR(measured.mean[0], 0.82, 1e-12);
  EXPECT_EQ(measured.low[0], 0.80);
  EXPECT_EQ(measured.high[0], 0.84);
  EXPECT_EQ(panel.curves[1].title, "dana (published)");
  EXPECT_EQ(panel.curves[1].x, (std::vector<double>{4.0}));
  EXPECT_EQ(panel.curves[1].mean, (std::vector<double>{0.9}));
  EXPECT_TRUE(panel.curves[1].points_only);
  EXPECT_EQ(panel.curves[2].title, "dana (published, unverified)");
  EXPECT_EQ(panel.curves[2].x, (std::vector<double>{16.0}));
  EXPECT_EQ(panel.curves[2].mean, (std::vector<double>{0.85}));
  EXPECT_TRUE(panel.curves[2].points_only);
  EXPECT_FALSE(panel.curves[1].triangles);
  EXPECT_TRUE(panel.curves[2].triangles);
  if (!testing::have_gnuplot()) return;
  const fs::path dir = fresh_dir("plots_published");
  fs::create_directories(dir);
  std::vector<Figure> figures = {{"a", "a", {panel}}};
  style_by_title(figures);
  draw_figure((dir / "a").string(), "a", figures[0].panels);
  const std::string gp = read_file(dir / "a.gp");
  // In the row's colour, a triangle where the verified figure has the row's open square.
  EXPECT_NE(gp.find("with points pt 8 ps 1.5 lc rgb \"" + colour_of(gp, "dana") +
                    "\" title \"dana (published, unverified)\""),
            std::string::npos)
      << gp;
  EXPECT_NE(gp.find("with points pt 4 ps 1.2 lc rgb \"" + colour_of(gp, "dana") +
                    "\" title \"dana (published)\""),
            std::string::npos)
      << gp;
  fs::remove_all(dir);
}

// A report's time axes: seconds on the cluster where every run that has evaluations counted them
// (a run not started yet decides nothing), in hours past two hours; simulated time where one run
// did not. The time to reach an accuracy scales its times, not the accuracies.
TEST(Plots, TimeAxesAreSecondsOnAClusterInAReadableUnit) {
  RunResult run;
  run.status = "ok";
  run.metrics = {{"epoch", {1.0, 2.0}},
                 {"sim_time", {100.0, 200.0}},
                 {"seconds", {3600.0, 10800.0}},
                 {"test_acc", {0.5, 0.6}},
                 {"train_loss", {1.0, 0.5}}};
  const Configuration finished{{{"algo", "ssgd"}}, {run}, 0};
  const Configuration not_started{{{"algo", "kavg"}}, {RunResult{}}, 0};
  const SeriesName name = [](const Configuration& c) { return c.labels.front().second; };
  const std::vector<Panel> panels = curve_panels({&finished, &not_started}, name);
  ASSERT_GE(panels.size(), 5u);
  EXPECT_EQ(panels[1].title, "test accuracy against time on the cluster");
  EXPECT_EQ(panels[1].x_label, "time on the cluster (hours)");
  EXPECT_EQ(panels[1].curves[0].x, (std::vector<double>{1.0, 3.0}));
  EXPECT_EQ(panels[3].curves[0].x, (std::vector<double>{1.0, 3.0}));
  const Panel& reach = panels[4];
  EXPECT_EQ(reach.y_label, "time on the cluster (hours)");
  EXPECT_FALSE(reach.log_y);
  ASSERT_FALSE(reach.curves[0].x.empty());
  EXPECT_DOUBLE_EQ(reach.curves[0].x.front(), 0.45);  // 3/4 of the best accuracy, the grid's start
  EXPECT_DOUBLE_EQ(reach.curves[0].mean.front(), 1.0);
  EXPECT_DOUBLE_EQ(reach.curves[0].mean.back(), 3.0);

  RunResult unpriced = run;
  unpriced.metrics.erase("seconds");
  const Configuration other{{{"algo", "sgd"}}, {unpriced}, 0};
  const std::vector<Panel> mixed = curve_panels({&finished, &other}, name);
  EXPECT_EQ(mixed[1].x_label, "simulated time");
  EXPECT_EQ(mixed[1].curves[0].x, (std::vector<double>{100.0, 200.0}));
  EXPECT_DOUBLE_EQ(mixed[4].curves[0].mean.back(), 200.0);
  EXPECT_FALSE(mixed[4].log_y);  // 200 against 200: one scale
  EXPECT_EQ(mixed[1].log_x_base, 0);

  // A line whose times are more than ten times another's (a single worker beside sixteen): the
  // time to each accuracy on a logarithmic axis, lest the slowest flatten the others.
  RunResult slow = unpriced;
  slow.metrics["sim_time"] = {1100.0, 2100.0};
  const Configuration single{{{"algo", "sgd"}}, {slow}, 0};
  const std::vector<Panel> apart = curve_panels({&other, &single}, name);
  EXPECT_TRUE(apart[4].log_y);
  // And accuracy and loss against time on a logarithmic time axis, for the same reason.
  EXPECT_EQ(apart[1].log_x_base, 10);
  EXPECT_EQ(apart[3].log_x_base, 10);
  EXPECT_EQ(apart[0].log_x_base, 0);  // epochs stay linear
}

// A logarithmic time axis: base 10 with gnuplot's own marks, and a point at time zero (which it
// cannot place) left out rather than failing the figure.
TEST(Plots, TimesThatDifferTenfoldAreDrawnOnALogarithmicAxis) {
  if (!testing::have_gnuplot()) GTEST_SKIP() << "gnuplot is not installed";
  const fs::path dir = fresh_dir("plots_log_time");
  fs::create_directories(dir);
  const Curve fast{"ssgd", {0.0, 0.1, 0.2}, {0.1, 0.5, 0.6}, {0.1, 0.5, 0.6}, {0.1, 0.5, 0.6}};
  const Curve slow{"sgd", {1.0, 2.0}, {0.55, 0.65}, {0.55, 0.65}, {0.55, 0.65}};
  Panel panel{"test accuracy against time", "hours", "test accuracy", false, {fast, slow}};
  panel.log_x_base = 10;
  draw_figure((dir / "time").string(), "time", {panel});
  const std::string script = read_file(dir / "time.gp");
  EXPECT_NE(script.find("set logscale x 10\nset xtics autofreq"), std::string::npos) << script;
  const std::string data = read_file(dir / "time.dat");
  EXPECT_EQ(data.find("\n0 0.1 "), std::string::npos) << data;
  EXPECT_NE(data.find("\n0.1 0.5 "), std::string::npos) << data;
  fs::remove_all(dir);
}

TEST(SweepCli, AnInterruptedSweepFinishesOnlyWhatWasLeft) {
  const fs::path dir = fresh_dir("sweep_resume");
  fs::create_directories(dir);
  const fs::path out = dir / "out";
  const fs::path spec = dir / "resume.toml";
  std::ofstream(spec) << "out = \"" << out.string() << "\"\n"
                      << kTinySettings << "[grid]\nseed = [1, 2, 3]\n";
  const fs::path log = dir / "first.log";
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    const std::string command =
        std::string(DSGD_BINARY) + " sweep " + spec.string() + " > " + log.string() + " 2>&1";
    ::execl("/bin/sh", "sh", "-c", ("exec " + command).c_str(), nullptr);
    ::_exit(127);
  }
  // Stop the sweep once the first run has finished and the second is under way.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(3);
  while (std::chrono::steady_clock::now() < deadline &&
         read_file(log).find("start seed=2") == std::string::npos) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  // Soon enough that the second run (about a second long here, alone) has not finished: a stop
  // in its setup or in its training, both leave it to the next start.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  ::kill(pid, SIGTERM);
  int status = 0;
  ::waitpid(pid, &status, 0);
  const std::string first = read_file(log);
  ASSERT_TRUE(WIFEXITED(status)) << first;
  EXPECT_EQ(WEXITSTATUS(status), 128 + SIGTERM) << first;
  EXPECT_NE(first.find("ok seed=1"), std::string::npos) << first;
  EXPECT_EQ(first.find("start seed=3"), std::string::npos) << first;

  testing::CliResult again = run_dsgd("sweep " + spec.string());
  ASSERT_EQ(again.exit_code, 0) << again.output;
  const std::regex launched("^(start|resume) ");
  int started = 0;
  std::stringstream lines(again.output);
  for (std::string line; std::getline(lines, line);) started += std::regex_search(line, launched);
  EXPECT_NE(again.output.find("1 finished before, 2 to run"), std::string::npos) << again.output;
  EXPECT_EQ(started, 2) << again.output;
  for (const char* seed : {"1", "2", "3"}) {
    EXPECT_EQ(nlohmann::json::parse(
                  read_file(out / (std::string("seed=") + seed) / "summary.json"))["status"],
              "ok");
  }
  // A third start has nothing left to do.
  testing::CliResult third = run_dsgd("sweep " + spec.string());
  EXPECT_EQ(third.exit_code, 0) << third.output;
  EXPECT_NE(third.output.find("3 finished before, 0 to run"), std::string::npos) << third.output;
  fs::remove_all(dir);
}

TEST(SweepCli, AFinishedRunOfAnotherConfigIsNotSkippedSilently) {
  const fs::path dir = fresh_dir("sweep_changed");
  fs::create_directories(dir);
  const fs::path out = dir / "out";
  auto write_spec = [&](const char* epochs) {
    std::ofstream(dir / "s.toml") << "out = \"" << out.string() << "\"\n"
                                  << "[set]\ndataset = \"synthetic\"\nmodel = \"mlp\"\n"
                                  << "epochs = " << epochs << "\n[grid]\nworkers = [2]\n";
  };
  write_spec("0.5");
  ASSERT_EQ(run_dsgd("sweep " + (dir / "s.toml").string()).exit_code, 0);
  // The same folder (workers=2), another number of epochs.
  write_spec("0.25");
  testing::CliResult r = run_dsgd("sweep " + (dir / "s.toml").string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("holds a finished run of another config"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("epochs"), std::string::npos) << r.output;
  fs::remove_all(dir);
}

// A configuration's own seeds replace the top-level list for it alone: the deciding rows of a
// study get more seeds than the rest, and no run is made that nobody asked for.
TEST(SweepSpec, AConfigsOwnSeedsReplaceTheSharedOnes) {
  SweepSpec spec = parse_sweep_spec(R"(
dir = "{config}/seed{seed}"
seeds = [1]
[[configs]]
name = "a"
algo = "sgd"
seeds = [1, 3]
[[configs]]
name = "b"
algo = "asgd"
[[configs]]
name = "c"
algo = "ssgd"
seeds = [2]
)",
                                    "own.toml", ".");
  EXPECT_EQ(dirs_of(spec), (std::vector<std::string>{"a/seed1", "a/seed3", "b/seed1", "c/seed2"}));
  EXPECT_EQ(spec.points[1].overrides, (std::vector<std::string>{"algo='sgd'", "seed=3"}));
  EXPECT_EQ(spec.dimensions, (std::vector<std::string>{"config", "seed"}));
  // Without a top-level list every entry says its seeds; a seed listed twice is a typo.
  EXPECT_NE(error_of("[[configs]]\nname = \"a\"\nseeds = [1]\n[[configs]]\nname = \"b\"\n")
                .find("configs 'b' has no seeds"),
            std::string::npos);
  EXPECT_NE(error_of("[[configs]]\nname = \"a\"\nseeds = [1, 1]\n").find("lists seed 1 twice"),
            std::string::npos);
  EXPECT_NE(error_of("[[configs]]\nname = \"a\"\nseeds = 2\n").find("configs 'a': seeds must be"),
            std::string::npos);
  EXPECT_NE(
      error_of("seeds = [1]\n[[configs]]\nname = \"a\"\nseed = 4\n").find("'seed' is set both"),
      std::string::npos);
}

// --only runs the named points and no other, while sweep.json keeps every point for the report;
// a folder the sweep does not have is refused with the list of those it has.
TEST(SweepCli, OnlyRunsTheNamedPoints) {
  const fs::path dir = fresh_dir("sweep_only");
  fs::create_directories(dir);
  const fs::path out = dir / "out";
  std::ofstream(dir / "s.toml") << "out = \"" << out.string() << "\"\n"
                                << "[set]\ndataset = \"synthetic\"\nmodel = \"mlp\"\n"
                                << "epochs = 0.25\n[grid]\nworkers = [2, 3]\n";
  const std::string spec = (dir / "s.toml").string();
  testing::CliResult bad = run_dsgd("sweep " + spec + " --only workers=5");
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_NE(bad.output.find("no point in that folder"), std::string::npos) << bad.output;
  EXPECT_NE(bad.output.find("workers=2, workers=3"), std::string::npos) << bad.output;
  testing::CliResult dry = run_dsgd("sweep " + spec + " --dry-run --only workers=3");
  EXPECT_EQ(dry.output.find("workers=2:"), std::string::npos) << dry.output;
  EXPECT_NE(dry.output.find("start  workers=3:"), std::string::npos) << dry.output;
  testing::CliResult r = run_dsgd("sweep " + spec + " --only workers=3");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(run_status((out / "workers=3").string()), "ok");
  EXPECT_FALSE(fs::exists(out / "workers=2"));
  EXPECT_NE(read_file(out / "sweep.json").find("\"workers=2\""), std::string::npos);

  // The spec's [report] edited after the sweep wrote sweep.json: the report follows sweep.json
  // and says so, with the command that takes the new layout; running the finished point again
  // (nothing to run) rewrites sweep.json, and the report then has the new table.
  std::ofstream(spec, std::ios::app) << "[report]\nloss_epochs = [0.25]\n";
  const std::string report =
      "report " + out.string() + " --no-plots --out " + (dir / "r.md").string();
  r = run_dsgd(report);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("warning: the [report] of " + spec + " has changed"), std::string::npos)
      << r.output;
  EXPECT_EQ(read_file(dir / "r.md").find("## Training loss by epoch"), std::string::npos);
  ASSERT_EQ(run_dsgd("sweep " + spec + " --only workers=3").exit_code, 0);
  r = run_dsgd(report);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.find("warning"), std::string::npos) << r.output;
  EXPECT_NE(read_file(dir / "r.md").find("## Training loss by epoch"), std::string::npos);
  fs::remove_all(dir);
}

TEST(ReportCli, LooseRunFoldersAreGroupedBySeedFolder) {
  const fs::path dir = fresh_dir("report_loose");
  for (const char* seed : {"seed1", "seed2"}) {
    testing::run_ok(std::string("run --set dataset=synthetic --set model=mlp --set epochs=0.5 "
                                "--set threads=1 --set algo=dana-zero --set workers=2 "
                                "--set seed=") +
                        (seed[4]),
                    dir / "dana" / seed);
  }
  testing::CliResult r =
      run_dsgd("report " + dir.string() + " --no-plots --out " + (dir / "r.md").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string report = read_file(dir / "r.md");
  EXPECT_NE(report.find("| dana | 2 |"), std::string::npos) << report;
  EXPECT_FALSE(fs::exists(dir / "r-plots"));
  EXPECT_EQ(run_dsgd("report " + (dir / "nothing").string()).exit_code, 2);

  // Two configurations' folders given one by one, each holding its seed1: two configurations
  // (named by their folders), not two seeds of one.
  testing::run_ok(
      "run --set dataset=synthetic --set model=mlp --set epochs=0.5 --set threads=1 "
      "--set algo=sgd --set seed=1",
      dir / "sgd" / "seed1");
  r = run_dsgd("report " + (dir / "dana").string() + " " + (dir / "sgd").string() +
               " --no-plots --out " + (dir / "two.md").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string two = read_file(dir / "two.md");
  EXPECT_NE(two.find("| dana | 2 |"), std::string::npos) << two;
  EXPECT_NE(two.find("| sgd | 1 |"), std::string::npos) << two;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace dsgd

namespace dsgd {
namespace {

// A run folder with the given outcome and metrics rows (epoch, updates, sim_time, test_acc).
void fake_run(const fs::path& dir, const std::string& status, double final_acc,
              const std::vector<std::array<double, 4>>& rows) {
  fs::create_directories(dir);
  nlohmann::json summary = {{"status", status},
                            {"final_test_acc", final_acc},
                            {"best_test_acc", final_acc + 0.01},
                            {"wall_time", 10.0}};
  std::ofstream(dir / "summary.json") << summary.dump();
  std::ofstream metrics(dir / "metrics.csv");
  metrics << "epoch,updates,sim_time,train_loss,test_acc\n";
  for (const auto& r : rows)
    metrics << r[0] << "," << r[1] << "," << r[2] << ",0.5," << r[3] << "\n";
}

// Welch's interval by hand: two seeds a side of equal spread have 2 degrees of freedom and three
// a side 4, whose 97.5 % quantiles of Student's t are 4.302653 and 2.776445 (any table); unequal
// spreads take Welch-Satterthwaite's degrees of freedom, (va + vb)² / (va² / (na - 1) + vb² /
// (nb - 1)) = 1.25e-4² / (1e-4² + 2.5e-5²) = 1.4706; one seed a side gives no interval.
TEST(Report, WelchIntervalIsTheHandComputedOne) {
  const double s = std::sqrt(2e-4);  // the sample std of 0.90 and 0.88
  auto two = welch_interval({2, 0.89, s}, {2, 0.81, s});
  ASSERT_TRUE(two.has_value());
  EXPECT_NEAR(two->degrees_of_freedom, 2.0, 1e-12);
  EXPECT_NEAR(two->high - two->difference, 4.302652729749464 * std::sqrt(2e-4), 1e-9);
  EXPECT_NEAR(two->difference, 0.08, 1e-12);
  EXPECT_TRUE(two->resolved());
  auto three = welch_interval({3, 0.5, 0.01}, {3, 0.49, 0.01});
  EXPECT_NEAR(three->degrees_of_freedom, 4.0, 1e-12);
  EXPECT_NEAR(three->high - three->difference, 2.7764451051977987 * std::sqrt(2e-4 / 3), 1e-9);
  EXPECT_FALSE(three->resolved());  // 1 point against a half-width of 2.27
  auto unequal = welch_interval({2, 0.89, s}, {2, 0.88, std::sqrt(5e-5)});
  EXPECT_NEAR(unequal->degrees_of_freedom, 1.25e-4 * 1.25e-4 / (1e-8 + 2.5e-5 * 2.5e-5), 1e-9);
  EXPECT_FALSE(unequal->resolved());
  EXPECT_FALSE(welch_interval({1, 0.9, 0.0}, {2, 0.8, s}).has_value());
  auto alike = welch_interval({2, 0.9, 0.0}, {2, 0.8, 0.0});
  EXPECT_EQ(alike->low, alike->high);
  EXPECT_TRUE(alike->resolved());
}

// sweep.json's points for seeds 1 and 2 of each configuration, in folders CONFIG/SEED.
nlohmann::json seeds_one_and_two(const std::vector<std::string>& configs) {
  nlohmann::json points = nlohmann::json::array();
  for (const std::string& config : configs) {
    for (const char* seed : {"1", "2"}) {
      points.push_back(
          {{"dir", config + "/" + seed},
           {"labels", nlohmann::json::array({nlohmann::json::array({"config", config}),
                                             nlohmann::json::array({"seed", seed})})}});
    }
  }
  return points;
}

// A language model's run folder: its task and metric in summary.json, and rows of (epoch, updates,
// sim_time, test_ppl).
void fake_language_run(const fs::path& dir, double final_ppl,
                       const std::vector<std::array<double, 4>>& rows) {
  fs::create_directories(dir);
  nlohmann::json summary = {{"status", "ok"},
                            {"task", "language-model"},
                            {"metric", "test_ppl"},
                            {"final_test_ppl", final_ppl},
                            {"best_test_ppl", final_ppl},
                            {"final_test_acc", 0.5},
                            {"wall_time", 10.0}};
  std::ofstream(dir / "summary.json") << summary.dump();
  std::ofstream metrics(dir / "metrics.csv");
  metrics << "epoch,updates,sim_time,train_loss,test_acc,test_ppl\n";
  for (const auto& r : rows)
    metrics << r[0] << "," << r[1] << "," << r[2] << ",1.5,0.5," << r[3] << "\n";
}

// A perplexity is read as an accuracy is, the other way up: the target is met at or below it, a
// drop is the perplexity gained (with Welch's interval over the seeds), the best is the lowest,
// and the headers and the by-epoch table name it. Runs of two tasks on one page are refused.
TEST(Report, APerplexityTargetWorksAsAnAccuracyTargetDoes) {
  const fs::path dir = fresh_dir("report_perplexity");
  fake_language_run(dir / "sync/1", 5.0, {{1, 10, 100, 8.0}, {2, 20, 200, 5.0}});
  fake_language_run(dir / "sync/2", 5.2, {{1, 10, 100, 7.0}, {2, 20, 200, 5.2}});
  fake_language_run(dir / "local/1", 6.0, {{1, 10, 50, 6.5}, {2, 20, 100, 6.0}});
  fake_language_run(dir / "local/2", 6.4, {{1, 10, 60, 6.9}, {2, 20, 120, 6.4}});
  const nlohmann::json points = seeds_one_and_two({"sync", "local"});
  nlohmann::json sweep = {{"dimensions", {"config", "seed"}},
                          {"spec", "fake.toml"},
                          {"report",
                           {{"rows", "config"},
                            {"title", "Fake LM"},
                            {"drops_from", {"sync"}},
                            {"accuracy_epochs", {1, 2}},
                            {"accuracy_targets", {7.0, 6.0}}}},
                          {"points", points}};
  std::ofstream(dir / "sweep.json") << sweep.dump();
  ReportOptions options;
  options.dirs = {dir.string()};
  options.plots = false;
  options.target = 6.5;
  write_report(options);
  const std::string report = read_file(dir / "report.md");
  EXPECT_NE(report.find("| config | seeds | final test ppl | mean of the last 5 evaluations | "
                        "best test ppl | time to 6.5 |"),
            std::string::npos)
      << report;
  // The last five (two) evaluations: sync 6.5 and 6.1, local 6.25 and 6.65. sync first gets to
  // 6.5 at epoch 2 in both seeds (t = 200); local at epoch 1 (seed 1, 6.5 itself, t = 50) and
  // epoch 2 (seed 2, 6.4, t = 120): means 1.5 / 15 / 85.
  EXPECT_NE(report.find("| sync | 2 | 5.1000 ± 0.1414 | 6.3000 ± 0.2828 | 5.1000 ± 0.1414 | 2 / 20 "
                        "/ 200 |"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("| local | 2 | 6.2000 ± 0.2828 | 6.4500 ± 0.2828 | 6.2000 ± 0.2828 | 1.5 "
                        "/ 15 / 85 |"),
            std::string::npos)
      << report;
  // Perplexity gained against sync: 6.2 - 5.1 = 1.10, with the interval of local's perplexity
  // less sync's: Welch's (hand-checked above) of sync's accuracy-like difference, turned round.
  const DifferenceInterval drop =
      *welch_interval({2, 5.1, std::sqrt(0.02)}, {2, 6.2, std::sqrt(0.08)});
  EXPECT_NE(
      report.find(fmt::format("| 1.10 [{:.2f}, {:.2f}], not resolved |", -drop.high, -drop.low)),
      std::string::npos)
      << report;
  EXPECT_NE(report.find("The final validation perplexity each configuration gained"),
            std::string::npos);
  EXPECT_NE(report.find("## Validation perplexity by epoch"), std::string::npos);
  EXPECT_NE(report.find("## Time to each validation perplexity"), std::string::npos);
  // Perplexity 6 is met by local seed 1 only (6.0 at epoch 2), never by seed 2 (6.4 at the end).
  EXPECT_NE(report.find("| local | 55 (epoch 1) | 100 (epoch 2) (1/2) |"), std::string::npos)
      << report;
  // An accuracy target on perplexities is a mistake the report names.
  options.target = 0.9;
  EXPECT_THROW(write_report(options), ConfigError);
  // Folders of two tasks do not share a page.
  fake_run(dir / "images/1", "ok", 0.9, {{1, 10, 100, 0.9}});
  options.dirs = {dir.string(), (dir / "images").string()};
  options.target = 0;
  try {
    write_report(options);
    ADD_FAILURE() << "two tasks on one page";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("their metrics do not compare"), std::string::npos)
        << e.what();
  }
  fs::remove_all(dir);
}

TEST(Report, TablesAreTheRunsNumbersWithAReferenceTargetAndKeptNotes) {
  const fs::path dir = fresh_dir("report_fake");
  // Two configurations × two seeds; "ref" is the reference whose final accuracy is the target.
  fake_run(dir / "ref/1", "ok", 0.80, {{1, 10, 100, 0.70}, {2, 20, 200, 0.80}});
  fake_run(dir / "ref/2", "ok", 0.84, {{1, 10, 110, 0.75}, {2, 20, 210, 0.84}});
  fake_run(dir / "fast/1", "ok", 0.90, {{1, 10, 50, 0.83}, {2, 20, 100, 0.90}});
  fake_run(dir / "fast/2", "ok", 0.88, {{1, 10, 60, 0.79}, {2, 20, 120, 0.88}});
  fake_run(dir / "bad/1", "ok", 0.81, {{1, 10, 70, 0.81}, {2, 20, 140, 0.81}});
  fake_run(dir / "bad/2", "collapsed", 0.10, {{1, 10, 80, 0.10}});
  // Runs still going: how far each got, or that none has been evaluated yet.
  fake_run(dir / "slow/1", "running", 0.60, {{1, 10, 90, 0.60}});
  fake_run(dir / "slow/2", "running", 0.0, {});
  // A configuration whose second seed the sweep has not started: queued, not a run.
  fake_run(dir / "wait/1", "ok", 0.77, {{1, 10, 90, 0.70}, {2, 20, 180, 0.77}});
  {
    nlohmann::json summary = nlohmann::json::parse(read_file(dir / "slow/1/summary.json"));
    summary["epochs"] = 1;
    std::ofstream(dir / "slow/1/summary.json") << summary.dump();
  }
  const nlohmann::json points = seeds_one_and_two({"ref", "fast", "bad", "slow", "wait"});
  nlohmann::json sweep = {
      {"dimensions", {"config", "seed"}},
      {"spec", "fake.toml"},
      {"report", {{"rows", "config"}, {"target_config", "ref"}, {"title", "Fake"}}},
      {"points", points}};
  std::ofstream(dir / "sweep.json") << sweep.dump();
  std::ofstream(dir / "report.md") << "# old\n\n<!-- notes -->\nKept commentary.\n";

  ReportOptions options;
  options.dirs = {dir.string()};
  options.plots = false;
  options.command = "dsgd report fake";
  ASSERT_EQ(write_report(options), (dir / "report.md").string());
  const std::string report = read_file(dir / "report.md");
  EXPECT_NE(report.find("| 0.7700 (+1 queued) | 0.7350 (+1 queued) |"), std::string::npos)
      << report;
  // ref: final 0.82 ± 0.0283; the mean of its (two) last evaluations 0.75 and 0.795, so
  // 0.7725 ± 0.0318; its own target 0.82 is first reached at epoch 2 (seed 2 only: seed 1 ends
  // at 0.80).
  EXPECT_NE(report.find("| ref | 2 | 0.8200 ± 0.0283 | 0.7725 ± 0.0318 | 0.8300 ± 0.0283 | 2 / 20 "
                        "/ 210 (1/2) |"),
            std::string::npos)
      << report;
  // fast reaches 0.82 at epoch 1 (seed 1, t = 50) and epoch 2 (seed 2, t = 120): means.
  EXPECT_NE(report.find("| fast | 2 | 0.8900 ± 0.0141 | 0.8500 ± 0.0212 | 0.9000 ± 0.0141 | 1.5 / "
                        "15 / 85 |"),
            std::string::npos)
      << report;
  // A collapsed seed is shown as such, never averaged away; neither seed gets to 0.82.
  EXPECT_NE(report.find("| bad | 2 | 0.8100, collapsed | 0.8100, collapsed | 0.8200, collapsed | "
                        "never |"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("| slow | 2 | 0.6000 (running, epoch 1), - (running, no evaluation yet) |"),
            std::string::npos)
      << report;
  // Runs that have not ended have not reached the target yet; "never" is for runs that ended.
  const std::string slow_row = report.substr(report.find("| slow |"));
  EXPECT_NE(slow_row.substr(0, slow_row.find('\n')).find("| not yet |"), std::string::npos)
      << report;
  EXPECT_NE(report.find("time to ref's final acc"), std::string::npos) << report;
  // Beside it, each time as a ratio to ref's own, on the clock and in epochs: fast needs
  // 85 / 210 of its simulated time and 1.5 / 2 of its epochs.
  EXPECT_NE(report.find("time to it / ref's (simulated time / epochs)"), std::string::npos)
      << report;
  EXPECT_NE(report.find("| 1.5 / 15 / 85 | 0.40 / 0.75 |"), std::string::npos) << report;
  EXPECT_NE(report.find("| 2 / 20 / 210 (1/2) | 1.00 / 1.00 |"), std::string::npos) << report;
  EXPECT_NE(report.find("Runs: `dsgd sweep fake.toml`"), std::string::npos) << report;
  EXPECT_EQ(report.find("# old"), std::string::npos) << report;
  EXPECT_NE(report.find("\n<!-- notes -->\nKept commentary.\n"), std::string::npos) << report;
  // The CSV has the same numbers at full precision.
  const auto csv = testing::read_csv(dir / "report.csv");
  ASSERT_EQ(csv.size(), 6u);  // a header and five configurations
  EXPECT_EQ(csv[1][0], "ref");
  EXPECT_NEAR(std::stod(csv[1][3]), 0.82, 1e-12);
  fs::remove_all(dir);
}

// The row whose times the ratios are read against is drawn in every figure: in its own group's
// under its row name, in another group's named by the labels it differs in, in its own colour.
TEST(Report, TheTimeReferenceIsDrawnInEveryFigure) {
  if (!testing::have_gnuplot()) GTEST_SKIP() << "gnuplot is not installed";
  const fs::path dir = fresh_dir("report_reference");
  fake_run(dir / "ssgd32", "ok", 0.80, {{1, 10, 100, 0.70}, {2, 20, 200, 0.80}});
  fake_run(dir / "dana32", "ok", 0.70, {{1, 10, 100, 0.60}, {2, 20, 200, 0.70}});
  fake_run(dir / "dana16", "ok", 0.82, {{1, 10, 100, 0.75}, {2, 20, 200, 0.82}});
  nlohmann::json points = nlohmann::json::array();
  for (const auto& [algo, workers] : std::vector<std::pair<std::string, std::string>>{
           {"ssgd", "32"}, {"dana", "32"}, {"dana", "16"}}) {
    points.push_back({{"dir", algo + workers},
                      {"labels", nlohmann::json::array({nlohmann::json::array({"algo", algo}),
                                                        nlohmann::json::array({"workers", workers}),
                                                        nlohmann::json::array({"seed", "1"})})}});
  }
  const nlohmann::json sweep = {
      {"dimensions", {"algo", "workers", "seed"}},
      {"report", {{"rows", "algo"}, {"columns", "workers"}, {"target_config", "ssgd"}}},
      {"points", points}};
  std::ofstream(dir / "sweep.json") << sweep.dump();
  ReportOptions options;
  options.dirs = {dir.string()};
  write_report(options);
  const std::string n16 = read_file(dir / "report-plots" / "workers=16.gp");
  const std::string n32 = read_file(dir / "report-plots" / "workers=32.gp");
  EXPECT_NE(n16.find("title \"ssgd (workers=32)\""), std::string::npos) << n16;
  EXPECT_NE(n32.find("title \"ssgd\""), std::string::npos) << n32;
  EXPECT_EQ(n32.find("(workers=32)"), std::string::npos) << n32;
  EXPECT_EQ(colour_of(n16, "ssgd (workers=32)"), colour_of(n32, "ssgd"));
  EXPECT_NE(read_file(dir / "report.md").find("and ssgd, whose times the ratios are read against"),
            std::string::npos);
  fs::remove_all(dir);
}

// A sweep.json over run folders named CONFIG/SEED, rows by config, with the given [report] keys;
// returns the report dsgd writes from it (no figures).
std::string report_of_sweep(const fs::path& dir, const std::vector<std::string>& runs,
                            const nlohmann::json& report_keys) {
  nlohmann::json points = nlohmann::json::array();
  for (const std::string& run : runs) {
    const size_t slash = run.find('/');
    points.push_back({{"dir", run},
                      {"labels", nlohmann::json::array(
                                     {nlohmann::json::array({"config", run.substr(0, slash)}),
                                      nlohmann::json::array({"seed", run.substr(slash + 1)})})}});
  }
  nlohmann::json report = {{"rows", "config"}};
  report.update(report_keys);
  const nlohmann::json sweep = {
      {"dimensions", {"config", "seed"}}, {"report", report}, {"points", points}};
  std::ofstream(dir / "sweep.json") << sweep.dump();
  ReportOptions options;
  options.dirs = {dir.string()};
  options.plots = false;
  write_report(options);
  return read_file(dir / "report.md");
}

// The tables by epoch, of training loss and of test accuracy: each configuration's value at its
// first evaluation at or after each epoch the spec names, mean ± std over the seeds, "(k/n)" where
// only k of its n seeds (queued ones counted) got there, "-" where none did. Hand-computed from
// the rows below.
TEST(Report, TablesByEpochTakeEachSeedsFirstEvaluationAtOrAfterIt) {
  const fs::path dir = fresh_dir("report_loss");
  struct Evaluation {
    double epoch, loss, accuracy;
  };
  auto run_with = [&](const std::string& run, const std::string& status,
                      const std::vector<Evaluation>& evaluations) {
    fake_run(dir / run, status, 0.5, {});
    std::ofstream metrics(dir / run / "metrics.csv");
    metrics << "epoch,updates,sim_time,train_loss,test_acc\n";
    for (const Evaluation& e : evaluations) {
      metrics << e.epoch << ",1,1," << e.loss << "," << e.accuracy << "\n";
    }
  };
  run_with("a/1", "ok", {{1, 2.0, 0.50}, {2, 1.5, 0.60}, {3, 1.0, 0.70}});
  run_with("a/2", "ok", {{1, 2.2, 0.40}, {2, 1.3, 0.62}, {3, 0.8, 0.74}});
  run_with("b/1", "ok", {{1.5, 1.9, 0.55}, {3, 0.9, 0.71}});
  run_with("b/2", "running", {{1.5, 2.1, 0.45}});
  run_with("c/1", "ok", {{1, 2.4, 0.30}, {2, 2.0, 0.40}, {3, 1.6, 0.50}});
  const std::vector<std::string> runs = {"a/1", "a/2", "b/1", "b/2", "c/1", "c/2"};
  const std::string report =
      report_of_sweep(dir, runs, {{"loss_epochs", {1, 2.5, 3}}, {"accuracy_epochs", {1, 2.5, 3}}});
  const size_t accuracy_table = report.find("## Test accuracy by epoch");
  ASSERT_NE(accuracy_table, std::string::npos) << report;
  const std::string losses = report.substr(0, accuracy_table);
  const std::string accuracies = report.substr(accuracy_table);
  ASSERT_NE(losses.find("| config | epoch 1 | epoch 2.5 | epoch 3 |"), std::string::npos) << report;
  ASSERT_NE(accuracies.find("| config | epoch 1 | epoch 2.5 | epoch 3 |"), std::string::npos)
      << report;
  // a: 2.0 and 2.2 (2.1 ± 0.1414); at 2.5 the evaluations at 3: 1.0 and 0.8 (0.9 ± 0.1414).
  EXPECT_NE(losses.find("| a | 2.1000 ± 0.1414 | 0.9000 ± 0.1414 | 0.9000 ± 0.1414 |"),
            std::string::npos)
      << report;
  // Its accuracies: 0.50 and 0.40 (0.45 ± 0.0707); at 2.5 and 3, 0.70 and 0.74 (0.72 ± 0.0283).
  EXPECT_NE(accuracies.find("| a | 0.4500 ± 0.0707 | 0.7200 ± 0.0283 | 0.7200 ± 0.0283 |"),
            std::string::npos)
      << report;
  // b: at epoch 1 both seeds' first evaluation is at 1.5 (1.9, 2.1); at 2.5 and 3 only seed 1's.
  EXPECT_NE(losses.find("| b | 2.0000 ± 0.1414 | 0.9000 (1/2) | 0.9000 (1/2) |"), std::string::npos)
      << report;
  EXPECT_NE(accuracies.find("| b | 0.5000 ± 0.0707 | 0.7100 (1/2) | 0.7100 (1/2) |"),
            std::string::npos)
      << report;
  // c: its second seed is queued, so one seed of two at every epoch.
  EXPECT_NE(losses.find("| c | 2.4000 (1/2) | 1.6000 (1/2) | 1.6000 (1/2) |"), std::string::npos)
      << report;
  EXPECT_NE(accuracies.find("| c | 0.3000 (1/2) | 0.5000 (1/2) | 0.5000 (1/2) |"),
            std::string::npos)
      << report;
  // Without the keys, no such tables.
  const std::string bare = report_of_sweep(dir, runs, nlohmann::json::object());
  EXPECT_EQ(bare.find("Training loss by epoch"), std::string::npos);
  EXPECT_EQ(bare.find("Test accuracy by epoch"), std::string::npos);
  fs::remove_all(dir);
}

// A seed still going has moved only part of its bytes and clock: once another seed of its
// configuration has ended, it waits for its end as a queued seed waits for its start. The means
// over seeds (the accuracies, the simulated time) are the ended seeds' alone, and the seed still
// going is named beside them with its accuracy so far; a configuration with no ended seed shows
// how far its running ones got. A stopped run's epoch is shown to two decimals. A time reference
// with a seed still going keeps its ended seeds' final accuracy as the target; one none of whose
// seeds has ended has none yet, and the table says so.
TEST(Report, ASeedStillGoingIsLeftOutOfTheEndedSeedsMeans) {
  const fs::path dir = fresh_dir("report_going");
  fake_run(dir / "part/1", "ok", 0.79, {{1, 10, 100, 0.70}, {2, 20, 200, 0.79}});
  fake_run(dir / "part/2", "interrupted", 0.50, {{1, 10, 50, 0.50}});
  fake_run(dir / "alone/1", "running", 0.60, {{1, 10, 90, 0.60}});
  for (const auto& [run, epochs] :
       std::vector<std::pair<std::string, double>>{{"part/2", 1.23456}, {"alone/1", 1.0}}) {
    nlohmann::json summary = nlohmann::json::parse(read_file(dir / run / "summary.json"));
    summary["epochs"] = epochs;
    std::ofstream(dir / run / "summary.json") << summary.dump();
  }
  const std::string report =
      report_of_sweep(dir, {"part/1", "part/2", "alone/1"}, nlohmann::json::object());
  EXPECT_NE(report.find("| part | 2 | 0.7900 (+1 interrupted: 0.5000 at epoch 1.23) |"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("| alone | 1 | 0.6000 (running, epoch 1) |"), std::string::npos) << report;
  const auto csv = testing::read_csv(dir / "report.csv");
  ASSERT_EQ(csv.size(), 3u) << report;  // a header and two configurations
  // The index of a CSV column by its header's name (the header's size where it has none).
  const auto column = [](const std::vector<std::vector<std::string>>& table,
                         const std::string& name) {
    return static_cast<size_t>(std::find(table[0].begin(), table[0].end(), name) -
                               table[0].begin());
  };
  const size_t sim_time = column(csv, "sim_time");
  ASSERT_LT(sim_time, csv[0].size()) << report;
  EXPECT_EQ(csv[1][0], "part");
  EXPECT_DOUBLE_EQ(std::stod(csv[1][sim_time]), 200.0);  // not (200 + 50) / 2
  EXPECT_EQ(csv[2][0], "alone");
  EXPECT_DOUBLE_EQ(std::stod(csv[2][sim_time]), 90.0);
  // With "part" as the time reference, its target is its ended seed's final accuracy, 0.79:
  // part/1 reaches it at epoch 2, part/2 has not yet (1 of the 2 seeds), alone/1 has not yet.
  const std::string with_reference =
      report_of_sweep(dir, {"part/1", "part/2", "alone/1"}, {{"target_config", "part"}});
  EXPECT_NE(with_reference.find("| time to part's final acc |"), std::string::npos)
      << with_reference;
  EXPECT_NE(with_reference.find("| 2 / 20 / 200 (1/2) | 1.00 / 1.00 |"), std::string::npos)
      << with_reference;
  EXPECT_NE(with_reference.find("| 0.6000 (running, epoch 1) | 0.6000 (running, epoch 1) | "
                                "0.6100 (running, epoch 1) | not yet |"),
            std::string::npos)
      << with_reference;
  const auto with_reference_csv = testing::read_csv(dir / "report.csv");
  const size_t target_epoch = column(with_reference_csv, "target_epoch");
  ASSERT_LT(target_epoch, with_reference_csv[0].size());
  EXPECT_EQ(with_reference_csv[1][target_epoch], "2");
  EXPECT_EQ(with_reference_csv[2][target_epoch], "");
  // "alone" as the reference: no seed of it has ended, so it has no final accuracy yet, its
  // time-to-target cells are "-", and the table's text says why.
  const std::string without_target =
      report_of_sweep(dir, {"part/1", "part/2", "alone/1"}, {{"target_config", "alone"}});
  EXPECT_NE(without_target.find("\"-\" stands where it has no final accuracy yet (none of its "
                                "seeds has ended, or one did not end ok)"),
            std::string::npos)
      << without_target;
  const auto without_target_csv = testing::read_csv(dir / "report.csv");
  for (size_t row : {1, 2}) EXPECT_EQ(without_target_csv[row][target_epoch], "") << row;
  fs::remove_all(dir);
}

// The table of time to each test accuracy, hand-computed: each configuration's first evaluation
// at or above each target, the mean over the seeds that reached it of its seconds and epoch, and
// that time over the reference's (ref) at the same target; "(k/n)" where only k seeds got there,
// "never" where all ended, "not yet" while one runs; a run with no seconds column keeps its
// simulated time and gets no ratio against a reference timed in seconds.
TEST(Report, TimeToEachAccuracyIsEachSeedsFirstCrossing) {
  const fs::path dir = fresh_dir("report_targets");
  // Rows: epoch, seconds, test accuracy (updates and simulated time 10 and 100 an epoch).
  auto run_with = [&](const std::string& run, const std::string& status,
                      const std::vector<std::array<double, 3>>& rows, bool priced = true) {
    fake_run(dir / run, status, rows.empty() ? 0.0 : rows.back()[2], {});
    std::ofstream metrics(dir / run / "metrics.csv");
    metrics << "epoch,updates,sim_time," << (priced ? "seconds," : "") << "train_loss,test_acc\n";
    for (const auto& [epoch, seconds, acc] : rows) {
      metrics << epoch << "," << 10 * epoch << "," << 100 * epoch << ",";
      if (priced) metrics << seconds << ",";
      metrics << "0.5," << acc << "\n";
    }
  };
  run_with("ref/1", "ok", {{1, 60, 0.60}, {2, 120, 0.70}, {3, 180, 0.80}});
  run_with("ref/2", "ok", {{1, 66, 0.66}, {2, 132, 0.76}, {3, 198, 0.78}});
  run_with("fast/1", "ok", {{1, 30, 0.72}, {2, 60, 0.81}});
  run_with("slow/1", "running", {{1, 90, 0.40}});
  run_with("half/1", "ok", {{1, 40, 0.75}});
  run_with("half/2", "ok", {{1, 40, 0.50}, {2, 80, 0.55}});
  run_with("unpriced/1", "ok", {{1, 0, 0.90}}, false);
  const std::string report =
      report_of_sweep(dir,
                      {"ref/1", "ref/2", "fast/1", "slow/1", "half/1", "half/2", "unpriced/1",
                       "later/1"},  // later/1: a point of the sweep not started (no folder)
                      {{"target_config", "ref"}, {"accuracy_targets", {0.6, 0.75, 0.8}}});
  const std::string table = report.substr(report.find("## Time to each test accuracy"));
  EXPECT_NE(table.find("over ref's to the same accuracy"), std::string::npos) << table;
  EXPECT_NE(table.find("| config | 0.6 | 0.75 | 0.8 |"), std::string::npos) << table;
  // ref: 0.6 at 60 and 66 s (1:03, epoch 1); 0.75 at epoch 3 (180 s) and 2 (132 s); 0.8 by seed 1.
  EXPECT_NE(table.find("| ref | 1:03 (epoch 1; 1.00) | 2:36 (epoch 2.5; 1.00) | "
                       "3:00 (epoch 3; 1.00) (1/2) |"),
            std::string::npos)
      << table;
  // fast: 30 / 63, 60 / 156, 60 / 180 of ref's times.
  EXPECT_NE(table.find("| fast | 0:30 (epoch 1; 0.48) | 1:00 (epoch 2; 0.38) | "
                       "1:00 (epoch 2; 0.33) |"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("| slow | not yet | not yet | not yet |"), std::string::npos) << table;
  EXPECT_NE(table.find("| half | 0:40 (epoch 1; 0.63) (1/2) | 0:40 (epoch 1; 0.26) (1/2) | "
                       "never |"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("| unpriced | 100 (epoch 1) | 100 (epoch 1) | 100 (epoch 1) |"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("| later | - | - | - |"), std::string::npos) << table;
  // Without accuracy_targets, no such table.
  EXPECT_EQ(report_of_sweep(dir, {"ref/1"}, nlohmann::json::object()).find("Time to each test"),
            std::string::npos);
  fs::remove_all(dir);
}

// Drops from named baselines, hand-computed: base 0.90 / 0.88 (0.89 ± 0.0141), close 0.885 /
// 0.875 (0.88 ± 0.0071), far 0.80 / 0.82 (0.81 ± 0.0141), one seed of "one" (the other queued),
// a run still going alone, and "mixed", one seed ended (0.86) beside one still going, which
// waits for its end as a queued seed does. Each drop's interval is Welch's at 95 %: base against
// far, two seeds of equal spread a side, has 2 degrees of freedom, so 8.00 ± t(0.975, 2) x
// sqrt(0.0141²/2 + 0.0141²/2) = 8.00 ± 4.3027 x 1.4142 = 8.00 ± 6.08 points; close against base
// (1.00 points, a standard error of 1.12) holds 0.
TEST(Report, DropsFromBaselinesSayWhetherTheSeedsResolveThem) {
  const fs::path dir = fresh_dir("report_drops");
  fake_run(dir / "base/1", "ok", 0.90, {{1, 10, 10, 0.90}});
  fake_run(dir / "base/2", "ok", 0.88, {{1, 10, 10, 0.88}});
  fake_run(dir / "close/1", "ok", 0.885, {{1, 10, 10, 0.885}});
  fake_run(dir / "close/2", "ok", 0.875, {{1, 10, 10, 0.875}});
  fake_run(dir / "far/1", "ok", 0.80, {{1, 10, 10, 0.80}});
  fake_run(dir / "far/2", "ok", 0.82, {{1, 10, 10, 0.82}});
  fake_run(dir / "one/1", "ok", 0.87, {{1, 10, 10, 0.87}});
  fake_run(dir / "going/1", "running", 0.5, {{1, 10, 10, 0.5}});
  fake_run(dir / "mixed/1", "ok", 0.86, {{1, 10, 10, 0.86}});
  fake_run(dir / "mixed/2", "running", 0.3, {{1, 10, 10, 0.3}});
  const std::string report =
      report_of_sweep(dir,
                      {"base/1", "base/2", "close/1", "close/2", "far/1", "far/2", "one/1", "one/2",
                       "going/1", "mixed/1", "mixed/2"},
                      {{"drops_from", {"base", "far"}}});
  const std::string drops = report.substr(report.find("## Drops from the baselines"));
  EXPECT_NE(drops.find("| config | from base | from far |"), std::string::npos) << drops;
  EXPECT_NE(drops.find("| base | baseline | -8.00 [-14.08, -1.92], resolved |"), std::string::npos)
      << drops;
  EXPECT_NE(drops.find("| close | 1.00 ["), std::string::npos) << drops;
  EXPECT_NE(drops.find("], not resolved | -7.00 ["), std::string::npos) << drops;
  EXPECT_NE(drops.find("| far | 8.00 [1.92, 14.08], resolved | baseline |"), std::string::npos)
      << drops;
  // One seed against the baselines' two: no spread, and the cell says why.
  EXPECT_NE(drops.find("| one | 2.00 (1 seed against 2) | -6.00 (1 seed against 2) |"),
            std::string::npos)
      << drops;
  EXPECT_NE(drops.find("| going | - | - |"), std::string::npos) << drops;
  EXPECT_NE(drops.find("| mixed | 3.00 (1 seed against 2) | -5.00 (1 seed against 2) |"),
            std::string::npos)
      << drops;
  fs::remove_all(dir);
}

// A side trained, failed or waits by its ended seeds' statuses: a seed still going beside an
// ended one waits for its end (as in the tables), one alone keeps the side waiting.
TEST(Claims, ASideIsWhatItsEndedSeedsSay) {
  auto config = [](std::vector<std::pair<std::string, double>> seeds) {
    Configuration c;
    for (const auto& [status, final_acc] : seeds) {
      RunResult run;
      run.status = status;
      run.final_metric = final_acc;
      c.runs.push_back(run);
    }
    return c;
  };
  using State = ClaimSide::State;
  const Configuration trained = config({{"ok", 0.90}, {"ok", 0.88}});
  EXPECT_EQ(claim_side("a", &trained).state, State::kTrained);
  EXPECT_NEAR(claim_side("a", &trained).final_metric.mean, 0.89, 1e-12);
  EXPECT_EQ(claim_side("a", &trained).final_metric.n, 2);
  const Configuration collapsed = config({{"collapsed", 0.1}, {"collapsed", 0.1}});
  EXPECT_EQ(claim_side("a", &collapsed).state, State::kFailed);
  EXPECT_EQ(claim_side("a", &collapsed).how, "collapsed");
  const Configuration mixed = config({{"ok", 0.9}, {"diverged", 0.1}});
  EXPECT_EQ(claim_side("a", &mixed).state, State::kMixed);
  const Configuration going = config({{"running", 0.5}});
  EXPECT_EQ(claim_side("a", &going).state, State::kWaiting);
  const Configuration one_ended = config({{"ok", 0.87}, {"interrupted", 0.5}});
  EXPECT_EQ(claim_side("a", &one_ended).state, State::kTrained);
  EXPECT_EQ(claim_side("a", &one_ended).final_metric.n, 1);
  EXPECT_EQ(claim_side("a", nullptr).state, State::kWaiting);
}

// Verdicts by hand. Two seeds a side, each of std 0.001: the drop's standard error is
// sqrt(1e-6 / 2 + 1e-6 / 2) = 0.001 with 2 degrees of freedom, t(0.975, 2) = 4.302653, so a
// mean drop of 0.5 points has the interval 0.50 ± 0.43 = [0.07, 0.93] points and one of 8 points
// [7.57, 8.43]. Outcomes decide without a test; the best baseline that trained is the one
// compared with; one seed gives no test; a perplexity's drop is the perplexity gained.
TEST(Claims, VerdictsFollowOutcomesThenWelchsTestAgainstTheMargin) {
  using State = ClaimSide::State;
  const MainMetric& accuracy = main_metric(TaskKind::kClassification);
  auto trained = [](const std::string& name, int n, double mean, double sd) {
    return ClaimSide{name, State::kTrained, {n, mean, sd}, ""};
  };
  const ClaimSide base = trained("base", 2, 0.88, 0.001);
  const ClaimSide close = trained("close", 2, 0.875, 0.001);
  const ClaimSide far = trained("far", 2, 0.80, 0.001);
  const ClaimSide weak = trained("weak", 2, 0.70, 0.001);
  const ClaimSide dead{"dead", State::kFailed, {}, "collapsed"};
  const ClaimSide going{"going", State::kWaiting, {}, ""};

  ClaimVerdict v = decide_claim("near", 1.0, close, {base}, accuracy);
  EXPECT_EQ(v.word, "holds") << v.why;
  EXPECT_NE(v.why.find("over 2 and 2 seeds: the drop of close from base, 0.50 points, has the "
                       "interval [0.07, 0.93], entirely under the margin of 1.00 points"),
            std::string::npos)
      << v.why;
  EXPECT_EQ(decide_claim("below", 1.0, close, {base}, accuracy).word, "refuted");
  EXPECT_EQ(decide_claim("exceeds", 0.0, close, {base}, accuracy).word, "refuted");
  EXPECT_EQ(decide_claim("exceeds", 0.0, base, {close}, accuracy).word, "holds");
  EXPECT_EQ(decide_claim("near", 0.5, close, {base}, accuracy).word, "not resolved");
  v = decide_claim("below", 1.0, far, {base}, accuracy);
  EXPECT_EQ(v.word, "holds") << v.why;
  EXPECT_NE(v.why.find("8.00 points, has the interval [7.57, 8.43], entirely over"),
            std::string::npos)
      << v.why;
  EXPECT_EQ(decide_claim("near", 1.0, far, {base}, accuracy).word, "refuted");
  // Against the stronger of two baselines, not the weaker.
  v = decide_claim("near", 1.0, close, {weak, base}, accuracy);
  EXPECT_EQ(v.word, "holds") << v.why;
  EXPECT_NE(v.why.find("from base"), std::string::npos) << v.why;
  EXPECT_EQ(decide_claim("exceeds", 0.0, far, {weak, dead}, accuracy).word, "holds");
  // Outcomes: a side that did not train, a baseline that did not, neither.
  EXPECT_EQ(decide_claim("near", 1.0, dead, {base}, accuracy).word, "refuted");
  EXPECT_EQ(decide_claim("exceeds", 0.0, dead, {base}, accuracy).word, "refuted");
  v = decide_claim("below", 1.0, dead, {base}, accuracy);
  EXPECT_EQ(v.word, "holds");
  EXPECT_NE(v.why.find("dead did not train (every seed collapsed) where base did"),
            std::string::npos)
      << v.why;
  EXPECT_EQ(decide_claim("exceeds", 0.0, base, {dead}, accuracy).word, "holds");
  EXPECT_EQ(decide_claim("below", 1.0, base, {dead}, accuracy).word, "refuted");
  EXPECT_EQ(decide_claim("near", 1.0, base, {dead}, accuracy).word, "undecided");
  EXPECT_EQ(decide_claim("exceeds", 0.0, dead, {dead}, accuracy).word, "undecided");
  // Waiting: for the side, or for any baseline (it may turn out the strongest).
  v = decide_claim("exceeds", 0.0, dead, {dead, going}, accuracy);
  EXPECT_EQ(v.word, "waits");
  EXPECT_EQ(v.why, "going has not ended");
  EXPECT_EQ(decide_claim("near", 1.0, going, {base}, accuracy).word, "waits");
  EXPECT_EQ(decide_claim("near", 1.0, ClaimSide{"mixed", State::kMixed, {}, "collapsed"}, {base},
                         accuracy)
                .word,
            "undecided");
  // One seed: no test, the difference and which side of the threshold it is on.
  v = decide_claim("near", 1.0, trained("one", 1, 0.875, 0.0), {base}, accuracy);
  EXPECT_EQ(v.word, "untested");
  EXPECT_EQ(v.why,
            "1 seed against 2, no spread to test with: the drop of one from base, 0.50 "
            "points, is on the claim's side of the margin of 1.00 points");
  // A perplexity: 5.0 against 4.9 is 0.10 gained, [0.06, 0.14] by the same test.
  const MainMetric& perplexity = main_metric(TaskKind::kLanguageModel);
  v = decide_claim("near", 0.2, trained("lm", 2, 5.0, 0.01), {trained("ref", 2, 4.9, 0.01)},
                   perplexity);
  EXPECT_EQ(v.word, "holds") << v.why;
  EXPECT_NE(v.why.find("0.10, has the interval [0.06, 0.14], entirely under the margin of 0.20"),
            std::string::npos)
      << v.why;
  EXPECT_EQ(decide_claim("exceeds", 0.0, trained("lm", 2, 5.0, 0.01),
                         {trained("ref", 2, 4.9, 0.01)}, perplexity)
                .word,
            "refuted");
}

// The report's claims section: each claim with its test in words, each side's final accuracy as
// the table shows it, the verdict and its reason; a folder of another sweep's runs read as a side
// (and one that does not exist yet waits); a stated claim printed as given.
TEST(Report, ClaimsAreDecidedFromTheRunsOnThePage) {
  const fs::path dir = fresh_dir("report_claims");
  const fs::path other = fresh_dir("report_claims_other");
  fake_run(dir / "base/1", "ok", 0.881, {{1, 10, 10, 0.881}});
  fake_run(dir / "base/2", "ok", 0.879, {{1, 10, 10, 0.879}});
  fake_run(dir / "far/1", "ok", 0.801, {{1, 10, 10, 0.801}});
  fake_run(dir / "far/2", "ok", 0.799, {{1, 10, 10, 0.799}});
  fake_run(dir / "dead/1", "collapsed", 0.1, {{1, 10, 10, 0.1}});
  fake_run(dir / "dead/2", "collapsed", 0.1, {{1, 10, 10, 0.1}});
  fake_run(other / "sgd_n1/seed1", "ok", 0.90, {{1, 10, 10, 0.90}});
  auto claim = [](const std::string& text, const std::string& test, const std::string& config,
                  const std::vector<std::string>& against, double margin) {
    return nlohmann::json{
        {"claim", text},      {"published", "no figure"}, {"test", test},   {"config", config},
        {"against", against}, {"margin", margin},         {"measured", ""}, {"verdict", ""}};
  };
  const nlohmann::json claims = {
      claim("far degrades", "below", "far", {"base"}, 1.0),
      claim("dead beats base", "exceeds", "dead", {"base", "far"}, 0.0),
      claim("far is near elsewhere", "near", "far", {(other / "sgd_n1").string()}, 1.0),
      claim("far is near a run to come", "near", "far", {(other / "later").string()}, 1.0),
      {{"claim", "fast"},
       {"published", "no figure"},
       {"test", ""},
       {"config", ""},
       {"against", std::vector<std::string>{}},
       {"margin", 0.0},
       {"measured", "63.7x (clock.md)"},
       {"verdict", "reproduced in time"}}};
  const std::string report = report_of_sweep(
      dir, {"base/1", "base/2", "far/1", "far/2", "dead/1", "dead/2"}, {{"claims", claims}});
  const std::string section = report.substr(report.find("## The claims"));
  EXPECT_NE(section.find("| far degrades (below: more than 1.00 points under base) | no figure | "
                         "far: 0.8000 ± 0.0014; against base: 0.8800 ± 0.0014 | **holds**: "
                         "Welch's t at 95 % over 2 and 2 seeds: the drop of far from base, 8.00 "
                         "points"),
            std::string::npos)
      << section;
  EXPECT_NE(section.find("| dead beats base (exceeds: better than the best of base, far) | no "
                         "figure | dead: collapsed, collapsed; against base: 0.8800 ± 0.0014; far: "
                         "0.8000 ± 0.0014 | **refuted**: dead did not train (every seed "
                         "collapsed) where base did"),
            std::string::npos)
      << section;
  EXPECT_NE(section.find("against " + (other / "sgd_n1").string() +
                         ": 0.9000 | **untested**: 2 "
                         "seeds against 1"),
            std::string::npos)
      << section;
  EXPECT_NE(section.find(": no run has ended | **waits**: " + (other / "later").string() +
                         " has not ended |"),
            std::string::npos)
      << section;
  EXPECT_NE(section.find("| fast | no figure | 63.7x (clock.md) | reproduced in time (stated) |"),
            std::string::npos)
      << section;
  // A folder holding two configurations is no side: the report stops and says which to name.
  fake_run(other / "sgd_n2/seed1", "ok", 0.89, {{1, 10, 10, 0.89}});
  try {
    report_of_sweep(dir, {"base/1", "base/2", "far/1", "far/2"},
                    {{"claims", {claim("far near both", "near", "far", {other.string()}, 1.0)}}});
    ADD_FAILURE() << "a folder of two configurations was taken as one side";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("which holds 2 configurations"), std::string::npos)
        << e.what();
  }
  fs::remove_all(dir);
  fs::remove_all(other);
}

}  // namespace
}  // namespace dsgd
