// sweep.json, which `dsgd sweep` writes into its folder before any run starts: the spec's
// dimensions, its report layout (title, notes, rows and columns, target, published figures) and
// every point's folder and labels. `dsgd report` (run_results.h) reads a sweep folder by it.
#pragma once

#include <nlohmann/json.hpp>

#include "experiment/sweep_spec.h"

namespace dsgd {

void write_sweep_json(const SweepSpec& spec);

// The report layout as sweep.json records it, so that a reader can tell whether a spec's
// `[report]` is still the one its sweep folder was written with.
nlohmann::json report_layout_json(const ReportLayout& report);

}  // namespace dsgd
