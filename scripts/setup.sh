#!/usr/bin/env bash
# Installs every Debian package that building dsgd, its default job and its tests need.
# Idempotent: does nothing when all are present. Needs root (or sudo) for apt-get.
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache pkg-config git
  libtorch-dev libopenblas0-pthread          # LibTorch, with an optimised BLAS (~30x the reference BLAS)
  libopenmpi-dev openmpi-bin                 # the distributed engine
  zlib1g-dev                                 # gzip-compressed IDX files
  libstb-dev                                 # stb_image: image-folder datasets
  libxtensor-dev                             # its .npy header parser: tensor-folder datasets
  dataset-fashion-mnist                      # the default job's data, real and offline
  libcli11-dev libtomlplusplus-dev nlohmann-json3-dev libfmt-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libboost-dev                               # Boost.Math's Student's t: the report's Welch test
  iproute2                                   # network namespaces for the two-host MPI test
  gnuplot-nox                                # the figures of `dsgd report`
  libsimgrid-dev                             # SimGrid's SMPI: the all-reduce prices' check
  # The Python package (python/, built against Debian's torch, which is the same LibTorch) and
  # its tests: pybind11, pandas for the results, pytest, tqdm for the progress bar, mpi4py for
  # the test of MPI initialised by another library; mypy checks the package's types.
  python3-dev python3-torch pybind11-dev python3-pandas python3-pytest python3-tqdm python3-mpi4py
  mypy                                       # the static type check of the package (a CTest test)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "setup: installing ${missing[*]}"
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
