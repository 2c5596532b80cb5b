"""The sweep's progress line on stderr: points done of all, cached and failed so far,
points per second and the time left. Shown when stderr is a terminal or when asked
(--progress); cleared before the results, as `neuronsim run`'s progress (docs/cli.md)."""
import sys
import time


class Progress:
    def __init__(self, total, shown, stream=sys.stderr):
        self.total, self.shown, self.stream = total, shown, stream
        self.done = self.cached = self.failed = 0
        self.start = time.monotonic()
        self._draw()

    def update(self, outcome):
        self.done += 1
        self.cached += outcome["status"] == "cached"
        self.failed += outcome["status"] == "error"
        self._draw()

    def _draw(self):
        if not self.shown:
            return
        elapsed = time.monotonic() - self.start
        rate = self.done / elapsed if elapsed > 0 else 0.0
        left = (self.total - self.done) / rate if rate > 0 else 0.0
        width = 24
        filled = width * self.done // self.total if self.total else width
        self.stream.write(f"\rsweep [{'#' * filled}{'.' * (width - filled)}] {self.done}/"
                          f"{self.total} points ({self.cached} cached, {self.failed} failed), "
                          f"{rate:.1f} points/s, {left:.0f} s left \x1b[K")
        self.stream.flush()

    def close(self):
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
