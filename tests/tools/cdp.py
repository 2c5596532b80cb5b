"""A minimal Chrome DevTools Protocol client over the standard library, for browser tests.

Starts Debian's headless Chromium with --remote-debugging-port=0 (it prints the port it
chose), finds the page's WebSocket through the /json/list endpoint, and speaks the
WebSocket protocol (RFC 6455: client frames masked, text frames, fragmented and long
messages) over a plain socket. Used by tests/py/report_viewer.py.

    with Browser(profile_dir) as b:
        b.call("Page.navigate", url="file:///...")
        b.wait_event("Page.loadEventFired")
        b.evaluate("document.title")
"""
import base64
import json
import os
import re
import socket
import subprocess
import time
import urllib.request

CHROMIUM = "/usr/bin/chromium"


class BrowserError(Exception):
    pass


class Browser:
    def __init__(self, profile_dir, width=1600, height=1000, timeout=120):
        self.timeout = timeout
        flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--hide-scrollbars", "--remote-debugging-port=0",
                 "--user-data-dir=" + profile_dir, "--window-size=%d,%d" % (width, height),
                 "about:blank"]
        self.proc = subprocess.Popen([CHROMIUM] + flags, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, text=True)
        port = None
        deadline = time.time() + 60
        while time.time() < deadline:
            line = self.proc.stderr.readline()
            if not line:
                break
            m = re.search(r"DevTools listening on ws://[^:]+:(\d+)/", line)
            if m:
                port = int(m.group(1))
                break
        if port is None:
            self.close()
            raise BrowserError("chromium did not report its DevTools port")
        # stderr must keep draining, or Chromium blocks on a full pipe.
        self._drain = subprocess.Popen(["cat"], stdin=self.proc.stderr, stdout=subprocess.DEVNULL)
        pages = []
        for _ in range(100):
            with urllib.request.urlopen("http://127.0.0.1:%d/json/list" % port, timeout=10) as r:
                pages = [p for p in json.load(r) if p.get("type") == "page"]
            if pages:
                break
            time.sleep(0.1)
        if not pages:
            self.close()
            raise BrowserError("chromium has no page target")
        self._connect(pages[0]["webSocketDebuggerUrl"])
        self.next_id = 0
        self.events = []

    # --- WebSocket ---------------------------------------------------------------------
    def _connect(self, url):
        m = re.match(r"ws://([^:/]+):(\d+)(/.*)", url)
        host, port, path = m.group(1), int(m.group(2)), m.group(3)
        self.sock = socket.create_connection((host, port), timeout=self.timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        request = ("GET %s HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\n"
                   "Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\n"
                   "Sec-WebSocket-Version: 13\r\n\r\n" % (path, host, port, key))
        self.sock.sendall(request.encode())
        header = b""
        while b"\r\n\r\n" not in header:
            chunk = self.sock.recv(1)
            if not chunk:
                raise BrowserError("WebSocket handshake: connection closed")
            header += chunk
        if b" 101 " not in header.split(b"\r\n")[0]:
            raise BrowserError("WebSocket handshake refused: %r" % header[:200])
        self.buffer = b""

    def _recv_exact(self, n):
        while len(self.buffer) < n:
            chunk = self.sock.recv(1 << 20)
            if not chunk:
                raise BrowserError("WebSocket closed by chromium")
            self.buffer += chunk
        out, self.buffer = self.buffer[:n], self.buffer[n:]
        return out

    def _send_text(self, text):
        payload = text.encode()
        head = bytearray([0x81])  # FIN, text
        n = len(payload)
        if n < 126:
            head.append(0x80 | n)
        elif n < 65536:
            head.append(0x80 | 126)
            head += n.to_bytes(2, "big")
        else:
            head.append(0x80 | 127)
            head += n.to_bytes(8, "big")
        mask = os.urandom(4)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(bytes(head) + mask + masked)

    def _recv_message(self):
        parts = []
        while True:
            b0, b1 = self._recv_exact(2)
            n = b1 & 0x7F
            if n == 126:
                n = int.from_bytes(self._recv_exact(2), "big")
            elif n == 127:
                n = int.from_bytes(self._recv_exact(8), "big")
            mask = self._recv_exact(4) if b1 & 0x80 else None
            data = self._recv_exact(n)
            if mask:
                data = bytes(b ^ mask[i % 4] for i, b in enumerate(data))
            opcode = b0 & 0x0F
            if opcode == 0x8:
                raise BrowserError("WebSocket closed by chromium")
            if opcode == 0x9:  # ping -> pong is not needed by Chromium's DevTools server
                continue
            parts.append(data)
            if b0 & 0x80:
                return json.loads(b"".join(parts).decode())

    # --- DevTools protocol ---------------------------------------------------------------
    def call(self, method, **params):
        self.next_id += 1
        my_id = self.next_id
        self._send_text(json.dumps({"id": my_id, "method": method, "params": params}))
        while True:
            msg = self._recv_message()
            if msg.get("id") == my_id:
                if "error" in msg:
                    raise BrowserError("%s: %s" % (method, msg["error"]))
                return msg.get("result", {})
            if "method" in msg:
                self.events.append(msg)

    def wait_event(self, method, timeout=60):
        deadline = time.time() + timeout
        while time.time() < deadline:
            for i, e in enumerate(self.events):
                if e["method"] == method:
                    return self.events.pop(i)
            msg = self._recv_message()
            if "method" in msg:
                self.events.append(msg)
        raise BrowserError("no %s within %d s" % (method, timeout))

    def evaluate(self, expression):
        r = self.call("Runtime.evaluate", expression=expression, returnByValue=True,
                      awaitPromise=True)
        if "exceptionDetails" in r:
            raise BrowserError("page threw evaluating %r: %s" % (expression[:80],
                                                                r["exceptionDetails"]))
        return r["result"].get("value")

    def screenshot(self, path, full_page=False):
        params = {"format": "png"}
        if full_page:
            params["captureBeyondViewport"] = True
        data = self.call("Page.captureScreenshot", **params)["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

    def mouse(self, kind, x, y, **extra):
        params = {"type": kind, "x": x, "y": y}
        if kind in ("mousePressed", "mouseReleased"):
            params.update(button="left", clickCount=1)
        if kind == "mouseMoved" and extra.pop("dragging", False):
            params.update(button="left", buttons=1)
        params.update(extra)
        self.call("Input.dispatchMouseEvent", **params)

    def close(self):
        try:
            self.sock.close()
        except Exception:
            pass
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        drain = getattr(self, "_drain", None)
        if drain:
            drain.wait(timeout=10)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
