// File and folder names made from labels (a sweep point's folder, a report figure's file): the
// characters a label may hold but a path component should not become '_'. Private to
// src/experiment/.
#pragma once

#include <cctype>
#include <string>

namespace dsgd {

// `text` with every character but letters, digits and those in `kept` replaced by '_'.
inline std::string path_safe(const std::string& text, const std::string& kept) {
  std::string out;
  for (char c : text) {
    const bool keep =
        std::isalnum(static_cast<unsigned char>(c)) != 0 || kept.find(c) != std::string::npos;
    out += keep ? c : '_';
  }
  return out;
}

}  // namespace dsgd
