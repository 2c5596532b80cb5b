"""How a `python -m neuronsim.<tool>` entry point ends (the tools `neuronsim sweep` and
`neuronsim calibrate` hand over to; docs/cli.md, "Exit status"): an Error is one line and
status 1, a bug in neuronsim its traceback and status 2."""
import sys
import traceback

from . import Error


def run_main(main, argv, tool, interrupted=None):
    """Runs main(argv) for `tool`; `interrupted`: the one-line message for Ctrl-C (status 1),
    or None to let KeyboardInterrupt through."""
    try:
        main(argv)
    except Error as e:
        sys.stderr.write(f"neuronsim: error: {e}\n")
        sys.exit(1)
    except KeyboardInterrupt:
        if interrupted is None:
            raise
        sys.stderr.write(f"neuronsim: error: {interrupted}\n")
        sys.exit(1)
    except Exception:  # a bug in neuronsim: the traceback, and status 2
        traceback.print_exc()
        sys.stderr.write(f"neuronsim: internal error in the {tool}; please report it\n")
        sys.exit(2)
