#!/usr/bin/env bash
# The main job: start the runtime and drive a real page end to end.
#
# Installs Chromium (Debian's package) and jq when missing, builds in release mode, starts
# `sandbox-browser serve`, serves the Rust documentation that ships with the toolchain (a small bundled
# site when absent) on a loopback port, drives one session through `browserctl`, and stops the
# supervisor cleanly. Each step is printed with its elapsed ms.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
. scripts/lib.sh
ensure_cargo
ensure_chromium
ensure_packages jq

echo "==> building (release)" >&2
cargo build --release --locked --bins -q
bin=target/release

work=$(mktemp -d /tmp/sandbox-browser-demo.XXXXXX)
socket="$work/browser.sock"
supervisor_pid=""
pages_pid=""
cleanup() {
    if [ -n "$pages_pid" ]; then kill "$pages_pid" 2>/dev/null || true; fi
    if [ -n "$supervisor_pid" ] && kill -0 "$supervisor_pid" 2>/dev/null; then
        kill -TERM "$supervisor_pid" 2>/dev/null || true
        wait "$supervisor_pid" 2>/dev/null || true
    fi
}
trap cleanup EXIT

docs="$(rustc --print sysroot 2>/dev/null)/share/doc/rust/html"
if [ ! -f "$docs/std/index.html" ]; then
    echo "==> the toolchain has no Rust docs; using the bundled site" >&2
    docs="$PWD/scripts/demo-site"
fi

echo "==> starting sandbox-browser serve (log: $work/supervisor.log)" >&2
"$bin/sandbox-browser" serve --socket "$socket" --artifacts "$work/artifacts" 2>"$work/supervisor.log" &
supervisor_pid=$!
# The socket appears only once Chromium passed both probes.
for _ in $(seq 600); do
    [ -S "$socket" ] && break
    kill -0 "$supervisor_pid" 2>/dev/null || { cat "$work/supervisor.log" >&2; exit 1; }
    sleep 0.05
done
[ -S "$socket" ] || { echo "error: the runtime did not become ready" >&2; exit 1; }

"$bin/sb-pages" "$docs" >"$work/pages.url" &
pages_pid=$!
for _ in $(seq 200); do [ -s "$work/pages.url" ] && break; sleep 0.05; done
base=$(head -n1 "$work/pages.url")
echo "==> serving $docs at $base" >&2

# ctl METHOD [args...]: one request; prints nothing, leaves the response in $out.
ctl() {
    out=$("$bin/browserctl" --socket "$socket" "$@") || { echo "error: $out" >&2; exit 1; }
}
step() { printf '%-34s %6s ms  %s\n' "$1" "$(jq -r '.result.elapsed_ms' <<<"$out")" "$2"; }

ready_ms=$(grep -m1 '"browser_runtime_ready"' "$work/supervisor.log" | jq -r '.duration_ms')
printf '%-34s %6s ms  %s\n' "runtime ready (both probes)" "$ready_ms" "$(grep -m1 '"browser_runtime_ready"' "$work/supervisor.log" | jq -r '."browser.version"')"

ctl session.start
session=$(jq -r '.result.session_id' <<<"$out")
step "session.start" "session $session, target $(jq -r '.result.target_id' <<<"$out")"

ctl page.goto --session "$session" url="$base/std/index.html"
step "page.goto std/index.html" "\"$(jq -r '.result.title' <<<"$out")\" (HTTP $(jq -r '.result.status' <<<"$out"))"

ctl page.extract --session "$session" format=text max_chars=400
step "page.extract text" "$(jq -r '.result.chars' <<<"$out") chars"
jq -r '.result.content' <<<"$out" | tr -s '\n' | head -n 8 | sed 's/^/    | /'

ctl page.goto --session "$session" url="$base/std/iter/trait.Iterator.html"
step "page.goto trait.Iterator.html" "load_state $(jq -r '.result.load_state' <<<"$out")"

ctl page.extract --session "$session" format=text max_chars=100
step "page.extract (title)" "title: $(jq -r '.result.title' <<<"$out")"

ctl page.evaluate --session "$session" expression="(() => { const h = document.querySelector('h1').cloneNode(true); h.querySelectorAll('button').forEach(b => b.remove()); return h.textContent.trim(); })()"
step "page.evaluate (first heading)" "h1: $(jq -r '.result.value' <<<"$out")"

ctl page.screenshot --session "$session" full_page=true
shot=$(jq -r '.result.path' <<<"$out")
step "page.screenshot full_page" "$(jq -r '"\(.result.width)x\(.result.height) px, \(.result.bytes) bytes\(if .result.truncated then " (cut at max_height)" else "" end)"' <<<"$out")"

ctl session.close --session "$session"
step "session.close" ""

kill -TERM "$supervisor_pid"
wait "$supervisor_pid"
supervisor_pid=""
echo "==> supervisor stopped cleanly"
echo "screenshot: $shot"
