#!/usr/bin/env bash
# Sets up (packages, build) and runs every test under CTest. README's test command.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
echo "test: set-up and build took $SECONDS s"
ctest --test-dir build --output-on-failure -j"$(nproc)"
# Hardening (the sanitizer build and the fuzzers, a second full build with clang) is
# scripts/hardening.sh, which CI runs after this; NEURONSIM_HARDENING=1 runs it here too.
if [[ ${NEURONSIM_HARDENING:-0} == 1 ]]; then
  scripts/hardening.sh
fi
