"""Records every kernel neuronsim.nki traces (bench/nki_asm_identity.py puts this
directory first on PYTHONPATH): the assembly text and line map of each trace, or the
error message of a trace that failed, one file each in $NKI_ASM_DUMP. Loaded by Python's
`site` at start-up; it patches JitKernel._trace the first time neuronsim.nki._jit is
imported, so the process under test runs unchanged otherwise."""
import os
import sys

_DIR = os.environ.get("NKI_ASM_DUMP")


def _install(jit):
    original = jit.JitKernel._trace
    seen = {}

    def record(kernel, target, body):
        tag = os.path.basename(sys.argv[0] if sys.argv and sys.argv[0] else "python")
        base = f"{tag}-{kernel.name}-{target}"
        n = seen.get(base, 0)
        seen[base] = n + 1
        with open(os.path.join(_DIR, f"{base}-{n:04d}.txt"), "a") as f:
            f.write(body)

    def _trace(self, call, target, in_place=()):
        try:
            traced = original(self, call, target, in_place)
        except Exception as e:
            record(self, target, f"ERROR {type(e).__name__}: {e}\n")
            raise
        lm = sorted(traced.line_map.items()) if hasattr(traced, "line_map") else None
        record(self, target, traced.asm() + "\n# line map\n" + repr(lm) + "\n")
        return traced

    jit.JitKernel._trace = _trace


if _DIR:
    import importlib.abc
    import importlib.machinery

    class _Finder(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path, target=None):
            if name != "neuronsim.nki._jit":
                return None
            sys.meta_path.remove(self)
            spec = importlib.machinery.PathFinder.find_spec(name, path)
            loader = spec.loader
            exec_module = loader.exec_module

            def exec_and_patch(module):
                exec_module(module)
                _install(module)

            loader.exec_module = exec_and_patch
            return spec

    sys.meta_path.insert(0, _Finder())
