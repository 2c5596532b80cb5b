"""The report's interactive viewer in headless Chromium, driven like a user would.

Makes real profiles (the RMSNorm graph eager as a launch sequence, the fused RMSNorm
example kernel, and a 100,000-instruction profile of the double-buffered RMSNorm example
at [128 * 20000, 64]: 20 000 row tiles, five instructions each), writes two reports, and
drives Chromium over the DevTools protocol (tests/tools/cdp.py, standard library only):

  - no script error on the page;
  - the page fits the window at 1600, 1280, 1000 and 800 px (no horizontal overflow);
  - wheel zoom around the cursor (the time under the cursor stays put), drag to pan,
    the reset button, the + and 0 keys;
  - clicking a launch on the device lane names it and its op;
  - clicking an instruction shows its details, checked against this script's own decoding
    of the page's embedded data: opcode, operands, source line, start/end in ns, cycles,
    and the semaphore it waited on with who signalled it;
  - search by opcode and by source line (match counts against the data);
  - the critical path (a chain of records backwards in time) toggled on;
  - hovering a slice names it (the canvas' tooltip);
  - a 450 000-instruction run, over the viewer's limit, is embedded pixel-fitted: it
    draws and zooms, and a click says there are no instruction details;
  - a forged trace lasting 2^64 - 1 ps (tests/tools/ntff_forge.py) draws, zooms to its
    narrowest and pans without a script error;
  - the 100k-instruction report's render time: navigation start -> the first frame after
    every viewer drew (in-page performance.now()); the median of three loads is
    recorded against the issue's 2 s target (reported, not asserted: DEVELOPERS.md). Also kept: Page.navigate -> load event, by the
    driver's clock.

Screenshots and render_times.json are kept in <build dir>/artifacts/viewer/.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.environ["SOURCE_DIR"], "tests", "tools"))
import cdp  # noqa: E402
import ntff_forge  # noqa: E402

NEURONSIM = os.environ["NEURONSIM"]
ARTIFACTS = os.path.join(os.path.dirname(os.path.abspath(NEURONSIM)), "artifacts", "viewer")
RENDER_BUDGET_MS = 2000.0
BIG_TILES = 20000  # x 5 instructions per tile (the example's double-buffered pipeline)
HUGE_TILES = 90000  # 450 000 instructions: over the viewer's 400 000 (docs/report.md)


def fail(message):
    print("report_viewer: FAIL: " + message, file=sys.stderr)
    sys.exit(1)


def run(*args):
    result = subprocess.run(list(args), capture_output=True, text=True)
    if result.returncode != 0:
        fail("%s exited %d:\n%s%s" % (" ".join(args), result.returncode, result.stdout,
                                      result.stderr))
    return result.stdout


def kernel_profile(work, name, *example_args, limits=()):
    """`limits`: --limit options for the run (docs/limits.md), e.g. a tensor over 1 GiB."""
    neff = os.path.join(work, name + ".neff")
    run(NEURONSIM, "example", *example_args, "-o", neff)
    profile = os.path.join(work, name)
    run(NEURONSIM, "run", neff, "--timing-only", "--profile-dir", profile, *limits)
    return profile


def sequence_profile(work):
    graph = os.path.join(os.environ["SOURCE_DIR"], "examples", "rmsnorm", "rmsnorm_small.json")
    out = os.path.join(work, "compiled")
    run(NEURONSIM, "compile", graph, "--mode", "eager", "-t", "trn2", "-o", out)
    profile = os.path.join(work, "eager")
    run(NEURONSIM, "run", os.path.join(out, "launch.json"), "--input", "x=normal:0,1",
        "--input", "w=ones", "--seed", "1", "--timing-only", "--profile-dir", profile)
    return profile


def viewer_data(html, run_index):
    """The embedded data of one run, decoded here independently of the page's script."""
    m = re.search(r'<script type="application/json" id="viewer-data-%d">(.*?)</script>'
                  % run_index, html, re.S)
    if not m:
        fail("no viewer data for run %d" % run_index)
    d = json.loads(m.group(1))
    ins, n = d["ins"], d["ins"]["count"]

    def col(obj, k, count):
        return obj.get(k, [0] * count)
    out = {k: col(ins, k, n) for k in ("e", "o", "l", "x", "w", "ws", "d", "c1", "sw", "sk",
                                       "si", "st")}
    for k in ("pc", "ln", "s", "c0"):
        acc, raw, vals = {}, col(ins, k, n), []
        for i in range(n):
            e = out["e"][i]
            acc[e] = acc.get(e, 0) + raw[i]
            vals.append(acc[e])
        out[k] = vals
    d["decoded"] = out
    return d


