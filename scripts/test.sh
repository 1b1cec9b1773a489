#!/usr/bin/env bash
# The whole test suite: installs Chromium from Debian's package when missing, builds the binaries the
# end-to-end tests run, then runs every test in the workspace (unit, CDP, end to end on real Chromium).
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
# One closing line for the whole workspace (cargo's own last line is often a doc-test run of 0 tests).
awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($i == "passed;") p += $(i-1); if ($i == "failed;") f += $(i-1) } }
     END { printf "%d passed, %d failed\n", p, f }' "$log"
exit "$status"
