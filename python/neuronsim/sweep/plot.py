"""The sweep's plot (matplotlib, Debian's python3-matplotlib), as PNG and as a
self-contained HTML page with the results table.

The spec's "plot" chooses it (docs/sweeps.md):
  {"x": COLUMN, "y": COLUMN, "lines": [COLUMN, ...], "panels": [COLUMN, ...], "log": true}
      a line of y over x per combination of the `lines` columns, in a panel of its own per
      combination of the `panels` columns; defaults: x the first parameter that varies and
      is a number, y time_ns, panels none, lines the other parameters that vary; "log": y
      logarithmic (default false)
  {"pareto": [COLUMN_X, COLUMN_Y]}  every point, both minimised, the points no other beats
      on both joined as the Pareto front and labelled with their parameters
Rendering is deterministic (Agg, no timestamp in the PNG), so a table gives the same bytes.
"""
import base64
import html
import io
import json

from .. import Error


def _pyplot():
    try:
        import matplotlib
    except ImportError:
        raise Error("the sweep's plot needs matplotlib: apt-get install python3-matplotlib") from None
    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "neuronsim"
    import matplotlib.pyplot as plt
    return plt


def _varying(table):
    params = table.columns[:table.columns.index("time_ns")]
    return [c for c in params if len({json.dumps(r[c]) for r in table.rows}) > 1]


def _number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _check_column(table, column, what):
    if column not in table.columns:
        raise Error(f"plot: {what} '{column}' is not a column (the columns: "
                    f"{', '.join(table.columns)})")


def choose(table, plot_spec):
    """The plot as {"kind": "lines", "x", "y", "lines"} or {"kind": "pareto", "x", "y"}."""
    plot_spec = dict(plot_spec or {})
    unknown = sorted(set(plot_spec) - {"x", "y", "lines", "panels", "log", "pareto"})
    if unknown:
        raise Error(f"plot: unknown key(s) {', '.join(unknown)} (x, y, lines, panels, log or "
                    "pareto)")
    log = plot_spec.get("log", False)
    if not isinstance(log, bool):
        raise Error("plot: log is true or false")
    if "pareto" in plot_spec:
        axes = plot_spec["pareto"]
        if not isinstance(axes, list) or len(axes) != 2 or set(plot_spec) != {"pareto"}:
            raise Error("plot: pareto is [COLUMN_X, COLUMN_Y], alone")
        for c in axes:
            _check_column(table, c, "pareto column")
        return {"kind": "pareto", "x": axes[0], "y": axes[1]}
    varying = _varying(table)
    numeric = [c for c in varying if all(_number(r[c]) for r in table.rows)]
    x = plot_spec.get("x", numeric[0] if numeric else "kernel")
    y = plot_spec.get("y", "time_ns")
    panels = plot_spec.get("panels", [])
    panels = panels if isinstance(panels, list) else [panels]
    lines = plot_spec.get("lines", [c for c in varying if c != x and c not in panels])
    lines = lines if isinstance(lines, list) else [lines]
    for c, what in ([(x, "x"), (y, "y")] + [(c, "lines column") for c in lines]
                    + [(c, "panels column") for c in panels]):
        _check_column(table, c, what)
    return {"kind": "lines", "x": x, "y": y, "lines": lines, "panels": panels, "log": log}


def _label(row, columns):
    return ", ".join(f"{c}={row[c]}" for c in columns if row[c] is not None) or "all points"


def _pareto_front(rows, x, y):
    """The rows no other row beats on both x and y (lower is better), by x."""
    front = []
    for r in sorted(rows, key=lambda r: (r[x], r[y])):
        if not front or r[y] < front[-1][y]:
            front.append(r)
    return front


