"""`neuronsim calibrate fit` on bad measurements: each one clear error naming the file,
the line and the reason, exit status 1, no traceback, no output written
(docs/calibration.md, "The measurements CSV")."""
import os
import subprocess
import sys
import tempfile

NEURONSIM = os.environ["NEURONSIM"]
HEADER = "kernel,shape,dtype,target,measured_ns\n"
GOOD = "dma_lone,1x16,float32,trn2,2778.1\n"

CASES = [  # (name, CSV text, what the message must say)
    ("empty", "", "m.csv: empty file"),
    ("missing column", "kernel,shape,dtype,target\n" + "dma_lone,1x16,float32,trn2\n",
     "m.csv:1: missing column measured_ns"),
    ("unknown case", HEADER + GOOD + "dma_lone,2x16,float32,trn2,100\n",
     "m.csv:3: unknown case kernel=dma_lone shape=2x16"),
    ("non-numeric", HEADER + "dma_lone,1x16,float32,trn2,fast\n",
     "m.csv:2: measured_ns 'fast' is not a number"),
    ("zero", HEADER + "dma_lone,1x16,float32,trn2,0\n", "m.csv:2: measured_ns 0 is not a positive"),
    ("negative", HEADER + "dma_lone,1x16,float32,trn2,-5\n", "m.csv:2: measured_ns -5 is not a positive"),
    ("nan", HEADER + "dma_lone,1x16,float32,trn2,nan\n", "m.csv:2: measured_ns nan is not a positive"),
    ("other target", HEADER + "dma_lone,1x16,float32,trn1,2778\n",
     "m.csv:2: a case measured on trn1, but this fit is for trn2"),
    ("header only", HEADER, "m.csv: a header and no measurements"),
    ("short row", HEADER + "dma_lone,1x16,float32\n", "m.csv:2: 3 fields, the header has 5"),
    ("duplicate", HEADER + GOOD + GOOD, "m.csv:3: case dma_lone 1x16 float32 again (first on line 2)"),
    ("not utf-8", HEADER + "dma_lone,1x16,float32,trn2,\xff\n", "m.csv: not UTF-8"),
]


def main():
    failed = 0
    with tempfile.TemporaryDirectory() as d:
        m, out, rep = (os.path.join(d, n) for n in ("m.csv", "o.json", "r.md"))
        for name, text, want in CASES:
            with open(m, "wb") as f:
                f.write(text.encode("latin-1"))
            r = subprocess.run([NEURONSIM, "calibrate", "fit", m, "-t", "trn2", "-o", out,
                                "--report", rep], capture_output=True, text=True)
            err = r.stderr.strip()
            ok = (r.returncode == 1 and want in err and len(err.splitlines()) == 1
                  and "Traceback" not in err and not os.path.exists(out)
                  and not os.path.exists(rep))
            print(("ok  " if ok else "FAIL"), name, "|", err)
            failed += not ok
        # Other bad invocations: unknown target, a report of an unknown kind, a missing file.
        with open(m, "w") as f:
            f.write(HEADER + GOOD)
        for args, want in ((["-t", "trn9"], "unknown target 'trn9'"),
                           (["-t", "trn2", "--report", os.path.join(d, "r.txt")], "the report is .md, .csv or .json"),
                           ):
            r = subprocess.run([NEURONSIM, "calibrate", "fit", m, "-o", out] + args,
                               capture_output=True, text=True)
            ok = r.returncode == 1 and want in r.stderr and not os.path.exists(out)
            print(("ok  " if ok else "FAIL"), args, "|", r.stderr.strip())
            failed += not ok
        r = subprocess.run([NEURONSIM, "calibrate", "fit", os.path.join(d, "none.csv"), "-t", "trn2",
                            "-o", out], capture_output=True, text=True)
        ok = r.returncode == 1 and "none.csv: cannot read" in r.stderr
        print(("ok  " if ok else "FAIL"), "missing file |", r.stderr.strip())
        failed += not ok
        r = subprocess.run([NEURONSIM, "calibrate", "measure", d, "-t", "trn2", "-o", out],
                           capture_output=True, text=True)
        ok = r.returncode == 1 and "cases.csv: cannot read" in r.stderr and not os.path.exists(out)
        print(("ok  " if ok else "FAIL"), "measure without a suite |", r.stderr.strip())
        failed += not ok
    total = len(CASES) + 4
    print(f"{total - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
