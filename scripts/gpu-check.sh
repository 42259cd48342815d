#!/usr/bin/env bash
# One command for a GPU machine that has PyTorch 2.x (CUDA), CMake, ninja and a C/C++ compiler,
# and no network, no MPI, no Debian -dev packages: builds dsgd against that PyTorch's LibTorch with
# the dependencies scripts/prepare-offline.sh collected (build-gpu/, -DDSGD_WITH_MPI=OFF, ninja on
# every core), then runs the checks and prints a summary:
#   1. the test suite (that build has no MPI tests; the CUDA ones run when a GPU is seen),
#   2. short training runs of the three families on the GPU, and one on the CPU to compare,
#   3. the benchmarks (dsgd_bench), with what time is left of the budget.
# Sized for 10 minutes on 16 cores (DSGD_CHECK_BUDGET_S, default 600). Exit 0 when everything
# that ran passed.
# Usage: scripts/gpu-check.sh [OFFLINE_FOLDER]      (default third_party/offline)
# Environment: DSGD_PYTHON (default python3: the PyTorch to build against), DSGD_BUILD_DIR
#   (default build-gpu), DSGD_BENCH_FILTER (a --benchmark_filter regex; default: all),
#   DSGD_CHECK_BUDGET_S (seconds for the whole check).
set -uo pipefail
cd "$(dirname "$0")/.."

start=$SECONDS
budget=${DSGD_CHECK_BUDGET_S:-600}
offline=${1:-third_party/offline}
build=${DSGD_BUILD_DIR:-build-gpu}
python=${DSGD_PYTHON:-python3}
jobs=$(nproc)
logs=$build/gpu-check
failed=0
summary=()
note() { summary+=("$(printf '%-10s %s' "$1" "$2")"); }
left() { echo $((budget - (SECONDS - start))); }

if [ ! -f "$offline/dsgd-offline.cmake" ]; then
  echo "gpu-check: no offline dependencies at $offline: run scripts/prepare-offline.sh on a machine" \
    "with Debian's packages and copy the folder here" >&2
  exit 1
fi

# 1. Build.
t=$SECONDS
if ! DSGD_OFFLINE_DEPS=$offline DSGD_BUILD_DIR=$build DSGD_PYTHON=$python DSGD_JOBS=$jobs \
  scripts/build-torch.sh; then
  echo "gpu-check: the build failed" >&2
  exit 1
fi
note build "$build/ in $((SECONDS - t)) s ($jobs jobs)"
mkdir -p "$logs"
gpu=$("$python" -c 'import torch
print(f"PyTorch {torch.__version__}, " + (f"CUDA {torch.version.cuda}, {torch.cuda.get_device_name(0)}" if torch.cuda.is_available() else "no GPU seen"))' 2>/dev/null | tail -1)
note machine "${gpu:-PyTorch not importable}; $jobs cores"

# 2. The test suite, on every core; tests still running 120 s before the budget ends are stopped.
t=$SECONDS
stop_at=$(date -d "+$(($(left) > 240 ? $(left) - 120 : 120)) seconds" +%H:%M:%S)
ctest --test-dir "$build" -j "$jobs" --timeout 300 --stop-time "$stop_at" --output-on-failure \
  >"$logs/ctest.log" 2>&1
ctest_rc=$?
tests=$(grep -E "tests passed, [0-9]+ tests failed" "$logs/ctest.log" | tail -1)
skipped=$(grep -c "(Skipped)" "$logs/ctest.log")
[ "$ctest_rc" -eq 0 ] || failed=1
note tests "${tests:-no result (see $logs/ctest.log)}; $skipped skipped; $((SECONDS - t)) s"
mapfile -t failures < <(grep -E "\((Failed|Timeout|Not Run|Subprocess.*)\)" "$logs/ctest.log" |
  sed 's/^ */           /')
summary+=("${failures[@]}")

# 3. Training runs: each family on the GPU, lenet5-bn and ResNet-20 on the CPU for comparison.
run() {  # name device args...
  local name=$1 device=$2
  shift 2
  local out=$logs/run-$name-$device
  rm -rf "$out"
  local t0=$SECONDS
  if "$build/dsgd" run --set dataset=synthetic --set epochs=1 --set device="$device" "$@" \
    --out "$out" >"$out.log" 2>&1; then
    local acc
    acc=$("$python" -c 'import json, sys; print(json.load(open(sys.argv[1]))["final_test_acc"])' \
      "$out/summary.json" 2>/dev/null)
    note run "$(printf '%-24s %-4s ok, test_acc %s, %d s' "$name" "$device" "$acc" $((SECONDS - t0)))"
  else
    failed=1
    note run "$(printf '%-24s %-4s FAILED (%s)' "$name" "$device" "$out.log")"
  fi
}
if "$python" -c 'import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
  run sgd-lenet5-bn cuda --set algo=sgd --set model=lenet5-bn --set lr=0.05
  run dana-zero-n8-lenet5-bn cuda --set algo=dana-zero --set workers=8 --set model=lenet5-bn \
    --set lr=0.05
  run hier-avg-p8-lenet5-bn cuda --set algo=hier-avg --set workers=8 --set hier.group_size=4 \
    --set model=lenet5-bn --set lr=0.05
  run sgd-resnet20 cuda --set algo=sgd --set model=resnet20 --set lr=0.05
else
  note run "no GPU seen by PyTorch: GPU runs skipped"
fi
run sgd-lenet5-bn cpu --set algo=sgd --set model=lenet5-bn --set lr=0.05
run sgd-resnet20 cpu --set algo=sgd --set model=resnet20 --set lr=0.05

# 4. The benchmarks, with the time that is left (less a margin for the summary).
bench_time=$(($(left) - 15))
if [ "$bench_time" -gt 30 ]; then
  t=$SECONDS
  filter=()
  [ -n "${DSGD_BENCH_FILTER:-}" ] && filter=("--benchmark_filter=$DSGD_BENCH_FILTER")
  timeout "$bench_time" "$build/dsgd_bench" "${filter[@]}" >"$logs/bench.log" 2>&1
  bench_rc=$?
  ran=$(grep -cE "^BM_" "$logs/bench.log")
  if [ "$bench_rc" -eq 0 ]; then
    note bench "dsgd_bench: $ran benchmarks in $((SECONDS - t)) s ($logs/bench.log)"
  elif [ "$bench_rc" -eq 124 ]; then
    note bench "dsgd_bench: stopped at the budget after $ran benchmarks ($logs/bench.log)"
  else
    failed=1
    note bench "dsgd_bench FAILED, exit $bench_rc ($logs/bench.log)"
  fi
  while read -r line; do summary+=("           $line"); done < <(grep "^RATIO\|^RATE" "$logs/bench.log")
else
  note bench "skipped: no time left of the ${budget} s budget"
fi

total=$((SECONDS - start))
echo
echo "==== gpu-check summary ($build/, logs in $logs/) ===="
printf '%s\n' "${summary[@]}"
within="within"
[ "$total" -le "$budget" ] || within="OVER"
echo "total      $total s, $within the ${budget} s budget"
if [ "$failed" -ne 0 ]; then
  echo "RESULT     FAILED"
  exit 1
fi
echo "RESULT     ok"
