#!/usr/bin/env bash
# Collects, on a machine with Debian's packages (scripts/setup.sh installs them), every build
# dependency of dsgd except LibTorch and MPI into one folder, with the CMake file that builds from
# it (cmake/dsgd-offline.cmake), so that a machine with only PyTorch 2.x, CMake and ninja (no
# network, no Debian -dev packages) can build dsgd with -DDSGD_WITH_MPI=OFF: scripts/gpu-check.sh.
#   headers   toml++, CLI11, nlohmann-json, stb (image, resize, write), xtensor and xtl, {fmt}
#             (header-only; LibTorch 2.x's own {fmt} is used instead when it ships one)
#   sources   GoogleTest (Debian's /usr/src/googletest), Google Benchmark and zlib (Debian's source
#             packages of the installed versions, fetched with apt-get source through a temporary
#             deb-src list; the system's apt configuration is not changed)
# The folder is at most 32 MiB; copy it, with the repository, to the other machine.
# Usage: scripts/prepare-offline.sh [FOLDER]      (default third_party/offline; replaced if there)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
out=${1:-third_party/offline}
limit_mib=32

die() {
  echo "prepare-offline: $*" >&2
  exit 1
}

scripts/setup.sh
for p in libtomlplusplus-dev libcli11-dev nlohmann-json3-dev libstb-dev libxtensor-dev libfmt-dev \
  libgtest-dev libbenchmark-dev zlib1g-dev libboost-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    die "Debian package $p is missing (scripts/setup.sh installs it)"
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rm -rf "$out"
mkdir -p "$out/include/stb" "$out/fmt/include" "$out/stb" "$out/zlib" "$out/benchmark"
out=$(cd "$out" && pwd)

# Header-only libraries, as Debian installed them.
cp -r /usr/include/toml++ /usr/include/CLI /usr/include/nlohmann /usr/include/xtensor \
  /usr/include/xtl "$out/include/"
cp /usr/include/stb/stb_image.h /usr/include/stb/stb_image_resize.h \
  /usr/include/stb/stb_image_write.h "$out/include/stb/"
cp -r /usr/include/fmt "$out/fmt/include/"
# Of Boost (header-only here), the headers that Student's t pulls in (about 4 MB of its 150): the
# closure the compiler itself lists.
echo '#include <boost/math/distributions/students_t.hpp>' |
  c++ -std=c++17 -M -x c++ - | tr ' \\' '\n\n' | grep '^/usr/include/boost/' | sort -u |
  while read -r header; do cp --parents "$header" "$work/"; done
cp -r "$work/usr/include/boost" "$out/include/"
cat >"$out/stb/stb_implementations.c" <<'EOF'
/* The implementations of the stb headers dsgd uses (Debian links them as libstb). */
#define STB_IMAGE_IMPLEMENTATION
#include <stb/stb_image.h>
#define STB_IMAGE_RESIZE_IMPLEMENTATION
#include <stb/stb_image_resize.h>
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb/stb_image_write.h>
EOF

# GoogleTest's sources, as libgtest-dev ships them (gmock is not used).
mkdir -p "$out/googletest"
cp -r /usr/src/googletest/googletest/include /usr/src/googletest/googletest/src "$out/googletest/"
cp /usr/src/googletest/LICENSE "$out/googletest/" 2>/dev/null || true

# Google Benchmark's and zlib's sources: Debian's source packages of the installed versions.
apt_dir=$work/apt
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$work/src"
codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
echo "deb-src http://deb.debian.org/debian $codename main" >"$apt_dir/sources.list"
apt_opts=(-o "Dir::Etc::SourceList=$apt_dir/sources.list" -o Dir::Etc::SourceParts=/nonexistent
  -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache" -o Debug::NoLocking=1
  -o APT::Sandbox::User=root)
echo "prepare-offline: fetching the benchmark and zlib source packages (apt-get source)"
apt-get "${apt_opts[@]}" update -qq ||
  die "apt-get update of a deb-src list for $codename failed (network?)"
benchmark_version=$(dpkg-query -W -f='${source:Version}' libbenchmark-dev)
zlib_version=$(dpkg-query -W -f='${source:Version}' zlib1g-dev)
(cd "$work/src" && apt-get "${apt_opts[@]}" source --download-only -qq \
  "benchmark=$benchmark_version" "zlib=$zlib_version") ||
  die "apt-get source benchmark=$benchmark_version zlib=$zlib_version failed"
tar -xf "$work"/src/benchmark_*.orig.tar.* -C "$work/src"
tar -xf "$work"/src/zlib_*.orig.tar.* -C "$work/src"
benchmark_src=$(find "$work/src" -maxdepth 1 -type d -name 'benchmark-*' | head -1)
zlib_src=$(find "$work/src" -maxdepth 1 -type d -name 'zlib-*' | head -1)
[ -f "$benchmark_src/src/benchmark.cc" ] || die "no Google Benchmark sources in the source package"
[ -f "$zlib_src/zlib.h" ] || die "no zlib sources in the source package"
cp -r "$benchmark_src/include" "$benchmark_src/src" "$benchmark_src/LICENSE" "$out/benchmark/"
rm -f "$out/benchmark/src/CMakeLists.txt"
cp "$zlib_src"/*.c "$zlib_src"/*.h "$zlib_src/README" "$out/zlib/"
cp "$zlib_src/LICENSE" "$out/zlib/" 2>/dev/null || true

cp "$repo/cmake/dsgd-offline.cmake" "$out/dsgd-offline.cmake"
{
  echo "dsgd's offline dependencies, made by scripts/prepare-offline.sh on $(date -u +%F)"
  echo "from Debian $(cat /etc/debian_version) packages (dpkg versions):"
  for p in libtomlplusplus-dev libcli11-dev nlohmann-json3-dev libstb-dev libxtensor-dev xtl-dev \
    libfmt-dev libgtest-dev libbenchmark-dev zlib1g-dev; do
    echo "  $p $(dpkg-query -W -f='${Version}' "$p")"
  done
  echo "include/      toml++, CLI, nlohmann, stb, xtensor, xtl (headers)"
  echo "fmt/include/  {fmt} headers, used header-only when LibTorch ships no {fmt}"
  echo "stb/          stb's implementations, one C file"
  echo "googletest/   GoogleTest sources (include/, src/)"
  echo "benchmark/    Google Benchmark sources (include/, src/), Debian source package"
  echo "zlib/         zlib sources, Debian source package"
  echo "dsgd-offline.cmake  the targets; CMakeLists.txt includes it with -DDSGD_OFFLINE_DEPS=<this folder>"
} >"$out/MANIFEST"

size_kib=$(du -sk "$out" | cut -f1)
if [ "$size_kib" -gt $((limit_mib * 1024)) ]; then
  die "$out is $((size_kib / 1024)) MiB, over the ${limit_mib} MiB limit"
fi
echo "prepare-offline: $out, $((size_kib / 1024)).$(((size_kib % 1024) * 10 / 1024)) MiB:"
sed -n '/^include/,$p' "$out/MANIFEST"
echo "on the GPU machine: scripts/gpu-check.sh $out   (or DSGD_OFFLINE_DEPS=$out scripts/build-torch.sh)"
