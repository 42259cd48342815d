// Subcommands and exit codes; see cli.h.
#include "cli/cli.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <iostream>

#include "algos/catalog.h"
#include "core/errors.h"
#include "data/dataset.h"
#include "models/model.h"
#include "run/run_job.h"
#include "train/config.h"

namespace dsgd {
namespace {

constexpr const char* kVersion = "0.1.0";

void print_error(const std::string& what, const std::string& hint) {
  if (what.empty()) return;  // an MPI rank whose error another rank reports
  std::cerr << "dsgd: error: " << what << "\n";
  if (!hint.empty()) std::cerr << "  hint: " << hint << "\n";
}

void list(const std::string& what) {
  auto section = [](const std::string& title) { std::cout << title << ":\n"; };
  if (what.empty() || what == "algorithms") {
    section("algorithms (algo = ...)");
    for (const auto& a : algorithm_catalog()) {
      std::cout << fmt::format("  {:<12} {}\n", a.name, a.description);
    }
  }
  if (what.empty() || what == "models") {
    section("models (model = ...)");
    for (const auto& m : model_registry()) {
      std::cout << fmt::format("  {:<12} {}\n", m.name, m.description);
    }
  }
  if (what.empty() || what == "datasets") {
    section("datasets (dataset = ...)");
    for (const auto& d : dataset_registry()) {
      std::cout << fmt::format("  {:<14} {}\n", d.name, d.description);
    }
  }
  if (what == "keys") {
    section("config keys (in the TOML file, or --set KEY=VALUE)");
    for (const auto& k : config_keys()) {
      std::cout << fmt::format("  {:<24} {:<18} default {:<12} {}{}\n", k.key, k.type,
                               k.default_value, k.help,
                               k.applies_to.empty() ? "" : " [" + k.applies_to + "]");
    }
  }
  if (what.empty()) std::cout << "`dsgd list keys` shows every config key.\n";
}

}  // namespace

int cli_main(int argc, char** argv) {
  CLI::App app{"dsgd: distributed SGD (DANA, Hier-AVG and their baselines) on LibTorch"};
  app.set_version_flag("--version", kVersion);
  app.require_subcommand(1);

  std::string config_path;
  std::vector<std::string> overrides;
  std::string out_dir;
  std::string engine;
  CLI::App* run =
      app.add_subcommand("run", "train: the default job, or the one a config describes");
  run->add_option("-c,--config", config_path, "TOML config file (keys: `dsgd list keys`)");
  run->add_option("--set", overrides, "override a config key: --set KEY=VALUE (repeatable)")
      ->take_all();
  run->add_option("--out", out_dir, "run folder (default: runs/<timestamp>-<algo>)");
  run->add_option("--engine", engine, "shorthand for --set engine=...");
  std::string resume_dir;
  run->add_option("--resume", resume_dir,
                  "continue the run in DIR from its last checkpoint (its config.toml, then --set)")
      ->excludes("--out")
      ->excludes("--config");

  std::string list_what;
  CLI::App* list_cmd =
      app.add_subcommand("list", "algorithms, models, datasets; `list keys`: config keys");
  list_cmd->add_option("what", list_what, "algorithms, models, datasets or keys")
      ->check(CLI::IsMember({"algorithms", "models", "datasets", "keys"}));

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }

  try {
    if (*list_cmd) {
      list(list_what);
      return 0;
    }
    if (!engine.empty()) overrides.push_back("engine=" + engine);
    if (!resume_dir.empty()) {
      RunConfig config = load_config(resume_dir + "/config.toml", overrides);
      check_resume_changes(load_config(resume_dir + "/config.toml", {}), config);
      std::string path = run_job(config, resume_dir, /*resume=*/true);
      if (!path.empty()) std::cout << "results: " << path << "\n";
      return 0;
    }
    RunConfig config = load_config(config_path, overrides);
    std::string path = run_job(config, out_dir);
    if (!path.empty()) std::cout << "results: " << path << "\n";  // MPI: rank 0 only
    return 0;
  } catch (const Error& e) {
    print_error(e.what(), e.hint());
    return e.exit_code();
  } catch (const c10::Error& e) {
    print_error(e.what_without_backtrace(), "this is a LibTorch error; please report it");
    return 1;
  } catch (const std::exception& e) {
    print_error(e.what(), "");
    return 1;
  }
}

}  // namespace dsgd
