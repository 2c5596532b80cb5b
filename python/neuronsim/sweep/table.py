"""The results table of a sweep: one row per point, its parameters then its simulated
figures (figures.py), in expansion order (the point's index), whatever order the points
finished in and wherever they ran: the same spec gives byte-identical CSV and JSON. What
varies from run to run (wall times, which worker, cached or not) goes to the times log.
"""
import csv
import io
import json

from . import figures

STATUS_COLUMNS = ("status", "error")


def columns(param_columns):
    return list(param_columns) + list(figures.COLUMNS) + list(STATUS_COLUMNS)


def row(point, figures_or_none, error):
    """One row: every column, None where a point has no value (an error, or a parameter
    of another kernel kind)."""
    r = dict(point.params)
    r.update({c: None for c in figures.COLUMNS})
    if figures_or_none is not None:
        r.update(figures_or_none)
    r["status"] = "ok" if error is None else "error"
    r["error"] = error
    return r


class Table:
    def __init__(self, param_columns, rows):
        self.columns = columns(param_columns)
        self.rows = [{c: r.get(c) for c in self.columns} for r in rows]

    def ok_rows(self):
        return [r for r in self.rows if r["status"] == "ok"]

    def to_json(self):
        return json.dumps({"columns": self.columns, "rows": self.rows}, indent=1) + "\n"

    def to_csv(self):
        out = io.StringIO()
        w = csv.writer(out, lineterminator="\n")
        w.writerow(self.columns)
        for r in self.rows:
            w.writerow([_cell(r[c]) for c in self.columns])
        return out.getvalue()

    def to_text(self):
        """An aligned text table of the parameters that vary and the main figures."""
        varying = [c for c in self.columns[:self.columns.index(figures.COLUMNS[0])]
                   if len({json.dumps(r[c]) for r in self.rows}) > 1] or ["kernel"]
        shown = varying + ["time_ns", "tensor_busy_pct", "dma_busy_pct", "status"]
        cells = [shown] + [[_cell(r[c]) for c in shown] for r in self.rows]
        widths = [max(len(row[i]) for row in cells) for i in range(len(shown))]
        lines = ["  ".join(v.ljust(w) for v, w in zip(row, widths)).rstrip() for row in cells]
        errors = [f"point {i}: {r['error']}" for i, r in enumerate(self.rows) if r["error"]]
        return "\n".join(lines + errors) + "\n"


def _cell(v):
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (dict, list)):
        return json.dumps(v, sort_keys=True)
    return repr(v) if isinstance(v, float) else str(v)


def times_log(points, outcomes):
    """CSV of what a run took: point, kernel, status (ok, cached, error), wall seconds of
    its worker task (building, hashing and simulating), host."""
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["index", "kernel", "status", "wall_s", "host"])
    for p in points:
        o = outcomes[p.index]
        w.writerow([p.index, p.params["kernel"], o["status"], "%.3f" % o["wall_s"], o["host"]])
    return out.getvalue()
