// Deciding a claim from the runs' outcomes and final metrics; see claim_verdict.h.
#include "experiment/claim_verdict.h"

#include <fmt/format.h>
#include <fmt/ranges.h>  // fmt::join (in format.h before fmt 11)

#include <algorithm>

#include "experiment/seed_test.h"

namespace dsgd {

ClaimSide claim_side(const std::string& name, const Configuration* c) {
  ClaimSide side;
  side.name = name;
  if (c == nullptr) return side;
  int trained = 0;
  int failed = 0;
  std::vector<std::string> statuses;  // of the seeds that ended otherwise
  for (const RunResult& run : c->runs) {
    if (run.status.empty() || unfinished(run)) continue;
    if (run.status == "ok") {
      ++trained;
      continue;
    }
    ++failed;
    if (std::find(statuses.begin(), statuses.end(), run.status) == statuses.end())
      statuses.push_back(run.status);
  }
  side.how = fmt::format("{}", fmt::join(statuses, " or "));
  if (trained + failed == 0) return side;
  if (failed == 0) {
    side.state = ClaimSide::State::kTrained;
    side.final_metric = finished_metric(*c);
  } else {
    side.state = trained == 0 ? ClaimSide::State::kFailed : ClaimSide::State::kMixed;
  }
  return side;
}

ClaimVerdict decide_claim(const std::string& test, double margin, const ClaimSide& side,
                          const std::vector<ClaimSide>& against, const MainMetric& metric) {
  using State = ClaimSide::State;
  // Until every side has ended there is nothing to decide: a later seed, or a stronger baseline,
  // can still turn the verdict.
  std::vector<std::string> waiting;
  std::vector<const ClaimSide*> all = {&side};
  for (const ClaimSide& other : against) all.push_back(&other);
  for (const ClaimSide* s : all) {
    if (s->state == State::kWaiting) waiting.push_back(s->name);
  }
  if (!waiting.empty()) {
    return {"waits", fmt::format("{} {} not ended", fmt::join(waiting, " and "),
                                 waiting.size() == 1 ? "has" : "have")};
  }
  for (const ClaimSide* s : all) {
    if (s->state == State::kMixed) {
      return {"undecided",
              fmt::format("the seeds of {} disagree: some trained, some {}", s->name, s->how)};
    }
  }
  // The strongest baseline that trained: a claim against a weaker one proves little.
  const ClaimSide* best = nullptr;
  std::vector<std::string> names;
  for (const ClaimSide& other : against) {
    names.push_back(other.name);
    if (other.state == State::kTrained &&
        (best == nullptr || metric.better(other.final_metric.mean, best->final_metric.mean))) {
      best = &other;
    }
  }
  const std::string baselines = fmt::format("{}", fmt::join(names, " and "));
  const bool trained = side.state == State::kTrained;
  if (!trained && best == nullptr) {
    return {"undecided",
            fmt::format("neither side trained ({}: {}; {}: {}), so there is no "
                        "final {} to compare",
                        side.name, side.how, baselines,
                        against.size() == 1 ? against.front().how : "none trained", metric.name)};
  }
  if (!trained) {
    const std::string outcome = fmt::format("{} did not train (every seed {}) where {} did",
                                            side.name, side.how, best->name);
    if (test == "below") return {"holds", outcome + ": it fell all the way, no test needed"};
    return {"refuted", outcome + ", no test needed"};
  }
  if (best == nullptr) {
    const std::string outcome = fmt::format("{} trained where {} did not", side.name, baselines);
    if (test == "exceeds") return {"holds", outcome + ", no test needed"};
    if (test == "below") return {"refuted", outcome + ", no test needed"};
    return {"undecided",
            outcome + ": there is no baseline's final " + std::string(metric.name) + " to be near"};
  }

  // Both trained: the drop of the side from the best baseline (positive: worse), in shown units,
  // against the claim's threshold: under the margin (near), under 0 (exceeds), over the margin
  // (below).
  const SeedStats& a = side.final_metric;
  const SeedStats& b = best->final_metric;
  const std::string unit = metric.fraction ? " points" : "";
  const double drop = metric.shown_difference(metric.shortfall(a.mean, b.mean));
  const double threshold = test == "exceeds" ? 0.0 : margin;
  const bool claim_is_under = test != "below";
  const std::string threshold_text =
      test == "exceeds" ? std::string("0") : fmt::format("the margin of {:.2f}{}", margin, unit);
  const std::string drop_text =
      fmt::format("the drop of {} from {}, {:.2f}{}", side.name, best->name, drop, unit);
  const auto interval = metric.lower_is_better ? welch_interval(a, b) : welch_interval(b, a);
  if (!interval) {
    const bool claims_way = claim_is_under ? drop < threshold : drop > threshold;
    return {"untested",
            fmt::format("{} seed{} against {}, no spread to test with: {}, is on the {} side of {}",
                        a.n, a.n == 1 ? "" : "s", b.n, drop_text, claims_way ? "claim's" : "other",
                        threshold_text)};
  }
  const double low = metric.shown_difference(interval->low);
  const double high = metric.shown_difference(interval->high);
  const std::string tested =
      fmt::format("Welch's t at 95 % over {} and {} seeds: {}, has the interval [{:.2f}, {:.2f}]",
                  a.n, b.n, drop_text, low, high);
  const bool all_under = high < threshold;
  const bool all_over = low > threshold;
  if (all_under || all_over) {
    const bool holds = all_under == claim_is_under;
    return {holds ? "holds" : "refuted", fmt::format("{}, entirely {} {}", tested,
                                                     all_under ? "under" : "over", threshold_text)};
  }
  return {"not resolved", fmt::format("{}, which holds {}", tested, threshold_text)};
}

}  // namespace dsgd