def ns(ps):
    return "%.3f ns" % (ps / 1000.0)


class Page:
    def __init__(self, browser):
        self.b = browser

    def load(self, path):
        self.b.call("Page.navigate", url="file://" + path)
        self.b.wait_event("Page.loadEventFired", timeout=120)
        self.check_no_errors()

    def check_no_errors(self):
        for e in self.b.events:
            if e["method"] == "Runtime.exceptionThrown":
                fail("script error on the page: %s" % json.dumps(e["params"])[:800])
            if (e["method"] == "Runtime.consoleAPICalled" and e["params"].get("type") == "error"):
                fail("console error: %s" % json.dumps(e["params"])[:800])

    def painted_ms(self):
        """Navigation start -> the first frame after every viewer drew (in-page clock)."""
        for _ in range(600):
            v = self.js("document.body.getAttribute('data-viewer-painted-ms')")
            if v is not None:
                return float(v)
            time.sleep(0.01)
        fail("the viewer never reported a painted frame")

    def js(self, expr):
        return self.b.evaluate(expr)

    def view(self, v):
        return self.js("(function(){var v=neuronsimViewers[%d];return [v.t0,v.t1];})()" % v)

    def scroll_to_viewer(self, v):
        self.js("neuronsimViewers[%d].root.scrollIntoView({block:'start'})" % v)

    def locate(self, v, i):
        """Viewport coordinates of instruction i's slice, and its width in px."""
        r = self.js("(function(){var v=neuronsimViewers[%d],p=v.locate(%d);if(!p)return null;"
                    "var I=v.ins;return {x:p.x-window.scrollX,y:p.y-window.scrollY,"
                    "w:(Math.min(I.s[%d]+I.d[%d],v.t1)-Math.max(I.s[%d],v.t0))*v.plotW()/(v.t1-v.t0)};})()"
                    % (v, i, i, i, i))
        if r is None:
            fail("instruction %d has no slice on its lane" % i)
        return r

    def wheel(self, x, y, delta):
        self.b.mouse("mouseWheel", x, y, deltaX=0, deltaY=delta)

    def click(self, x, y):
        self.b.mouse("mouseMoved", x, y)
        self.b.mouse("mousePressed", x, y)
        self.b.mouse("mouseReleased", x, y)

    def drag(self, x0, y, x1):
        self.b.mouse("mouseMoved", x0, y)
        self.b.mouse("mousePressed", x0, y)
        for k in range(1, 6):
            self.b.mouse("mouseMoved", x0 + (x1 - x0) * k / 5, y, dragging=True)
        self.b.mouse("mouseReleased", x1, y)

    def type_search(self, v, text):
        self.js("(function(){var e=neuronsimViewers[%d].searchEl;e.focus();e.select();})()" % v)
        self.b.call("Input.dispatchKeyEvent", type="keyDown", key="Backspace",
                    windowsVirtualKeyCode=8)
        self.b.call("Input.dispatchKeyEvent", type="keyUp", key="Backspace",
                    windowsVirtualKeyCode=8)
        self.b.call("Input.insertText", text=text)

    def set_width(self, width, height=1000):
        self.b.call("Emulation.setDeviceMetricsOverride", width=width, height=height,
                    deviceScaleFactor=1, mobile=False)
        # Two frames: layout at the new width, then the viewers' redraw.
        self.js("new Promise(function(r){requestAnimationFrame(function(){"
                "requestAnimationFrame(function(){r(true);});});})")


def zoom_onto(page, v, i, min_px=8):
    """Wheel-zooms around instruction i until its slice is min_px wide; checks that the
    time under the cursor stays put (zoom around the cursor)."""
    for _ in range(60):
        p = page.locate(v, i)
        if p["w"] >= min_px:
            return p
        t0, t1 = page.view(v)
        before = page.js("neuronsimViewers[%d].tOf(%f)" % (v, p["x"] - page.js(
            "neuronsimViewers[%d].canvas.getBoundingClientRect().left" % v)))
        page.wheel(p["x"], p["y"], -300)
        u0, u1 = page.view(v)
        if not u1 - u0 < t1 - t0:
            fail("wheel up did not zoom in: %s -> %s" % ((t0, t1), (u0, u1)))
        after = page.js("neuronsimViewers[%d].tOf(%f)" % (v, p["x"] - page.js(
            "neuronsimViewers[%d].canvas.getBoundingClientRect().left" % v)))
        if abs(after - before) > (t1 - t0) * 0.01 and u0 > 0 and u1 < page.js(
                "neuronsimViewers[%d].total" % v):
            fail("zoom moved the time under the cursor: %f -> %f" % (before, after))
    fail("could not zoom onto instruction %d" % i)


