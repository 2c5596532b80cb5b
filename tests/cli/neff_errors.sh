#!/bin/bash
# Each class of bad input to asm / disasm / neff info exits non-zero with one message
# naming the file and the reason, and leaves no output file behind.
set -euo pipefail
: "${NEURONSIM:?set NEURONSIM to the neuronsim program}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

fail() { echo "FAIL: $*" >&2; exit 1; }

# expect_error OUTPUT_FILE 'substring' ... -- command...
expect_error() {
  local output=$1; shift
  local wants=()
  while [[ $1 != -- ]]; do wants+=("$1"); shift; done
  shift
  local rc=0
  "$@" > stdout.txt 2> stderr.txt || rc=$?
  [[ $rc -ne 0 ]] || fail "'$*' succeeded"
  [[ $rc -lt 128 ]] || fail "'$*' crashed (exit $rc): $(cat stderr.txt)"
  for want in "${wants[@]}"; do
    grep -qF -- "$want" stderr.txt || fail "'$*': message lacks '$want': $(cat stderr.txt)"
  done
  if [[ -n $output ]]; then
    [[ ! -e $output ]] || fail "'$*' left $output behind"
    ls "$output".tmp* > /dev/null 2>&1 && fail "'$*' left a temporary file" || true
  fi
}

cat > good.nasm <<'NASM'
kernel good target=trn2
tensor a fp32[128, 64] input
tensor out fp32[128, 64] output
sbuf xa fp32[128, 64]
sem loaded = 0
sem done = 0
queue q first_engine=0 engines=1
sync:
    dma_copy xa, a, queue=q  signal loaded
    dma_copy out, xa, queue=q  wait loaded>=1  signal done
    nop  wait done>=1
NASM
"$NEURONSIM" asm good.nasm -o good.neff

# --- asm ------------------------------------------------------------------------------
expect_error out.neff "missing.nasm" -- "$NEURONSIM" asm missing.nasm -o out.neff
printf 'kernel bad target=trn2\nsync:\n    frobnicate x\n' > syntax.nasm
expect_error out.neff "syntax.nasm:3" -- "$NEURONSIM" asm syntax.nasm -o out.neff
# 200 partitions do not fit a 128-partition SBUF: validation refuses it.
sed 's/sbuf xa fp32\[128, 64\]/sbuf xa fp32[200, 64]/' good.nasm > invalid.nasm
expect_error out.neff "invalid.nasm" -- "$NEURONSIM" asm invalid.nasm -o out.neff
expect_error out.neff "trn9" -- "$NEURONSIM" asm good.nasm -o out.neff --target trn9
sed 's/ target=trn2//' good.nasm > notarget.nasm
if "$NEURONSIM" asm notarget.nasm -o out.neff 2> stderr.txt; then
  fail "a kernel without a target assembled without --target"
fi
grep -qF "notarget.nasm" stderr.txt || fail "no-target message lacks the file: $(cat stderr.txt)"
[[ ! -e out.neff ]] || fail "no-target left out.neff"
expect_error "" "good.nasm" "overwrite" -- "$NEURONSIM" asm good.nasm -o good.nasm
expect_error nodir/out.neff "nodir/out.neff" -- "$NEURONSIM" asm good.nasm -o nodir/out.neff

# --- damaged NEFFs: neff info and disasm ------------------------------------------------
size=$(stat -c %s good.neff)
head -c 100 good.neff > short_header.neff
head -c $((size - 7)) good.neff > short_payload.neff
: > empty.neff
echo "not a neff" > text.neff
cp good.neff bad_version.neff
printf '\x07' | dd of=bad_version.neff bs=1 seek=0 conv=notrunc status=none
cp good.neff bad_lnc.neff
printf '\x05' | dd of=bad_lnc.neff bs=1 seek=552 conv=notrunc status=none
cp good.neff bad_payload.neff
printf '\xff' | dd of=bad_payload.neff bs=1 seek=$((size - 20)) conv=notrunc status=none
cp good.neff padded.neff
printf '\0' >> padded.neff
mkdir dir.neff

check_damaged() {
  local file=$1; shift
  expect_error "" "$file" "$@" -- "$NEURONSIM" neff info "$file"
  expect_error "$file.nasm" "$file" "$@" -- "$NEURONSIM" disasm "$file" -o "$file.nasm"
}
check_damaged short_header.neff "truncated"
check_damaged short_payload.neff "data_size"
check_damaged empty.neff "truncated"
check_damaged text.neff "truncated"
check_damaged bad_version.neff "pkg_version is 7"
check_damaged bad_lnc.neff "lnc_size is 5"
check_damaged bad_payload.neff "hash mismatch"
check_damaged padded.neff "data_size"
check_damaged dir.neff "is a directory"
check_damaged nothere.neff "nothere.neff"
# A NEFF-sized file of random bytes.
head -c 4096 /dev/urandom > random.neff
check_damaged random.neff "NEFF header"
echo "neff_errors: ok"
