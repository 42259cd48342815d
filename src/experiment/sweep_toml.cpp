// TOML helpers of the sweep-spec parser; see sweep_toml.h.
#include "experiment/sweep_toml.h"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>
#include <tuple>

#include "core/errors.h"

namespace dsgd {
namespace sweep_internal {
namespace {

const char* const kSpecHint = "see docs/experiments.md for the sweep format";

void flatten(const toml::table& table, const std::string& prefix,
             std::vector<std::pair<std::string, const toml::node*>>& out) {
  for (const auto& [key, node] : table) {
    const std::string name = prefix + std::string(key.str());
    if (const auto* inner = node.as_table()) {
      flatten(*inner, name + ".", out);
    } else {
      out.emplace_back(name, &node);
    }
  }
}

}  // namespace

void fail(const std::string& source, const std::string& what) {
  throw ConfigError(fmt::format("sweep spec '{}': {}", source, what), kSpecHint);
}

std::string toml_text(const toml::node& node) {
  if (const auto* number = node.as_floating_point()) {
    // The shortest text that reads back as the same double, and still reads as a float.
    std::string text = fmt::format("{}", number->get());
    if (text.find_first_of(".eEn") == std::string::npos) text += ".0";
    return text;
  }
  std::ostringstream out;
  node.visit([&out](const auto& value) { out << value; });
  return out.str();
}

std::string label_text(const toml::node& node) {
  if (const auto* s = node.as_string()) return s->get();
  return toml_text(node);
}

std::vector<std::pair<std::string, const toml::node*>> flat_entries(const toml::table& table) {
  std::vector<std::pair<std::string, const toml::node*>> entries;
  flatten(table, "", entries);
  // A toml::table iterates in key order; the keys' positions give back the order they were written.
  std::stable_sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
    const auto& pa = a.second->source().begin;
    const auto& pb = b.second->source().begin;
    return std::tie(pa.line, pa.column) < std::tie(pb.line, pb.column);
  });
  return entries;
}

}  // namespace sweep_internal
}  // namespace dsgd