def check_details(page, v, d, i):
    """The details pane shows instruction i as the data says."""
    D = d["decoded"]
    pane = page.js("(function(){var t=neuronsimViewers[%d].detailsEl.querySelector('.d-table');"
                   "if(!t)return null;function q(c){var e=t.querySelector(c);"
                   "return e?e.textContent:null;}return {ins:t.getAttribute('data-ins'),"
                   "opcode:q('.d-opcode'),operands:q('.d-operands'),line:q('.d-line'),"
                   "start:q('.d-start'),end:q('.d-end'),cycles:q('.d-cycles'),"
                   "signal:q('.d-signal'),bytes:q('.d-bytes')};})()" % v)
    if pane is None:
        fail("no details pane after clicking instruction %d" % i)
    opcode = d["kinds"]["engine"][D["o"][i]][0]
    expect = {"ins": str(i), "opcode": opcode, "operands": d["strings"][D["x"][i]],
              "line": str(D["ln"][i]) if D["ln"][i] else "unknown",
              "start": ns(D["s"][i]), "end": ns(D["s"][i] + D["d"][i]),
              "cycles": "%d .. %d" % (D["c0"][i], D["c0"][i] + D["c1"][i])}
    for k, want in expect.items():
        if pane[k] != want:
            fail("details pane %s: %r, the data says %r (pane %s)" % (k, pane[k], want, pane))
    if D["sw"][i]:
        if not pane["signal"] or d["strings"][D["ws"][i]] not in pane["signal"]:
            fail("details pane does not name the semaphore waited on: %s" % pane)
        if D["sk"][i] == 1:
            j = D["si"][i]
            who = "%s #%d" % (d["engines"][D["e"][j]], D["pc"][j])
            if who not in pane["signal"]:
                fail("details pane does not name the signaller %r: %s" % (who, pane))
        if D["sk"][i] == 2 and "DMA queue" not in pane["signal"]:
            fail("details pane does not name the signalling DMA queue: %s" % pane)
    return pane


def check_critical_path(d):
    """Each record on the path ends before the next one starts (ps, exact)."""
    D, path = d["decoded"], d["critical"]
    if not path:
        fail("empty critical path")
    for a, b in zip(path, path[1:]):
        if D["s"][a] + D["d"][a] > D["s"][b]:
            fail("critical path: instruction %d ends after %d starts" % (a, b))
    last_end = max(D["s"][i] + D["d"][i] for i in range(d["ins"]["count"]))
    if D["s"][path[-1]] + D["d"][path[-1]] != last_end:
        fail("critical path does not end with the last instruction to finish")


def tables_fit(page, width):
    page.set_width(width)
    r = page.js("(function(){var w=document.documentElement.clientWidth,bad=[];"
                "document.querySelectorAll('table,svg,canvas,.viewer').forEach(function(t){"
                "var b=t.getBoundingClientRect();if(b.width>0&&b.right>w+0.5)"
                "bad.push(t.tagName+'.'+t.className+' right '+b.right.toFixed(0));});"
                "return {w:w,scroll:document.documentElement.scrollWidth,bad:bad};})()")
    if r["bad"] or r["scroll"] > r["w"]:
        fail("at %d px the page overflows (scrollWidth %d > %d): %s" % (width, r["scroll"],
                                                                        r["w"], r["bad"][:5]))


def pick_instruction(d, want_engine_signaller=True):
    """An instruction that waited on a semaphore set by another instruction (else any)."""
    D = d["decoded"]
    for i in range(d["ins"]["count"]):
        if D["sw"][i] and D["sk"][i] == (1 if want_engine_signaller else 2) and D["d"][i] > 0:
            return i
    for i in range(d["ins"]["count"]):
        if D["d"][i] > 0:
            return i
    fail("no instruction with a duration")


