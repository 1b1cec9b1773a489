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
