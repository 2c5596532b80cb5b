"""The NKI matmul tile-size autotune (autotune.json over nki_matmul.py): every schedule
timed on the simulated trn2 NeuronCore, the fastest printed with its Tensor-engine
utilisation, the table, plot and HTML page written to OUT (default out/sweeps/autotune).

    PYTHONPATH=build/python /usr/bin/python3 examples/sweeps/autotune.py [OUT]
"""
import os
import sys

import neuronsim

HERE = os.path.dirname(os.path.abspath(__file__))


def main(out):
    os.makedirs(out, exist_ok=True)
    r = neuronsim.sweep(os.path.join(HERE, "autotune.json"), output=os.path.join(out, "autotune.csv"),
                        plot=os.path.join(out, "autotune.png"), html=os.path.join(out, "autotune.html"))
    ok = sorted(r.table.ok_rows(), key=lambda row: row["time_ns"])
    params = ("TILE_M", "TILE_K", "TILE_N", "REUSE_LHS", "REUSE_RHS")
    print(f"{len(ok)} of {len(r.rows)} schedules ran; the fastest five:")
    for row in ok[:5]:
        print("  " + ", ".join(f"{p}={row[p]}" for p in params) +
              f": {row['time_ns'] / 1000:.1f} us, Tensor engine {row['tensor_busy_pct']:.1f}% busy, "
              f"DMA engines {row['dma_busy_pct']:.1f}%, {row['dma_bytes'] / 2**20:.0f} MiB moved")
    best, worst = ok[0], ok[-1]
    print(f"best schedule: {', '.join(f'{p}={best[p]}' for p in params)}: "
          f"{best['time_ns'] / 1000:.1f} us, Tensor-engine utilisation {best['tensor_busy_pct']:.1f}% "
          f"({worst['time_ns'] / best['time_ns']:.1f}x faster than the slowest)")
    print("\n".join(r.messages()))


if __name__ == "__main__":  # the local cluster's workers import this file again
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join("out", "sweeps", "autotune"))
