#!/usr/bin/env bash
# Runs the tests that compare numbers (the engines against each other, against golden
# trajectories, a resumed run against an uninterrupted one) under several CPU kernels, and prints
# a table: test x kernel, pass or fail, and each test's worst figure against its bound. Another
# CPU's BLAS kernels block and sum a GEMM differently, so a bound that holds only on this CPU's
# kernels fails here too (docs/reliability.md, "Numeric bounds on every CPU's kernels").
#
#   scripts/kernel-matrix.sh [BUILD_DIR ...]     # default: build/, and build-torch/ if built
#
# Kernels of a build on Debian's LibTorch (OpenBLAS): OpenBLAS's own choice for this CPU, then
# OPENBLAS_CORETYPE = Haswell, SkylakeX, Zen and Sandybridge (the older core), then oneDNN limited
# to AVX2 (ONEDNN_MAX_CPU_ISA). A build against a PyTorch wheel computes its GEMMs in the wheel's
# own MKL, which OPENBLAS_CORETYPE leaves as it is: its kernels are MKL's own choice, MKL limited
# to AVX2 (MKL_ENABLE_INSTRUCTIONS), and oneDNN limited to AVX2. Exit 1 when any cell fails.
# Environment: DSGD_MATRIX_REGEX, the ctest -R pattern of the tests that compare numbers;
# DSGD_MATRIX_KERNELS, the kernels of every build as space-separated VAR=VALUE ("-" for none).
set -euo pipefail
cd "$(dirname "$0")/.."

default_regex='Simulator|Golden|Exact|Match|Resume|Replay|Same|Equal|Identical|TheAllreduceKey'
regex=${DSGD_MATRIX_REGEX:-$default_regex}
# The kernels of a build: by the BLAS its dsgd links.
kernels_of() {
  if [ -n "${DSGD_MATRIX_KERNELS:-}" ]; then
    echo "$DSGD_MATRIX_KERNELS"
  elif ldd "$1/dsgd" 2>/dev/null | grep -q openblas; then
    echo "- OPENBLAS_CORETYPE=Haswell OPENBLAS_CORETYPE=SkylakeX OPENBLAS_CORETYPE=Zen" \
      "OPENBLAS_CORETYPE=Sandybridge ONEDNN_MAX_CPU_ISA=AVX2"
  else
    echo "- MKL_ENABLE_INSTRUCTIONS=AVX2 ONEDNN_MAX_CPU_ISA=AVX2"
  fi
}
builds=("$@")
if [ ${#builds[@]} -eq 0 ]; then
  builds=(build)
  [ -f build-torch/build.ninja ] && builds+=(build-torch)
fi

columns=()  # build, kernel, build, kernel, ...
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
start=$SECONDS
for build in "${builds[@]}"; do
  [ -f "$build/CTestTestfile.cmake" ] || {
    echo "kernel-matrix: $build/ is no CTest build folder (scripts/build.sh makes build/)" >&2
    exit 2
  }
  read -r -a kernels <<<"$(kernels_of "$build")"
  for kernel in "${kernels[@]}"; do
    columns+=("$build" "$kernel")
    cell=$work/$(basename "$build")__${kernel//[^A-Za-z0-9_=]/_}
    setting=()
    [ "$kernel" = "-" ] || setting=("$kernel")
    echo "kernel-matrix: $build/ under ${kernel/#-/this CPU\'s own kernels} ..." >&2
    env "${setting[@]}" DSGD_BOUNDS_LOG="$cell.bounds" \
      ctest --test-dir "$build" -R "$regex" -j "$(nproc)" --output-on-failure >"$cell.ctest" 2>&1 ||
      true
    touch "$cell.bounds"
  done
done

python3 - "$work" "$((SECONDS - start))" "${columns[@]}" <<'EOF'
import os, re, sys

work, seconds = sys.argv[1], int(sys.argv[2])
columns = list(zip(sys.argv[3::2], sys.argv[4::2]))
result = re.compile(r"Test\s+#\d+: (\S+) \.+\**\s*(\w+(?: \w+)?)")
cells, tests, failed = {}, [], 0
for build, kernel in columns:
    name = os.path.basename(build) + "__" + re.sub(r"[^A-Za-z0-9_=]", "_", kernel)
    status = {}
    for line in open(os.path.join(work, name + ".ctest"), errors="replace"):
        m = result.search(line)
        if m:
            status[m.group(1)] = "pass" if m.group(2).startswith("Passed") else m.group(2).lower()
    worst = {}
    for line in open(os.path.join(work, name + ".bounds"), errors="replace"):
        parts = line.rstrip("\n").split("\t")
        if len(parts) != 4:
            continue
        test, what, figure, bound = parts[0], parts[1], float(parts[2]), float(parts[3])
        ratio = (0.0 if figure == 0 else float("inf")) if bound == 0 else figure / bound
        if test not in worst or ratio > worst[test][0]:
            worst[test] = (ratio, figure, bound)
    for test, state in status.items():
        if test not in tests:
            tests.append(test)
        text = state
        if test in worst:
            _, figure, bound = worst[test]
            text += " (= 0)" if bound == 0 and figure == 0 else f" ({figure:.3g} / {bound:.3g})"
        if state != "pass":
            failed += 1
            text = "**" + text + "**"
        cells[(test, build, kernel)] = text
prefixes = {"OPENBLAS_CORETYPE": "", "MKL_ENABLE_INSTRUCTIONS": "MKL ",
            "ONEDNN_MAX_CPU_ISA": "oneDNN "}
def label(kernel):
    if kernel == "-":
        return "own"
    var, value = kernel.split("=", 1)
    return prefixes.get(var, var + "=") + value
print("| test | " + " | ".join(f"{os.path.basename(b)} {label(k)}" for b, k in columns) + " |")
print("|---" * (len(columns) + 1) + "|")
for test in sorted(tests):
    print(f"| {test} | " + " | ".join(cells.get((test, b, k), "-") for b, k in columns) + " |")
total = sum(1 for c in cells)
print(f"\n{total - failed} of {total} cells pass ({len(tests)} tests x {len(columns)} columns of a build and a kernel; "
      f"a figure is the test's worst against its bound; (= 0): equal bit for bit); "
      f"{seconds // 60} min {seconds % 60} s")
sys.exit(1 if failed else 0)
EOF
