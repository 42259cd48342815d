// The report's table of training loss by epoch (`[report] loss_epochs = [...]` in the sweep
// spec): each configuration's training loss at its first evaluation at or after each epoch, so
// that "which converges faster" is read from numbers on the page rather than from a curve. See
// report_sections.h.
#include <fmt/format.h>

#include <sstream>

#include "experiment/report_sections.h"

namespace dsgd {
namespace report_internal {
namespace {

// The run's training loss at its first evaluation at or after `epoch`; false where it has none.
bool loss_at(const RunResult& run, double epoch, double& loss) {
  const auto epochs = run.metrics.find("epoch");
  const auto losses = run.metrics.find("train_loss");
  if (epochs == run.metrics.end() || losses == run.metrics.end()) return false;
  for (size_t i = 0; i < epochs->second.size() && i < losses->second.size(); ++i) {
    if (epochs->second[i] >= epoch - 1e-9) {
      loss = losses->second[i];
      return true;
    }
  }
  return false;
}

// Mean ± std over the seeds that got to `epoch`, with "(k/n)" when not every seed has.
std::string loss_cell(const Configuration& c, double epoch) {
  std::vector<double> values;
  for (const RunResult& run : c.runs) {
    double loss = 0;
    if (loss_at(run, epoch, loss)) values.push_back(loss);
  }
  if (values.empty()) return "-";
  const size_t seeds = c.runs.size() + static_cast<size_t>(c.queued);
  const std::string cell = mean_std(seed_stats(values), 4);
  return values.size() == seeds ? cell : fmt::format("{} ({}/{})", cell, values.size(), seeds);
}

}  // namespace

std::string loss_section(const Experiment& experiment) {
  const std::vector<double>& epochs = experiment.layout.loss_epochs;
  if (epochs.empty()) return "";
  std::ostringstream md;
  md << "\n## Training loss by epoch\n\nEach configuration's training loss at its first "
        "evaluation at or after each epoch: mean ± std over the seeds (k/n where only k of its n "
        "seeds have got there; - where none has).\n\n";
  std::vector<std::string> headers;
  for (double epoch : epochs) headers.push_back(fmt::format("epoch {:g}", epoch));
  md << table_head(experiment.dimensions, headers);
  for (const Configuration& c : experiment.configurations) {
    std::vector<std::string> cells;
    for (double epoch : epochs) cells.push_back(loss_cell(c, epoch));
    md << table_row(c, experiment.dimensions, cells);
  }
  return md.str();
}

}  // namespace report_internal
}  // namespace dsgd
