#!/usr/bin/env bash
# Benchmarks (not tests): builds in release mode and prints, side by side from one run on the same
# Chromium, medians over repeated runs. Record the output in docs/benchmarks.md.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
. scripts/lib.sh
ensure_cargo
ensure_chromium
cargo build --release --locked --workspace --bins -q
exec target/release/sb-bench
