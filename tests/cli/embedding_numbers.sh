#!/bin/bash
# The numbers docs/embedding.md quotes, regenerated: its complete example runs the README
# tour's kernel twice on one core, and each launch takes exactly what `neuronsim run`
# reports for it (the doc's promise "the same numbers as the program"). After a model
# change this fails until the doc's lines are updated to what it prints.
set -euo pipefail
: "${NEURONSIM:?set NEURONSIM to the neuronsim program}"
: "${SOURCE_DIR:?set SOURCE_DIR to the source tree}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }

"$NEURONSIM" example rmsnorm --double-buffer -t trn2 -o r.neff > /dev/null
ns=$("$NEURONSIM" run r.neff --timing-only | sed -n 's/^total: \([0-9.]*\) ns .*/\1/p')
[[ -n $ns ]] || fail "no total from neuronsim run"
ps=$(python3 -c "print(round($ns * 1000))")
doc=$SOURCE_DIR/docs/embedding.md
want0="    launch 0: $ns ns, from 0 s to $ps ps"
want1="    launch 1: $ns ns, from $ps ps to $((2 * ps)) ps"
grep -qxF "$want0" "$doc" || fail "docs/embedding.md should say: $want0"
grep -qxF "$want1" "$doc" || fail "docs/embedding.md should say: $want1"
grep -qF "$ns ns is what \`neuronsim run r.neff\` reports" "$doc" ||
  fail "docs/embedding.md should name $ns ns as what neuronsim run reports"
echo "ok: $ns ns"
