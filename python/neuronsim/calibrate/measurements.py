"""The measurements CSV (docs/calibration.md, "The measurements CSV"): a header line, then one
row per case with at least kernel, shape, dtype, target, measured_ns; other columns are
allowed and ignored. Every problem is one Error naming the file, the line and the reason."""
import csv
import io
import math

from .. import Error
from .cases import BY_KEY

COLUMNS = ("kernel", "shape", "dtype", "target", "measured_ns")
MAX_BYTES = 16 << 20


def read(path, target):
    """{case key: measured ns} of the file's rows, each a known case for `target`."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_BYTES + 1)
    except OSError as e:
        raise Error(f"{path}: cannot read: {e.strerror}") from None
    if len(data) > MAX_BYTES:
        raise Error(f"{path}: larger than {MAX_BYTES >> 20} MiB; not a measurements CSV")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise Error(f"{path}: not UTF-8 text (byte {e.start})") from None
    if not text.strip():
        raise Error(f"{path}: empty file: expected a header line ({', '.join(COLUMNS)}) and "
                    "one row per case")
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = [h.strip() for h in next(reader)]
        missing = [c for c in COLUMNS if c not in header]
        if missing:
            raise Error(f"{path}:1: missing column{'s' if len(missing) > 1 else ''} "
                        f"{', '.join(missing)} (the header needs {', '.join(COLUMNS)})")
        dup = sorted({h for h in header if header.count(h) > 1})
        if dup:
            raise Error(f"{path}:1: column {dup[0]} appears twice")
        col = {c: header.index(c) for c in COLUMNS}
        out, lines = {}, {}
        for row in reader:
            line = reader.line_num
            if not any(cell.strip() for cell in row):
                continue
            if len(row) != len(header):
                raise Error(f"{path}:{line}: {len(row)} fields, the header has {len(header)}")
            v = {c: row[i].strip() for c, i in col.items()}
            key = (v["kernel"], v["shape"], v["dtype"])
            if key not in BY_KEY:
                raise Error(f"{path}:{line}: unknown case kernel={v['kernel']} shape={v['shape']} "
                            f"dtype={v['dtype']} (cases.csv of `neuronsim calibrate kernels` "
                            "lists the cases)")
            if v["target"] != target:
                raise Error(f"{path}:{line}: a case measured on {v['target'] or '(no target)'}, "
                            f"but this fit is for {target}")
            try:
                ns = float(v["measured_ns"])
            except ValueError:
                raise Error(f"{path}:{line}: measured_ns {v['measured_ns']!r} is not a number") from None
            if not math.isfinite(ns) or ns <= 0:
                raise Error(f"{path}:{line}: measured_ns {v['measured_ns']} is not a positive "
                            "time in ns")
            if key in out:
                raise Error(f"{path}:{line}: case {' '.join(key)} again (first on line "
                            f"{lines[key]}); give one row per case")
            out[key], lines[key] = ns, line
    except csv.Error as e:
        raise Error(f"{path}:{reader.line_num}: not CSV: {e}") from None
    if not out:
        raise Error(f"{path}: a header and no measurements: one row per case is needed")
    return out


def write_text(rows, columns):
    """The CSV text of `rows` (dicts), columns in order."""
    f = io.StringIO(newline="")
    w = csv.DictWriter(f, fieldnames=list(columns), lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    return f.getvalue()