def _groups(rows, columns):
    """{key: rows} by the values of `columns`, keys in sorted order."""
    groups = {}
    for r in rows:
        groups.setdefault(tuple(json.dumps(r[c]) for c in columns), []).append(r)

    def order(key):  # numbers by value, before anything else by its JSON text
        return tuple((0, json.loads(k), "") if _number(json.loads(k)) else (1, 0, k) for k in key)

    return dict(sorted(groups.items(), key=lambda item: order(item[0])))


def _pareto(ax, table, rows, chosen):
    x, y = chosen["x"], chosen["y"]
    ax.scatter([r[x] for r in rows], [r[y] for r in rows], s=14, color="#999999", label="points")
    front = _pareto_front(rows, x, y)
    ax.plot([r[x] for r in front], [r[y] for r in front], "o-", color="#c0392b",
            label="Pareto front")
    varying = [c for c in _varying(table) if c not in (x, y)]
    for r in front:
        ax.annotate(_label(r, varying), (r[x], r[y]), fontsize=7, xytext=(4, 4),
                    textcoords="offset points")


def _lines(ax, rows, chosen):
    x, y, lines = chosen["x"], chosen["y"], chosen["lines"]
    numeric_x = all(_number(r[x]) for r in rows)
    categories = None if numeric_x else sorted({json.dumps(r[x]) for r in rows})
    for g in _groups(rows, lines).values():
        xs = [r[x] if numeric_x else categories.index(json.dumps(r[x])) for r in g]
        order = sorted(range(len(g)), key=lambda i: xs[i])
        ax.plot([xs[i] for i in order], [g[i][y] for i in order], "o-", label=_label(g[0], lines))
    if chosen["log"]:
        ax.set_yscale("log")
    if categories is not None:
        ax.set_xticks(range(len(categories)))
        ax.set_xticklabels([json.loads(c) for c in categories], rotation=20, fontsize=8)


def render(table, chosen, title):
    """The plot as PNG bytes."""
    plt = _pyplot()
    rows = [r for r in table.ok_rows() if r[chosen["y"]] is not None]
    panels = _groups(rows, chosen.get("panels", [])) if rows else {(): []}
    columns = min(2, len(panels))
    count = (len(panels) + columns - 1) // columns
    fig, axes = plt.subplots(count, columns, figsize=(max(8, 6 * columns), 3.6 * count + 0.6), dpi=100,
                             squeeze=False)
    for ax, (key, panel_rows) in zip(axes.flat, panels.items()):
        if chosen["kind"] == "pareto":
            _pareto(ax, table, panel_rows, chosen)
        else:
            _lines(ax, panel_rows, chosen)
        if chosen.get("panels"):
            ax.set_title(_label(panel_rows[0], chosen["panels"]), fontsize=8)
        ax.set_xlabel(chosen["x"], fontsize=8)
        ax.set_ylabel(chosen["y"], fontsize=8)
        ax.grid(True, alpha=0.3)
        if panel_rows:
            ax.legend(fontsize=7)
    for ax in list(axes.flat)[len(panels):]:
        ax.set_visible(False)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", metadata={"Software": None})
    plt.close(fig)
    return buf.getvalue()


def html_page(table, png, title):
    """A self-contained page: the plot and the table."""
    head = "".join(f"<th>{html.escape(c)}</th>" for c in table.columns)
    body = "".join("<tr>" + "".join(f"<td>{html.escape('' if r[c] is None else str(r[c]))}</td>"
                                    for c in table.columns) + "</tr>\n" for r in table.rows)
    image = base64.b64encode(png).decode()
    return (f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{html.escape(title)}"
            "</title><style>body{font-family:sans-serif;margin:1em}table{border-collapse:"
            "collapse;font-size:12px}td,th{border:1px solid #ccc;padding:2px 6px;text-align:"
            "right}</style></head><body>\n"
            f"<h1>{html.escape(title)}</h1>\n<img alt=\"sweep plot\" src=\"data:image/png;"
            f"base64,{image}\">\n<table><tr>{head}</tr>\n{body}</table>\n</body></html>\n")
