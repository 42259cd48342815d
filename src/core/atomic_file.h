// Writing a file so that readers only ever see the old or the new version (temporary file,
// fsync, rename): a crash, a NaN or a killed job never leaves a half-written file.
#pragma once

#include <string>

namespace dsgd {

// Writes `content` to `path` so that `path` is always either the old or the new file.
void write_file_atomically(const std::string& path, const std::string& content);

}  // namespace dsgd
