// [[report.claims]] of a sweep spec: the paper's claims the report sets beside the runs that decide
// them (sweep_spec.h's Claim; decided in claim_verdict.cpp, shown by report_claims.cpp). Checked
// here, when the spec is read, so that a claim naming a configuration the sweep lacks stops the
// sweep before any run starts instead of leaving a page whose verdict waits forever.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "core/names.h"
#include "experiment/sweep_layout.h"
#include "experiment/sweep_toml.h"

namespace dsgd {
namespace sweep_internal {
namespace {

namespace fs = std::filesystem;

const char* const kKnownKeys =
    "claim, published, test (\"near\", \"exceeds\" or \"below\"), config, against, margin; or, "
    "for a claim the runs cannot decide, measured and verdict in place of test, config, against "
    "and margin";

// A side of a claim: a configuration of this sweep (checked), or a folder of runs (a name with a
// '/'), made absolute from the spec's folder; such a folder may not exist yet (its runs are
// committed as they end), and the report then says no run has ended.
std::string side_of(const std::string& name, const std::vector<std::string>& configs,
                    const std::string& spec_dir, const std::string& where,
                    const std::string& source) {
  if (name.find('/') != std::string::npos) {
    return fs::absolute(fs::path(spec_dir) / name).lexically_normal().string();
  }
  if (std::find(configs.begin(), configs.end(), name) == configs.end()) {
    const std::string closest = closest_name(name, configs);
    fail(source,
         fmt::format("{} names '{}', which is not a configuration of this sweep{} (a "
                     "folder of another sweep's runs is written with a '/')",
                     where, name, closest.empty() ? "" : " (did you mean '" + closest + "'?)"));
  }
  return name;
}

}  // namespace

void read_claims(const toml::node& claims, const std::string& source, const std::string& spec_dir,
                 SweepSpec& spec) {
  const toml::array* list = claims.as_array();
  if (list == nullptr || list->empty()) {
    fail(source, std::string("report.claims must be a list of tables ([[report.claims]]), each "
                             "with ") +
                     kKnownKeys);
  }
  std::vector<std::string> configs;
  for (const SweepPoint& point : spec.points) {
    for (const auto& [dimension, value] : point.labels) {
      if (dimension == "config" &&
          std::find(configs.begin(), configs.end(), value) == configs.end())
        configs.push_back(value);
    }
  }
  int index = 0;
  for (const toml::node& item : *list) {
    ++index;
    const std::string where = fmt::format("report.claims[{}]", index);
    const toml::table* table = item.as_table();
    if (table == nullptr) fail(source, where + " must be a table with " + kKnownKeys);
    Claim claim;
    std::set<std::string> given;
    for (const auto& [key, node] : *table) {
      const std::string name(key.str());
      given.insert(name);
      if (name == "margin") {
        const std::optional<double> margin = node.value<double>();
        if (!margin || *margin <= 0) {
          fail(source, where +
                           ".margin must be a number > 0, in the metric's shown units "
                           "(points of accuracy): e.g. margin = 1.0");
        }
        claim.margin = *margin;
        continue;
      }
      if (name == "against") {
        std::vector<std::string> names;
        if (node.is_string()) {
          names.push_back(node.as_string()->get());
        } else if (const toml::array* sides = node.as_array();
                   sides != nullptr && !sides->empty() &&
                   sides->is_homogeneous(toml::node_type::string)) {
          for (const toml::node& side : *sides) names.push_back(*side.value<std::string>());
        } else {
          fail(source, where +
                           ".against must be a configuration, or a list of them (the claim "
                           "is tested against the best of them that ended)");
        }
        for (const std::string& side : names)
          claim.against.push_back(side_of(side, configs, spec_dir, where + ".against", source));
        continue;
      }
      const std::optional<std::string> text = node.value<std::string>();
      if (!text || text->empty()) {
        fail(source,
             fmt::format("{}.{} must be a non-empty string (keys: {})", where, name, kKnownKeys));
      }
      if (name == "claim") {
        claim.text = *text;
      } else if (name == "published") {
        claim.published = *text;
      } else if (name == "test") {
        if (*text != "near" && *text != "exceeds" && *text != "below") {
          fail(source,
               fmt::format("{}.test = \"{}\": expected \"near\" (at most margin worse than the "
                           "best of against), \"exceeds\" (better than it) or \"below\" "
                           "(more than margin worse than it)",
                           where, *text));
        }
        claim.test = *text;
      } else if (name == "config") {
        claim.config = side_of(*text, configs, spec_dir, where + ".config", source);
      } else if (name == "measured") {
        claim.measured = *text;
      } else if (name == "verdict") {
        claim.verdict = *text;
      } else {
        fail(source, fmt::format("unknown key {}.{} (known: {})", where, name, kKnownKeys));
      }
    }
    if (claim.text.empty() || claim.published.empty()) {
      fail(source, where +
                       " needs claim = \"...\" (the paper's words) and published = \"...\" "
                       "(its figure, or \"no figure\")");
    }
    const bool tested = given.count("test") > 0;
    if (tested) {
      if (claim.config.empty() || claim.against.empty()) {
        fail(source, where +
                         ": a tested claim needs config (the side the claim is about) and "
                         "against (what it is compared with)");
      }
      if (given.count("measured") > 0 || given.count("verdict") > 0) {
        fail(source, where +
                         ": a tested claim's measured figures and verdict are the report's; "
                         "give measured and verdict only for a claim without a test");
      }
      const bool needs_margin = claim.test != "exceeds";
      if (needs_margin != (given.count("margin") > 0)) {
        fail(source, where + (needs_margin ? ": test = \"" + claim.test +
                                                 "\" needs a margin (how far is near, or how far "
                                                 "below counts)"
                                           : ": test = \"exceeds\" takes no margin"));
      }
    } else if (claim.measured.empty() || claim.verdict.empty() || given.count("config") > 0 ||
               given.count("against") > 0 || given.count("margin") > 0) {
      fail(source, where +
                       ": give test, config, against (and margin) for a claim the runs "
                       "decide, or measured and verdict (with where they come from) for one "
                       "they cannot");
    }
    spec.report.claims.push_back(claim);
  }
}

}  // namespace sweep_internal
}  // namespace dsgd
