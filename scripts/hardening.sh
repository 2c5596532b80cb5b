#!/usr/bin/env bash
# Hardening (docs/limits.md), the step CI runs after README's test command: the sanitizer
# subset of the suite (scripts/sanitize.sh) and every fuzz target for a bounded time
# (scripts/fuzz.sh, FUZZ_SECONDS each, 20 by default), both in one clang ASan+UBSan tree
# (build-fuzz). A second full build with clang: about 20 minutes on a 2-core machine, which
# is why scripts/test.sh leaves it out unless NEURONSIM_HARDENING=1.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/sanitize.sh
echo "hardening: sanitizer build and subset took $SECONDS s"
FUZZ_SECONDS=${FUZZ_SECONDS:-20} scripts/fuzz.sh
