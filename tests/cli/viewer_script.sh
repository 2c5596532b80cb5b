#!/usr/bin/env bash
# The report viewer's script is real JavaScript (report/viewer.js, compiled in by
# cmake/embed_files.cmake): it parses (`node --check`), and a report carries it, the
# viewer's styles and the report's static styles byte for byte. Skipped (exit 77) without
# node.
set -euo pipefail
fail() { echo "viewer_script: FAIL: $*" >&2; exit 1; }

js="$SOURCE_DIR/report/viewer.js"
node=$(command -v node || true)
if [[ -z "$node" ]]; then
  echo "viewer_script: SKIP: node is not installed, so $js cannot be checked"
  exit 77
fi
"$node" --check "$js" || fail "$js does not parse"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
"$NEURONSIM" example softmax -o k.neff
"$NEURONSIM" run k.neff --timing-only --profile-dir p >/dev/null
"$NEURONSIM" report p -o report.html >/dev/null

# The page's last <script> is the viewer, each embedded file on a line after its tag.
/usr/bin/python3 - "$SOURCE_DIR/report" report.html <<'PY' || fail "the report does not carry the files as they are"
import sys
src, page = sys.argv[1], open(sys.argv[2], encoding="utf-8").read()
def read(name):
    return open(f"{src}/{name}", encoding="utf-8").read()
script = page[page.rindex("<script>") + len("<script>"):page.rindex("</script>")]
style = page[page.index("<style>") + len("<style>"):page.index("</style>")]
ok = script == "\n" + read("viewer.js")
ok &= style.startswith("\n" + read("report.css"))
ok &= style.endswith("\n" + read("viewer.css"))
sys.exit(0 if ok else 1)
PY
echo "viewer_script: OK"
