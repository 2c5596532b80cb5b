#!/usr/bin/env bash
# Sets up (packages, build) and runs every test under CTest. README's test command.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
ctest --test-dir build --output-on-failure -j"$(nproc)"
# Hardening (docs/limits.md): the sanitizer subset and every fuzz target for a bounded
# time, both in one clang ASan+UBSan tree (build-fuzz). NEURONSIM_HARDENING=0 skips them.
if [[ ${NEURONSIM_HARDENING:-1} == 1 ]]; then
  scripts/sanitize.sh
  FUZZ_SECONDS=${FUZZ_SECONDS:-20} scripts/fuzz.sh
fi
