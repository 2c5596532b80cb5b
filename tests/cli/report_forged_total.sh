#!/usr/bin/env bash
# neuronsim report on a forged trace whose total time is 2^64 - 1 ps (the largest the NTFF
# trailer holds): the report must still be written, promptly. The time axis' tick loop
# used to step past 2^64 - 1, wrap to a small time and never end.
set -euo pipefail
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

fail() { echo "report_forged_total: FAIL: $*" >&2; exit 1; }

"$NEURONSIM" example softmax -o k.neff >/dev/null
"$NEURONSIM" run k.neff --timing-only --profile-dir p >/dev/null
/usr/bin/python3 "$SOURCE_DIR/tests/tools/ntff_forge.py" p/*.ntff 18446744073709551615
"$NEURONSIM" view p | grep -q "total_time" || fail "the forged trace does not read back"
# 60 s: a few hundred ms is normal; the bug never ended.
timeout 60 "$NEURONSIM" report p -o forged.html >/dev/null ||
  fail "report on a total of 2^64 - 1 ps failed or did not end (exit $?)"
grep -q 'viewer-data-0' forged.html || fail "no viewer in the report"
grep -q '"total":18446744073709551615' forged.html || fail "the viewer's total is not the trace's"
echo "report_forged_total: OK"
