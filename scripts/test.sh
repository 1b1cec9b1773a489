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
cargo test --workspace --locked
