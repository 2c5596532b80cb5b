"""What the Python module's tests share: the neuronsim program ($NEURONSIM), the source
tree ($SOURCE_DIR), a scratch directory, small kernels, and running the CLI."""
import atexit
import inspect
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

NEURONSIM = os.environ["NEURONSIM"]
SOURCE_DIR = os.environ.get("SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
ASM = os.path.join(SOURCE_DIR, "examples", "asm")
SCRATCH = tempfile.mkdtemp(prefix="neuronsim-python-test-%d-" % os.getpid())
if not os.environ.get("KEEP_SCRATCH"):  # KEEP_SCRATCH=1 keeps it, to look at
    atexit.register(shutil.rmtree, SCRATCH, True)

# An fp8 tensor through SBUF and back by DMA: out is exactly a's bytes.
FP8_COPY = """
kernel fp8_copy target=trn2
tensor a   {dtype}[128, 64] input
tensor out {dtype}[128, 64] output
sbuf xa {dtype}[128, 64]
sem loaded = 0
sem stored = 0
queue q first_engine=0 engines=1
sync:
    dma_copy xa, a, queue=q  signal loaded
    dma_copy out, xa, queue=q  wait loaded>=1  signal stored
    nop  wait stored>=1
"""

# Vector waits for a semaphore nobody signals: a deadlock.
DEADLOCK = """
kernel stuck target=trn2
tensor a   fp32[128, 4] input
tensor out fp32[128, 4] output
sbuf xa fp32[128, 4]
sem never = 0
sem loaded = 0
queue q first_engine=0 engines=1
sync:
    dma_copy xa, a, queue=q  signal loaded
vector:
    tensor_copy xa, xa  wait never>=1
"""


def cli(*args, check=True):
    """Runs `neuronsim ARGS` and returns the completed process (text)."""
    p = subprocess.run([NEURONSIM, *args], capture_output=True, text=True)
    if check and p.returncode != 0:
        sys.exit("neuronsim %s failed (%d):\n%s%s" % (" ".join(args), p.returncode, p.stdout,
                                                      p.stderr))
    return p


def asm_neff(name):
    """examples/asm/NAME.nasm assembled by the CLI into the scratch directory."""
    out = os.path.join(SCRATCH, name + ".neff")
    if not os.path.exists(out):
        cli("asm", os.path.join(ASM, name + ".nasm"), "-o", out)
    return out


def cli_run(neff, inputs, target, extra=()):
    """`neuronsim run` with .npy inputs: (outputs {name: ndarray}, stats {name: value})."""
    tag = "%s-%s-%d" % (os.path.basename(neff), target, len(os.listdir(SCRATCH)))
    work = os.path.join(SCRATCH, tag)
    os.makedirs(work)
    args = ["run", neff, "-t", target, "-q", "--out-dir", os.path.join(work, "out"),
            "--stats-json", os.path.join(work, "stats.json"), *extra]
    for name, a in inputs.items():
        path = os.path.join(work, name + ".npy")
        np.save(path, a)
        args += ["--input", "%s=%s" % (name, path)]
    cli(*args)
    with open(os.path.join(work, "stats.json")) as f:
        stats = {k: v["value"] for k, v in json.load(f)["stats"].items()}
    outputs = {}
    out_dir = os.path.join(work, "out")
    if os.path.isdir(out_dir):
        for f in os.listdir(out_dir):
            outputs[f[:-4]] = np.load(os.path.join(out_dir, f))
    return outputs, stats


class Checks:
    """Counts failed checks and prints each; finish() exits non-zero if any failed."""

    def __init__(self):
        self.failed = 0
        self.count = 0

    def check(self, ok, what):
        self.count += 1
        if not ok:
            self.failed += 1
            print("FAIL:", what)
        return ok

    def raises(self, fn, words, what):
        """fn() must raise neuronsim.Error whose message contains every one of `words`."""
        import neuronsim
        try:
            fn()
        except neuronsim.Error as e:
            missing = [w for w in words if w not in str(e)]
            return self.check(not missing, "%s: message %r lacks %r" % (what, str(e), missing))
        return self.check(False, "%s: no neuronsim.Error raised" % what)

    def finish(self):
        print("%d checks, %d failed" % (self.count, self.failed))
        sys.exit(1 if self.failed else 0)

# Writes only out[0:64, :] (from a): the rest of out is whatever the launch placed there.
HALF_WRITE = """
kernel half_write target=trn2
tensor a   fp32[64, 512] input
tensor out fp32[128, 512] output
sbuf xa fp32[64, 512]
sem loaded = 0
sem stored = 0
queue q first_engine=0 engines=1
sync:
    dma_copy xa, a, queue=q  signal loaded
    dma_copy out[0:64, :], xa, queue=q  wait loaded>=1  signal stored
    nop  wait stored>=1
"""


def line_of(fn, text):
    """The file line of the first line of fn's source containing text (a kernel's line that
    an NkiError must name)."""
    lines, start = inspect.getsourcelines(fn)
    for i, line in enumerate(lines):
        if text in line:
            return start + i
    raise AssertionError(text)


def broken_call_error(test, directory, src, call, scope, trace, words):
    """The NkiError of a kernel whose line `call` is broken: writes src (a kernel defining
    `broken`) to a file of its own in directory, so its lines are real source lines, runs it
    in scope, and checks that trace(scope["broken"]) fails with one NkiError that starts
    with that file:line and contains every one of words. Returns the message."""
    from neuronsim import nki
    path = os.path.join(directory, f"broken_{abs(hash((src, call)))}.py")
    with open(path, "w") as f:
        f.write(src)
    exec(compile(src, path, "exec"), scope)
    with test.assertRaises(nki.NkiError) as cm:
        trace(scope["broken"])
    msg = str(cm.exception)
    line = next(n for n, text in enumerate(src.splitlines(), 1) if text.strip() == call)
    test.assertTrue(msg.startswith(f"{path}:{line}: "), msg)
    for w in words:
        test.assertIn(w, msg)
    return msg
