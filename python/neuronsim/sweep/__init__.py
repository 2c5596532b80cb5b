"""Design-space sweeps on Dask (docs/sweeps.md): `neuronsim.sweep(spec)` expands a spec's
grid into points, runs each (build the kernel, run it timing-only) on a Dask cluster, local
by default, skips points cached by kernel and config hash, and returns the results table.

    import neuronsim
    r = neuronsim.sweep({"kernel": {"example": "rmsnorm", "rows": [1024, 2048],
                                    "cols": [2048, 4096], "buffers": [2, 4]},
                         "targets": ["trn1", "trn2"]}, output="rmsnorm.csv")
    r.rows[0]["time_ns"], r.to_pandas()

One module per concept: spec (the spec and its expansion), point (one point, on a
worker), figures (a run's summary figures), cache, table (rows, CSV, JSON, times log),
cluster (Dask), progress, plot (PNG and HTML), files (atomic outputs), program (which
`neuronsim` program runs the points). This package is itself callable:
neuronsim.sweep(spec, ...) is neuronsim.sweep.run(spec, ...).
"""
import os
import sys
import time
import types

from .. import Error
from . import cache as cache_module
from . import cluster, plot as plot_module, progress as progress_module, spec as spec_module
from . import point as point_module
from . import table as table_module
from .files import write_atomic

__all__ = ["run", "SweepResult", "expand"]

OUTPUT_FORMATS = (".csv", ".json")


class SweepResult:
    """A finished sweep: .columns, .rows (dicts, in point order), .table (CSV/JSON/text),
    .outcomes (per point: status ok/cached/error, wall_s, host: the times log's data),
    .wall_s (running the points), .startup_s (starting the cluster), .points_per_s, and
    .ran/.cached/.failed counts."""

    def __init__(self, table, outcomes, wall_s, startup_s, workers):
        self.table, self.outcomes = table, outcomes
        self.columns, self.rows = table.columns, table.rows
        self.wall_s, self.startup_s, self.workers = wall_s, startup_s, workers
        statuses = [o["status"] for o in outcomes.values()]
        self.ran, self.cached = statuses.count("ok"), statuses.count("cached")
        self.failed = statuses.count("error")
        self.points_per_s = len(statuses) / wall_s if wall_s > 0 else 0.0
        self.written = []  # (path, bytes) of each output, in the order written

    def to_pandas(self):
        try:
            import pandas
        except ImportError as e:
            raise ImportError("SweepResult.to_pandas needs pandas (apt-get install python3-pandas)") from e
        return pandas.DataFrame(self.rows, columns=self.columns)

    def summary(self):
        return (f"{len(self.rows)} points: {self.ran} run, {self.cached} cached, {self.failed} "
                f"failed in {self.wall_s:.2f} s ({self.points_per_s:.2f} points/s) on "
                f"{self.workers} worker(s)")

    def messages(self):
        """What a finished sweep says: each file it wrote, then its summary."""
        return [f"wrote {path} ({size} bytes)" for path, size in self.written] + [self.summary()]

    def __repr__(self):
        return f"<neuronsim.sweep.SweepResult {self.summary()}>"


def expand(spec, base="."):
    """The points a spec (a dict or the path of its JSON file) expands into, and its
    parameter columns, without running anything."""
    if isinstance(spec, (str, os.PathLike)):
        spec, base = spec_module.load(os.fspath(spec))
    return spec_module.expand(spec, base)


def _default_beside(output, suffix):
    if output is None or output == "-":
        return None
    return os.path.splitext(output)[0] + suffix


def run(spec, output=None, scheduler=None, workers=None, cache=None, plot=None, html=None,
        times=None, progress=None):
    """Runs a sweep and returns its SweepResult.

    spec: a dict, or the path of a spec file (relative paths in it start at its
    directory). output: the table as .csv or .json ("-": nothing written, for the CLI's
    stdout). scheduler: "tcp://HOST:PORT" of a Dask cluster, or a distributed.Client to
    reuse (left open); else a local cluster of `workers` processes (default: one per
    core), started and stopped by this call. A script that uses the local cluster runs
    its sweep under `if __name__ == "__main__":` (Dask's rule: the workers are spawned
    processes, which import the script again). cache: a directory, False for none;
    default OUTPUT-stem.cache/ beside the output (no output: no cache). plot, html: the
    plot's PNG and HTML page. times: the times log (default OUTPUT-stem.times.csv).
    progress: show the progress line (default: when stderr is a terminal).
    """
    where = "spec"
    title = "sweep"
    if isinstance(spec, (str, os.PathLike)):
        where = os.fspath(spec)
        title = os.path.splitext(os.path.basename(where))[0]
        spec, base = spec_module.load(where)
    else:
        base = "."
    if isinstance(spec, dict) and isinstance(spec.get("name"), str):
        title = spec["name"]
    if output is not None and output != "-" and os.path.splitext(output)[1] not in OUTPUT_FORMATS:
        raise Error(f"{output}: the results table is .csv or .json")
    points, param_columns = spec_module.expand(spec, base, where)
    point_module.check_configs(points, where)
    if plot is not None or html is not None:  # a bad plot or no matplotlib: before any run
        plot_module.choose(table_module.Table(param_columns, []), spec.get("plot"))
        plot_module._pyplot()
    cache_dir = _default_beside(output, ".cache") if cache is None else (cache or None)
    store = cache_module.Cache(cache_dir)
    cached_keys = store.keys()
    times = _default_beside(output, ".times.csv") if times is None else times
    shown = sys.stderr.isatty() if progress is None else bool(progress)

    start = time.monotonic()
    with cluster.client(scheduler, workers) as c:
        n_workers = len(c.scheduler_info()["workers"])
        startup = time.monotonic() - start
        bar = progress_module.Progress(len(points), shown)

        def done(outcome):
            if outcome["status"] == "ok":
                store.put(outcome["key"], outcome["figures"])
            bar.update(outcome)

        begun = time.monotonic()
        try:
            outcomes = cluster.run(c, points, cached_keys, done)
        finally:
            bar.close()
        wall = time.monotonic() - begun
    rows = []
    for p in points:
        o = outcomes[p.index]
        figures = o.get("figures") if o["status"] == "ok" else (
            store.get(o["key"]) if o["status"] == "cached" else None)
        rows.append(table_module.row(p, figures, o.get("error")))
    table = table_module.Table(param_columns, rows)
    result = SweepResult(table, outcomes, wall, startup, n_workers)
    written = []
    if output is not None and output != "-":
        text = table.to_json() if output.endswith(".json") else table.to_csv()
        write_atomic(output, text)
        written.append((output, len(text)))
    if times is not None:
        log = table_module.times_log(points, outcomes)
        write_atomic(times, log)
        written.append((times, len(log)))
    if plot is not None or html is not None:
        chosen = plot_module.choose(table, spec.get("plot"))
        png = plot_module.render(table, chosen, title)
        if plot is not None:
            write_atomic(plot, png)
            written.append((plot, len(png)))
        if html is not None:
            page = plot_module.html_page(table, png, title)
            write_atomic(html, page)
            written.append((html, len(page)))
    result.written = written
    return result


class _CallableModule(types.ModuleType):
    """neuronsim.sweep(spec, ...): the package called is its run()."""

    def __call__(self, spec, **options):
        return run(spec, **options)


sys.modules[__name__].__class__ = _CallableModule
