#!/bin/bash
# README.md's tour, as written: every indented command line between "## A tour" and the
# next "## " heading runs, in order, from an empty scratch directory, and each must
# succeed. The commands are read from README.md itself, so the two cannot drift apart.
# Only the tour's three settings change: NS (the checkout), B (the program) and P (the
# Python package) point at this source tree and this build. Then a check that the tour left what it says it made.
set -euo pipefail
: "${NEURONSIM:?set NEURONSIM to the neuronsim program}"
: "${SOURCE_DIR:?set SOURCE_DIR to the source tree}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }

awk '/^## A tour/ { on = 1; next } /^## / { on = 0 } on && /^    / { sub(/^    /, ""); print }' \
  "$SOURCE_DIR/README.md" > tour.sh
grep -q '^NS=' tour.sh || fail "the tour sets no NS= (the checkout)"
grep -q '^B=' tour.sh || fail "the tour sets no B= (the program)"
# Paths into the repository go through $NS, so the tour works from any directory.
if grep -nE '(^|[ =])(examples|config|tests|scripts|build)/' tour.sh; then
  fail "the tour names a repository path without \$NS"
fi
grep -q '^P=' tour.sh || fail "the tour sets no P= (the Python package)"
sed -i -e "s|^NS=.*|NS='$SOURCE_DIR'|" -e "s|^B=.*|B='$NEURONSIM'|" \
  -e "s|^P=.*|P='$(dirname "$NEURONSIM")/python'|" tour.sh
echo "$(grep -c . tour.sh) tour lines"

mkdir scratch
cd scratch
# -x: the log shows each command as it runs, so a failure names its line.
bash -euo pipefail -x ../tour.sh > ../tour.log 2>&1 || { cat ../tour.log >&2; fail "the tour failed"; }

for f in r.neff r.nasm out/y.npy in/x.npy in/w.npy stats.json g.json tiny.neff trn2.json \
         eager/launch.json fused/launch.json p_eager/host.json p_fused/host.json t.json report.html \
         study/trn2-128x2048/profile-eager/host.json study/trn2-128x2048/trace-eager.json; do
  [[ -s $f ]] || fail "the tour did not make $f"
done
/usr/bin/python3 - <<'PY' || fail "tour outputs"
import json
g = json.load(open("g.json"))  # --stats-json -: the JSON alone on stdout
assert g["kernel"] and g["stats"]["total_time_ns"]["value"] > 0
assert json.load(open("stats.json"))["timing_only"] is False
assert "traceEvents" in json.load(open("t.json"))
PY
/usr/bin/python3 "$SOURCE_DIR/tests/tools/perfetto_check.py" t.json || fail "strict check of t.json"
grep -q "wrote t.json" ../tour.log || fail "export did not say what it wrote"
grep -q "wrote r.neff" ../tour.log || fail "example did not say what it wrote"
echo "readme_tour: ok"