def main():
    if not os.access(cdp.CHROMIUM, os.X_OK):
        fail(cdp.CHROMIUM + " is not installed: run scripts/setup.sh")
    if os.path.isdir(ARTIFACTS):
        shutil.rmtree(ARTIFACTS)
    os.makedirs(ARTIFACTS)
    work = tempfile.mkdtemp(prefix="neuronsim-viewer-%d-" % os.getpid())
    try:
        seq = sequence_profile(work)
        kernel = kernel_profile(work, "kernel", "rmsnorm")
        big = kernel_profile(work, "big", "rmsnorm", "--double-buffer", "--rows",
                             str(128 * BIG_TILES), "--cols", "64")
        # Beyond the viewer's 400 000 instructions: lanes pixel-fitted, no details.
        # Its x and y are 1.4 GiB each (timing only: never allocated), over the default
        # tensor_bytes limit of 1 GiB.
        big_tensors = ("--limit", "tensor_bytes=2G")
        huge = kernel_profile(work, "huge", "rmsnorm", "--double-buffer", "--rows",
                              str(128 * HUGE_TILES), "--cols", "64", limits=big_tensors)
        huge_html = os.path.join(work, "huge.html")
        run(NEURONSIM, "report", huge, "-o", huge_html, *big_tensors)
        if '"fitted":true' not in open(huge_html, encoding="utf-8").read():
            fail("a %d-instruction run was not pixel-fitted" % (5 * HUGE_TILES))
        forged = os.path.join(work, "forged")
        shutil.copytree(kernel, forged)
        ntff = [f for f in os.listdir(forged) if f.endswith(".ntff")][0]
        ntff_forge.set_total(os.path.join(forged, ntff), 2 ** 64 - 1)
        forged_html = os.path.join(work, "forged.html")
        run(NEURONSIM, "report", forged, "-o", forged_html)
        small_html = os.path.join(ARTIFACTS, "viewer.html")
        big_html = os.path.join(ARTIFACTS, "viewer_100k.html")
        run(NEURONSIM, "report", seq, kernel, "-o", small_html)
        run(NEURONSIM, "report", big, "-o", big_html)
        small = open(small_html, encoding="utf-8").read()
        big_text = open(big_html, encoding="utf-8").read()
        for pattern in (r"https?://", r"\bsrc\s*=", r"<link", r"url\(", r"@import", r"fetch\(",
                        r"XMLHttpRequest"):
            for text, name in ((small, "viewer.html"), (big_text, "viewer_100k.html")):
                if re.search(pattern, text, re.I):
                    fail("%s is not self-contained: %s" % (name, pattern))
        seq_data, kernel_data = viewer_data(small, 0), viewer_data(small, 1)
        big_data = viewer_data(big_text, 0)
        if big_data["ins"]["count"] < 100000:
            fail("the big profile has %d instructions, not 100k" % big_data["ins"]["count"])
        for d in (seq_data, kernel_data, big_data):
            check_critical_path(d)

        with cdp.Browser(os.path.join(work, "chrome")) as b:
            page = Page(b)
            b.call("Page.enable")
            b.call("Runtime.enable")
            page.set_width(1600)
            page.load(small_html)
            for width in (1600, 1280, 1000, 800):
                tables_fit(page, width)
                page.js("window.scrollTo(0,0)")
                b.screenshot(os.path.join(ARTIFACTS, "report_top_%d.png" % width))
            page.set_width(1600)

            # Run 1 (the kernel): zoom onto an instruction, click it, check the pane.
            v = 1
            page.scroll_to_viewer(v)
            total = page.js("neuronsimViewers[1].total")
            i = pick_instruction(kernel_data)
            p = zoom_onto(page, v, i)
            b.screenshot(os.path.join(ARTIFACTS, "zoomed.png"))
            b.mouse("mouseMoved", p["x"], p["y"])
            title = page.js("neuronsimViewers[1].canvas.title")
            opcode_i = kernel_data["kinds"]["engine"][kernel_data["decoded"]["o"][i]][0]
            if opcode_i not in title:
                fail("hovering instruction %d shows %r" % (i, title))
            page.click(p["x"], p["y"])
            pane = check_details(page, v, kernel_data, i)
            b.screenshot(os.path.join(ARTIFACTS, "details.png"))

            # Drag to pan: 200 px to the right moves the view 200 px earlier in time.
            t0, t1 = page.view(v)
            if t0 <= 0:
                page.wheel(p["x"], p["y"], -300)
                t0, t1 = page.view(v)
            page.drag(p["x"], p["y"] - 40, p["x"] + 200)
            u0, u1 = page.view(v)
            per_px = (t1 - t0) / page.js("neuronsimViewers[1].plotW()")
            if not (abs((u1 - u0) - (t1 - t0)) < 1e-6 * (t1 - t0) and u0 < t0 and
                    abs((t0 - u0) - min(200 * per_px, t0)) <= 2 * per_px):
                fail("drag did not pan: %s -> %s" % ((t0, t1), (u0, u1)))
            if page.js("neuronsimViewers[1].detailsEl.querySelector('.d-table')"
                       ".getAttribute('data-ins')") != str(i):
                fail("a drag changed the selection")

            # Search by opcode, then by source line.
            D = kernel_data["decoded"]
            opcode = kernel_data["kinds"]["engine"][D["o"][i]][0]
            page.type_search(v, opcode)
            want = sum(1 for o in D["o"] if kernel_data["kinds"]["engine"][o][0].find(opcode) >= 0)
            got = page.js("neuronsimViewers[1].countEl.textContent")
            if got != "%d match%s" % (want, "" if want == 1 else "es"):
                fail("search %r: %r, the data has %d" % (opcode, got, want))
            b.call("Input.dispatchKeyEvent", type="keyDown", key="Enter", code="Enter",
                   windowsVirtualKeyCode=13)
            b.call("Input.dispatchKeyEvent", type="keyUp", key="Enter", code="Enter",
                   windowsVirtualKeyCode=13)
            first = page.js("neuronsimViewers[1].selected")
            if first < 0 or kernel_data["kinds"]["engine"][D["o"][first]][0] != opcode:
                fail("Enter in the search box did not select a match (selected %s)" % first)
            b.screenshot(os.path.join(ARTIFACTS, "search_opcode.png"))
            line = D["ln"][i]
            if not line:
                fail("instruction %d has no source line" % i)
            page.type_search(v, "line %d" % line)
            want = sum(1 for x in D["ln"] if x == line)
            got = page.js("neuronsimViewers[1].countEl.textContent")
            if got != "%d match%s" % (want, "" if want == 1 else "es"):
                fail("search line %d: %r, the data has %d" % (line, got, want))
            page.type_search(v, "")

            # Reset, then the critical path.
            page.js("neuronsimViewers[1].root.querySelector('button.reset').scrollIntoView()")
            r = page.js("(function(){var b=neuronsimViewers[1].root.querySelector('button.reset')"
                        ".getBoundingClientRect();return {x:b.left+b.width/2,y:b.top+b.height/2};})()")
            page.click(r["x"], r["y"])
            if page.view(v) != [0, total]:
                fail("reset did not show the whole run: %s" % page.view(v))
            # Keys on the focused canvas: + halves the span around the middle, 0 resets.
            page.js("neuronsimViewers[1].canvas.focus()")
            for key in ("+", "0"):
                b.call("Input.dispatchKeyEvent", type="keyDown", key=key, text=key)
                b.call("Input.dispatchKeyEvent", type="keyUp", key=key)
                u0, u1 = page.view(v)
                want = [total / 4, total * 3 / 4] if key == "+" else [0, total]
                if abs(u0 - want[0]) > 1e-6 * total or abs(u1 - want[1]) > 1e-6 * total:
                    fail("key %r: view %s, expected %s" % (key, [u0, u1], want))
            c = page.js("(function(){var b=neuronsimViewers[1].criticalEl"
                        ".getBoundingClientRect();return {x:b.left+b.width/2,y:b.top+b.height/2};})()")
            page.click(c["x"], c["y"])
            if not page.js("neuronsimViewers[1].criticalEl.checked"):
                fail("the critical path checkbox did not toggle")
            summary = page.js("neuronsimViewers[1].critInfoEl.textContent")
            if not summary.startswith("%d instructions" % len(kernel_data["critical"])):
                fail("critical path summary %r, the path has %d instructions"
                     % (summary, len(kernel_data["critical"])))
            page.scroll_to_viewer(v)
            b.screenshot(os.path.join(ARTIFACTS, "critical_path.png"))

            # The sequence run: click a launch's instruction through the details' own link.
            page.scroll_to_viewer(0)
            j = pick_instruction(seq_data)
            p = zoom_onto(page, 0, j)
            page.click(p["x"], p["y"])
            check_details(page, 0, seq_data, j)
            b.screenshot(os.path.join(ARTIFACTS, "sequence_details.png"))
            # A launch's slice on the device lane names the launch and its op.
            page.js("neuronsimViewers[0].setView(0, neuronsimViewers[0].total)")
            r = page.js("(function(){var v=neuronsimViewers[0],l=v.laneById('device'),"
                        "c=v.canvas.getBoundingClientRect(),k=l.n-1;return {x:c.left+v.xOf("
                        "l.start[k]+l.dur[k]/2),y:c.top+l.y+8,L:l.launch[k]};})()")
            page.click(r["x"], r["y"])
            text = page.js("neuronsimViewers[0].detailsEl.textContent")
            launch = int(r["L"])
            want = "%d: %s (%s)" % (launch, seq_data["launches"][launch], seq_data["ops"][launch])
            if want not in text:
                fail("device slice details %r do not name launch %r" % (text, want))
            page.check_no_errors()

            # The 100k-instruction profile: render time, then zoom and click there too.
            times, walls = [], []
            for _ in range(3):
                start = time.time()
                page.load(big_html)
                times.append(page.painted_ms())
                walls.append(round((time.time() - start) * 1000, 1))
            viewer_ms = float(page.js("document.body.getAttribute('data-viewer-ms')"))
            page.scroll_to_viewer(0)
            b.screenshot(os.path.join(ARTIFACTS, "viewer_100k.png"))
            k = pick_instruction(big_data)
            p = zoom_onto(page, 0, k)
            page.click(p["x"], p["y"])
            check_details(page, 0, big_data, k)
            b.screenshot(os.path.join(ARTIFACTS, "viewer_100k_details.png"))
            page.check_no_errors()

            page.load(small_html)
            small_ms = page.painted_ms()

            # The pixel-fitted run: draws, zooms, and a click says why there are no details.
            page.load(huge_html)
            page.painted_ms()
            page.scroll_to_viewer(0)
            r = page.js("(function(){var v=neuronsimViewers[0],l=v.laneById('scalar'),"
                        "c=v.canvas.getBoundingClientRect();return {x:c.left+v.xOf(v.total/2),"
                        "y:c.top+l.y+8};})()")
            for _ in range(5):
                page.wheel(r["x"], r["y"], -300)
            page.click(r["x"], r["y"])
            text = page.js("neuronsimViewers[0].detailsEl.textContent")
            if "without instruction details" not in text:
                fail("a click on the pixel-fitted run shows %r" % text)
            b.screenshot(os.path.join(ARTIFACTS, "fitted_450k.png"))
            page.check_no_errors()

            # A forged trace lasting 2^64 - 1 ps: the page draws, zooms to its narrowest
            # and pans without a script error, and the view stays finite.
            page.load(forged_html)
            page.painted_ms()
            page.scroll_to_viewer(0)
            r = page.js("(function(){var b=neuronsimViewers[0].canvas.getBoundingClientRect();"
                        "return {x:b.left+b.width-20,y:b.top+60};})()")
            for _ in range(40):
                page.wheel(r["x"], r["y"], -400)
            page.drag(r["x"], r["y"], r["x"] - 300)
            u0, u1 = page.view(0)
            if not (u1 > u0 >= 0 and u1 <= 2.0 ** 64):
                fail("forged trace: view %s" % [u0, u1])
            b.screenshot(os.path.join(ARTIFACTS, "forged_total.png"))
            page.check_no_errors()

        render = {"instructions": big_data["ins"]["count"], "report_bytes": len(big_text),
                  "painted_ms_runs": times, "painted_ms_median": sorted(times)[1],
                  "navigate_to_load_event_ms_runs": walls, "viewer_script_ms": viewer_ms,
                  "small_report_ready_ms": small_ms,
                  "small_report_instructions": seq_data["ins"]["count"] +
                  kernel_data["ins"]["count"]}
        with open(os.path.join(ARTIFACTS, "render_times.json"), "w") as f:
            json.dump(render, f, indent=1)
        # Recorded, not asserted: speed is never asserted in a timed test (DEVELOPERS.md);
        # render_times.json and this line carry the figure against the 2 s.
        if sorted(times)[1] > RENDER_BUDGET_MS:
            print("report_viewer: NOTE: the 100k-instruction report took %.0f ms to render, "
                  "over the %.0f ms target (a loaded machine?): %s"
                  % (sorted(times)[1], RENDER_BUDGET_MS, render))
        print("report_viewer: OK: clicked %s; 100k render %s ms (navigation start -> painted), "
              "small %s ms; screenshots in %s" % (pane["opcode"], times, small_ms, ARTIFACTS))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
