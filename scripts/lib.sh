# Shared by scripts/*.sh: install what the project needs on a fresh Debian machine.
# shellcheck shell=bash

# Runs a command as root (directly, or through sudo when available).
as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null 2>&1; then sudo "$@"; else
        echo "error: '$*' needs root; run it as root or install sudo" >&2
        return 1
    fi
}

# Installs Debian packages that are missing (never downloads a browser build of its own).
ensure_packages() {
    local missing=()
    local pkg
    for pkg in "$@"; do
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
    done
    if [ "${#missing[@]}" -gt 0 ]; then
        echo "==> installing Debian packages: ${missing[*]}" >&2
        as_root apt-get update -qq
        as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
    fi
}

# Chromium from Debian's packages, plus fonts so pages render text: the headless shell (the runtime's
# default browser where installed) and the full browser beside it (`[browser] path`, the tests of both).
ensure_chromium() {
    if [ ! -x /usr/lib/chromium/chromium ] || [ ! -x /usr/lib/chromium/chromium-headless-shell ]; then
        ensure_packages chromium chromium-headless-shell fonts-liberation
    fi
}

# The Rust toolchain must already be there (Debian's own cargo is too old for the dependencies).
ensure_cargo() {
    if ! command -v cargo >/dev/null 2>&1; then
        # shellcheck disable=SC1091
        [ -f "$HOME/.cargo/env" ] && . "$HOME/.cargo/env"
    fi
    if ! command -v cargo >/dev/null 2>&1; then
        echo "error: cargo not found; install Rust with rustup (https://rustup.rs), then run this again" >&2
        exit 2
    fi
}

# ensure_venv DIR: a Python venv at DIR with tests/python/requirements.txt installed (the official MCP
# SDK and pytest, pinned) and the Python client (clients/python) installed from its source. Needs
# python3 (3.9+) with venv, from Debian's packages when missing.
ensure_venv() {
    local venv=$1
    if ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then
        ensure_packages python3 python3-venv
    fi
    if [ ! -x "$venv/bin/python" ]; then
        python3 -m venv "$venv"
    fi
    if ! cmp -s tests/python/requirements.txt "$venv/requirements.txt"; then
        "$venv/bin/pip" install --quiet --disable-pip-version-check -r tests/python/requirements.txt
        cp tests/python/requirements.txt "$venv/requirements.txt"
    fi
    "$venv/bin/pip" install --quiet --disable-pip-version-check --force-reinstall --no-deps ./clients/python
}

# cargo-machete (lists dependencies a crate declares but never uses), built once into ~/.cargo/bin.
ensure_machete() {
    if ! command -v cargo-machete >/dev/null 2>&1; then
        echo "==> installing cargo-machete" >&2
        cargo install --locked --quiet cargo-machete
    fi
}

# ensure_nextest: cargo-nextest, which runs the suite (scripts/test.sh), from crates.io when missing.
ensure_nextest() {
    if ! cargo nextest --version >/dev/null 2>&1; then
        echo "==> installing cargo-nextest" >&2
        cargo install --locked --quiet cargo-nextest
    fi
}

# start_runtime BIN WORK [SITE]: starts `BIN/sandbox-browser serve` on WORK/browser.sock (log in
# WORK/supervisor.log, screenshots in WORK/artifacts) and `BIN/sb-pages [SITE]`; returns once the socket
# exists (the browser answered on its CDP pipe) and the page server printed its URL. Sets supervisor_pid, pages_pid,
# socket and base. Fails with the supervisor's log when it exits first. The caller stops both.
start_runtime() {
    local bin=$1 work=$2 site=${3:-}
    socket="$work/browser.sock"
    # SB_CONFIG (optional): a config file for the runtime.
    "$bin/sandbox-browser" serve --socket "$socket" --artifacts "$work/artifacts" ${SB_CONFIG:+--config "$SB_CONFIG"} \
        2>"$work/supervisor.log" &
    supervisor_pid=$!
    if [ -n "$site" ]; then "$bin/sb-pages" "$site" >"$work/pages.url" & else "$bin/sb-pages" >"$work/pages.url" & fi
    pages_pid=$!
    local _
    for _ in $(seq 600); do
        [ -S "$socket" ] && [ -s "$work/pages.url" ] && break
        kill -0 "$supervisor_pid" 2>/dev/null || { cat "$work/supervisor.log" >&2; return 1; }
        sleep 0.05
    done
    [ -S "$socket" ] || { echo "error: the runtime did not become ready" >&2; return 1; }
    # shellcheck disable=SC2034 # for the caller
    base=$(head -n1 "$work/pages.url")
}

# stop_runtime: stops what start_runtime started (SIGTERM to the supervisor, which stops Chromium).
stop_runtime() {
    if [ -n "${pages_pid:-}" ]; then kill "$pages_pid" 2>/dev/null || true; fi
    if [ -n "${supervisor_pid:-}" ] && kill -0 "$supervisor_pid" 2>/dev/null; then
        kill -TERM "$supervisor_pid" 2>/dev/null || true
        wait "$supervisor_pid" 2>/dev/null || true
    fi
}
