#!/usr/bin/env bash
# The container entrypoint: validate the environment, print the doctor's summary, then exec
# `sandbox-browser serve` so that it is PID 1's direct replacement and receives SIGTERM/SIGINT itself.
#
# Environment (all optional):
#   SANDBOX_BROWSER_BIN          the sandbox-browser executable      [sandbox-browser on PATH]
#   SANDBOX_BROWSER_SOCKET       the harness socket                  [/run/sandbox-browser/browser.sock]
#   SANDBOX_BROWSER_RUNTIME_DIR  browser profiles, session store     [the socket's directory]
#   SANDBOX_BROWSER_ARTIFACTS    screenshots                         [<runtime dir>/artifacts]
#   SANDBOX_BROWSER_CONFIG       a TOML configuration file (docs/configuration.md; read by serve)
#   SANDBOX_BROWSER_NO_SANDBOX   true|false|auto: run Chromium with --no-sandbox (always as root); auto:
#                                only when the kernel denies user namespaces (Docker's default seccomp
#                                profile on many hosts), with a note on stderr [auto]
#   SANDBOX_BROWSER_LOG_FORMAT   json|text                           [json]
#   SANDBOX_BROWSER_DOCTOR       true|false: run the doctor's quick pass first [true]
# Extra arguments are passed on to `serve`.
set -euo pipefail

fail() {
    echo "sandbox-browser-entrypoint: $*" >&2
    exit 64
}

bool() { # NAME VALUE [DEFAULT]: prints true or false (or auto, when allowed), or fails naming the variable.
    case "${2,,}" in
        1 | true | yes | on) echo true ;;
        0 | false | no | off) echo false ;;
        "") echo "${3:-false}" ;;
        auto) if [ "${3:-}" = auto ]; then echo auto; else fail "$1 must be true or false, not '$2'"; fi ;;
        *) fail "$1 must be true or false${3:+ or auto}, not '$2'" ;;
    esac
}

bin=${SANDBOX_BROWSER_BIN:-sandbox-browser}
if ! command -v "$bin" >/dev/null 2>&1; then
    fail "SANDBOX_BROWSER_BIN: '$bin' is not an executable on PATH"
fi
socket=${SANDBOX_BROWSER_SOCKET:-/run/sandbox-browser/browser.sock}
case "$socket" in
    /*) ;;
    *) fail "SANDBOX_BROWSER_SOCKET must be an absolute path, not '$socket'" ;;
esac
log_format=${SANDBOX_BROWSER_LOG_FORMAT:-json}
case "$log_format" in
    json | text) ;;
    *) fail "SANDBOX_BROWSER_LOG_FORMAT must be json or text, not '$log_format'" ;;
esac
no_sandbox=$(bool SANDBOX_BROWSER_NO_SANDBOX "${SANDBOX_BROWSER_NO_SANDBOX:-}" auto)
if [ "$no_sandbox" = auto ]; then
    no_sandbox=false
    if [ "$(id -u)" -ne 0 ] && ! unshare --user true 2>/dev/null; then
        no_sandbox=true
        echo "sandbox-browser-entrypoint: user namespaces are denied here: Chromium runs with --no-sandbox (the container is the sandbox); set SANDBOX_BROWSER_NO_SANDBOX=false to refuse instead" >&2
    fi
fi
doctor=$(bool SANDBOX_BROWSER_DOCTOR "${SANDBOX_BROWSER_DOCTOR:-true}")
if [ -n "${SANDBOX_BROWSER_CONFIG:-}" ] && [ ! -r "$SANDBOX_BROWSER_CONFIG" ]; then
    fail "SANDBOX_BROWSER_CONFIG: cannot read '$SANDBOX_BROWSER_CONFIG'"
fi

args=(--socket "$socket" --log-format "$log_format")
[ -n "${SANDBOX_BROWSER_RUNTIME_DIR:-}" ] && args+=(--runtime-dir "$SANDBOX_BROWSER_RUNTIME_DIR")
[ -n "${SANDBOX_BROWSER_ARTIFACTS:-}" ] && args+=(--artifacts "$SANDBOX_BROWSER_ARTIFACTS")
[ "$no_sandbox" = true ] && args+=(--no-sandbox)

# Until serve replaces this shell, this shell is PID 1, which ignores signals it has no handler for: a
# `docker stop` during the doctor's pass would be lost (and the container killed 10 s later).
trap 'exit 143' TERM
trap 'exit 130' INT
if [ "$doctor" = true ]; then
    doctor_args=(--socket "$socket")
    # JSON logs stay one JSON object a line: the summary too.
    [ "$log_format" = json ] && doctor_args+=(--json)
    [ -n "${SANDBOX_BROWSER_RUNTIME_DIR:-}" ] && doctor_args+=(--runtime-dir "$SANDBOX_BROWSER_RUNTIME_DIR")
    [ -n "${SANDBOX_BROWSER_ARTIFACTS:-}" ] && doctor_args+=(--artifacts "$SANDBOX_BROWSER_ARTIFACTS")
    [ "$no_sandbox" = true ] && doctor_args+=(--no-sandbox)
    # --quick: static checks only (serve launches and probes the browser itself a moment later, and no
    # supervisor runs yet to be asked).
    if ! summary=$("$bin" doctor --quick "${doctor_args[@]}" 2>&1); then
        echo "$summary" >&2
        fail "the doctor found a failed check (above); fix it, or set SANDBOX_BROWSER_DOCTOR=false to skip"
    fi
    echo "$summary" >&2
fi

trap - TERM INT
exec "$bin" serve "${args[@]}" "$@"
