#!/usr/bin/env bash
# One command for a GPU machine that has PyTorch 2.x (CUDA), CMake, ninja and a C/C++ compiler,
# and no network, no MPI, no Debian -dev packages: builds dsgd against that PyTorch's LibTorch with
# the dependencies scripts/prepare-offline.sh collected (build-gpu/, -DDSGD_WITH_MPI=OFF, ninja on
# every core), then runs the checks and prints a summary:
#   1. the test suite (that build has no MPI tests; the CUDA ones run when a GPU is seen),
#   2. short training runs of the three families on the GPU, and one on the CPU to compare,
#   3. the DANA paper's CIFAR-10 configuration (dana-slim, N = 32) on data shaped like CIFAR-10
#      (random pixels and labels: there is no network for the real set, and the time per update,
#      not the accuracy, is the question, so the collapse check is off) for DSGD_PAPER_S seconds
#      (default 120), and the step of every model, batch and format the campaigns use (the lines
#      configs/clusters.toml's GPU device takes),
#   4. the benchmarks (dsgd_bench): the GPU's figures first (step against LibTorch's, simulated
#      update rate, replicas on streams, MPI host staging), then the others with what time is left.
# Sized for 10 minutes on 16 cores (DSGD_CHECK_BUDGET_S, default 600). Exit 0 when everything
# that ran passed.
# Usage: scripts/gpu-check.sh [OFFLINE_FOLDER]      (default third_party/offline)
# Environment: DSGD_PYTHON (default python3: the PyTorch to build against), DSGD_BUILD_DIR
#   (default build-gpu), DSGD_BENCH_FILTER (a --benchmark_filter regex; default: the GPU's
#   figures, then all), DSGD_CHECK_BUDGET_S (seconds for the whole check), DSGD_PAPER_S.
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
has_gpu=0
"$python" -c 'import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null &&
  has_gpu=1

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
# A test that crashed printed its stack (src/core/crash_report.h) with the executable's frames as
# offsets: the first crash's, decoded, says where.
offsets=$(grep -m1 -A70 "^dsgd_tests: crashed" "$logs/ctest.log" | grep -o "dsgd_tests(+0x[0-9a-f]*)" |
  grep -o "0x[0-9a-f]*" | head -24)
if [ -n "$offsets" ] && command -v addr2line >/dev/null; then
  # shellcheck disable=SC2086  # one offset an argument
  addr2line -f -C -p -e "$build/dsgd_tests" $offsets >"$logs/crash-stack.txt" 2>&1
  summary+=("           the first crash, innermost first ($logs/crash-stack.txt):")
  while read -r line; do summary+=("             $line"); done < <(head -12 "$logs/crash-stack.txt")
fi

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
if [ "$has_gpu" -eq 1 ]; then
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

# 3. The paper's configuration on the GPU, stopped (SIGINT: a clean stop with a checkpoint) after
# DSGD_PAPER_S seconds: epochs done and the wall time per update, evaluation included.
if [ "$has_gpu" -eq 1 ]; then
  t=$SECONDS
  data=$logs/cifar10-shaped
  out=$logs/run-paper-dana-slim-n32
  rm -rf "$out"
  mkdir -p "$data"
  "$python" - "$data" <<'PY'
import sys, torch
g = torch.Generator().manual_seed(1)
for split, n in (("train", 50000), ("test", 10000)):
    torch.save({"x": torch.randint(0, 256, (n, 3, 32, 32), dtype=torch.uint8, generator=g),
                "y": torch.randint(0, 10, (n,), generator=g)}, f"{sys.argv[1]}/{split}.pt")
PY
  timeout -s INT "${DSGD_PAPER_S:-120}" "$build/dsgd" run -c configs/paper/dana-cifar10-resnet20.toml \
    --set dataset="$data" --set augment=crop-flip --set algo=dana-slim --set workers=32 \
    --set device=cuda --set stop_on_collapse=false --out "$out" >"$out.log" 2>&1
  paper=$("$python" - "$out/metrics.csv" <<'PY' 2>/dev/null
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
last = rows[-1]
ms = 1e3 * float(last["wall_time"]) / int(last["updates"])
print(f"{float(last['epoch']):g} of 160 epochs ({last['updates']} updates) in "
      f"{float(last['wall_time']):.0f} s: {ms:.2f} ms per update with an evaluation each epoch "
      f"(aim <= 4.8); 160 epochs would take {ms * 62400 / 6e4:.1f} min")
PY
)
  if [ -n "$paper" ]; then
    note paper "dana-slim N=32, CIFAR-10 shape: $paper"
  else
    failed=1
    note paper "dana-slim N=32 FAILED before its first epoch ($out.log)"
  fi
  plan=$(grep -m1 "^GPU:" "$out.log")
  [ -n "$plan" ] && summary+=("           $plan")
fi

# 3b. The step of every model, batch and format the campaigns use, as configs/clusters.toml keys
# them: `dsgd estimate` times the run's format when it starts (and then runs the clock alone),
# on the CIFAR-shaped data; each line is ready for the h200 entry's [devices.NAME.step] table.
step_line='import json, sys
s = json.load(sys.stdin)["step"]
print("\"%s\" = %.4g" % (s["key"], s["seconds"]))'
if [ "$has_gpu" -eq 1 ]; then
  for model in resnet20-proj resnet20; do
    for batch in 128 256; do
      for format in "contiguous fp32" "channels-last fp32" "channels-last bf16"; do
        # shellcheck disable=SC2086  # the format's two words, as $1 and $2
        set -- $format
        step=$("$build/dsgd" estimate --json --set dataset="$data" --set device=cuda \
          --set algo=sgd --set model=$model --set batch_size=$batch --set memory_format="$1" \
          --set precision="$2" --set epochs=0.01 2>"$logs/step.log" |
          "$python" -c "$step_line" 2>/dev/null)
        if [ -n "$step" ]; then
          note step "$step"
        else
          failed=1
          note step "$model $batch $format FAILED ($logs/step.log)"
        fi
      done
    done
  done
fi

# 4. The benchmarks, with the time that is left (less a margin for the summary): the GPU's figures
# first, then the others.
bench() {  # log filter
  local log=$1 filter=$2 bench_time=$(($(left) - 15))
  if [ "$bench_time" -le 30 ]; then
    note bench "$filter: skipped, no time left of the ${budget} s budget"
    return
  fi
  local t=$SECONDS
  timeout "$bench_time" "$build/dsgd_bench" "--benchmark_filter=$filter" >"$log" 2>&1
  local bench_rc=$?
  local ran
  ran=$(grep -cE "^BM_" "$log")
  if [ "$bench_rc" -eq 0 ]; then
    note bench "dsgd_bench $filter: $ran benchmarks in $((SECONDS - t)) s ($log)"
  elif [ "$bench_rc" -eq 124 ]; then
    note bench "dsgd_bench $filter: stopped at the budget after $ran benchmarks ($log)"
  else
    failed=1
    note bench "dsgd_bench $filter FAILED, exit $bench_rc ($log)"
  fi
  while read -r line; do summary+=("           $line"); done < <(grep "^RATIO\|^RATE" "$log")
}
gpu_figures="BM_StepPair|BM_SimUpdatePair|BM_SimStreams|BM_HostStaging"
if [ -n "${DSGD_BENCH_FILTER:-}" ]; then
  bench "$logs/bench.log" "$DSGD_BENCH_FILTER"
else
  bench "$logs/bench-gpu.log" "$gpu_figures"
  bench "$logs/bench.log" "-$gpu_figures"
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
