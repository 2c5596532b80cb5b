"""An architect's question (architect.json): how do the RMSNorm study's three kernels
(eager and compiled graphs, the hand-fused kernel; scripts/rmsnorm_study.sh) and a
decoder layer change with the HBM bandwidth and the number of DMA engines of a trn2
NeuronCore? Prints each kernel's device time against the preset (2900 GB/s, 16 engines)
and writes the table, plot and HTML page to OUT (default out/sweeps/architect).

    PYTHONPATH=build/python /usr/bin/python3 examples/sweeps/architect.py [OUT]
"""
import os
import sys

import neuronsim

HERE = os.path.dirname(os.path.abspath(__file__))
BW, ENGINES = "overrides.hbm.chip_bandwidth_gbps", "overrides.dma.engines"


def main(out):
    os.makedirs(out, exist_ok=True)
    r = neuronsim.sweep(os.path.join(HERE, "architect.json"), output=os.path.join(out, "architect.csv"),
                        plot=os.path.join(out, "architect.png"), html=os.path.join(out, "architect.html"))
    kernels = {}
    for row in r.table.ok_rows():
        name = row["kernel"].split("/")[-1] + (f" ({row['mode']})" if row["mode"] else "")
        kernels.setdefault(name, {})[(row[BW], row[ENGINES])] = row
    bws = sorted({bw for k in kernels.values() for bw, _ in k})
    engines = sorted({e for k in kernels.values() for _, e in k})
    print("device time relative to trn2 as it is (2900 GB/s HBM, 16 DMA engines); lower is faster")
    print(f"{'kernel':34}{'engines':>8}" + "".join(f"{bw:>10} GB/s" for bw in bws))
    for name, points in kernels.items():
        base = points[(2900, 16)]["device_ns"]
        for e in engines:
            print(f"{name if e == engines[0] else '':34}{e:>8}" +
                  "".join(f"{points[(bw, e)]['device_ns'] / base:>15.2f}" for bw in bws))
        b = points[(2900, 16)]
        print(f"{'':34}{'':>8}  at the preset: {b['device_ns'] / 1000:.1f} us, Tensor "
              f"{b['tensor_busy_pct']:.0f}% busy, DMA engines {b['dma_busy_pct']:.0f}% busy")
    print("\n".join(r.messages()))


if __name__ == "__main__":  # the local cluster's workers import this file again
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join("out", "sweeps", "architect"))
