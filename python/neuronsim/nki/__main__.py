"""python3 -m neuronsim.nki SCRIPT.py [ARGS...] | -m MODULE [ARGS...] | -c CODE [ARGS...]

Runs an NKI kernel file or test script unedited on neuronsim: installs the drop-in import
hook (neuronxcc.nki..., nki... -> neuronsim.nki, _dropin.py), then runs the script as
__main__ with sys.argv and sys.path[0] set as `python3 SCRIPT.py` would (runpy), or a
module as `python3 -m MODULE` would (`-m pytest test_kernel.py`, `-m unittest ...`).
An NkiError that reaches the top is printed as its message (it starts with the kernel's
file:line) and the exit status is 1.
"""
from __future__ import annotations

import os
import runpy
import sys
import types

USAGE = """usage: python3 -m neuronsim.nki [--target T] SCRIPT.py [ARGS...]
       python3 -m neuronsim.nki [--target T] -m MODULE [ARGS...]
       python3 -m neuronsim.nki [--target T] -c CODE [ARGS...]

Runs SCRIPT (or MODULE, or CODE) with `import neuronxcc.nki`, `neuronxcc.nki.language`,
`.isa`, `.typing`, `.compiler` and `import nki`, `nki.language`, ... resolving to
neuronsim.nki, so an NKI kernel file and its driver run on neuronsim unedited.
The target is trn2 unless the kernel (platform_target=) or NEURON_PLATFORM_TARGET_OVERRIDE
says otherwise; --target T (trn1, inf2, trn2, trn3) sets that variable for the run
(docs/python.md, "Drop-in imports")."""


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE)
        return 0 if argv else 2
    from . import NkiError, install_import_hook
    from ._jit import PLATFORMS

    if argv[0] == "--target" or argv[0].startswith("--target="):
        value, argv = (argv[0].split("=", 1)[1], argv[1:]) if "=" in argv[0] else \
            (argv[1] if len(argv) > 1 else "", argv[2:])
        if value.lower() not in PLATFORMS:
            print(f"python3 -m neuronsim.nki: --target {value!r}: expected one of "
                  f"{', '.join(sorted(PLATFORMS))}", file=sys.stderr)
            return 2
        os.environ["NEURON_PLATFORM_TARGET_OVERRIDE"] = value  # the nki.jit page's variable
        if not argv:
            print(USAGE, file=sys.stderr)
            return 2
    install_import_hook()
    try:
        if argv[0] == "-m":
            if len(argv) < 2:
                print(USAGE, file=sys.stderr)
                return 2
            sys.argv = [argv[1]] + argv[2:]
            runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
        elif argv[0] == "-c":
            if len(argv) < 2:
                print(USAGE, file=sys.stderr)
                return 2
            sys.argv = ["-c"] + argv[2:]
            sys.path[0] = ""
            main_module = types.ModuleType("__main__")
            sys.modules["__main__"] = main_module
            exec(compile(argv[1], "<string>", "exec"), main_module.__dict__)
        else:
            script = argv[0]
            if not os.path.exists(script):
                print(f"python3 -m neuronsim.nki: can't open file {script!r}", file=sys.stderr)
                return 2
            sys.argv = list(argv)
            sys.path[0] = os.path.dirname(os.path.abspath(script))  # as `python3 SCRIPT`
            runpy.run_path(script, run_name="__main__")
    except NkiError as e:
        print(f"{type(e).__name__}: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
