"""`python3 -m neuronsim.sweep SPEC.json [options]`: what `neuronsim sweep` runs
(cli/cmd_sweep.cpp passes its options through unchanged; docs/sweeps.md).

Prints the results as a text table (or, with --json, the JSON table alone on stdout),
then says what it wrote and the sweep's throughput. Exit status as every neuronsim
command (docs/cli.md): 0, 1 for a user error (one line naming it), 2 for a bug.
"""
import argparse
import sys

from .. import Error
from .._entry import run_main
from . import run


def main(argv):
    ap = argparse.ArgumentParser(prog="neuronsim sweep", description="Sweep a design space on Dask")
    ap.add_argument("spec")
    ap.add_argument("-o", "--output")
    ap.add_argument("--scheduler")
    ap.add_argument("--workers", type=int)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--cache")
    ap.add_argument("--no-cache", action="store_true")
    ap.add_argument("--plot")
    ap.add_argument("--html")
    ap.add_argument("--times")
    ap.add_argument("--progress", action="store_true")
    ap.add_argument("-q", "--quiet", action="store_true")
    a = ap.parse_args(argv)
    if a.no_cache and a.cache is not None:
        raise Error("sweep: --cache and --no-cache do not go together")
    if a.scheduler is not None and a.workers is not None:
        raise Error("sweep: --workers sizes the local cluster; an existing one (--scheduler) "
                    "has its own workers")
    cache = False if a.no_cache else a.cache
    out_is_stdout = a.json or a.output == "-"
    messages = sys.stderr if out_is_stdout else sys.stdout
    result = run(a.spec, output=a.output, scheduler=a.scheduler, workers=a.workers, cache=cache,
                 plot=a.plot, html=a.html, times=a.times, progress=True if a.progress else (False if a.quiet else None))
    if a.json:
        sys.stdout.write(result.table.to_json())
    elif a.output == "-":
        sys.stdout.write(result.table.to_csv())
    elif not a.quiet:
        sys.stdout.write(result.table.to_text())
    if not a.quiet:
        messages.write("".join(line + "\n" for line in result.messages()))


if __name__ == "__main__":
    run_main(main, sys.argv[1:], "sweep")
