"""The soak's driver (scripts/soak.sh): sessions looping goto -> snapshot -> click, faults every
minute, the runtime's resources sampled, and the checks. Standard library and the Python client only."""

import os
import re
import signal
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "clients", "python"))
from sandbox_browser import BrowserError, Client

SESSIONS = 16
BUDGET_MS = 30_000
LATE_MS = 250

socket_path, index, supervisor_pid, artifacts, seconds = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
stop = threading.Event()
late: list = []
errors: dict = {}
actions = [0]
lock = threading.Lock()


def timed(call):
    """Runs one call; records it when it answered past its budget + 250 ms, and its error code."""
    t = time.monotonic()
    try:
        return call()
    except BrowserError as e:
        with lock:
            errors[e.code] = errors.get(e.code, 0) + 1
        return None
    finally:
        took = (time.monotonic() - t) * 1000
        with lock:
            actions[0] += 1
            if took > BUDGET_MS + LATE_MS:
                late.append(round(took))


def loop(n: int) -> None:
    c = Client(socket_path)
    sid = f"soak{n}"
    c.session_start(session_id=sid)
    while not stop.is_set():
        timed(lambda: c.goto(sid, index, timeout_ms=BUDGET_MS))
        snap = timed(lambda: c.snapshot(sid, timeout_ms=BUDGET_MS))
        if snap is None:
            continue
        found = re.search(r'link "Glossary" \[ref=(e\d+)\]', snap.snapshot)
        if found:
            ref = found.group(1)
            timed(lambda ref=ref: c.click(sid, ref=ref, timeout_ms=BUDGET_MS))
    c.session_close(sid)


def children(pid: int) -> list:
    """Every descendant of pid."""
    out = subprocess.run(["ps", "-e", "-o", "pid=,ppid=,args="], capture_output=True, text=True, check=True).stdout
    table = [line.split(None, 2) for line in out.splitlines() if line.strip()]
    found, frontier = [], [pid]
    while frontier:
        parent = frontier.pop()
        for row in table:
            if len(row) >= 2 and int(row[1]) == parent:
                found.append((int(row[0]), row[2] if len(row) > 2 else ""))
                frontier.append(int(row[0]))
    return found


def status_field(pid: int, name: str) -> int:
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith(name + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def sample(c: Client) -> dict:
    kids = children(supervisor_pid)
    workers = [p for p, args in kids if " worker" in args and "sandbox-browser" in args]
    try:
        fds = len(os.listdir(f"/proc/{supervisor_pid}/fd"))
    except OSError:
        fds = 0
    size = 0
    for root, _, files in os.walk(artifacts):
        for f in files:
            try:
                size += os.path.getsize(os.path.join(root, f))
            except OSError:
                pass
    stats = c.call("runtime.stats")
    return {
        "supervisor_rss_mb": status_field(supervisor_pid, "VmRSS") / 1024,
        "workers_rss_mb": sum(status_field(w, "VmRSS") for w in workers) / 1024,
        "workers": len(workers),
        "fds": fds,
        "threads": status_field(supervisor_pid, "Threads"),
        "cdp_sessions": stats.get("cdp_sessions", 0),
        "artifacts_kb": size / 1024,
    }


def fault(minute: int) -> str:
    """A renderer killed and a worker killed."""
    kids = children(supervisor_pid)
    renderers = [p for p, args in kids if "--type=renderer" in args]
    workers = [p for p, args in kids if " worker" in args and "sandbox-browser" in args]
    done = []
    if renderers:
        os.kill(renderers[minute % len(renderers)], signal.SIGKILL)
        done.append("renderer")
    if workers:
        os.kill(workers[minute % len(workers)], signal.SIGKILL)
        done.append("worker")
    return "+".join(done)


def main() -> int:
    threads = [threading.Thread(target=loop, args=(n,)) for n in range(SESSIONS)]
    for t in threads:
        t.start()
    c = Client(socket_path)
    start = time.monotonic()
    marks: dict = {}
    next_fault, next_sample, minute = 60.0, 0.0, 0
    print(f"{'t s':>5} {'sup MB':>7} {'workers MB':>10} {'workers':>7} {'fds':>5} {'threads':>7} {'cdp':>5} {'artifacts KB':>12} {'actions':>8}")
    while (now := time.monotonic() - start) < seconds:
        if now >= next_fault:
            minute += 1
            print(f"{now:5.0f} fault: {fault(minute)}")
            next_fault += 60
        if now >= next_sample:
            s = sample(c)
            marks[round(now)] = s
            print(f"{now:5.0f} {s['supervisor_rss_mb']:7.1f} {s['workers_rss_mb']:10.1f} {s['workers']:7} {s['fds']:5} {s['threads']:7} {s['cdp_sessions']:5} {s['artifacts_kb']:12.0f} {actions[0]:8}", flush=True)
            next_sample += 30
        time.sleep(1)
    end = sample(c)
    stop.set()
    for t in threads:
        t.join()
    two = min(marks.items(), key=lambda kv: abs(kv[0] - 120))[1]
    failures = []
    # Within 10% of the 2-minute figure, or a small absolute slack (a few MB, descriptors, threads).
    slack = {"supervisor_rss_mb": 4, "workers_rss_mb": 16, "fds": 8, "threads": 2, "cdp_sessions": 2, "artifacts_kb": 64, "workers": 0}
    for key, was in two.items():
        now_v = end[key]
        if now_v > was * 1.10 + slack[key]:
            failures.append(f"{key}: {was:.1f} at 2 min, {now_v:.1f} at the end")
    print(f"actions {actions[0]}, errors by code {errors}, answers past budget + {LATE_MS} ms: {late or 'none'}")
    print(f"at 2 min: {two}")
    print(f"at the end: {end}")
    if late:
        failures.append(f"{len(late)} answers past their budget + {LATE_MS} ms")
    for f in failures:
        print("FAIL:", f)
    if not failures:
        print("flat: every figure within 10% of its 2-minute mark; every answer within its budget")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
