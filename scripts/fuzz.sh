#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/fuzz_*.cpp: config and --set values, IDX, CIFAR, traces,
# checkpoints, sweep specs, tensor folders, image files) with AddressSanitizer and
# UndefinedBehaviorSanitizer in build-sanitize/, then runs each for SECONDS (default 60), starting
# from the committed seeds in fuzz/corpus/<target>/ and growing a working corpus in
# build-sanitize/corpus/. A crash, hang or sanitizer report stops that target and leaves its input
# as build-sanitize/crashes/<target>/crash-*; make each one a regression test with its input.
# Usage: scripts/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-60}"
shift || true
scripts/setup.sh
if [ ! -f build-sanitize/build.ninja ]; then
  CXX=clang++ cmake -S . -B build-sanitize -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DDSGD_SANITIZE=ON -DDSGD_FUZZ=ON -DDSGD_BUILD_BENCHMARKS=OFF
fi
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for source in fuzz/fuzz_*.cpp; do targets+=("$(basename "${source%.cpp}")"); done
fi
cmake --build build-sanitize -j "$(nproc)" --target "${targets[@]}"

export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
status=0
for target in "${targets[@]}"; do
  corpus="build-sanitize/corpus/$target"
  crashes="build-sanitize/crashes/$target"
  mkdir -p "$corpus" "$crashes"
  log="build-sanitize/$target.log"
  echo "== $target: ${seconds}s"
  if build-sanitize/"$target" "$corpus" "fuzz/corpus/$target" -max_total_time="$seconds" \
       -timeout=10 -rss_limit_mb=8192 -artifact_prefix="$crashes/" -print_final_stats=1 \
       > "$log" 2>&1; then
    grep -E "stat::number_of_executed_units|stat::new_units_added" "$log" | tr '\n' ' '
    echo
  else
    echo "$target FAILED: see $log and $crashes/"
    tail -30 "$log"
    status=1
  fi
done
exit $status
