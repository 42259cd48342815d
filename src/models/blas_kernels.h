// Which kernels the BLAS under LibTorch computes matrix products with, and a warning where
// OpenBLAS fell back to kernels older than the CPU. OpenBLAS picks its kernels once, when it is
// loaded, from the CPU's model number; a model its release does not know (a new Xeon, or a
// virtual machine that hides the model) gets its oldest x86-64 kernels, Prescott's SSE3 ones,
// and every Linear layer runs at a fraction of the CPU's speed (a transformer step twice as long
// on an AVX-512 Xeon, docs/performance.md, "BLAS kernels"). Only OPENBLAS_CORETYPE, set before
// the process starts, changes the choice, so dsgd says so rather than fixing it behind the
// user's back. Convolutions go to oneDNN and do not depend on it.
#pragma once

#include <string>

namespace dsgd {

// OpenBLAS's name for the kernels it chose ("Haswell", "SkylakeX", "Prescott"), or "" where
// LibTorch's BLAS is not OpenBLAS (a PyTorch wheel's MKL, for one).
std::string openblas_kernels();

// The warning for kernels older than the CPU: `kernels` as openblas_kernels() names them,
// `units` as cpu_format_units() describes the CPU, `coretype_set` whether OPENBLAS_CORETYPE is
// set (the user's own choice, never second-guessed). "" where nothing is wrong.
std::string blas_fallback_warning(const std::string& kernels, const std::string& units,
                                  bool coretype_set);

// The same for this process.
std::string blas_fallback_warning();

}  // namespace dsgd
