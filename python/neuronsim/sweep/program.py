"""The `neuronsim` program a sweep runs its points with.

NEURONSIM_PROGRAM, when set, names it (`neuronsim sweep` sets it to itself, so a sweep
runs exactly the program that started it); otherwise it is the program built or installed
with this package: `_program.py`, written by python/CMakeLists.txt, holds its path
relative to the package (the build tree's build/neuronsim, or an installed prefix's
bin/neuronsim), so an installed tree may move.
"""
import os

from .. import Error
from .. import _program


def program():
    path = os.environ.get("NEURONSIM_PROGRAM") or os.path.normpath(
        os.path.join(os.path.dirname(_program.__file__), _program.PROGRAM))
    if not os.access(path, os.X_OK):
        raise Error(f"the neuronsim program is not at {path} (NEURONSIM_PROGRAM, or the one "
                    "built or installed with this Python package)")
    return path
