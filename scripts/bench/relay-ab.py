#!/usr/bin/env python3
"""What the CDP relay costs, measured through the socket API of a given build.

Usage: relay-ab.py BIN_DIR LABEL

Starts `BIN_DIR/sandbox-browser serve` on a scratch socket, serves a 16000 CSS px tall page from a
local http.server, and times (medians over repeated calls) `page.evaluate 1+1`, a full-page
`page.screenshot` of that page (max_height 16000), and `page.goto` of a page with 100 images (each
a URL never loaded before: every request goes to the server, and through the URL guard where there
is one). Run it on two builds (before and after the relay)
on the same machine, one right after the other, and compare: everything else on the path is the same.
Prints one JSON line.
"""

import http.server
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

EVALS = 300
LOADS = 15
PIXEL = (
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6300010000050001"
    "0d0a2db40000000049454e44ae426082"
)
SHOTS = 7
TALL = 16000


def serve_page(root):
    # Coloured rows of small text down the page, so the PNG is megabytes, not kilobytes.
    words = " ".join(f"w{(i * 7919) % 100003:x}" for i in range(400))
    rows = "".join(
        f'<div style="height:100px;overflow:hidden;font:9px monospace;background:hsl({i * 37 % 360},60%,70%)">'
        f"{i} {words}</div>"
        for i in range(TALL // 100)
    )
    with open(os.path.join(root, "tall.html"), "w") as f:
        f.write(f'<!doctype html><html><body style="margin:0">{rows}</body></html>')
    with open(os.path.join(root, "pixel.png"), "wb") as f:
        f.write(bytes.fromhex(PIXEL))
    handler = lambda *a, **k: http.server.SimpleHTTPRequestHandler(*a, directory=root, **k)  # noqa: E731
    http.server.SimpleHTTPRequestHandler.log_message = lambda *a: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


class Client:
    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.connect(path)
        self.file = self.sock.makefile("rwb")
        self.id = 0

    def call(self, method, session=None, params=None, timeout_ms=60000):
        self.id += 1
        req = {"id": self.id, "method": method, "timeout_ms": timeout_ms}
        if session:
            req["session_id"] = session
        if params:
            req["params"] = params
        self.file.write((json.dumps(req) + "\n").encode())
        self.file.flush()
        answer = json.loads(self.file.readline())
        if not answer.get("ok"):
            raise RuntimeError(f"{method}: {answer}")
        return answer["result"]


def main():
    bin_dir, label = sys.argv[1], sys.argv[2]
    work = tempfile.mkdtemp(prefix="sb-relay-ab-")
    os.chmod(work, 0o700)
    sock = os.path.join(work, "run", "browser.sock")
    server = serve_page(work)
    sup = subprocess.Popen(
        [os.path.join(bin_dir, "sandbox-browser"), "serve", "--socket", sock, "--runtime-dir", os.path.join(work, "rt")],
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.time() + 60
        while not os.path.exists(sock):
            if time.time() > deadline or sup.poll() is not None:
                raise RuntimeError("the supervisor did not start")
            time.sleep(0.05)
        c = Client(sock)
        sid = c.call("session.start")["session_id"]
        c.call("page.goto", sid, {"url": f"http://127.0.0.1:{server.server_port}/tall.html"})
        evals = []
        for i in range(EVALS + 50):
            t = time.perf_counter()
            c.call("page.evaluate", sid, {"expression": "1+1"})
            if i >= 50:
                evals.append((time.perf_counter() - t) * 1e3)
        shots, size = [], 0
        for i in range(SHOTS + 1):
            t = time.perf_counter()
            r = c.call("page.screenshot", sid, {"full_page": True, "max_height": TALL})
            if i >= 1:
                shots.append((time.perf_counter() - t) * 1e3)
            size = os.path.getsize(r["path"])
        loads = []
        for i in range(LOADS + 1):
            imgs = "".join(f'<img src="/pixel.png?run={label}-{i}-{n}">' for n in range(100))
            with open(os.path.join(work, f"many-{i}.html"), "w") as f:
                f.write(f"<!doctype html><html><body>{imgs}</body></html>")
            t = time.perf_counter()
            c.call("page.goto", sid, {"url": f"http://127.0.0.1:{server.server_port}/many-{i}.html"})
            if i >= 1:
                loads.append((time.perf_counter() - t) * 1e3)
        print(
            json.dumps(
                {
                    "build": label,
                    "evaluate_ms": round(statistics.median(evals), 3),
                    "screenshot_16k_ms": round(statistics.median(shots), 1),
                    "screenshot_bytes": size,
                    "height": r.get("height"),
                    "goto_100_images_ms": round(statistics.median(loads), 1),
                }
            )
        )
    finally:
        sup.terminate()
        sup.wait()
        server.shutdown()


if __name__ == "__main__":
    main()
