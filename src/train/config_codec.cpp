// The config's TOML codec; see config_codec.h.
#include "train/config_codec.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <sstream>

#include "core/errors.h"
#include "core/names.h"

namespace dsgd {
namespace {

std::string describe(const toml::node& node) {
  std::ostringstream out;
  if (node.is_string()) {
    out << '"' << node.value<std::string>().value_or("") << '"';
  } else {
    node.visit([&](auto&& v) { out << v; });
  }
  return out.str();
}

ConfigError type_error(const std::string& key, const std::string& type, const toml::node& node,
                       const std::string& example) {
  return ConfigError(fmt::format("config key '{}' must be {}, got {}", key, type, describe(node)),
                     fmt::format("for example: {} = {}", key, example));
}

void flatten_into(const toml::table& table, const std::string& prefix,
                  std::vector<std::pair<std::string, const toml::node*>>& out) {
  for (auto&& [k, v] : table) {
    std::string key = prefix.empty() ? std::string(k.str()) : prefix + "." + std::string(k.str());
    if (const toml::table* sub = v.as_table()) {
      flatten_into(*sub, key, out);
    } else {
      out.emplace_back(key, &v);
    }
  }
}

}  // namespace

bool Codec<bool>::read(const std::string& key, const toml::node& n) {
  if (!n.is_boolean()) throw type_error(key, type, n, "true");
  return *n.value<bool>();
}
std::string Codec<bool>::show(bool v) { return v ? "true" : "false"; }
void Codec<bool>::put(toml::table& t, const std::string& k, bool v) { t.insert_or_assign(k, v); }

int64_t Codec<int64_t>::read(const std::string& key, const toml::node& n) {
  if (!n.is_integer()) throw type_error(key, type, n, "4");
  return *n.value<int64_t>();
}
std::string Codec<int64_t>::show(int64_t v) { return std::to_string(v); }
void Codec<int64_t>::put(toml::table& t, const std::string& k, int64_t v) {
  t.insert_or_assign(k, v);
}

double Codec<double>::read(const std::string& key, const toml::node& n) {
  if (!n.is_number()) throw type_error(key, type, n, "0.1");
  return *n.value<double>();
}
std::string Codec<double>::show(double v) { return fmt::format("{}", v); }
void Codec<double>::put(toml::table& t, const std::string& k, double v) {
  t.insert_or_assign(k, v);
}

std::string Codec<std::string>::read(const std::string& key, const toml::node& n) {
  if (!n.is_string()) throw type_error(key, type, n, "\"name\"");
  return *n.value<std::string>();
}
std::string Codec<std::string>::show(const std::string& v) { return '"' + v + '"'; }
void Codec<std::string>::put(toml::table& t, const std::string& k, const std::string& v) {
  t.insert_or_assign(k, v);
}

size_t read_choice(const std::string& key, const toml::node& n,
                   const std::vector<std::string>& names) {
  const std::string example = "\"" + names.front() + "\"";
  if (!n.is_string()) throw type_error(key, "a string", n, example);
  const std::string value = *n.value<std::string>();
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == value) return i;
  }
  const std::string suggestion = closest_name(value, names);
  throw ConfigError(fmt::format("config key '{}' = \"{}\" must be one of {}{}", key, value,
                                fmt::join(names, ", "),
                                suggestion.empty() ? "" : " (did you mean '" + suggestion + "'?)"),
                    fmt::format("for example: {} = {}", key, example));
}

std::vector<double> Codec<std::vector<double>>::read(const std::string& key, const toml::node& n) {
  const toml::array* array = n.as_array();
  if (array == nullptr) throw type_error(key, type, n, "[80, 120]");
  std::vector<double> values;
  for (const auto& item : *array) {
    if (!item.is_number()) throw type_error(key, type, n, "[80, 120]");
    values.push_back(*item.value<double>());
  }
  return values;
}
std::string Codec<std::vector<double>>::show(const std::vector<double>& v) {
  return fmt::format("[{}]", fmt::join(v, ", "));
}
void Codec<std::vector<double>>::put(toml::table& t, const std::string& k,
                                     const std::vector<double>& v) {
  toml::array array;
  for (double x : v) array.push_back(x);
  t.insert_or_assign(k, std::move(array));
}

