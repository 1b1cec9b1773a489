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

# Chromium from Debian's package, plus fonts so pages render text.
ensure_chromium() {
    if [ ! -x /usr/lib/chromium/chromium ]; then
        ensure_packages chromium fonts-liberation
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
