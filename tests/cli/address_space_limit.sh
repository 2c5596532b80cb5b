#!/bin/bash
# A run under an address-space limit (ulimit -v 4194304, 4 GiB, common on batch clusters):
# the bundled HBM maps 64 MiB chunks as they are touched instead of reserving the target's
# whole capacity (96 GiB on trn2), so one core and a Device of eight both run
# (docs/embedding.md, "Hbm"). Before: "hbm: cannot reserve 103079215104 bytes of address
# space".
set -euo pipefail
: "${NEURONSIM:?set NEURONSIM to the neuronsim program}"
: "${SOURCE_DIR:?set SOURCE_DIR to the source tree}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }

"$NEURONSIM" asm "$SOURCE_DIR/examples/asm/tiny_add.nasm" -o tiny_add.neff > /dev/null
# Sanitizer builds reserve terabytes of shadow memory: the limit cannot apply there.
if [[ ${ASAN_OPTIONS:-} == *suppressions* ]]; then echo "skipped under a sanitizer"; exit 0; fi
(
  ulimit -v 4194304
  "$NEURONSIM" run tiny_add.neff -t trn2 --input a=ones --input b=ones -q > one.txt 2>&1 ||
    fail "one core under ulimit -v 4194304: $(cat one.txt)"
  "$NEURONSIM" run tiny_add.neff -t trn2 --cores 8 --input a=ones --input b=ones -q \
    > eight.txt 2>&1 || fail "eight cores under ulimit -v 4194304: $(cat eight.txt)"
)
echo "ok"
