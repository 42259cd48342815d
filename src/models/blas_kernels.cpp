// OpenBLAS's kernel choice and the warning for a fallback; see blas_kernels.h.
#include "models/blas_kernels.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "models/compute_format.h"

namespace dsgd {

std::string openblas_kernels() {
  // Looked up, not linked: a build against a PyTorch wheel has no OpenBLAS.
  using CoreName = char* (*)();
  auto corename = reinterpret_cast<CoreName>(::dlsym(RTLD_DEFAULT, "openblas_get_corename"));
  if (corename == nullptr) return "";
  const char* name = corename();
  return name == nullptr ? "" : name;
}

std::string blas_fallback_warning(const std::string& kernels, const std::string& units,
                                  bool coretype_set) {
  if (kernels.empty() || coretype_set) return "";
  const bool avx512 = units.rfind("AMX", 0) == 0 || units.rfind("AVX-512", 0) == 0;
  const bool avx2 = avx512 || units.rfind("AVX2", 0) == 0;
  if (!avx2) return "";
  std::string lower = kernels;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  // OpenBLAS's x86-64 kernels that use AVX2 or AVX-512; any other on such a CPU is a fallback.
  for (const char* modern :
       {"haswell", "zen", "skylakex", "cooperlake", "sapphirerapids", "excavator"}) {
    if (lower == modern) return "";
  }
  const char* suggested = avx512 ? "SkylakeX" : "Haswell";
  return fmt::format(
      "warning: OpenBLAS computes matrix products with its {} kernels, older than this CPU "
      "({}): it does not recognise the model. Its {} kernels use the CPU's vector units (a "
      "transformer's step took half the time with them on an AVX-512 Xeon; convolutions do not "
      "use OpenBLAS)\nhint: start dsgd with OPENBLAS_CORETYPE={} in the environment "
      "(docs/performance.md, \"BLAS kernels\")",
      kernels, units, suggested, suggested);
}

std::string blas_fallback_warning() {
  return blas_fallback_warning(openblas_kernels(), cpu_format_units(),
                               std::getenv("OPENBLAS_CORETYPE") != nullptr);
}

}  // namespace dsgd
