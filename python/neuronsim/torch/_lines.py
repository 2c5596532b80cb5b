"""The user's Python line of an aten op: the innermost frame outside torch and neuronsim."""
import os
import sys

import torch

_SKIP = tuple(os.path.dirname(os.path.abspath(m.__file__)) + os.sep
              for m in (torch, sys.modules["neuronsim"]))
_SKIP += (os.path.dirname(os.path.abspath(os.__file__)) + os.sep + "contextlib.py",)


def user_line():
    """"file.py:LINE" of the user's call (the first frame not in torch or neuronsim)."""
    f = sys._getframe(1)
    while f is not None:
        name = os.path.abspath(f.f_code.co_filename)
        if not name.startswith(_SKIP):
            return "%s:%d" % (os.path.basename(name), f.f_lineno)
        f = f.f_back
    return "<unknown>:0"
