#!/usr/bin/env bash
# Builds dsgd, its tests and its benchmarks against a LibTorch 2.x, into build-torch/ (scripts/
# build.sh's build/ keeps Debian's LibTorch 1.13): the LibTorch inside a pip-installed PyTorch, or
# an unpacked official LibTorch (pytorch.org's zip). Installs missing Debian packages first
# (scripts/setup.sh). Safe to run again: it configures only what is new and builds incrementally.
#
# Usage: scripts/build-torch.sh [PYTHON | TORCH_DIR]
#   (none)     $DSGD_PYTHON, else python3: its `import torch` must give 2.0 or newer
#   PYTHON     that interpreter's PyTorch, e.g. ~/torch2/bin/python
#   TORCH_DIR  a LibTorch's share/cmake/Torch folder (the one holding TorchConfig.cmake), or the
#              unpacked libtorch/ folder itself
# Environment:
#   DSGD_BUILD_DIR     the build folder (default build-torch)
#   DSGD_WITH_MPI      ON (default) or OFF: the simulators only
#   DSGD_OFFLINE_DEPS  a folder made by scripts/prepare-offline.sh: its dependencies are used and
#                      nothing is installed (implies DSGD_WITH_MPI=OFF); scripts/gpu-check.sh
#   DSGD_CMAKE_ARGS    more arguments for cmake's configuration, e.g. -DDSGD_CUDA_TOOLKIT=OFF
#   DSGD_JOBS          parallel compile jobs (default: all cores)
set -euo pipefail
cd "$(dirname "$0")/.."

die() {
  echo "build-torch: $*" >&2
  exit 1
}
no_torch() {
  die "$1
To build against PyTorch 2.x, install it, e.g. in a virtual environment:
  python3 -m venv ~/torch2 && ~/torch2/bin/pip install torch
  DSGD_PYTHON=~/torch2/bin/python scripts/build-torch.sh     (or: pip install torch, for python3)
or unpack an official LibTorch (pytorch.org) and pass its folder:
  scripts/build-torch.sh /path/to/libtorch
Debian's LibTorch 1.13 is scripts/build.sh's (build/)."
}

start=$SECONDS
build=${DSGD_BUILD_DIR:-build-torch}
arg=${1:-}
python=""
torch_dir=""
if [ -n "$arg" ] && [ -d "$arg" ]; then
  if [ -f "$arg/TorchConfig.cmake" ]; then
    torch_dir=$arg
  elif [ -f "$arg/share/cmake/Torch/TorchConfig.cmake" ]; then
    torch_dir=$arg/share/cmake/Torch
  else
    no_torch "$arg holds no TorchConfig.cmake (give LibTorch's share/cmake/Torch, or libtorch/)."
  fi
  torch_dir=$(cd "$torch_dir" && pwd)
  version=$(sed -n 's/.*set(PACKAGE_VERSION "\([0-9][0-9.]*\).*/\1/p' \
    "$torch_dir/TorchConfigVersion.cmake" 2>/dev/null | head -1)
  [ -n "$version" ] || no_torch "$torch_dir: no version in TorchConfigVersion.cmake."
  prefix=$(cd "$torch_dir/../../.." && pwd)
  described="LibTorch $version at $prefix"
else
  python=${arg:-${DSGD_PYTHON:-python3}}
  python_path=$(command -v "$python" 2>/dev/null) || no_torch "no Python '$python' found."
  python=$python_path
  # One line: version, install folder (the CMake prefix), CUDA version (or None), tab-separated.
  if ! info=$("$python" -c 'import os, torch
print(torch.__version__.split("+")[0], os.path.dirname(torch.__file__), torch.version.cuda, sep="\t")' \
    2>/tmp/dsgd-build-torch.$$.err | tail -1); then
    reason=$(grep -v Warning /tmp/dsgd-build-torch.$$.err | tail -1)
    rm -f /tmp/dsgd-build-torch.$$.err
    no_torch "$python cannot import torch${reason:+ ($reason)}."
  fi
  rm -f /tmp/dsgd-build-torch.$$.err
  IFS=$'\t' read -r version prefix cuda <<<"$info"
  [ "${version%%.*}" -ge 2 ] 2>/dev/null ||
    no_torch "$python has PyTorch $version; this build needs 2.0 or newer."
  torch_dir=$prefix/share/cmake/Torch
  [ -f "$torch_dir/TorchConfig.cmake" ] ||
    no_torch "$python's PyTorch $version ships no LibTorch CMake files ($torch_dir)."
  described="PyTorch $version (CUDA $cuda) from $python, LibTorch at $prefix"
fi
[ "${version%%.*}" -ge 2 ] 2>/dev/null ||
  no_torch "found $described; this build needs 2.0 or newer."
echo "build-torch: $described"

offline=${DSGD_OFFLINE_DEPS:-}
with_mpi=${DSGD_WITH_MPI:-ON}
if [ -n "$offline" ]; then
  [ -f "$offline/dsgd-offline.cmake" ] ||
    die "$offline is not a folder made by scripts/prepare-offline.sh (no dsgd-offline.cmake)"
  offline=$(cd "$offline" && pwd)
  with_mpi=OFF
else
  scripts/setup.sh
  # The Python tests (python.*) run on the interpreter the build is made against: it gets what
  # they import (pyproject.toml's dependencies, its `test` and `progress` extras) once, as
  # setup.sh does for Debian's python3. A LibTorch folder has no interpreter of its own.
  if [ -n "$python" ] && ! "$python" -c 'import numpy, pandas, pytest, tqdm' 2>/dev/null; then
    echo "build-torch: installing numpy, pandas, pytest and tqdm into $python for the Python tests"
    "$python" -m pip install --quiet numpy pandas pytest tqdm ||
      die "could not pip-install numpy, pandas, pytest and tqdm into $python (the Python tests" \
        "need them)"
  fi
fi

args=(-DCMAKE_BUILD_TYPE=Release "-DTorch_DIR=$torch_dir" "-DCMAKE_PREFIX_PATH=$prefix"
  "-DDSGD_WITH_MPI=$with_mpi" "-DDSGD_OFFLINE_DEPS=$offline" "-DDSGD_TORCH_PYTHON=$python")
# shellcheck disable=SC2206  # word splitting of DSGD_CMAKE_ARGS is intended
args+=(${DSGD_CMAKE_ARGS:-})
# Configure when the folder is new or the LibTorch or options changed; a different LibTorch
# starts from an empty cache (TorchConfig's find_library results are cached).
stamp=$build/dsgd-build-torch.args
wanted=$(printf '%s\n' "${args[@]}")
if [ ! -f "$build/build.ninja" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$wanted" ]; then
  if [ -f "$build/CMakeCache.txt" ] && ! grep -qxF "-DTorch_DIR=$torch_dir" "$stamp" 2>/dev/null; then
    echo "build-torch: another LibTorch than $build/ was configured with: configuring afresh"
    rm -f "$build/CMakeCache.txt"
  fi
  cmake -S . -B "$build" -G Ninja "${args[@]}"
  printf '%s\n' "$wanted" >"$stamp"
fi
cmake --build "$build" -j "${DSGD_JOBS:-$(nproc)}"
echo "build-torch: $build/ built against $described in $((SECONDS - start)) s"