OptionTable Codec<OptionTable>::read(const std::string& key, const toml::node& n) {
  const char* example = "[[4, 2], [16, 8]]";
  const toml::array* array = n.as_array();
  if (array == nullptr) throw type_error(key, type, n, example);
  OptionTable rows;
  for (const auto& item : *array) {
    const toml::array* row = item.as_array();
    if (row == nullptr) throw type_error(key, type, n, example);
    std::vector<double> numbers;
    for (const auto& x : *row) {
      if (!x.is_number()) throw type_error(key, type, n, example);
      numbers.push_back(*x.value<double>());
    }
    rows.push_back(std::move(numbers));
  }
  return rows;
}
void Codec<OptionTable>::put(toml::table& t, const std::string& k, const OptionTable& rows) {
  toml::array array;
  for (const auto& row : rows) {
    toml::array numbers;
    for (double x : row) {
      if (x == std::floor(x) && std::abs(x) < 9.0e15) {
        numbers.push_back(static_cast<int64_t>(x));
      } else {
        numbers.push_back(x);
      }
    }
    array.push_back(std::move(numbers));
  }
  t.insert_or_assign(k, std::move(array));
}

toml::table& table_for(toml::table& root, const std::string& key, std::string& last) {
  toml::table* table = &root;
  std::string rest = key;
  for (size_t dot; (dot = rest.find('.')) != std::string::npos;) {
    std::string part = rest.substr(0, dot);
    rest = rest.substr(dot + 1);
    if (!table->contains(part)) table->insert(part, toml::table{});
    table = (*table)[part].as_table();
  }
  last = rest;
  return *table;
}

const char* type_name(OptionType type) {
  switch (type) {
    case OptionType::kBoolean:
      return Codec<bool>::type;
    case OptionType::kInteger:
      return Codec<int64_t>::type;
    case OptionType::kTable:
      return Codec<OptionTable>::type;
    case OptionType::kNumber:
      break;
  }
  return Codec<double>::type;
}

void read_option(const OptionSpec& spec, const toml::node& node, OptionValues& values) {
  switch (spec.type) {
    case OptionType::kBoolean:
      values.set(spec.key, Codec<bool>::read(spec.key, node) ? 1.0 : 0.0);
      return;
    case OptionType::kInteger:
      values.set(spec.key, static_cast<double>(Codec<int64_t>::read(spec.key, node)));
      return;
    case OptionType::kTable:
      values.set_table(spec.key, Codec<OptionTable>::read(spec.key, node));
      return;
    case OptionType::kNumber:
      values.set(spec.key, Codec<double>::read(spec.key, node));
      return;
  }
}

void write_option(toml::table& root, const OptionSpec& spec, const OptionValues& values) {
  if (spec.type == OptionType::kTable) {
    put_dotted(root, spec.key, values.table(spec.key));
    return;
  }
  const double value = values.number(spec.key);
  switch (spec.type) {
    case OptionType::kBoolean:
      put_dotted(root, spec.key, value != 0.0);
      return;
    case OptionType::kInteger:
      put_dotted(root, spec.key, static_cast<int64_t>(value));
      return;
    case OptionType::kNumber:
    case OptionType::kTable:
      put_dotted(root, spec.key, value);
      return;
  }
}

std::vector<std::pair<std::string, const toml::node*>> flatten(const toml::table& table) {
  std::vector<std::pair<std::string, const toml::node*>> entries;
  flatten_into(table, "", entries);
  return entries;
}

toml::table parse_toml(const std::string& text, const std::string& source) {
  try {
    return toml::parse(text, source);
  } catch (const toml::parse_error& e) {
    throw ConfigError(fmt::format("{}:{}:{}: malformed TOML: {}", source, e.source().begin.line,
                                  e.source().begin.column, e.description()),
                      "fix the syntax; strings need quotes, e.g. algo = \"dana-slim\"");
  }
}

toml::table parse_set_value(const std::string& value) {
  try {
    return toml::parse("v = " + value);
  } catch (const toml::parse_error&) {
    return toml::table{{"v", value}};  // a bare word: take it as a string
  }
}

}  // namespace dsgd
