#!/bin/bash
# The program's conventions (docs/cli.md): --version; a mistyped command named with a
# suggestion; exit status 0 ok, 1 user error (usage or input), never CLI11's 106/109;
# -t/--target on every command that takes a target; --override on run and config
# (--config an alias on run); "-" as an output file is stdout, with the messages on
# stderr; every command says what it wrote; the generated completion and man page.
set -euo pipefail
: "${NEURONSIM:?set NEURONSIM to the neuronsim program}"
: "${SOURCE_DIR:?set SOURCE_DIR to the source tree}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
status() { set +e; "$@" > out.txt 2> err.txt; echo $? > rc.txt; set -e; cat rc.txt; }

[[ $(status "$NEURONSIM" --version) == 0 ]] || fail "--version failed"
grep -qE '^neuronsim [0-9]+\.[0-9]+\.[0-9]+ \(.+\)$' out.txt || fail "--version: $(cat out.txt)"
# The launcher answers a bare --version itself (cli/launcher/launcher.cpp), with the same
# text as the command line it loads (given another option, --version goes there), and
# loads none of the simulator's libraries to do it (a sanitizer build's launcher also
# needs the C++ runtime, as the sanitizer runtime does).
version=$(cat out.txt)
[[ $(status "$NEURONSIM" --limit instructions=1000 --version) == 0 ]] ||
  fail "--version after an option failed"
[[ $(cat out.txt) == "$version" ]] || fail "--version: launcher '$version', command line '$(cat out.txt)'"
if command -v readelf > /dev/null; then
  needed=$(readelf -d "$NEURONSIM" | grep NEEDED || true)
  ! grep -qE 'systemc|archive|crypto' <<< "$needed" ||
    fail "the launcher links more than it needs: $needed"
fi
[[ $(status "$NEURONSIM" --help) == 0 ]] || fail "--help failed"
grep -q "Exit status: 0 ok, 1 user error" out.txt || fail "--help does not document exit codes"

# Usage errors: status 1 and one clear message.
[[ $(status "$NEURONSIM" rnu x.neff) == 1 ]] || fail "unknown command: status $(cat rc.txt)"
grep -q "unknown command 'rnu'; did you mean 'run'?" err.txt || fail "unknown command: $(cat err.txt)"
grep -q "commands: asm, disasm" err.txt || fail "unknown command does not list the commands"
[[ $(status "$NEURONSIM" frobnicate) == 1 ]] || fail "unknown command: status $(cat rc.txt)"
grep -q "unknown command 'frobnicate'" err.txt && ! grep -q "did you mean" err.txt ||
  fail "a far-off word got a suggestion: $(cat err.txt)"
[[ $(status "$NEURONSIM") == 1 ]] || fail "no command: status $(cat rc.txt)"
[[ $(status "$NEURONSIM" run) == 1 ]] || fail "missing argument: status $(cat rc.txt)"
[[ $(status "$NEURONSIM" run x.neff --no-such-option) == 1 ]] || fail "unknown option: status $(cat rc.txt)"
[[ $(status "$NEURONSIM" run missing.neff) == 1 ]] || fail "bad input: status $(cat rc.txt)"
grep -q "^neuronsim: error: .*missing.neff" err.txt || fail "bad input: $(cat err.txt)"

# Every command says what it wrote.
"$NEURONSIM" example softmax -t trn2 -o s.neff --asm s.nasm > ex.txt
grep -q "^wrote s.neff ([0-9]* bytes)" ex.txt && grep -q "^wrote s.nasm" ex.txt ||
  fail "example: $(cat ex.txt)"

# --limit takes one NAME=N per use, before or after the command and its arguments: it
# used to swallow the words after it, so `asm --limit X=N k.nasm` lost its input.
for order in before after; do
  if [[ $order == before ]]; then
    args=(asm --limit text_file_bytes=100 --limit neff_file_bytes=1000000 s.nasm -o l.neff)
  else
    args=(asm s.nasm -o l.neff --limit neff_file_bytes=1000000 --limit text_file_bytes=100)
  fi
  [[ $(status "$NEURONSIM" "${args[@]}") == 1 ]] || fail "--limit $order: status $(cat rc.txt)"
  grep -q "is more than the limit text_file_bytes = 100" err.txt ||
    fail "--limit $order: $(cat err.txt)"
done
[[ $(status "$NEURONSIM" asm --limit text_file_bytes=100000000 s.nasm -o l.neff) == 0 ]] ||
  fail "--limit before the input: $(cat err.txt)"
