#!/usr/bin/env bash
# Builds dsgd, its unit tests and the Python module with AddressSanitizer and
# UndefinedBehaviorSanitizer (clang, in build-sanitize/, shared with scripts/fuzz.sh) and runs the
# tests, any sanitizer report failing the test that made it; the Python package's tests run the
# instrumented module with the shared sanitizer runtime preloaded (CMakeLists.txt sets it). The C++
# MPI tests are left out by default: Open MPI's own allocations and shared-memory transport are not
# instrumented and drown the output (pass --mpi to include them).
# Usage: scripts/sanitize.sh [--mpi] [extra ctest arguments...]
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
exclude=(-E '^Mpi\.')
if [ "${1:-}" = "--mpi" ]; then
  exclude=()
  shift
fi
if [ ! -f build-sanitize/build.ninja ]; then
  CXX=clang++ cmake -S . -B build-sanitize -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DDSGD_SANITIZE=ON -DDSGD_FUZZ=ON -DDSGD_BUILD_BENCHMARKS=OFF
fi
cmake --build build-sanitize -j "$(nproc)"
# Leak checking is off: LibTorch and Open MPI keep process-lifetime allocations by design.
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:halt_on_error=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
ctest --test-dir build-sanitize -j "$(nproc)" --output-on-failure "${exclude[@]}" "$@"
