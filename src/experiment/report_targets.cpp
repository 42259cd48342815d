// The report's table of time to each value of the main metric (`[report] accuracy_targets = [...]`
// in the sweep spec: test accuracies, or a language model's perplexities): where a claim is read as
// "reaches the reference's final accuracy sooner", one
// target decides it, and a target a little higher or lower can reverse it. This table reads the
// same comparison at several targets, in numbers, beside the figure that draws it as a curve. See
// report_sections.h.
#include <fmt/format.h>

#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "experiment/report_sections.h"
#include "run/progress.h"

namespace dsgd {
namespace report_internal {
namespace {

// A configuration's crossings of one target: the mean over the seeds that reached it of their
// time (seconds where every one was priced on a cluster, else simulated time) and epoch.
struct Crossing {
  bool started = false;  // some seed has started (a sweep's points not run yet have no status)
  size_t reached = 0;
  size_t seeds = 0;        // queued seeds counted
  bool may_still = false;  // a seed that has not reached it has not ended (or not started)
  double time = 0.0;
  double epoch = 0.0;
  bool in_seconds = true;
};

Crossing crossing(const Configuration& c, double target) {
  Crossing result;
  result.seeds = c.runs.size() + static_cast<size_t>(c.queued);
  std::vector<Reached> reached;
  for (const RunResult& run : c.runs) {
    result.started = result.started || !run.status.empty();
    if (auto r = time_to_target(run, target)) {
      reached.push_back(*r);
    } else if (run.status.empty() || unfinished(run)) {
      result.may_still = true;
    }
  }
  result.may_still = result.may_still || c.queued > 0;
  result.reached = reached.size();
  for (const Reached& r : reached) result.in_seconds = result.in_seconds && r.seconds.has_value();
  for (const Reached& r : reached) {
    result.time += (result.in_seconds ? *r.seconds : r.sim_time) / reached.size();
    result.epoch += r.epoch / reached.size();
  }
  return result;
}

std::string time_text(const Crossing& c) {
  return c.in_seconds ? format_duration(c.time) : fmt::format("{:.0f}", c.time);
}

// "8:41 (epoch 89; 0.88)": the time, the epoch, and the time over the reference's at the same
// target where there is one that got there on the same clock; "never" where every seed ended
// without reaching it, "not yet" while one still may, "-" where none has started; "(k/n)" where k
// of the n seeds got there.
std::string cell(const Crossing& c, const std::optional<Crossing>& reference) {
  if (!c.started) return "-";
  if (c.reached == 0) return c.may_still ? "not yet" : "never";
  std::string text = fmt::format("{} (epoch {:g}", time_text(c), c.epoch);
  if (reference && reference->reached > 0 && reference->in_seconds == c.in_seconds &&
      reference->time > 0.0) {
    text += fmt::format("; {:.2f}", c.time / reference->time);
  }
  text += ")";
  if (c.reached < c.seeds) text += fmt::format(" ({}/{})", c.reached, c.seeds);
  return text;
}

}  // namespace

std::string targets_section(const Experiment& experiment, const Layout& layout) {
  const std::vector<double>& targets = experiment.layout.accuracy_targets;
  if (targets.empty()) return "";
  std::ostringstream md;
  const MainMetric& metric = experiment.metric();
  md << fmt::format(
      "\n## Time to each {}\n\nEach configuration's first evaluation at or {} each "
      "{}: the time to it on the report's clock (h:mm:ss on a cluster, else "
      "simulated time) and, in parentheses, its epoch",
      metric.name, metric.lower_is_better ? "below" : "above", metric.name);
  if (layout.relative_target()) {
    md << " and that time over " << layout.target_config << "'s to the same "
       << (metric.fraction ? "accuracy" : "value") << " (below 1: sooner)";
  }
  md << "; the mean over the seeds that got there, (k/n) where only k of its n seeds did. "
        "\"never\": every seed ended without reaching it; \"not yet\": one still may; - : "
        "none has started.\n\n";
  std::vector<std::string> headers;
  for (double target : targets) headers.push_back(fmt::format("{:g}", target));
  md << table_head(experiment.dimensions, headers);
  for (const Configuration& c : experiment.configurations) {
    const Configuration* reference =
        layout.relative_target() ? reference_for(experiment, layout, c, layout.target_config)
                                 : nullptr;
    std::vector<std::string> cells;
    for (double target : targets) {
      std::optional<Crossing> of_reference;
      if (reference != nullptr) of_reference = crossing(*reference, target);
      cells.push_back(cell(crossing(c, target), of_reference));
    }
    md << table_row(c, experiment.dimensions, cells);
  }
  return md.str();
}

}  // namespace report_internal
}  // namespace dsgd
