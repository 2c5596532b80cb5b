#!/usr/bin/env bash
# neuronsim report refuses bad profiles with one error line naming the file and reason,
# exits non-zero and writes no HTML.
set -euo pipefail
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

fail() { echo "report_errors: FAIL: $*" >&2; exit 1; }

# expect_error NEEDLE ARGS...: the command fails, names NEEDLE, and report.html is absent.
expect_error() {
  local needle=$1; shift
  if "$NEURONSIM" report "$@" -o report.html 2>err.txt; then fail "accepted: $*"; fi
  grep -q "neuronsim: error: .*$needle" err.txt || fail "no '$needle' in: $(cat err.txt)"
  [[ ! -e report.html ]] || fail "wrote report.html for: $*"
}

expect_error "no_such_dir" no_such_dir

"$NEURONSIM" example softmax -o k.neff
"$NEURONSIM" run k.neff --timing-only --profile-dir single >/dev/null

mkdir seq
cp -r single seq/launch_000
echo '{"format": "neuronsim-host-trace", "version": 1}' > seq/host.json
expect_error 'seq/host.json: program: missing' seq
echo 'not json' > seq/host.json
expect_error "seq/host.json: not valid JSON" seq

# A good profile still works, and a bad one after it spoils the whole report.
expect_error "no_such_dir" single no_such_dir
"$NEURONSIM" report single -o report.html >/dev/null
grep -q 'data-lane="vector"' report.html || fail "no vector lane in the report"
echo "report_errors: OK"
