// The report's tables by epoch (`[report] loss_epochs = [...]` and `accuracy_epochs = [...]` in the
// sweep spec): each configuration's training loss, or main metric, at its first evaluation at or
// after each epoch, so that "which converges faster" is read from numbers on the page rather than
// from a curve. See report_sections.h.
#include <fmt/format.h>

#include <sstream>

#include "experiment/report_sections.h"

namespace dsgd {
namespace report_internal {
namespace {

// The run's `column` at its first evaluation at or after `epoch`; false where it has none.
bool value_at(const RunResult& run, const std::string& column, double epoch, double& value) {
  const auto epochs = run.metrics.find("epoch");
  const auto values = run.metrics.find(column);
  if (epochs == run.metrics.end() || values == run.metrics.end()) return false;
  for (size_t i = 0; i < epochs->second.size() && i < values->second.size(); ++i) {
    if (epochs->second[i] >= epoch - 1e-9) {
      value = values->second[i];
      return true;
    }
  }
  return false;
}

// Mean ± std over the seeds that got to `epoch`, with "(k/n)" when not every seed has.
std::string epoch_cell(const Configuration& c, const std::string& column, double epoch) {
  std::vector<double> values;
  for (const RunResult& run : c.runs) {
    double value = 0;
    if (value_at(run, column, epoch, value)) values.push_back(value);
  }
  if (values.empty()) return "-";
  const size_t seeds = c.runs.size() + static_cast<size_t>(c.queued);
  const std::string cell = mean_std(seed_stats(values), 4);
  return values.size() == seeds ? cell : fmt::format("{} ({}/{})", cell, values.size(), seeds);
}

// A table of metrics.csv's `column` (`what`, in the text) at each of `epochs`, headed `heading`.
std::string by_epoch_section(const Experiment& experiment, const std::vector<double>& epochs,
                             const std::string& column, const std::string& heading,
                             const std::string& what) {
  if (epochs.empty()) return "";
  std::ostringstream md;
  md << "\n## " << heading << "\n\nEach configuration's " << what
     << " at its first evaluation at or after each epoch: mean ± std over the seeds (k/n where "
        "only k of its n seeds have got there; - where none has).\n\n";
  std::vector<std::string> headers;
  for (double epoch : epochs) headers.push_back(fmt::format("epoch {:g}", epoch));
  md << table_head(experiment.dimensions, headers);
  for (const Configuration& c : experiment.configurations) {
    std::vector<std::string> cells;
    for (double epoch : epochs) cells.push_back(epoch_cell(c, column, epoch));
    md << table_row(c, experiment.dimensions, cells);
  }
  return md.str();
}

}  // namespace

std::string loss_section(const Experiment& experiment) {
  return by_epoch_section(experiment, experiment.layout.loss_epochs, "train_loss",
                          "Training loss by epoch", "training loss");
}

std::string accuracy_section(const Experiment& experiment) {
  const MainMetric& metric = experiment.metric();
  return by_epoch_section(experiment, experiment.layout.accuracy_epochs, metric.column,
                          std::string(metric.heading) + " by epoch", metric.name);
}

}  // namespace report_internal
}  // namespace dsgd
