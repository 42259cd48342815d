// What every fuzz target shares: the input as a file (dsgd's readers take paths, as users give
// them), and the rule that bad input may only end in dsgd's own errors. A dsgd::Error (a
// ConfigError or DataError: exit 2 with a message) is the expected answer to garbage; any other
// exception escapes and libFuzzer reports it, as it reports crashes, hangs and sanitizer errors.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/errors.h"

namespace dsgd::fuzz {

// A folder of this process's own under /dev/shm (or the temp folder), made once.
inline const std::filesystem::path& scratch() {
  static const std::filesystem::path dir = [] {
    std::filesystem::path base = std::filesystem::exists("/dev/shm")
                                     ? std::filesystem::path("/dev/shm")
                                     : std::filesystem::temp_directory_path();
    auto d = base / ("dsgd_fuzz_" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    return d;
  }();
  return dir;
}

inline std::string write(const std::string& name, const uint8_t* data, size_t size) {
  const auto path = scratch() / name;
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  return path.string();
}

template <typename F>
void expect_dsgd_errors_only(F&& f) {
  try {
    f();
  } catch (const dsgd::Error&) {
    // The answer bad input should get.
  }
}

}  // namespace dsgd::fuzz
