"""The drop-in import hook: `import neuronxcc.nki as nki`, `import neuronxcc.nki.language
as nl`, `import nki.isa as nisa`, ... resolve to neuronsim.nki's own modules (the same
module objects: `nl.float32 is neuronsim.nki.language.float32`), so a kernel file and its
test script written for AWS's NKI run with no edit.

Opt-in only: nothing changes until `python3 -m neuronsim.nki script.py` (the runner,
__main__.py) or `neuronsim.nki.install_import_hook()` installs the finder. It goes first
on sys.meta_path, so when asked for it wins over a real neuronxcc / nki installation; it
refuses to install when the real package was already imported in this process (its
modules and neuronsim's would then be mixed).
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import types

from ._core import NkiError

_SUBMODULES = ("language", "isa", "isa.constants", "typing", "compiler")

# Alias name -> neuronsim module. `neuronxcc` itself is an empty namespace shell.
ALIASES = {"neuronxcc.nki": "neuronsim.nki", "nki": "neuronsim.nki"}
for _sub in _SUBMODULES:
    ALIASES[f"neuronxcc.nki.{_sub}"] = f"neuronsim.nki.{_sub}"
    ALIASES[f"nki.{_sub}"] = f"neuronsim.nki.{_sub}"

# Documented NKI packages with no neuronsim counterpart: importing one is an NkiError.
UNSUPPORTED = {
    "kernels": "the nki.kernels library (nki.kernels / neuronxcc.nki.kernels) is not "
               "bundled; copy the kernel's source into your file",
    "nccl": "collectives need several devices; neuronsim runs one kernel at a time",
    "collectives": "collectives need several devices; neuronsim runs one kernel at a time",
}


class UnsupportedImport(NkiError, ImportError):
    """An import of a documented NKI package neuronsim.nki does not provide."""


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, target):
        self.target = target

    def create_module(self, spec):
        if self.target is None:
            shell = types.ModuleType(spec.name, "neuronsim's stand-in for the neuronxcc package "
                                                "(neuronsim.nki's import hook)")
            shell.__path__ = []
            return shell
        return importlib.import_module(self.target)

    def exec_module(self, module):
        # importlib gave the module the alias's __spec__; the module keeps its own.
        if self.target is not None:
            own = getattr(module, "__neuronsim_spec__", None)
            if own is not None:
                module.__spec__ = own


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        if fullname == "neuronxcc":
            return importlib.util.spec_from_loader(fullname, _AliasLoader(None), is_package=True)
        if fullname in ALIASES:
            mod = importlib.import_module(ALIASES[fullname])
            if not hasattr(mod, "__neuronsim_spec__"):
                mod.__neuronsim_spec__ = mod.__spec__
            return importlib.util.spec_from_loader(fullname, _AliasLoader(ALIASES[fullname]),
                                                   is_package=hasattr(mod, "__path__"))
        head, _, rest = fullname.partition(".")
        if head == "neuronxcc" and rest.startswith("nki."):
            rest = rest[4:]
        elif head == "nki":
            pass
        else:
            return None
        first = rest.split(".")[0]
        if first in UNSUPPORTED:
            raise UnsupportedImport(f"{_caller()}: import {fullname}: {UNSUPPORTED[first]}")
        return None


def _caller():
    frame = sys._getframe(1)
    while frame is not None:
        f = frame.f_code.co_filename
        if not f.startswith("<frozen") and "neuronsim/nki/" not in f.replace("\\", "/"):
            return f"{f}:{frame.f_lineno}"
        frame = frame.f_back
    return "<unknown>:0"


_finder = _Finder()


def _foreign(name):
    mod = sys.modules.get(name)
    if mod is None:
        return False
    if name == "neuronxcc":
        return not isinstance(getattr(mod, "__loader__", None), _AliasLoader)
    return not getattr(mod, "__name__", "").startswith("neuronsim.nki")


def install_import_hook():
    """Makes `neuronxcc.nki[.language|.isa|.isa.constants|.typing|.compiler]`, `nki[...]` and
    `from neuronxcc import nki` import neuronsim.nki's modules. Idempotent."""
    if _finder in sys.meta_path:
        return
    clash = [n for n in ["neuronxcc", "nki"] + list(ALIASES) if _foreign(n)]
    if clash:
        raise NkiError(f"install_import_hook: {clash[0]} was already imported from "
                       f"{getattr(sys.modules[clash[0]], '__file__', '?')}; install the hook "
                       f"before importing it (or run the script with python3 -m neuronsim.nki)")
    sys.meta_path.insert(0, _finder)


def uninstall_import_hook():
    """Removes the hook and the aliases it made (the neuronsim modules stay imported)."""
    if _finder in sys.meta_path:
        sys.meta_path.remove(_finder)
    for name in ["neuronxcc"] + list(ALIASES):
        mod = sys.modules.get(name)
        if mod is not None and not _foreign(name):
            del sys.modules[name]
