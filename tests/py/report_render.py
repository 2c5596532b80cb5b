"""neuronsim report end to end: real profiles -> report.html -> headless Chromium.

Makes real profiles: RMSNorm compiled eager and fused (neuronsim compile, then neuronsim
run launch.json --profile-dir: launch sequences, docs/report.md) and the fused RMSNorm
example kernel (a single-kernel profile); writes the report twice (same bytes), checks it
is self-contained (inline CSS, SVG and scripts only), then
loads it in Debian's headless Chromium (the interactive viewer has its own test,
tests/py/report_viewer.py): --dump-dom must hold every lane with its slices,
and --screenshot must be a non-blank PNG (decoded here with zlib). The screenshot is kept
as <build dir>/artifacts/report.png.
"""
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib
from html.parser import HTMLParser

NEURONSIM = os.environ["NEURONSIM"]
CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = os.path.join(os.path.dirname(os.path.abspath(NEURONSIM)), "artifacts")


def fail(message):
    print("report_render: FAIL: " + message, file=sys.stderr)
    sys.exit(1)


def run(*args, **kwargs):
    result = subprocess.run(list(args), capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        fail("%s exited %d:\n%s%s" % (" ".join(args), result.returncode, result.stdout,
                                      result.stderr))
    return result.stdout


def make_kernel_profile(work, example, name):
    """A real single-kernel profile of one example kernel (timing only)."""
    neff = os.path.join(work, name + ".neff")
    run(NEURONSIM, "example", example, "-o", neff)
    profile = os.path.join(work, name)
    run(NEURONSIM, "run", neff, "--timing-only", "--profile-dir", profile)
    return profile


def make_sequence_profile(work, graph, mode):
    """A real launch-sequence profile: neuronsim compile, then run launch.json."""
    out = os.path.join(work, "compiled_" + mode)
    run(NEURONSIM, "compile", graph, "--mode", mode, "-t", "trn2", "-o", out)
    profile = os.path.join(work, mode)
    run(NEURONSIM, "run", os.path.join(out, "launch.json"), "--input", "x=normal:0,1",
        "--input", "w=ones", "--seed", "1", "--profile-dir", profile)
    if not os.path.exists(os.path.join(profile, "host.json")):
        fail("a sequence run wrote no host.json in " + profile)
    return profile


def check_self_contained(html):
    # Scripts are inline only: the viewer's code and each run's data (JSON).
    for match in re.finditer(r"<script[^>]*>", html, re.IGNORECASE):
        if match.group(0) != "<script>" and not re.fullmatch(
                r'<script type="application/json" id="viewer-data-\d+">', match.group(0)):
            fail("report.html has a script that is not inline: %r" % match.group(0))
    for pattern in (r"https?://", r"\bsrc\s*=", r"<link", r"url\(", r"@import", r"fetch\(",
                    r"XMLHttpRequest"):
        match = re.search(pattern, html, re.IGNORECASE)
        if match:
            fail("report.html is not self-contained: %r at offset %d" % (match.group(0),
                                                                        match.start()))


class LaneCounter(HTMLParser):
    """Slices (<rect class="slice ...">) inside each <g class="lane" data-lane=...>."""

    def __init__(self):
        super().__init__()
        self.stack, self.slices = [], {}

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        lane = a.get("data-lane") if tag == "g" and a.get("class") == "lane" else None
        if lane is not None:
            self.slices.setdefault(lane, 0)
        if tag == "rect" and "slice" in (a.get("class") or "").split():
            for open_lane in reversed(self.stack):
                if open_lane is not None:
                    self.slices[open_lane] += 1
                    break
        if tag not in ("rect", "line", "path"):  # elements Chromium serialises as void-ish
            self.stack.append(lane)

    def handle_endtag(self, tag):
        if tag not in ("rect", "line", "path") and self.stack:
            self.stack.pop()

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in ("rect", "line", "path") and self.stack:
            self.stack.pop()


def png_pixels(path):
    """(width, height, rows of RGBA/RGB bytes) of an 8-bit non-interlaced PNG."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail(path + " is not a PNG")
    pos, idat, ihdr = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = ihdr
    if depth != 8 or colour not in (2, 6) or interlace:
        fail("%s: unexpected PNG kind (depth %d, colour %d, interlace %d)" % (path, depth,
                                                                              colour, interlace))
    bpp = 4 if colour == 6 else 3
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        if kind == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 255
        elif kind == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, prev))
        elif kind == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 255
        elif kind == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b, c = prev[i], prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, bpp, rows


def chromium(url, *args, profile_dir):
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--user-data-dir=" + profile_dir, "--window-size=1400,2000"]
    result = subprocess.run([CHROMIUM] + flags + list(args) + [url], capture_output=True,
                            text=True, timeout=180)
    if result.returncode != 0:
        fail("chromium exited %d:\n%s" % (result.returncode, result.stderr[-2000:]))
    return result.stdout


def main():
    if not os.access(CHROMIUM, os.X_OK):
        fail(CHROMIUM + " is not installed: run scripts/setup.sh (it installs Debian's "
             "chromium; CI installs it too)")
    os.makedirs(ARTIFACTS, exist_ok=True)
    work = tempfile.mkdtemp(prefix="neuronsim-report-")
    try:
        graph = os.path.join(os.environ["SOURCE_DIR"], "examples", "rmsnorm",
                             "rmsnorm_small.json")
        profiles = [make_sequence_profile(work, graph, "eager"),
                    make_sequence_profile(work, graph, "fused"),
                    make_kernel_profile(work, "rmsnorm", "kernel")]
        html_path = os.path.join(ARTIFACTS, "report.html")
        run(NEURONSIM, "report", *profiles, "-o", html_path)
        again = os.path.join(work, "again.html")
        run(NEURONSIM, "report", *profiles, "-o", again)
        with open(html_path, "rb") as a, open(again, "rb") as b:
            if a.read() != b.read():
                fail("two reports of the same profiles differ")
        with open(html_path, encoding="utf-8") as f:
            html = f.read()
        check_self_contained(html)

        url = "file://" + html_path
        dom = chromium(url, "--dump-dom", profile_dir=os.path.join(work, "chrome-dom"))
        counter = LaneCounter()
        counter.feed(dom)
        slices = counter.slices
        for lane in ("framework_dispatch", "runtime_call", "device", "tensor", "vector",
                     "scalar", "gpsimd", "sync"):
            if lane not in slices:
                fail("lane %r missing from the rendered DOM (lanes: %s)" % (lane,
                                                                           sorted(slices)))
        busy = [lane for lane in ("tensor", "vector", "scalar", "sync") if slices[lane] > 0]
        if len(busy) < 2 or slices["device"] < 2 or slices["runtime_call"] < 2:
            fail("lanes rendered without their slices: %s" % slices)
        if not any(lane.startswith("dma:") and n > 0 for lane, n in slices.items()):
            fail("no DMA queue lane with slices: %s" % slices)

        png = os.path.join(ARTIFACTS, "report.png")
        if os.path.exists(png):
            os.remove(png)
        chromium(url, "--screenshot=" + png, "--hide-scrollbars",
                 profile_dir=os.path.join(work, "chrome-shot"))
        if not os.path.exists(png):
            fail("chromium wrote no screenshot")
        width, height, bpp, rows = png_pixels(png)
        colours = set()
        for row in rows[::4]:
            for x in range(0, width * bpp, bpp * 2):
                colours.add(row[x:x + 3])
        if len(colours) < 12:
            fail("the screenshot looks blank: %d colours in %dx%d" % (len(colours), width,
                                                                       height))
        print("report_render: OK: %s (%d bytes), lanes %s, screenshot %s %dx%d with %d "
              "colours" % (html_path, len(html), slices, png, width, height, len(colours)))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
