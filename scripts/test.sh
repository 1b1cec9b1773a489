#!/usr/bin/env bash
# The whole test suite: installs Chromium from Debian's package when missing, builds the binaries the
# end-to-end tests run, then runs every test in the workspace (unit, CDP, end to end on real Chromium),
# then the Python tests (tests/python: the Python client, and the MCP server driven by the official MCP
# Python SDK) with pytest in a venv it creates under target/.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
. scripts/lib.sh
ensure_cargo
ensure_chromium
cargo build --workspace --bins --locked
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
cargo test --workspace --locked 2>&1 | tee "$log" || status=$?
ensure_venv target/venv
(cd tests/python && PYTHONDONTWRITEBYTECODE=1 ../../target/venv/bin/python -m pytest -q -p no:cacheprovider) 2>&1 | tee -a "$log" || status=$?
# One closing line for the whole suite: cargo's test binaries and pytest's summary ("3 failed, 9 passed in
# 17.2s"); cargo's own last line is often a doc-test run of 0 tests.
awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($i == "passed;") p += $(i-1); if ($i == "failed;") f += $(i-1) } }
     /^[0-9]+ (passed|failed).* in [0-9.]+s/ { for (i = 1; i <= NF; i++) { if ($i ~ /^passed/) p += $(i-1); if ($i ~ /^(failed|error)/) f += $(i-1) } }
     END { printf "%d passed, %d failed (Rust and Python)\n", p, f }' "$log"
exit "$status"
