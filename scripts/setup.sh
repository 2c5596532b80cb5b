#!/usr/bin/env bash
# Installs the Debian 12 packages neuronsim builds and tests with (needs root and Debian's
# package mirror), then configures and builds it into build/. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  build-essential cmake pkg-config
  libsystemc-dev libboost-dev nlohmann-json3-dev catch2 libcli11-dev libarchive-dev libssl-dev
  python3 python3-numpy chromium libbenchmark-dev time
  pybind11-dev python3-dev python3-pandas python3-torch zlib1g-dev clang-14 libclang-rt-14-dev
  python3-distributed python3-matplotlib
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

build_type=${BUILD_TYPE:-RelWithDebInfo}
# -Werror: the tree is warning-free and stays so (CMakeLists.txt, NEURONSIM_WERROR).
cmake -S . -B build -DCMAKE_BUILD_TYPE="$build_type" -DNEURONSIM_WERROR=ON >/dev/null
cmake --build build -j"$(nproc)"

# `import neuronsim` from Debian's python3 without PYTHONPATH: a .pth file (what
# `pip install -e` would write) puts build/python on its path, once the module is built.
# NEURONSIM_NO_PTH=1 leaves the system's Python alone.
site_dir=/usr/local/lib/python3.11/dist-packages
if [[ -z "${NEURONSIM_NO_PTH:-}" && -d build/python/neuronsim && -w "$(dirname "$site_dir")" ]]; then
  mkdir -p "$site_dir"
  echo "$PWD/build/python" >"$site_dir/neuronsim-build.pth"
fi
