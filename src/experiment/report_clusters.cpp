// The report's section of times on several named clusters (`dsgd report --cluster A --cluster
// B`): the experiment re-timed on each cluster in turn (experiment/retime.h), each
// configuration's time to the target and its whole run's time, one column per cluster, so that
// one page answers "which algorithm wins where". The tables and figures above it keep the first
// cluster's clock. See report_sections.h.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <set>
#include <sstream>

#include "experiment/report_sections.h"
#include "experiment/retime.h"
#include "run/progress.h"
#include "train/cluster.h"

namespace dsgd {
namespace report_internal {

std::string derived_steps_note(const ReportOptions& options) {
  if (options.clusters.empty()) return "";
  const ClusterTable table = load_cluster_table(options.cluster_file);
  std::set<std::string> devices;
  if (!options.device.empty()) {
    devices.insert(options.device);
  } else {
    for (const std::string& cluster : options.clusters)
      devices.insert(table.cluster(cluster).device);
  }
  std::string note;
  for (const std::string& name : devices) {
    if (name == "measured") continue;
    const DeviceProfile& device = table.device(name);
    if (device.derived.empty()) continue;
    note += fmt::format(
        "Priced on {}, whose steps for {} are derived, not measured ({}); `dsgd list clusters` "
        "marks them.\n\n",
        name, fmt::join(device.derived, ", "), device.derived_rule);
  }
  return note;
}

std::string clusters_section(const Experiment& experiment, const std::vector<double>& targets,
                             const Layout& layout, const ReportOptions& options) {
  if (options.clusters.size() < 2) return "";
  std::vector<std::vector<Row>> rows;  // per cluster, per configuration
  for (const std::string& cluster : options.clusters) {
    Experiment retimed = experiment;
    retime_on_cluster(retimed, cluster, options.cluster_file, options.device);
    std::vector<Row>& on_cluster = rows.emplace_back();
    for (size_t i = 0; i < retimed.configurations.size(); ++i) {
      on_cluster.push_back(summarise(retimed.configurations[i], targets[i]));
    }
  }
  std::ostringstream md;
  md << "\n## On each cluster\n\nEvery run re-timed on each cluster named (docs/time.md)"
     << (options.device.empty() ? "" : ", computing on " + options.device)
     << ": the mean over the seeds of the time "
     << (layout.has_target() ? "to reach " + layout.target_name() + " and of the whole run"
                             : "of the whole run")
     << " (h:mm:ss). On a named device, a run whose compute format \"auto\" chose is timed in its "
        "fastest format listed for the run's model and batch.\n\n";
  std::vector<std::string> headers;
  if (layout.has_target()) {
    for (const std::string& cluster : options.clusters) {
      headers.push_back("to " + layout.target_name() + " on " + cluster);
    }
  }
  for (const std::string& cluster : options.clusters) headers.push_back("whole run on " + cluster);
  md << table_head(experiment.dimensions, headers);
  for (size_t c = 0; c < experiment.configurations.size(); ++c) {
    std::vector<std::string> cells;
    if (layout.has_target()) {
      for (const std::vector<Row>& on_cluster : rows) {
        const Row& row = on_cluster[c];
        std::string cell = "-";
        if (row.reached_mean && row.reached_mean->seconds) {
          cell = format_duration(*row.reached_mean->seconds);
        } else if (row.with_metrics > 0 && !row.reached_mean) {
          cell = row.may_still_reach > 0 ? "not yet" : "never";
        }
        cells.push_back(cell);
      }
    }
    for (const std::vector<Row>& on_cluster : rows) {
      const Row& row = on_cluster[c];
      cells.push_back(row.seconds ? format_duration(*row.seconds) : "-");
    }
    md << table_row(experiment.configurations[c], experiment.dimensions, cells);
  }
  return md.str();
}

}  // namespace report_internal
}  // namespace dsgd
