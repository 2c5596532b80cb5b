"""neuronsim.calibrate's self-consistency round trip (docs/calibration.md, "Tests"):
measurements made by neuronsim under a perturbed trn2 are fitted from stock trn2, and the
perturbed parameters come back within 2%, the untouched ones within 2% of the preset, and
the fitted config reproduces every measured time within 1%.

A subset of the suite's cases (the fit uses the measured cases only) and the parameters
those cases determine keep it to seconds; the whole suite with every parameter is the
example session of docs/calibration.md.
"""
import csv
import json
import os
import sys
import tempfile

import neuronsim
from neuronsim import calibrate

PERTURBED = {  # within every parameter's bounds (parameters.py)
    "dma.fixed_latency_ns": 910.0,        # 700 x 1.3
    "dma.engine_bytes_per_ns": 17.25,     # 23 x 0.75
    "cost.min_issue_interval": 80,        # 64 x 1.25
    "vector.elems_per_cycle_other": 192,  # 256 x 0.75
    "gpsimd.fixed_cycles": 210,           # 150 x 1.4
    "clocks.tensor_ghz": 1.92,            # 2.4 x 0.8
    "tensor.throttle_start_percent": 60,  # 50 x 1.2
    "tensor.throttle_ramp_ns": 2100,      # 3000 x 0.7
}
CASES = {("dma_lone", "1x16", "float32"), ("dma_burst", "1x1024", "float32"),
         ("dma_copy_large", "8x16384", "float32"),
         ("vector_tensor_scalar", "128x64", "float32"),
         ("vector_tensor_scalar", "128x8192", "float32"),
         ("gpsimd_iota", "128x64", "int32"), ("gpsimd_iota", "128x4096", "int32"),
         ("matmul", "128x16", "bfloat16"), ("matmul", "128x128", "bfloat16"),
         ("matmul", "128x512", "bfloat16"), ("matmul_long", "128x512", "bfloat16"),
         ("matmul_short", "128x16", "bfloat16")}

FITTED = sorted(PERTURBED) + ["dma.descriptor_ns", "gpsimd.elems_per_cycle"]


def main():
    with tempfile.TemporaryDirectory() as d:
        suite = os.path.join(d, "suite")
        calibrate.write_suite(suite, "trn2")
        config = {"base": "trn2"}
        for name, v in PERTURBED.items():
            s, k = name.split(".")
            config.setdefault(s, {})[k] = v
        cfg = os.path.join(d, "perturbed.json")
        with open(cfg, "w") as f:
            json.dump(config, f)
        full = os.path.join(d, "all.csv")
        calibrate.measure(suite, cfg, full)
        with open(full, newline="") as f:
            rows = [r for r in csv.DictReader(f) if (r["kernel"], r["shape"], r["dtype"]) in CASES]
        assert len(rows) == len(CASES), rows
        m = os.path.join(d, "m.csv")
        with open(m, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)
        out = os.path.join(d, "fit.json")
        r = calibrate.fit(m, "trn2", out, os.path.join(d, "report.md"), parameters=FITTED)
        params = {p["parameter"]: p for p in r["parameters"]}
        bad = []
        for name, p in params.items():
            if p["cases"] == 0:
                continue
            want = PERTURBED.get(name, p["before"])
            err = abs(p["after"] / want - 1)
            print(f"{name:32s} before {p['before']:<8g} perturbed {want:<8g} "
                  f"fitted {p['after']:<8g} error {100 * err:.2f}%")
            if err > 0.02:
                bad.append(name)
        worst_before = max(abs(c["before_ratio"] - 1) for c in r["cases"])
        worst_after = max(abs(c["after_ratio"] - 1) for c in r["cases"])
        print(f"worst case error: {100 * worst_before:.1f}% before, {100 * worst_after:.3f}% after; "
              f"{r['passes']} passes, {r['simulations']} simulations")
        assert not bad, f"not recovered within 2%: {bad}"
        assert worst_after < 0.01, worst_after
        # The override runs as a target file and reproduces the fit's times.
        k = neuronsim.load_neff(os.path.join(suite, "neffs", "matmul_128x512_bfloat16.neff"))
        t = neuronsim.run(k, target=out, timing_only=True).total_ns
        after = next(c["after_ns"] for c in r["cases"] if c["kernel"] == "matmul" and c["shape"] == "128x512")
        assert abs(t - after) < 1e-6, (t, after)
    print("1 passed, 0 failed")


if __name__ == "__main__":
    sys.exit(main())
