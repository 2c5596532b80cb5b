"""The fit (docs/calibration.md, "The method"): minimise the mean squared log ratio
simulated / measured over the measured cases, by coordinate descent over the parameters,
each searched in log space within its bounds on the cases that depend on it.

1. Sensitivity: each parameter at x1.25 and /1.25 of the preset; a case depends on it when
   either changes its simulated time. A parameter no measured case depends on is kept.
2. Pass 1, per parameter in table order: the objective at 9 points log-spaced over the
   bounds and at the current value; then a golden-section search over the two grid
   intervals beside the best point. Later passes search within x/1.25..x*1.25 of the current
   value. A value replaces the current one only if it lowers the objective.
3. After each pass a pattern move (Hooke-Jeeves): the pass's step for all parameters at
   once, doubled while it helps. Passes repeat until one gains less than 0.01% of the objective (at most 10).

Values are quantised as the override file writes them (4 significant digits; integer
parameters to integers), so the fit's last simulation is what the override gives, and the
same measurements give the same bytes out.
"""
import math

from .parameters import PARAMETERS

GRID = 9
GOLDEN_STEPS = 12
LOCAL = 1.25
MAX_PASSES = 10


def quantise(value, integer):
    if integer:
        return max(1, int(round(value)))
    return float("%.4g" % value)


def objective(times, measured):
    """Mean squared natural-log ratio of simulated to measured times."""
    return sum(math.log(times[k] / measured[k]) ** 2 for k in measured) / len(measured)


class Fit:
    def __init__(self, simulator, cases, measured, preset, only=None):
        """cases: the measured Case objects; measured: {case.key: ns}; preset: the
        resolved config dict (`config --dump`)."""
        self.sim, self.cases, self.measured = simulator, cases, measured
        self.params, self.start, self.integer = [], {}, {}
        for p in PARAMETERS:
            if only is not None and p.name not in only:
                continue
            entry = preset.get(p.section, {}).get(p.key)
            if entry is None or isinstance(entry["value"], bool) or entry["value"] <= 0:
                continue  # the target has no such parameter, or it is switched off
            v = entry["value"]
            self.params.append(p)
            self.integer[p.name] = isinstance(v, int)
            self.start[p.name] = v
        self.values = dict(self.start)
        self.depends = {}
        self.evaluations = 0

    def times(self, values, cases=None):
        return {c.key: self.sim.time_ns(c, values) for c in (cases or self.cases)}

    def _f(self, name, x, cases):
        values = dict(self.values)
        values[name] = x
        self.evaluations += 1
        t = self.times(values, cases)
        return sum(math.log(t[c.key] / self.measured[c.key]) ** 2 for c in cases)

    def sensitivity(self):
        base = self.times(self.start)
        for p in self.params:
            deps = []
            for f in (LOCAL, 1 / LOCAL):
                v = dict(self.start)
                x = quantise(self.start[p.name] * f, self.integer[p.name])
                if x == self.start[p.name]:
                    x = self.start[p.name] + (1 if f > 1 else -1)
                v[p.name] = max(x, p.low) if f < 1 else min(x, p.high)
                t = self.times(v)
                deps += [c for c in self.cases if t[c.key] != base[c.key] and c not in deps]
            self.depends[p.name] = [c for c in self.cases if c in deps]

    def _search(self, p, lo, hi, grid):
        name, integer, cases = p.name, self.integer[p.name], self.depends[p.name]
        q = lambda lx: quantise(math.exp(lx), integer)  # noqa: E731
        cur = self.values[name]
        best_x, best_f = cur, self._f(name, cur, cases)
        llo, lhi = math.log(lo), math.log(hi)
        pts = [llo + (lhi - llo) * i / (grid - 1) for i in range(grid)]
        fs = [self._f(name, q(lx), cases) for lx in pts]
        i = min(range(grid), key=lambda j: (fs[j], abs(pts[j] - math.log(cur))))
        a, b = pts[max(0, i - 1)], pts[min(grid - 1, i + 1)]
        cand = [(fs[i], q(pts[i]))]
        r = (math.sqrt(5) - 1) / 2
        c, d = b - r * (b - a), a + r * (b - a)
        fc, fd = self._f(name, q(c), cases), self._f(name, q(d), cases)
        for _ in range(GOLDEN_STEPS):
            if fc <= fd:
                b, d, fd = d, c, fc
                c = b - r * (b - a)
                fc = self._f(name, q(c), cases)
            else:
                a, c, fc = c, d, fd
                d = a + r * (b - a)
                fd = self._f(name, q(d), cases)
        cand += [(fc, q(c)), (fd, q(d))]
        if integer:  # the integer neighbours of the best
            x0 = min(cand)[1]
            for x in (x0 - 1, x0 + 1):
                if lo <= x <= hi:
                    cand.append((self._f(name, x, cases), x))
        f, x = min(cand, key=lambda t: (t[0], abs(math.log(t[1] / cur))))
        if f < best_f * (1 - 1e-9) - 1e-15:
            best_x = x
        return best_x

    def run(self):
        self.sensitivity()
        self.passes = 0
        for n in range(MAX_PASSES):
            self.passes += 1
            moved = False
            before = dict(self.values)
            for p in self.params:
                if not self.depends[p.name]:
                    continue
                cur = self.values[p.name]
                if n == 0:
                    lo, hi, grid = p.low, p.high, GRID
                else:
                    lo, hi, grid = max(p.low, cur / LOCAL), min(p.high, cur * LOCAL), 5
                if not lo < hi:
                    continue
                x = self._search(p, lo, hi, grid)
                if x != cur:
                    self.values[p.name] = x
                    moved = True
            f_before = self._total(before)
            if not moved:
                break
            self._pattern_move(before)
            if self._total(self.values) > f_before * (1 - 1e-4):
                break  # the pass gained less than 0.01% of the objective: converged
        return self.values

    def _total(self, values):
        return objective(self.times(values), self.measured)

    def _pattern_move(self, before):
        """Hooke-Jeeves: the pass's step repeated for every parameter at once (in log
        space), doubled while it keeps lowering the objective; coordinate descent alone
        crawls along the valleys of coupled parameters (latency and descriptor time)."""
        best, f_best = dict(self.values), self._total(self.values)
        step = 1.0
        for _ in range(6):
            trial = {}
            for p in self.params:
                x, x0 = self.values[p.name], before[p.name]
                y = math.exp(math.log(x) + step * (math.log(x) - math.log(x0)))
                trial[p.name] = quantise(min(p.high, max(p.low, y)), self.integer[p.name])
            f = self._total(trial)
            if not f < f_best * (1 - 1e-9):
                break
            best, f_best = trial, f
            step *= 2
        self.values = best

    def determined(self, name):
        """True when a neighbouring value (x1.02 either way, or +-1 for an integer) changes
        the objective: the measurements pin the parameter down."""
        cases = self.depends.get(name)
        if not cases:
            return False
        p = next(p for p in self.params if p.name == name)
        x = self.values[name]
        f0 = self._f(name, x, cases)
        for y in ((x - 1, x + 1) if self.integer[name] else (x / 1.02, x * 1.02)):
            y = quantise(y, self.integer[name])
            if p.low <= y <= p.high and self._f(name, y, cases) != f0:
                return True
        return False
