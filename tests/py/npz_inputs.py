"""Inputs from .npz archives (docs/npy.md, "Archives"): np.savez and np.savez_compressed
archives give the same outputs as the same arrays in .npy files; --save-inputs X.npz
writes an archive numpy reads back, byte-identical across runs; every bad archive is one
clean error (exit 1) naming the archive and the member.
"""
import os
import subprocess
import sys
import tempfile

import numpy as np

NEURONSIM = os.environ["NEURONSIM"]


def ns(*args, cwd, expect=0):
    p = subprocess.run([NEURONSIM, *args], cwd=cwd, capture_output=True, text=True)
    if p.returncode != expect:
        sys.exit(f"neuronsim {' '.join(args)}: exit {p.returncode}, expected {expect}\n"
                 f"{p.stdout}{p.stderr}")
    return p.stdout + p.stderr


def main():
    with tempfile.TemporaryDirectory() as work:
        ns("example", "rmsnorm", "-t", "trn2", "-o", "r.neff", cwd=work)
        rng = np.random.default_rng(5)
        x = rng.standard_normal((1024, 2048)).astype(np.float32)
        w = np.linspace(0.5, 2, 2048, dtype=np.float32)
        np.save(os.path.join(work, "x.npy"), x)
        np.save(os.path.join(work, "w.npy"), w)
        ns("run", "r.neff", "--input", "x=x.npy", "--input", "w=w.npy", "--out-dir", "npy",
           cwd=work)
        reference = np.load(os.path.join(work, "npy", "y.npy"))

        np.savez(os.path.join(work, "stored.npz"), x=x, w=w)
        np.savez_compressed(os.path.join(work, "deflated.npz"), x=x, w=w)
        np.savez(os.path.join(work, "x_only.npz"), x=x)
        for name, extra in (("stored", []), ("deflated", []), ("x_only", ["--input", "w=w.npy"])):
            ns("run", "r.neff", "--input", f"{name}.npz", *extra, "--out-dir", name, cwd=work)
            got = np.load(os.path.join(work, name, "y.npy"))
            assert np.array_equal(got, reference), f"{name}.npz: outputs differ from the .npy run"

        # --save-inputs X.npz: numpy reads it, it round-trips, and it is deterministic.
        for out in ("a.npz", "b.npz"):
            text = ns("run", "r.neff", "--input", "x=normal:0,1", "--input", "w=ones",
                      "--save-inputs", out, "--out-dir", "gen", cwd=work)
            assert f"wrote {out} (2 arrays" in text, text
        a = open(os.path.join(work, "a.npz"), "rb").read()
        assert a == open(os.path.join(work, "b.npz"), "rb").read(), "archives differ across runs"
        saved = np.load(os.path.join(work, "a.npz"))
        assert sorted(saved.files) == ["w", "x"], saved.files
        assert saved["x"].shape == (1024, 2048) and saved["x"].dtype == np.float32
        ns("run", "r.neff", "--input", "a.npz", "--out-dir", "again", cwd=work)
        assert np.array_equal(np.load(os.path.join(work, "again", "y.npy")),
                              np.load(os.path.join(work, "gen", "y.npy")))

        # Bad archives: one line, exit 1, naming the archive and what is wrong.
        np.savez(os.path.join(work, "extra.npz"), x=x, w=w, q=w)
        np.savez(os.path.join(work, "ints.npz"), x=x.astype(np.int32), w=w)
        np.savez(os.path.join(work, "shape.npz"), x=x[:, :100], w=w)
        with open(os.path.join(work, "stored.npz"), "rb") as f:
            whole = f.read()
        with open(os.path.join(work, "cut.npz"), "wb") as f:
            f.write(whole[: len(whole) // 2])
        with open(os.path.join(work, "text.npz"), "w") as f:
            f.write("not a zip\n")
        bad = {
            "extra.npz": "member 'q.npy' names no input tensor",
            "ints.npz": "member 'x.npy': tensor x is bf16 but the file holds integers",
            "shape.npz": "member 'x.npy'",
            "cut.npz": "cut.npz",
            "text.npz": "cannot open as an .npz (zip) archive",
            "missing.npz": "missing.npz: no such file",
        }
        for archive, expected in bad.items():
            err = ns("run", "r.neff", "--input", archive, cwd=work, expect=1)
            lines = [l for l in err.splitlines() if l.strip()]
            assert len(lines) == 1 and expected in lines[0], f"{archive}: {err!r}"
        err = ns("run", "r.neff", "--input", "stored.npz", "--input", "x=ones", cwd=work, expect=1)
        assert "tensor 'x' is given twice" in err, err
        ns("run", "r.neff", "--input", "ints.npz,cast", cwd=work)
    print("npz inputs: ok")


if __name__ == "__main__":
    main()
