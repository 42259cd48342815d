// The config's TOML codec: typed reading and writing of one value (a RunConfig member or an
// algorithm's declared key), with errors that name the key and give an example; dotted paths;
// nested tables flattened into dotted keys; TOML text and `--set` values parsed. It knows no key:
// the key table (config_keys.h) says which key has which type.
// Private to src/train/config*.
#pragma once

#include <toml++/toml.h>

#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "algos/options.h"
#include "core/enum_names.h"

namespace dsgd {

// Typed reading and writing of one value: `type` for messages and `dsgd list keys`, `read`
// (throws ConfigError naming `key` for a value of another type), `show` as a config file writes
// it, `put` into a table.
template <class T, class = void>
struct Codec;

template <>
struct Codec<bool> {
  static constexpr const char* type = "a boolean";
  static bool read(const std::string& key, const toml::node& n);
  static std::string show(bool v);
  static void put(toml::table& t, const std::string& k, bool v);
};

template <>
struct Codec<int64_t> {
  static constexpr const char* type = "an integer";
  static int64_t read(const std::string& key, const toml::node& n);
  static std::string show(int64_t v);
  static void put(toml::table& t, const std::string& k, int64_t v);
};

template <>
struct Codec<double> {
  static constexpr const char* type = "a number";
  static double read(const std::string& key, const toml::node& n);
  static std::string show(double v);
  static void put(toml::table& t, const std::string& k, double v);
};

template <>
struct Codec<std::string> {
  static constexpr const char* type = "a string";
  static std::string read(const std::string& key, const toml::node& n);
  static std::string show(const std::string& v);
  static void put(toml::table& t, const std::string& k, const std::string& v);
};

template <>
struct Codec<std::vector<double>> {
  static constexpr const char* type = "a list of numbers";
  static std::vector<double> read(const std::string& key, const toml::node& n);
  static std::string show(const std::vector<double>& v);
  static void put(toml::table& t, const std::string& k, const std::vector<double>& v);
};

// The index in `names` of the string `n` holds; throws ConfigError naming `key`, the valid names
// and the closest one when it holds another string or no string.
size_t read_choice(const std::string& key, const toml::node& n,
                   const std::vector<std::string>& names);

// An enum-like key (core/enum_names.h): its names in the file, the enum in the program.
template <class E>
struct Codec<E, std::enable_if_t<std::is_enum_v<E>>> {
  static constexpr const char* type = "a string";
  static E read(const std::string& key, const toml::node& n) {
    return EnumNames<E>::values[read_choice(key, n, enum_names<E>())].value;
  }
  static std::string show(E v) { return Codec<std::string>::show(enum_name(v)); }
  static void put(toml::table& t, const std::string& k, E v) {
    Codec<std::string>::put(t, k, enum_name(v));
  }
};

// An enum-like key that may be left to the run ("auto": nothing chosen yet).
template <class E>
struct Codec<std::optional<E>, std::enable_if_t<std::is_enum_v<E>>> {
  static constexpr const char* type = "a string";
  static std::optional<E> read(const std::string& key, const toml::node& n) {
    std::vector<std::string> names = enum_names<E>();
    names.push_back(kAutoName);
    const size_t index = read_choice(key, n, names);
    if (index + 1 == names.size()) return std::nullopt;
    return EnumNames<E>::values[index].value;
  }
  static std::string show(const std::optional<E>& v) {
    return Codec<std::string>::show(enum_name(v));
  }
  static void put(toml::table& t, const std::string& k, const std::optional<E>& v) {
    Codec<std::string>::put(t, k, enum_name(v));
  }
};

// hier.levels and its kind: whole numbers are written as integers, so that the file reads back
// into integer columns.
template <>
struct Codec<OptionTable> {
  static constexpr const char* type = "rows of numbers";
  static OptionTable read(const std::string& key, const toml::node& n);
  static void put(toml::table& t, const std::string& k, const OptionTable& rows);
};

// The table that holds dotted `key`'s last part, creating intermediate tables; `last` receives
// that part.
toml::table& table_for(toml::table& root, const std::string& key, std::string& last);

// Writes `value` at a dotted path, creating intermediate tables.
template <class T>
void put_dotted(toml::table& root, const std::string& key, const T& value) {
  std::string last;
  toml::table& table = table_for(root, key, last);
  Codec<T>::put(table, last, value);
}

// An algorithm's declared key: its type's name, reading into `values`, writing from them.
const char* type_name(OptionType type);
void read_option(const OptionSpec& spec, const toml::node& node, OptionValues& values);
void write_option(toml::table& root, const OptionSpec& spec, const OptionValues& values);

// Nested tables as dotted keys, in the file's order: [timing] shape = 10 is timing.shape.
std::vector<std::pair<std::string, const toml::node*>> flatten(const toml::table& table);

// TOML text; a syntax error is a ConfigError naming source:line:column.
toml::table parse_toml(const std::string& text, const std::string& source);

// The value of `--set KEY=VALUE`, held at key "v" of the returned table: VALUE read as a TOML
// value, or as a plain string when it is not one (so `--set algo=dana-zero` works unquoted).
toml::table parse_set_value(const std::string& value);

}  // namespace dsgd
