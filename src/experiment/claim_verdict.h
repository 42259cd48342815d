// Deciding a paper's claim from the runs' final metrics (sweep_spec.h's Claim): whether a
// configuration ends near, above or well below the strongest of its baselines. Outcomes come first
// (a side whose every seed collapsed has no final metric, and a claim can still be settled by it:
// "exceeds" a baseline that did not train); where both sides trained, Welch's t at 95 % over the
// seeds (seed_test.h) against the claim's margin; with one seed on a side there is no test, and the
// verdict says so.
#pragma once

#include <string>
#include <vector>

#include "experiment/run_results.h"

namespace dsgd {

// What one side's runs say about it.
struct ClaimSide {
  std::string name;
  enum class State {
    kWaiting,  // no seed has ended (none started, or all running or interrupted)
    kTrained,  // every ended seed ended normally: `final_metric` over them
    kFailed,   // every ended seed collapsed or diverged: `how` says which
    kMixed,    // some ended normally and some did not
  } state = State::kWaiting;
  SeedStats final_metric;
  std::string how;  // kFailed: the ended seeds' statuses, e.g. "collapsed"
};

// The side of configuration `c` (nullptr: no runs found), named `name`.
ClaimSide claim_side(const std::string& name, const Configuration* c);

struct ClaimVerdict {
  std::string word;  // "holds", "refuted", "not resolved", "untested", "waits" or "undecided"
  std::string why;   // the outcomes or the test behind it, with its interval
};

// The verdict on claim `test` ("near", "exceeds", "below") of `side` against the best of `against`
// (by final metric among those that trained; the claim waits while any of them has not ended), with
// `margin` in the metric's shown units (points of accuracy).
ClaimVerdict decide_claim(const std::string& test, double margin, const ClaimSide& side,
                          const std::vector<ClaimSide>& against, const MainMetric& metric);

}  // namespace dsgd
