#!/usr/bin/python3
"""A strict checker of the Chrome trace-event JSON that `neuronsim export --perfetto` writes,
replaying the rules Perfetto's JSON importer applies (standard library only):

  - pids are integers and never 0 (Perfetto's idle process); tids are integers;
  - every "X" slice has ts >= 0 and dur >= 0, on a track (pid, tid) that has a thread_name;
    slices on one track nest properly (a slice that starts inside another ends inside it);
  - every flow id has exactly one "s" and one "f" (with "bp": "e"), the "f" not before the
    "s", and each end lies inside a slice of non-zero length on its own track (the slice
    it binds to, and one that is drawn);
  - every counter ("C", per pid and name) has numeric, finite, non-negative values and
    strictly increasing timestamps in file order;
  - the metadata events ("M") are the known ones, with their args.

Times are compared exactly (decimal). Usage: perfetto_check.py TRACE.json [...]; prints one
line per trace, exits 1 with every violation listed.
"""
import json
import sys
from decimal import Decimal

METADATA = {"process_name": "name", "process_sort_index": "sort_index",
            "thread_name": "name", "thread_sort_index": "sort_index"}


def check(path):
    errors = []
    doc = json.load(open(path), parse_float=Decimal)
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        return ["no traceEvents list"], 0
    events = doc["traceEvents"]
    named_tracks = set()
    tracks = {}
    flows = {}
    counters = {}
    for n, e in enumerate(events):
        where = "event %d (%s)" % (n, e.get("ph"))
        ph, pid, tid = e.get("ph"), e.get("pid"), e.get("tid")
        if not isinstance(pid, int) or isinstance(pid, bool) or pid == 0:
            errors.append("%s: pid %r (must be a non-zero integer)" % (where, pid))
        if not isinstance(tid, int) or isinstance(tid, bool):
            errors.append("%s: tid %r" % (where, tid))
        if ph == "M":
            key = METADATA.get(e.get("name"))
            if key is None or key not in e.get("args", {}):
                errors.append("%s: unknown metadata %r" % (where, e.get("name")))
            if e.get("name") == "thread_name":
                named_tracks.add((pid, tid))
            continue
        ts = e.get("ts")
        if not isinstance(ts, (int, Decimal)) or ts < 0:
            errors.append("%s: ts %r" % (where, ts))
            continue
        ts = Decimal(ts)
        if ph == "X":
            dur = e.get("dur")
            if not isinstance(dur, (int, Decimal)) or dur < 0:
                errors.append("%s: dur %r" % (where, dur))
                continue
            tracks.setdefault((pid, tid), []).append((ts, Decimal(dur), e.get("name")))
        elif ph in ("s", "f"):
            flows.setdefault((e.get("cat"), e.get("id")), []).append((ph, pid, tid, ts, e))
        elif ph == "C":
            args = e.get("args")
            if not isinstance(args, dict) or not args:
                errors.append("%s: counter without values" % where)
            else:
                for k, v in args.items():
                    if not isinstance(v, (int, Decimal)) or isinstance(v, bool) or v < 0 \
                            or not Decimal(v).is_finite():
                        errors.append("%s: counter %s.%s = %r" % (where, e.get("name"), k, v))
            series = counters.setdefault((pid, e.get("name")), [])
            if series and ts <= series[-1]:
                errors.append("%s: counter %r at %s after a sample at %s (not increasing)"
                              % (where, e.get("name"), ts, series[-1]))
            series.append(ts)
        else:
            errors.append("%s: unexpected phase %r" % (where, ph))
    for key, slices in tracks.items():
        if key not in named_tracks:
            errors.append("track %s has slices but no thread_name" % (key,))
        slices.sort(key=lambda s: (s[0], -s[1]))
        stack = []
        for ts, dur, name in slices:
            while stack and stack[-1][0] + stack[-1][1] <= ts:
                stack.pop()
            if stack and ts + dur > stack[-1][0] + stack[-1][1]:
                errors.append("track %s: %r [%s, %s] overlaps %r [%s, %s] without nesting"
                              % (key, name, ts, ts + dur, stack[-1][2], stack[-1][0],
                                 stack[-1][0] + stack[-1][1]))
            stack.append((ts, dur, name))
    for fid, ends in flows.items():
        phases = sorted(end[0] for end in ends)
        if phases != ["f", "s"]:
            errors.append("flow %s: ends %s (want one s and one f)" % (fid, phases))
            continue
        s = next(end for end in ends if end[0] == "s")
        f = next(end for end in ends if end[0] == "f")
        if f[4].get("bp") != "e":
            errors.append("flow %s: the f end has no \"bp\": \"e\"" % (fid,))
        if f[3] < s[3]:
            errors.append("flow %s: ends at %s before it starts at %s" % (fid, f[3], s[3]))
        for ph, pid, tid, ts, _ in (s, f):
            bound = [x for x in tracks.get((pid, tid), []) if x[0] <= ts <= x[0] + x[1]]
            if not bound:
                errors.append("flow %s: %s end at %s binds to no slice on %s"
                              % (fid, ph, ts, (pid, tid)))
            elif all(x[1] == 0 for x in bound):
                errors.append("flow %s: %s end at %s binds to a zero-length slice %r"
                              % (fid, ph, ts, bound[0][2]))
    return errors, len(events)


def main():
    failed = False
    for path in sys.argv[1:]:
        errors, count = check(path)
        if errors:
            failed = True
            print("%s: %d violations" % (path, len(errors)), file=sys.stderr)
            for e in errors[:50]:
                print("  " + e, file=sys.stderr)
        else:
            print("%s: %d events, strict check ok" % (path, count))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
