// The names of a closed set of choices: an engine, an all-reduce, a schedule, a memory layout.
// Each enum that a config key or a record spells states its names once, in a specialisation of
// EnumNames beside the enum; reading and writing go through these functions (the config's codec
// refuses an unknown name where it reads it, with the closest valid one), so code downstream
// compares enums, never strings.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace dsgd {

template <class E>
struct EnumName {
  E value;
  const char* name;
};

// Specialise with `static constexpr EnumName<E> values[] = {{E::kA, "a"}, ...};`.
template <class E>
struct EnumNames;

template <class E>
const char* enum_name(E value) {
  for (const auto& entry : EnumNames<E>::values) {
    if (entry.value == value) return entry.name;
  }
  return "unnamed";  // unreachable while every value is listed
}

// The value called `name`, or nothing.
template <class E>
std::optional<E> find_enum(const std::string& name) {
  for (const auto& entry : EnumNames<E>::values) {
    if (name == entry.name) return entry.value;
  }
  return std::nullopt;
}

// The name of a choice left to the run (a key's "auto"): nothing chosen yet.
inline constexpr const char* kAutoName = "auto";

template <class E>
const char* enum_name(const std::optional<E>& value) {
  return value ? enum_name(*value) : kAutoName;
}

template <class E>
std::vector<std::string> enum_names() {
  std::vector<std::string> names;
  for (const auto& entry : EnumNames<E>::values) names.emplace_back(entry.name);
  return names;
}

}  // namespace dsgd
