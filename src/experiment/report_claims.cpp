// The report's section of a paper's claims ([[report.claims]] of the spec): each claim, what the
// paper published for it, each side's final metric as the runs left it, and the verdict
// claim_verdict.h reaches with the test behind it. Regenerated with the tables, so a verdict turns
// from "waits" to its answer the moment the last run it needs has ended.
#include <fmt/format.h>
#include <fmt/ranges.h>  // fmt::join (in format.h before fmt 11)

#include <filesystem>
#include <map>
#include <sstream>

#include "core/errors.h"
#include "experiment/claim_verdict.h"
#include "experiment/report_sections.h"

namespace dsgd {
namespace report_internal {
namespace {

namespace fs = std::filesystem;

// A folder of another sweep's runs as the page shows it: from the page's own folder (its runs are
// committed beside it, docs/results/NAME-runs/), else whole.
std::string shown_folder(const std::string& folder, const fs::path& page_folder) {
  const fs::path relative =
      fs::path(folder).lexically_relative(fs::absolute(page_folder).lexically_normal());
  if (relative.empty() || *relative.begin() == "..") return folder;
  return relative.string();
}

// One side of a claim: a configuration of the sweep by name, or the one configuration of runs in a
// folder (read once per report; one that does not exist yet has no run ended).
struct Sides {
  const Experiment& experiment;
  fs::path page_folder;
  std::map<std::string, Experiment> folders;

  std::pair<ClaimSide, std::string> side(const std::string& name) {
    const Configuration* found = nullptr;
    std::string shown = name;
    if (name.find('/') == std::string::npos) {
      for (const Configuration& c : experiment.configurations) {
        if (label_of(c.labels, "config") != name) continue;
        if (found != nullptr) {
          throw ConfigError(
              fmt::format("a claim names '{}', which is more than one configuration here (the "
                          "name crossed with the grid)",
                          name),
              "name configurations the grid does not cross in [[report.claims]]");
        }
        found = &c;
      }
    } else {
      shown = shown_folder(name, page_folder);
      if (!fs::is_directory(name)) return {claim_side(shown, nullptr), "no run has ended"};
      auto it = folders.find(name);
      if (it == folders.end()) it = folders.emplace(name, load_experiment({name})).first;
      const Experiment& runs = it->second;
      if (runs.configurations.size() != 1) {
        throw ConfigError(
            fmt::format("a claim names the folder '{}', which holds {} configurations", shown,
                        runs.configurations.size()),
            "name the folder of one configuration's seeds (CONFIG/, holding seed1/, seed2/)");
      }
      if (runs.task != experiment.task) {
        throw ConfigError(
            fmt::format("a claim compares with '{}', whose runs are of another task", shown),
            "compare runs of one task");
      }
      found = &runs.configurations.front();
    }
    return {claim_side(shown, found),
            found == nullptr ? "-" : metric_cell(*found, &RunResult::final_metric)};
  }
};

// The claim's test in words, after its text.
std::string test_words(const Claim& claim, const MainMetric& metric) {
  const std::string unit = metric.fraction ? " points" : "";
  // "Near" is one-sided, as the papers' claims are: no more than the margin worse (ending better
  // by any amount is near enough).
  const char* worse = metric.lower_is_better ? "worse than" : "under";
  if (claim.test == "near") {
    return fmt::format("near: at most {:.2f}{} {}", claim.margin, unit, worse);
  }
  if (claim.test == "below")
    return fmt::format("below: more than {:.2f}{} {}", claim.margin, unit, worse);
  return "exceeds: better than";
}

}  // namespace

std::string claims_section(const Experiment& experiment, const std::string& page_folder) {
  const std::vector<Claim>& claims = experiment.layout.claims;
  if (claims.empty()) return "";
  const MainMetric& metric = experiment.metric();
  std::ostringstream md;
  md << "## The claims\n\n"
     << fmt::format(
            "Each claim of the paper, what it published, what the runs measured (each side's "
            "final {0} as the table of every configuration shows it) and the verdict. A side "
            "whose every ended seed collapsed or diverged has no final {0}, and settles a claim "
            "by that outcome alone; where both sides trained, the test is Welch's t at 95 % over "
            "the seeds that ended, of the drop from the best baseline that trained: \"near\" "
            "holds where the interval lies under the margin, \"exceeds\" where it lies under 0, "
            "\"below\" where it lies over the margin, each refuted where the interval lies wholly "
            "on the other side and not resolved where it holds the threshold. With one seed on a "
            "side no test is possible (\"untested\"); a claim waits while a side has not ended. "
            "A claim the runs cannot decide is stated in the spec with its source "
            "(\"stated\").\n\n",
            metric.name)
     << "| claim | published | measured | verdict |\n|---|---|---|---|\n";
  Sides sides{experiment, page_folder, {}};
  for (const Claim& claim : claims) {
    if (claim.test.empty()) {
      md << fmt::format("| {} | {} | {} | {} (stated) |\n", claim.text, claim.published,
                        claim.measured, claim.verdict);
      continue;
    }
    auto [side, side_cell] = sides.side(claim.config);
    std::vector<ClaimSide> against;
    std::vector<std::string> against_cells;
    for (const std::string& name : claim.against) {
      auto [other, cell] = sides.side(name);
      against_cells.push_back(fmt::format("{}: {}", other.name, cell));
      against.push_back(other);
    }
    std::vector<std::string> against_names;
    for (const ClaimSide& other : against) against_names.push_back(other.name);
    const std::string baselines =
        against_names.size() == 1 ? against_names.front()
                                  : fmt::format("the best of {}", fmt::join(against_names, ", "));
    const ClaimVerdict verdict = decide_claim(claim.test, claim.margin, side, against, metric);
    md << fmt::format("| {} ({} {}) | {} | {}: {}; against {} | **{}**: {} |\n", claim.text,
                      test_words(claim, metric), baselines, claim.published, side.name, side_cell,
                      fmt::join(against_cells, "; "), verdict.word, verdict.why);
  }
  md << "\n";
  return md.str();
}

}  // namespace report_internal
}  // namespace dsgd
