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
cargo build --release --locked --workspace --bins -q
SB_BENCH_PLAYWRIGHT="$PWD/scripts/bench/playwright-hangs.cjs" \
    SB_BENCH_PLAYWRIGHT_INTERACTION="$PWD/scripts/bench/playwright-interaction.cjs" \
    SB_BENCH_PLAYWRIGHT_BUDGET="$PWD/scripts/bench/playwright-budget.cjs" \
    SB_BENCH_PLAYWRIGHT_SNAPSHOT="$PWD/scripts/bench/playwright-snapshot.cjs" \
    NODE_PATH="$PWD/target/bench-js/node_modules" \
    exec target/release/sb-bench
