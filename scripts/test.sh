#!/usr/bin/env bash
# Sets up (packages, build) and runs every test under CTest. README's test command.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
ctest --test-dir build --output-on-failure -j"$(nproc)"