"$NEURONSIM" asm s.nasm -o s2.neff | grep -q "^wrote s2.neff" || fail "asm says nothing"
"$NEURONSIM" disasm s.neff -o s2.nasm | grep -q "^wrote s2.nasm" || fail "disasm says nothing"
"$NEURONSIM" config -t trn2 --dump -o c.json | grep -q "^wrote c.json" || fail "config says nothing"

# -t on run; --override on run and config; --config still works on run.
echo '{"dma": {"queue_depth": 4}}' > o.json
"$NEURONSIM" run s.neff -t trn1 --timing-only | grep -q "on trn1" || fail "run -t"
"$NEURONSIM" run s.neff --timing-only --override o.json > a.txt || fail "run --override"
"$NEURONSIM" run s.neff --timing-only --config o.json > b.txt || fail "run --config (alias)"
cmp -s a.txt b.txt || fail "--override and --config differ"
"$NEURONSIM" config -t trn2 --override o.json > /dev/null || fail "config --override"

# "-" is stdout: the data alone there, the messages on stderr.
"$NEURONSIM" run s.neff --timing-only --stats-json - > stats.json 2> text.txt
[[ ! -e ./- ]] || fail "--stats-json - wrote a file named -"
/usr/bin/python3 -c 'import json; assert json.load(open("stats.json"))["stats"]' ||
  fail "--stats-json - is not JSON alone"
grep -q "neuroncore cycles" text.txt || fail "the run summary is not on stderr"
"$NEURONSIM" example softmax -t trn2 -o - > piped.neff 2> ex.err
cmp -s piped.neff s.neff || fail "example -o - differs from the file"
"$NEURONSIM" run s.neff --input x=normal:0,1 --profile-dir P > /dev/null
"$NEURONSIM" export P --perfetto - > trace.json
/usr/bin/python3 -c 'import json; assert json.load(open("trace.json"))["traceEvents"]' ||
  fail "export --perfetto - is not JSON alone"
"$NEURONSIM" export P --perfetto t.json | grep -q "^wrote t.json" || fail "export says nothing"
"$NEURONSIM" report P -o - > r.html && grep -q "<html" r.html || fail "report -o -"
"$NEURONSIM" view P --instructions - | /usr/bin/python3 -c 'import json, sys; json.load(sys.stdin)' ||
  fail "view --instructions - is not JSON alone"
[[ ! -e ./- ]] || fail "a file named - was written"

# Progress: a line on a terminal's stderr (here after 0 s instead of 2 s), cleared before
# the summary; none with --quiet, none when stderr is not a terminal.
"$NEURONSIM" run s.neff --timing-only 2> plain.err > /dev/null
[[ ! -s plain.err ]] || fail "progress output without a terminal: $(cat plain.err)"
if command -v script > /dev/null; then
  "$NEURONSIM" example matmul -t trn2 --rows 1024 --cols 1024 --inner 1024 -o mm.neff > /dev/null
  NEURONSIM_PROGRESS_AFTER_S=0 script -qec "'$NEURONSIM' run mm.neff --timing-only" /dev/null > tty.txt
  grep -aq "neuronsim: launch 1/1, simulated .* us, [0-9]* instructions" tty.txt ||
    fail "no progress line on a terminal"
  grep -aq "neuroncore cycles" tty.txt || fail "no summary after the progress line"
  NEURONSIM_PROGRESS_AFTER_S=0 script -qec "'$NEURONSIM' run mm.neff --timing-only -q" /dev/null > quiet.txt
  ! grep -aq "neuronsim: launch" quiet.txt || fail "--quiet still shows progress"
fi

# The completion and man page come from the program itself.
"$NEURONSIM" --bash-completion nc.bash
bash -n nc.bash || fail "completion does not parse"
grep -q "run) words=.*--save-inputs" nc.bash || fail "completion lacks run's options"
(source nc.bash
 COMP_WORDS=(neuronsim ru); COMP_CWORD=1; _neuronsim; [[ ${COMPREPLY[*]} == run ]] ||
   fail "completing 'ru': ${COMPREPLY[*]}"
 COMP_WORDS=(neuronsim run --stats); COMP_CWORD=2; _neuronsim
 [[ ${COMPREPLY[*]} == --stats-json ]] || fail "completing 'run --stats': ${COMPREPLY[*]}")
"$NEURONSIM" --man-page ns.1
grep -q '^.SS "neuronsim run"' ns.1 && grep -q '^.SH EXIT STATUS' ns.1 || fail "man page"
echo "cli_conventions: ok"
