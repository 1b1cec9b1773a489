#!/usr/bin/env bash
# Benchmarks (not tests): builds in release mode and prints, side by side from one run on the same
# Chromium, medians over repeated runs. Record the output in docs/benchmarks.md.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
. scripts/lib.sh
ensure_cargo
ensure_chromium
# playwright-core (npm) for the side-by-side hang figures, driving the same Chromium binary.
if ! command -v npm >/dev/null 2>&1; then ensure_packages nodejs npm; fi
if [ ! -d target/bench-js/node_modules/playwright-core ]; then
    npm install --silent --no-audit --no-fund --prefix target/bench-js playwright-core >&2
fi
# Playwright MCP (npm), for the agent workload through MCP, driven by the official MCP Python SDK.
if [ ! -x target/bench-js/node_modules/.bin/playwright-mcp ]; then
    npm install --silent --no-audit --no-fund --prefix target/bench-js @playwright/mcp@0.0.83 >&2
fi
# Python's documentation (Debian's python3.11-doc): the real site of the snapshot and concurrency tables.
if [ ! -f /usr/share/doc/python3.11-doc/html/index.html ]; then ensure_packages python3.11-doc; fi
ensure_venv target/venv
cargo build --release --locked --workspace --bins -q
# Both sides on one browser: SB_TEST_CHROMIUM's when set, else the runtime's default (the headless
# shell where it is installed, else Debian's chromium), for the MCP workload and sb-bench alike.
if [ -z "${SB_TEST_CHROMIUM:-}" ]; then
    SB_TEST_CHROMIUM=/usr/lib/chromium/chromium-headless-shell
    [ -x "$SB_TEST_CHROMIUM" ] || SB_TEST_CHROMIUM=/usr/lib/chromium/chromium
fi
export SB_TEST_CHROMIUM
# The directory whose children are cpu cgroups: cgroup v1's cpu hierarchy (with an argument: this
# process's cgroup in it), or cgroup v2's root once its children are given the cpu controller; nothing
# where neither is there.
cpu_cgroup_root() {
    if [ -n "$1" ]; then
        awk '$3 == "cgroup" && $4 ~ /(^|,)cpu(,|$)/ {print $2; exit}' /proc/mounts
    elif grep -qw cpu /sys/fs/cgroup/cgroup.controllers 2>/dev/null &&
        { grep -qw cpu /sys/fs/cgroup/cgroup.subtree_control ||
            echo +cpu 2>/dev/null >/sys/fs/cgroup/cgroup.subtree_control; }; then
        echo /sys/fs/cgroup
    fi
}
# Every program of the bench (both sides, the pages' servers, the busy processes) in one cpu cgroup of
# its own, as a container's programs are: Docker and Kubernetes give each container a cgroup, and the
# kernel's autogroups (a scheduling group a session, /proc/sys/kernel/sched_autogroup_enabled) apply to
# tasks of the root cgroup only, so in a container the CPU is shared thread by thread whatever the
# sessions. SB_BENCH_CGROUP=host runs the bench where it was started (on a host's root cgroup with
# autogroups on, each session takes an equal share first). The machine line says which.
enter_bench_cgroup() {
    local v1 current root
    v1=$(awk -F: '$2 ~ /(^|,)cpu(,|$)/ {print $3}' /proc/self/cgroup)
    current=${v1:-$(awk -F: '$1 == "0" {print $3}' /proc/self/cgroup)}
    if [ "${SB_BENCH_CGROUP:-}" = host ] || [ "$current" != / ]; then
        SB_BENCH_SCHED="cpu cgroup $current"
    elif root=$(cpu_cgroup_root "$v1") && [ -n "$root" ] && mkdir -p "$root/sandbox-browser-bench" 2>/dev/null &&
        echo $$ 2>/dev/null >"$root/sandbox-browser-bench/cgroup.procs"; then
        SB_BENCH_SCHED="cpu cgroup /sandbox-browser-bench (as in a container)"
    else
        SB_BENCH_SCHED="cpu cgroup / (no cgroup of its own could be made)"
    fi
    if [ "$(cat /proc/sys/kernel/sched_autogroup_enabled 2>/dev/null)" = 1 ]; then
        case $SB_BENCH_SCHED in
        "cpu cgroup / "* | "cpu cgroup /")
            SB_BENCH_SCHED="$SB_BENCH_SCHED; autogroups on: a session a group, if this is the host's root cgroup"
            ;;
        esac
    fi
    export SB_BENCH_SCHED
}
enter_bench_cgroup
# The agent workload through MCP (SB_BENCH_ONLY unset or mcp): ours and Playwright MCP side by side, on
# the Rust docs (the toolchain's, else the bundled copy), served locally.
if [ -z "${SB_BENCH_ONLY:-}" ] || [ "${SB_BENCH_ONLY:-}" = mcp ]; then
    docs="$(rustc --print sysroot 2>/dev/null)/share/doc/rust/html"
    [ -f "$docs/std/index.html" ] || docs="$PWD/scripts/demo-site"
    work=$(mktemp -d /tmp/sandbox-browser-bench.XXXXXX)
    trap 'stop_runtime; rm -rf "$work"' EXIT
    chromium=$SB_TEST_CHROMIUM
    SANDBOX_BROWSER_CHROMIUM=$chromium start_runtime "$PWD/target/release" "$work" "$docs"
    target/venv/bin/python scripts/bench/mcp-agent.py "$PWD/target/release/sandbox-browser" \
        "$PWD/target/bench-js/node_modules/.bin/playwright-mcp" "$chromium" "$base" "$socket"
    stop_runtime
fi
[ "${SB_BENCH_ONLY:-}" = mcp ] && exit 0
SB_BENCH_PLAYWRIGHT="$PWD/scripts/bench/playwright-hangs.cjs" \
    SB_BENCH_PLAYWRIGHT_INTERACTION="$PWD/scripts/bench/playwright-interaction.cjs" \
    SB_BENCH_PLAYWRIGHT_BUDGET="$PWD/scripts/bench/playwright-budget.cjs" \
    SB_BENCH_PLAYWRIGHT_SNAPSHOT="$PWD/scripts/bench/playwright-snapshot.cjs" \
    SB_BENCH_PLAYWRIGHT_LOADS="$PWD/scripts/bench/playwright-loads.cjs" \
    NODE_PATH="$PWD/target/bench-js/node_modules" \
    target/release/sb-bench
