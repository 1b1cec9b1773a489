#!/usr/bin/env bash
# The soak (not in the suite; figures in docs/operations.md): 16 sessions loop goto -> snapshot -> click
# on Python's documentation (Debian's python3.11-doc, served from loopback) for SOAK_SECONDS (600),
# with a renderer killed and a worker killed every minute. Prints the supervisor's and the workers'
# RSS, file descriptors, threads, CDP sessions and the artifacts dir every 30 s, then checks that each
# is within 10% (or a small absolute slack) of its 2-minute figure at the end, that every answer came
# within its budget + 250 ms, and that no browser or worker process outlives the runtime.
# Usage: scripts/soak.sh   (SOAK_SECONDS=120 for a short run)
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
. scripts/lib.sh
ensure_cargo
ensure_chromium
if [ ! -f /usr/share/doc/python3.11-doc/html/index.html ]; then ensure_packages python3.11-doc; fi
cargo build --release --locked --bins -q
work=$(mktemp -d /tmp/sandbox-browser-soak.XXXXXX)
trap 'stop_runtime; rm -rf "$work"' EXIT
start_runtime "$PWD/target/release" "$work" /usr/share/doc/python3.11-doc/html
status=0
python3 scripts/soak/soak.py "$socket" "$base/index.html" "$supervisor_pid" "$work/artifacts" \
    "${SOAK_SECONDS:-600}" || status=$?
stop_runtime
# No orphans: nothing of the runtime's (its browser, its workers) is left once it stopped.
left=$(pgrep -f -- "$work" || true)
if [ -n "$left" ]; then
    echo "FAIL: processes left after the runtime stopped: $left" >&2
    status=1
else
    echo "no orphans: nothing of the runtime's is left after it stopped"
fi
exit "$status"
