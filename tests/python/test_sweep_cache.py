"""neuronsim.sweep on the embedded local Dask cluster (docs/sweeps.md): the rows are the
points' `neuronsim run` figures, in point order, byte-identical whatever ran them (one
worker or two); the cache is by kernel and config hash, so a rerun runs nothing, a
resumed sweep only the missing points, and an override that leaves the resolved config
as it was is a cache hit; a failing point is an error row and is never cached; the CLI
`neuronsim sweep` writes the same table."""
import json
import os

import distributed

import neuronsim
from support import SCRATCH, Checks, cli



def main():
    c = Checks()
    spec = {"name": "cache test",
            "kernel": [{"example": "rmsnorm", "rows": [256, 512], "cols": 512, "buffers": [1, 2]},
                       {"example": "softmax", "rows": 256, "cols": 256, "buffers": 9}],
            "targets": ["trn1", "trn2"]}
    out = os.path.join(SCRATCH, "r.csv")
    r = neuronsim.sweep(spec, output=out, workers=2)
    c.check(len(r.rows) == 10 and r.ran == 8 and r.failed == 2 and r.cached == 0,
            f"first run: {r.summary()}")
    with open(out) as f:
        first = f.read()
    c.check(os.path.isdir(os.path.join(SCRATCH, "r.cache")), "the cache is beside the output")
    c.check(len(os.listdir(os.path.join(SCRATCH, "r.cache"))) == 8, "one entry per point run")

    # A row is exactly what `neuronsim run --stats-json` says for that kernel.
    row = r.rows[5]  # rows 512, buffers 1, trn2: targets vary fastest
    c.check((row["rows"], row["buffers"], row["target"]) == (512, 1, "trn2"), f"row 3 is {row}")
    neff = os.path.join(SCRATCH, "k.neff")
    cli("example", "rmsnorm", "--rows", "512", "--cols", "512", "--buffers", "1", "-t", "trn2",
        "-o", neff)
    stats = json.loads(cli("run", neff, "-t", "trn2", "--timing-only", "--stats-json", "-").stdout)
    c.check(row["time_ns"] == stats["stats"]["total_time_ns"]["value"],
            f"time_ns {row['time_ns']} is the run's total_time_ns")
    c.check(row["vector_busy_pct"] == round(100.0 * stats["stats"]["vector_engine_busy_ns"]["value"]
                                            / row["time_ns"], 3), "vector_busy_pct")
    c.check(row["hbm_read_bytes"] == stats["stats"]["hbm_read_bytes"]["value"], "hbm_read_bytes")
    bad = r.rows[8]
    c.check(bad["status"] == "error" and "--buffers" in bad["error"] and bad["time_ns"] is None,
            f"a point whose example refuses its options is an error row: {bad}")

    # Rerun: nothing runs, the table is the same bytes (failed points run again: not cached).
    # One cluster for the rest (a Client given as scheduler is reused, left open).
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=":0")
    client = distributed.Client(cluster)
    r2 = neuronsim.sweep(spec, output=out, scheduler=client)
    c.check(r2.cached == 8 and r2.ran == 0 and r2.failed == 2, f"rerun: {r2.summary()}")
    with open(out) as f:
        c.check(f.read() == first, "a rerun gives the same table, byte for byte")
    with open(os.path.join(SCRATCH, "r.times.csv")) as f:
        log = f.read()
    c.check(log.startswith("index,kernel,status,wall_s,host\n") and log.count(",cached,") == 8,
            "the times log says which points were cached")

    # Resume: two entries lost (an interrupted sweep), only those two run again.
    cache_dir = os.path.join(SCRATCH, "r.cache")
    for name in sorted(os.listdir(cache_dir))[:2]:
        os.unlink(os.path.join(cache_dir, name))
    r3 = neuronsim.sweep(spec, output=out, scheduler=client)
    c.check(r3.ran == 2 and r3.cached == 6, f"resume: {r3.summary()}")
    with open(out) as f:
        c.check(f.read() == first, "a resumed sweep gives the same table")

    # The key is the resolved config: queue_depth 32 is trn1's and trn2's own value (a hit),
    # 4 is not (a run).
    spec_q = dict(spec, kernel=spec["kernel"][0], overrides={"dma": {"queue_depth": [32, 4]}})
    r4 = neuronsim.sweep(spec_q, cache=cache_dir, scheduler=client)
    c.check(r4.cached == 8 and r4.ran == 8, f"config-hash keys: {r4.summary()}")
    c.check([x["time_ns"] for x in r4.rows[0::2]] == [x["time_ns"] for x in r.rows[:8]],
            "an override equal to the preset's value: the same figures")
    r5 = neuronsim.sweep(spec_q, cache=False, scheduler=client)
    c.check(r5.ran == 16 and r5.rows == r4.rows, "cache=False runs every point, same rows")

    # neuronsim.sweep is the package called; .run is the same.
    r6 = neuronsim.sweep.run(spec_q, cache=cache_dir, scheduler=client)
    c.check(r6.cached == 16 and r6.rows == r4.rows, "neuronsim.sweep.run(spec) == neuronsim.sweep(spec)")

    # The CLI: the same table as CSV and JSON; messages; a bad spec is one line and exit 1.
    spec_path = os.path.join(SCRATCH, "spec.json")
    with open(spec_path, "w") as f:
        json.dump(spec, f)
    cli_csv = os.path.join(SCRATCH, "cli.csv")
    p = cli("sweep", spec_path, "-o", cli_csv, "--workers", "2")
    with open(cli_csv) as f:
        c.check(f.read() == first, "neuronsim sweep -o writes the same CSV")
    c.check("wrote " + cli_csv in p.stdout and "10 points: 8 run, 0 cached, 2 failed" in p.stdout,
            f"it says what it wrote and ran: {p.stdout[-300:]}")
    p = cli("sweep", spec_path, "--json", "--cache", os.path.join(SCRATCH, "cli.cache"),
            "--workers", "2")
    doc = json.loads(p.stdout)
    c.check(doc["rows"] == r.rows and doc["columns"] == r.columns, "--json: the table alone on stdout")
    c.check("10 points" in p.stderr, "--json: messages on stderr")
    with open(os.path.join(SCRATCH, "bad.json"), "w") as f:
        json.dump({"kernel": {"example": "rmsnorm"}, "overrides": {"dma": {"enignes": 4}}}, f)
    p = cli("sweep", os.path.join(SCRATCH, "bad.json"), check=False)
    lines = p.stderr.strip().splitlines()
    c.check(p.returncode == 1 and len(lines) == 1 and "bad.json" in lines[0] and "enignes" in lines[0],
            f"an unknown override parameter: one line, exit 1: {p.returncode} {p.stderr!r}")
    p = cli("sweep", os.path.join(SCRATCH, "bad.json"), "-o", os.path.join(SCRATCH, "x.txt"),
            check=False)
    c.check(p.returncode == 1 and ".csv or .json" in p.stderr, f"a table that is neither: {p.stderr!r}")
    c.check(not os.path.exists(os.path.join(SCRATCH, "x.txt")), "nothing written on an error")
    client.close()
    cluster.close()
    c.finish()


# The local cluster's worker processes are spawned: they import this file again (Dask's
# own rule for scripts, docs/sweeps.md).
if __name__ == "__main__":
    main()
