// What the parts of the sweep-spec parser (sweep_spec.cpp, sweep_grid.cpp, sweep_layout.cpp) share
// about TOML: the error a malformed spec raises, values written as --set and the report read them,
// and a table's keys flattened in the order they were written. Private to src/experiment/.
#pragma once

#include <toml++/toml.h>

#include <string>
#include <utility>
#include <vector>

namespace dsgd {
namespace sweep_internal {

// Throws the ConfigError of a bad spec: "sweep spec '<source>': <what>", with the format's hint.
[[noreturn]] void fail(const std::string& source, const std::string& what);

// A value as TOML writes it: what --set KEY=VALUE parses back into the same value.
std::string toml_text(const toml::node& node);

// A value as a report shows it: strings without their quotes.
std::string label_text(const toml::node& node);

// Keys below `table` as dotted names ("hier.group_size"), each with its leaf node, in the order
// they were written.
std::vector<std::pair<std::string, const toml::node*>> flat_entries(const toml::table& table);

}  // namespace sweep_internal
}  // namespace dsgd
