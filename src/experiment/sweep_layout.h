// The [report] table of a sweep spec: how `dsgd report` lays the sweep out (title, notes, the
// dimensions down the rows and across the columns, the target accuracy), checked against the
// expanded points. Private to src/experiment/.
#pragma once

#include <toml++/toml.h>

#include <string>

#include "experiment/sweep_spec.h"

namespace dsgd {
namespace sweep_internal {

// Fills spec.report from `report` (nullptr: no [report] table) for a spec whose points are
// expanded. Rows default to the `config` dimension when there is one. A rows or columns value that
// is a config key every point sets, not a dimension, becomes a dimension of its own (each point
// labelled by its value). Fails (sweep_toml.h) on an unknown key, a dimension the sweep lacks,
// rows equal to columns, or a target row value no point has.
// Relative folders in it ([[report.claims]]' sides) are taken from `spec_dir`.
void read_report_layout(const toml::table* report, const std::string& source,
                        const std::string& spec_dir, SweepSpec& spec);

// [[report.claims]] (sweep_claims.cpp): each claim's text, published words, test and sides, checked
// against the sweep's configuration names; fails naming the claim and the problem.
void read_claims(const toml::node& claims, const std::string& source, const std::string& spec_dir,
                 SweepSpec& spec);

}  // namespace sweep_internal
}  // namespace dsgd
