#!/usr/bin/env bash
# The whole test suite: installs Chromium from Debian's package and cargo-nextest when missing, builds
# the binaries the end-to-end tests run, then runs every Rust test in the workspace (unit, CDP, end to
# end on real Chromium) with cargo-nextest (.config/nextest.toml: a process per test, four at once, the
# slowest first, a hung test ended at 4 minutes) and, beside it, the Python tests (tests/python: the
# Python client, and the MCP server driven by the official MCP Python SDK) with pytest in a venv it
# creates under target/, started as soon as the binaries they run are built, and the doc tests.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
. scripts/lib.sh
ensure_cargo
ensure_chromium
ensure_nextest
rust_log=$(mktemp)
python_log=$(mktemp)
doc_log=$(mktemp)
venv_log=$(mktemp)
trap 'rm -f "$rust_log" "$python_log" "$doc_log" "$venv_log"' EXIT
# The Python tests' venv (pip, from the network) is made while the binaries compile.
ensure_venv target/venv >"$venv_log" 2>&1 &
venv=$!
# A first build (a fresh clone) has nothing to reuse: incremental compilation's bookkeeping only
# costs it (about 25 s of a clean build's 160 to 190 s on 2 cores, measured side by side); later runs
# keep it, for their small rebuilds.
if [ ! -d target/debug ]; then export CARGO_INCREMENTAL=0; fi
# The binaries the tests start (the runtime, browserctl, the test page server); the benchmark's is
# built by .ci/run's release build and by clippy.
cargo build --locked --bin sandbox-browser --bin browserctl --bin sb-pages
if ! wait "$venv"; then
    cat "$venv_log" >&2
    echo "the Python tests' venv (target/venv) could not be made" >&2
    exit 1
fi
# The Python tests need only those: they run while the Rust tests build and then run beside them
# (they mostly wait on their runtimes); each side's output is shown whole once it ends.
(cd tests/python && PYTHONDONTWRITEBYTECODE=1 exec ../../target/venv/bin/python -m pytest -q -p no:cacheprovider) \
    >"$python_log" 2>&1 &
python=$!
status=0
cargo nextest run --workspace --locked --no-run || status=$?
cargo nextest run --workspace --locked >"$rust_log" 2>&1 &
rust=$!
# The doc tests compile and run beside the Rust tests, once nextest has its test binaries and cargo's
# build lock is free again: those tests leave about a tenth of the two cores idle (they wait on
# browsers and deadlines).
while kill -0 "$rust" 2>/dev/null && ! grep -q "Starting" "$rust_log"; do sleep 0.2; done
cargo test --doc --workspace --locked >"$doc_log" 2>&1 || status=$?
wait "$rust" || status=$?
wait "$python" || status=$?
cat "$python_log"
cat "$rust_log"
cat "$doc_log"
# One closing line for the whole suite: nextest's summary ("354 tests run: 352 passed, 2 failed"),
# the doc tests' ("test result: ok. 2 passed; 0 failed") and pytest's ("3 failed, 9 passed in 17.2s").
awk '/tests? run: / { for (i = 1; i <= NF; i++) { if ($i ~ /^passed/) p += $(i-1); if ($i ~ /^(failed|timed)/) f += $(i-1) } }
     /^test result:/ { for (i = 1; i <= NF; i++) { if ($i == "passed;") p += $(i-1); if ($i == "failed;") f += $(i-1) } }
     /^[0-9]+ (passed|failed).* in [0-9.]+s/ { for (i = 1; i <= NF; i++) { if ($i ~ /^passed/) p += $(i-1); if ($i ~ /^(failed|error)/) f += $(i-1) } }
     END { printf "%d passed, %d failed (Rust and Python)\n", p, f }' "$rust_log" "$doc_log" "$python_log"
exit "$status"
