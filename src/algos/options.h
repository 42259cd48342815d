// An algorithm's own config keys. Each registry entry declares the keys it reads (name, type,
// default, range, help); the config module reads, checks, lists and writes them from these
// declarations without knowing any algorithm, and the algorithm builds its typed options from
// the resolved values. Adding an algorithm with keys of its own touches no shared file.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace dsgd {

// kTable: a list of rows of numbers, e.g. hier.levels = [[4, 2], [16, 8]].
enum class OptionType { kNumber, kInteger, kBoolean, kTable };

using OptionTable = std::vector<std::vector<double>>;

// The values of an algorithm's keys, by dotted key. Integers and booleans are held as doubles
// (exact up to 2^53); the accessors say which is meant.
class OptionValues {
 public:
  void set(const std::string& key, double value) { values_[key] = value; }
  void set_table(const std::string& key, OptionTable rows) { tables_[key] = std::move(rows); }
  bool has(const std::string& key) const {
    return values_.count(key) != 0 || tables_.count(key) != 0;
  }
  // Throw Error when `key` is absent: an algorithm reading a key it did not declare is a bug.
  double number(const std::string& key) const;
  int64_t integer(const std::string& key) const { return static_cast<int64_t>(number(key)); }
  bool flag(const std::string& key) const { return number(key) != 0.0; }
  const OptionTable& table(const std::string& key) const;
  // Every key held, in order.
  std::vector<std::string> keys() const;
  bool operator==(const OptionValues& other) const {
    return values_ == other.values_ && tables_ == other.tables_;
  }

 private:
  std::map<std::string, double> values_;
  std::map<std::string, OptionTable> tables_;
};

struct OptionSpec {
  std::string key;  // dotted, e.g. "dc.lambda"
  OptionType type = OptionType::kNumber;
  double default_value = 0.0;
  std::string help;
  // Valid values: low ≤ v (low < v when low_open) and v < high (v ≤ high when high_closed).
  double low = -std::numeric_limits<double>::infinity();
  double high = std::numeric_limits<double>::infinity();
  bool low_open = false;
  bool high_closed = false;
  // When set, the default follows other keys (dc.lambda: 2 with dc.adaptive, else 0.04); it is
  // given the values resolved so far, which hold every key without such a rule.
  std::function<double(const OptionValues&)> default_from;
  // kTable: the numbers a row may hold (e.g. {2, 4}); the default is the empty table. Ranges
  // and the meaning of each column are the algorithm's to check.
  std::vector<size_t> row_widths;

  // "must be >= 0", "must be in [0, 1)", or "" when any value goes.
  std::string range_text() const;
  // The default as a config file writes it ("0.04", "1", "false"); for `dsgd list keys`.
  std::string default_text() const;
};

// Builders for the common shapes of key.
OptionSpec number_option(std::string key, double default_value, std::string help,
                         double low = -std::numeric_limits<double>::infinity(),
                         double high_exclusive = std::numeric_limits<double>::infinity());
OptionSpec integer_option(std::string key, int64_t default_value, std::string help,
                          int64_t low = 1);
OptionSpec boolean_option(std::string key, bool default_value, std::string help);
OptionSpec table_option(std::string key, std::vector<size_t> row_widths, std::string help);

// Every declared key with its given value or default, checked against its range and type.
// Throws ConfigError naming the key for a value out of range, and for a key not declared.
OptionValues resolve_options(const std::vector<OptionSpec>& specs, const OptionValues& given);

// The declaration of `key` in `specs`, or nullptr.
const OptionSpec* find_option(const std::vector<OptionSpec>& specs, const std::string& key);

// What a command line or config file sees of a value: 0.04, 4, true, [[4, 2], [16, 8]].
std::string option_text(OptionType type, double value);
std::string table_text(const OptionTable& rows);
std::string option_text(const OptionSpec& spec, const OptionValues& values);

}  // namespace dsgd
