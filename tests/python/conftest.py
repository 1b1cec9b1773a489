"""Fixtures for the Python tests: the real runtime (`sandbox-browser serve` on a private socket, real
Chromium) and the test page server (`sb-pages`), both built by `scripts/test.sh` (`cargo build --bin
sandbox-browser --bin sb-pages`).

`SB_BIN` names the directory of those binaries (default: the workspace's target/debug).
"""

import json
import os
import signal
import subprocess
import tempfile
import threading
from pathlib import Path
from typing import Iterator, List, Optional

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(os.environ.get("SB_BIN", ROOT / "target" / "debug"))
START_TIMEOUT_S = 60


class Runtime:
    """A supervisor this test session started: `socket`, its `dir`, and its log lines. Its
    `[files] uploads_dir` is `uploads` in its dir, holding `note.txt` (5 bytes)."""

    def __init__(self, args: Optional[List[str]] = None) -> None:
        self.dir = tempfile.TemporaryDirectory(prefix="sb-py-")
        os.chmod(self.dir.name, 0o700)
        self.socket = os.path.join(self.dir.name, "browser.sock")
        uploads = os.path.join(self.dir.name, "uploads")
        os.mkdir(uploads)
        with open(os.path.join(uploads, "note.txt"), "w") as f:
            f.write("hello")
        config = os.path.join(self.dir.name, "config.toml")
        with open(config, "w") as f:
            f.write(f"[files]\nuploads_dir = {json.dumps(uploads)}\n")
        args = ["--config", config, *(args or [])]
        env = {k: v for k, v in os.environ.items() if not k.startswith("SANDBOX_BROWSER_")}
        self.process = subprocess.Popen(
            [str(BIN / "sandbox-browser"), "serve", "--socket", self.socket, *(args or [])],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env,
        )
        self.log: List[str] = []
        ready = threading.Event()

        def read() -> None:
            assert self.process.stderr is not None
            for raw in self.process.stderr:
                line = raw.decode(errors="replace")
                self.log.append(line)
                if '"listening"' in line:
                    ready.set()
            ready.set()

        threading.Thread(target=read, daemon=True).start()
        if not ready.wait(START_TIMEOUT_S) or self.process.poll() is not None:
            self.stop()
            raise RuntimeError("the runtime did not start:\n" + "".join(self.log))

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.dir.cleanup()


class Pages:
    """`sb-pages`: the test pages on 127.0.0.1; `url(path)`."""

    def __init__(self) -> None:
        self.process = subprocess.Popen([str(BIN / "sb-pages")], stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
        assert self.process.stdout is not None
        self.base = self.process.stdout.readline().decode().strip()
        if not self.base:
            raise RuntimeError("sb-pages printed no URL")

    def url(self, path: str) -> str:
        return self.base.rstrip("/") + path

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(10)


@pytest.fixture(scope="session")
def runtime() -> Iterator[Runtime]:
    rt = Runtime()
    yield rt
    rt.stop()


@pytest.fixture(scope="session")
def pages() -> Iterator[Pages]:
    p = Pages()
    yield p
    p.stop()


def processes_naming(needle: str) -> List[int]:
    """Pids of the processes whose command line contains `needle`."""
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmdline = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if needle in cmdline and int(entry) != os.getpid():
            pids.append(int(entry))
    return pids
