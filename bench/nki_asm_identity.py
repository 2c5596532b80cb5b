"""Identity check of the NKI front end: does a change leave every generated kernel as it
was? `dump` runs every tests/python/nki_*.py test, the examples' latency table
(examples/python/bench_tutorials.py: every example kernel on trn1 and trn2) and the
tracing benchmark's smoke sizes with bench/nki_asm_hook on PYTHONPATH, which writes the
assembly text and line map of each traced kernel (or the error of a trace that failed)
to one file per trace; `compare` says which files differ between two dumps.

    /usr/bin/python3 bench/nki_asm_identity.py dump OUT --build build
    /usr/bin/python3 bench/nki_asm_identity.py compare BEFORE AFTER

Paths of this source tree and of the build tree are written as <SRC> and <BUILD>, so a
dump made from another checkout compares; `compare` also ignores temporary directories
and object addresses in the text."""
import argparse
import glob
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.path.dirname(HERE)


def dump(out, build):
    os.makedirs(out, exist_ok=True)
    build = os.path.abspath(build)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([os.path.join(HERE, "nki_asm_hook"),
                                         os.path.join(build, "python")])
    env["NKI_ASM_DUMP"] = os.path.abspath(out)
    env["SOURCE_DIR"] = SOURCE_DIR
    neuronsim = os.path.join(build, "neuronsim")
    if os.path.exists(neuronsim):
        env["NEURONSIM"] = neuronsim
    scripts = sorted(glob.glob(os.path.join(SOURCE_DIR, "tests", "python", "nki_*.py")))
    runs = [([s], os.path.join(SOURCE_DIR, "tests", "python")) for s in scripts]
    runs.append(([os.path.join(SOURCE_DIR, "examples", "python", "bench_tutorials.py")], SOURCE_DIR))
    runs.append(([os.path.join(HERE, "nki_trace.py"), "--smoke"], SOURCE_DIR))
    failed = []
    for argv, cwd in runs:
        p = subprocess.run([sys.executable] + argv, cwd=cwd, env=env, capture_output=True,
                           text=True)
        print(f"{'ok  ' if p.returncode == 0 else 'FAIL'} {os.path.basename(argv[0])}", flush=True)
        if p.returncode:
            failed.append(argv[0])
            sys.stderr.write(p.stdout[-3000:] + p.stderr[-3000:])
    for path in glob.glob(os.path.join(out, "*.txt")):
        with open(path) as f:
            text = f.read()
        text = text.replace(build, "<BUILD>").replace(SOURCE_DIR, "<SRC>")
        with open(path, "w") as f:
            f.write(text)
    print(f"{len(glob.glob(os.path.join(out, '*.txt')))} traces in {out}")
    return 1 if failed else 0


def _normalised(path):
    """A dump's text without what differs between runs of the same kernel: temporary
    directories, the randomly named kernel files the drop-in tests write in them, and
    object addresses."""
    with open(path) as f:
        text = f.read()
    text = re.sub(r"/tmp/nki_[A-Za-z0-9_./-]+", "<TMP>", text)
    return re.sub(r" at 0x[0-9a-f]+", " at <ADDR>", text)


def compare(a, b):
    fa = {os.path.basename(p) for p in glob.glob(os.path.join(a, "*.txt"))}
    fb = {os.path.basename(p) for p in glob.glob(os.path.join(b, "*.txt"))}
    bad = 0
    for name in sorted(fa ^ fb):
        print(f"only in {'first' if name in fa else 'second'}: {name}")
        bad += 1
    for name in sorted(fa & fb):
        if _normalised(os.path.join(a, name)) != _normalised(os.path.join(b, name)):
            print(f"differs: {name}")
            bad += 1
    print(f"{len(fa & fb)} traces compared, {bad} differences")
    return 1 if bad else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("dump")
    d.add_argument("out")
    d.add_argument("--build", default=os.path.join(SOURCE_DIR, "build"))
    c = sub.add_parser("compare")
    c.add_argument("a")
    c.add_argument("b")
    args = parser.parse_args()
    sys.exit(dump(args.out, args.build) if args.cmd == "dump" else compare(args.a, args.b))


if __name__ == "__main__":
    main()
