#!/usr/bin/env bash
# `neuronsim config`: list, dump, overrides (repeatable, in order), a dump reloads as a
# target file, bad input exits non-zero naming the key, works from any directory.
set -euo pipefail
: "${NEURONSIM:?set NEURONSIM to the neuronsim program}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"  # nowhere near config/targets: the presets are built in

fail() { echo "FAIL: $*" >&2; exit 1; }

# Reads a value from a dump: value SECTION KEY < dump.json
value() { python3 -c 'import json,sys; print(json.load(sys.stdin)[sys.argv[1]][sys.argv[2]]["value"])' "$1" "$2"; }

# --list: one line per preset.
"$NEURONSIM" config --list > list.txt
[ "$(wc -l < list.txt)" -eq 3 ] || fail "--list should print 3 presets"
for p in trn1 trn2 trn3; do grep -q "^$p " list.txt || fail "--list lacks $p"; done

# --dump: the full config, deterministic.
"$NEURONSIM" config --target trn1 --dump > trn1.json
"$NEURONSIM" config --target trn1 --dump > trn1_again.json
cmp -s trn1.json trn1_again.json || fail "two dumps differ"
[ "$(value clocks tensor_ghz < trn1.json)" = "2.8" ] || fail "trn1 tensor clock"
[ "$(value sbuf bytes_per_partition < trn1.json)" = "196608" ] || fail "trn1 SBUF"
[ "$(value dma engines < trn1.json)" = "16" ] || fail "trn1 DMA engines"

# --override, repeatable, later files win.
echo '{"clocks": {"tensor_ghz": 3.0, "vector_ghz": 1.0}}' > first.json
echo '{"clocks": {"tensor_ghz": 3.5}}' > second.json
"$NEURONSIM" config --target trn2 --override first.json --override second.json --dump > over.json
[ "$(value clocks tensor_ghz < over.json)" = "3.5" ] || fail "later override should win"
[ "$(value clocks vector_ghz < over.json)" = "1.0" ] || fail "earlier override lost"

# A dump is a target file that loads back to the same dump; -o writes it.
"$NEURONSIM" config --target over.json --dump -o reloaded.json
cmp -s over.json reloaded.json || fail "dump -> target file -> dump differs"
"$NEURONSIM" config --target over.json | grep -q "valid target" || fail "check of a target file"

# Bad input: non-zero exit, one message naming the key; no output file written.
expect_error() {  # expect_error TEXT-IN-MESSAGE OVERRIDE-JSON
  echo "$2" > bad.json
  if "$NEURONSIM" config --target trn2 --override bad.json --dump -o out.json 2> err.txt; then
    fail "accepted $2"
  fi
  grep -qF "$1" err.txt || fail "message for $2 lacks '$1': $(cat err.txt)"
  grep -qF "bad.json" err.txt || fail "message for $2 lacks the file name"
  [ ! -e out.json ] || fail "output written despite the error"
}
expect_error "unknown section 'clock'" '{"clock": {"tensor_ghz": 3}}'
expect_error "unknown key 'psum.bankz'" '{"psum": {"bankz": 3}}'
expect_error 'sbuf.partitions = "128": must be an integer' '{"sbuf": {"partitions": "128"}}'
expect_error "dma.engines = -1: must not be negative" '{"dma": {"engines": -1}}'
expect_error "dma.engines = 0: must be positive" '{"dma": {"engines": 0}}'
expect_error "psum.banks = 2.5: must be an integer" '{"psum": {"banks": 2.5}}'
expect_error "psum.banks = 3 (" '{"psum": {"banks": 3}}'

if "$NEURONSIM" config --target trn9 2> err.txt; then fail "accepted trn9"; fi
grep -q "unknown target 'trn9'" err.txt || fail "unknown preset message: $(cat err.txt)"

echo "config_cli: ok"
