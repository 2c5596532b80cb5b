#!/usr/bin/env bash
# The sanitizer run of a documented subset of the suite, for CI (docs/limits.md): the pure
# unit tests, the end-to-end CLI tests and the hostile-input suite, under AddressSanitizer
# and UBSan with tests/sanitizer/asan.supp (no other suppressions).
#
# It runs in the fuzz tree (scripts/fuzz.sh: clang, -DNEURONSIM_FUZZ=ON, which instruments
# every library with -fsanitize=address,undefined as -DNEURONSIM_SANITIZE=ON does, plus
# libFuzzer's coverage), so CI builds the libraries once for both. Left out for time:
# tests/sim (one simulation per process, ~300 programs to link), tests/py, validation,
# the package test, the two CLI tests that simulate every example on every target
# (golden_summaries, readme_tour), and `cli: calibrate`, which hands over to the Python
# module (python3 -m neuronsim.calibrate) that this tree does not build (the calibration's
# Python tests run in the main build). The whole suite: -DNEURONSIM_SANITIZE=ON (DEVELOPERS.md).
#   FUZZ_BUILD  the tree (default build-fuzz)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${FUZZ_BUILD:-build-fuzz}
FUZZ_BUILD=$build FUZZ_BUILD_ONLY=1 scripts/fuzz.sh
cmake --build "$build" -j"$(nproc)" --target neuronsim unit_tests hostile_forge_trace \
  neuronsim_help_pages 2>&1 | grep -Ev '^\[' || true
ctest --test-dir "$build" --output-on-failure -j"$(nproc)" -R '^(unit|cli|hostile):' \
  -E '^cli: (golden_summaries|readme_tour|calibrate)$'
