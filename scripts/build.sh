#!/usr/bin/env bash
# Installs dependencies (scripts/setup.sh), then configures and builds dsgd, its tests and its
# benchmarks into build/. Safe to run again: each step only does what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
if [ ! -f build/build.ninja ]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
fi
cmake --build build -j "$(nproc)"
