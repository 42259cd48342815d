// Declared algorithm keys: range checks, defaults and resolution; see options.h.
#include "algos/options.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "core/errors.h"

namespace dsgd {

double OptionValues::number(const std::string& key) const {
  auto it = values_.find(key);
  if (it == values_.end()) {
    throw Error("algorithm option '" + key + "' was read but never resolved",
                "this is a dsgd bug: declare the key in the algorithm's registry entry");
  }
  return it->second;
}

const OptionTable& OptionValues::table(const std::string& key) const {
  auto it = tables_.find(key);
  if (it == tables_.end()) {
    throw Error("algorithm option '" + key + "' was read but never resolved",
                "this is a dsgd bug: declare the key in the algorithm's registry entry");
  }
  return it->second;
}

std::vector<std::string> OptionValues::keys() const {
  std::vector<std::string> all;
  for (const auto& [key, value] : values_) all.push_back(key);
  for (const auto& [key, rows] : tables_) all.push_back(key);
  return all;
}

std::string option_text(OptionType type, double value) {
  switch (type) {
    case OptionType::kBoolean:
      return value != 0.0 ? "true" : "false";
    case OptionType::kInteger:
      return std::to_string(static_cast<int64_t>(value));
    case OptionType::kNumber:
    case OptionType::kTable:
      break;
  }
  return fmt::format("{}", value);
}

std::string table_text(const OptionTable& rows) {
  std::vector<std::string> texts;
  for (const auto& row : rows) texts.push_back(fmt::format("[{}]", fmt::join(row, ", ")));
  return fmt::format("[{}]", fmt::join(texts, ", "));
}

std::string option_text(const OptionSpec& spec, const OptionValues& values) {
  return spec.type == OptionType::kTable ? table_text(values.table(spec.key))
                                         : option_text(spec.type, values.number(spec.key));
}

std::string OptionSpec::range_text() const {
  const bool bounded_below = std::isfinite(low);
  const bool bounded_above = std::isfinite(high);
  if (bounded_below && bounded_above) {
    return fmt::format("must be in {}{}, {}{}", low_open ? "(" : "[", low, high,
                       high_closed ? "]" : ")");
  }
  if (bounded_below) return fmt::format("must be {} {}", low_open ? ">" : ">=", low);
  if (bounded_above) return fmt::format("must be {} {}", high_closed ? "<=" : "<", high);
  return "";
}

std::string OptionSpec::default_text() const {
  if (type == OptionType::kTable) return "[]";
  std::string text = option_text(type, default_value);
  return default_from ? text + " (depends on other keys)" : text;
}

OptionSpec number_option(std::string key, double default_value, std::string help, double low,
                         double high_exclusive) {
  OptionSpec spec;
  spec.key = std::move(key);
  spec.type = OptionType::kNumber;
  spec.default_value = default_value;
  spec.help = std::move(help);
  spec.low = low;
  spec.high = high_exclusive;
  return spec;
}

OptionSpec integer_option(std::string key, int64_t default_value, std::string help, int64_t low) {
  OptionSpec spec = number_option(std::move(key), static_cast<double>(default_value),
                                  std::move(help), static_cast<double>(low));
  spec.type = OptionType::kInteger;
  return spec;
}

OptionSpec boolean_option(std::string key, bool default_value, std::string help) {
  OptionSpec spec = number_option(std::move(key), default_value ? 1.0 : 0.0, std::move(help));
  spec.type = OptionType::kBoolean;
  return spec;
}

OptionSpec table_option(std::string key, std::vector<size_t> row_widths, std::string help) {
  OptionSpec spec;
  spec.key = std::move(key);
  spec.type = OptionType::kTable;
  spec.row_widths = std::move(row_widths);
  spec.help = std::move(help);
  return spec;
}

const OptionSpec* find_option(const std::vector<OptionSpec>& specs, const std::string& key) {
  for (const auto& spec : specs) {
    if (spec.key == key) return &spec;
  }
  return nullptr;
}

namespace {

bool in_range(const OptionSpec& spec, double v) {
  // Written so that NaN fails every comparison and is rejected; infinities only pass an open
  // side, and no declared key has one.
  if (!std::isfinite(v)) return false;
  const bool above_low = spec.low_open ? v > spec.low : v >= spec.low;
  const bool below_high = spec.high_closed ? v <= spec.high : v < spec.high;
  return above_low && below_high;
}

// A table's shape: every row one of the declared widths, every number finite.
void check_table(const OptionSpec& spec, const OptionTable& rows) {
  for (size_t r = 0; r < rows.size(); ++r) {
    const auto& row = rows[r];
    const bool width_ok = std::find(spec.row_widths.begin(), spec.row_widths.end(), row.size()) !=
                          spec.row_widths.end();
    const bool finite =
        std::all_of(row.begin(), row.end(), [](double v) { return std::isfinite(v); });
    if (!width_ok || !finite) {
      throw ConfigError(
          fmt::format("config key '{}' row {} = [{}] must hold {} finite numbers", spec.key, r + 1,
                      fmt::join(row, ", "), fmt::join(spec.row_widths, " or ")),
          spec.key + ": " + spec.help);
    }
  }
}

}  // namespace

OptionValues resolve_options(const std::vector<OptionSpec>& specs, const OptionValues& given) {
  for (const auto& key : given.keys()) {
    if (find_option(specs, key) == nullptr) {
      throw ConfigError("config key '" + key + "' is not an option of this algorithm",
                        "remove it; `dsgd list keys` shows which algorithm each key belongs to");
    }
  }
  OptionValues resolved;
  for (const auto& spec : specs) {
    if (spec.type == OptionType::kTable) {
      resolved.set_table(spec.key, given.has(spec.key) ? given.table(spec.key) : OptionTable{});
      check_table(spec, resolved.table(spec.key));
    } else if (!spec.default_from) {
      resolved.set(spec.key, given.has(spec.key) ? given.number(spec.key) : spec.default_value);
    }
  }
  for (const auto& spec : specs) {
    if (spec.default_from) {
      resolved.set(spec.key,
                   given.has(spec.key) ? given.number(spec.key) : spec.default_from(resolved));
    }
  }
  for (const auto& spec : specs) {
    if (spec.type == OptionType::kTable) continue;
    const double v = resolved.number(spec.key);
    if (spec.type == OptionType::kInteger && v != std::floor(v)) {
      throw ConfigError(fmt::format("config key '{}' must be an integer, got {}", spec.key, v),
                        spec.key + ": " + spec.help);
    }
    if (spec.type != OptionType::kBoolean && !in_range(spec, v)) {
      throw ConfigError(fmt::format("config key '{}' = {} {}", spec.key, option_text(spec.type, v),
                                    spec.range_text()),
                        spec.key + ": " + spec.help);
    }
  }
  return resolved;
}

}  // namespace dsgd
