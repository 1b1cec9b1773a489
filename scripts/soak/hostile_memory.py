"""The supervisor's memory after a flood of hostile frames (issue 57 §1's harder load; not in the suite).

Sends FRAMES malformed frames (default 10,000: 100k-deep nesting, lines past the 1 MiB cap, 900 KB
strings, wrong types, hostile paths) in pipelined batches of 500 over four connections at once, every
client closing without reading its answers, then prints the supervisor's RSS (MB) idle, at its peak,
and once a second for 20 s after the connections closed.

Usage: python3 scripts/soak/hostile_memory.py SOCKET SUPERVISOR_PID [FRAMES]
(start the runtime first, e.g. `target/release/sandbox-browser serve --socket /tmp/s/s.sock`).
"""

import json
import socket
import sys
import threading
import time

PER_CLIENT = 125
CLIENTS = 4


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def ask(conn: socket.socket, method: str) -> None:
    conn.sendall((json.dumps({"id": 1, "method": method}) + "\n").encode())
    answer = b""
    while not answer.endswith(b"\n"):
        answer += conn.recv(65536)


def frames() -> list[bytes]:
    deep = '{"id":1,"method":"page.goto","params":' + '{"a":' * 50000 + "1" + "}" * 50000 + "}"
    long_url = {"id": 4, "method": "page.goto", "params": {"url": "x" * 900000}}
    return [
        b"[" * 100000,
        deep.encode(),
        b"x" * (1100 * 1024),
        b'{"id":"a","method":"session.start","params":{"session_id":"../../etc"}}',
        b'{"id":2,"method":7}',
        b'{"id":3,"method":"page.extract","session_id":"../x","params":{"max_chars":1e999}}',
        json.dumps(long_url).encode(),
    ]


def send_unread(path: str, lines: bytes) -> None:
    conn = socket.socket(socket.AF_UNIX)
    conn.connect(path)
    try:
        conn.sendall(lines)
    except OSError:
        pass
    conn.close()


def main() -> None:
    path, pid = sys.argv[1], int(sys.argv[2])
    total = int(sys.argv[3]) if len(sys.argv) > 3 else 10000
    probe = socket.socket(socket.AF_UNIX)
    probe.connect(path)
    ask(probe, "runtime.stats")
    time.sleep(1)
    idle = peak = rss_mb(pid)
    kinds = frames()
    for batch in range(total // (PER_CLIENT * CLIENTS)):
        threads = []
        for client in range(CLIENTS):
            picks = (kinds[(batch * 7 + client * 3 + i) % len(kinds)] for i in range(PER_CLIENT))
            lines = b"".join(f + b"\n" for f in picks)
            thread = threading.Thread(target=send_unread, args=(path, lines))
            thread.start()
            threads.append(thread)
        for thread in threads:
            thread.join()
        peak = max(peak, rss_mb(pid))
    probe.close()
    after = []
    for _ in range(20):
        time.sleep(1)
        after.append(round(rss_mb(pid), 1))
    print(f"rss MB: idle {idle:.1f}, peak {peak:.1f}, each second after: {after}")


if __name__ == "__main__":
    main()
