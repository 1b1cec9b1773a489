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
trap stop_runtime EXIT

# DEMO_DOCS picks the site to serve (default: the toolchain's Rust docs).
docs="${DEMO_DOCS:-$(rustc --print sysroot 2>/dev/null)/share/doc/rust/html}"
if [ ! -f "$docs/std/index.html" ]; then
    echo "==> the toolchain has no Rust docs; using the bundled site" >&2
    docs="$PWD/scripts/demo-site"
fi

echo "==> starting sandbox-browser serve (log: $work/supervisor.log)" >&2
start_runtime "$bin" "$work" "$docs"
echo "==> serving $docs at $base" >&2

# ctl METHOD [args...]: one request; prints nothing, leaves the response in $out.
ctl() {
    out=$("$bin/browserctl" --socket "$socket" "$@") || { echo "error: $out" >&2; exit 1; }
}
step() { printf '%-34s %6s ms  %s\n' "$1" "$(jq -r '.result.elapsed_ms' <<<"$out")" "$2"; }

ready_ms=$(grep -m1 '"browser_runtime_ready"' "$work/supervisor.log" | jq -r '.duration_ms')
printf '%-34s %6s ms  %s\n' "runtime ready (CDP probe)" "$ready_ms" "$(grep -m1 '"browser_runtime_ready"' "$work/supervisor.log" | jq -r '."browser.version"')"

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

# Search the docs the way an agent would: snapshot, act by ref, wait, snapshot again.
# ref_of PATTERN: the ref of the first snapshot line that matches PATTERN (extended regex).
# Prints nothing when no line matches.
ref_of() { jq -r '.result.snapshot' <<<"$out" | { grep -m1 -E "$1" || true; } | sed -E 's/.*\[ref=(e[0-9]+)\].*/\1/'; }
ctl page.goto --session "$session" url="$base/std/index.html"
step "page.goto std/index.html" "back to the index"
ctl page.snapshot --session "$session" interactive=true
step "page.snapshot interactive" "$(jq -r '.result.refs' <<<"$out") refs, $(jq -r '.result.chars' <<<"$out") chars"
search=$(ref_of 'link "Search"')
if [ -n "$search" ]; then
    ctl page.click --session "$session" ref="$search"
    step "page.click $search" "$(jq -r '.result.element' <<<"$out")"
    ctl page.snapshot --session "$session" interactive=true
fi
box=$(ref_of '(searchbox|textbox) ')
ctl page.type --session "$session" ref="$box" text=HashMap
step "page.type $box HashMap" "$(jq -r '.result.element' <<<"$out")"
ctl page.wait_for --session "$session" text="std::collections::HashMap"
step "page.wait_for results" "$(jq -r '.result.matched' <<<"$out")"
ctl page.snapshot --session "$session" scope="#search" interactive=true
step "page.snapshot scope=#search" "$(jq -r '.result.refs' <<<"$out") refs"
result=$(ref_of 'link "[^"]*std::collections::HashMap[ "]')
ctl page.click --session "$session" ref="$result"
step "page.click $result" "$(jq -r '.result.element' <<<"$out" | cut -c1-60)"
ctl page.wait_for --session "$session" url="**/collections/**/struct.HashMap.html"
step "page.wait_for HashMap page" "$(jq -r '.result.url' <<<"$out" | sed "s|$base||")"
ctl page.evaluate --session "$session" expression="(() => { const h = document.querySelector('h1').cloneNode(true); h.querySelectorAll('button').forEach(b => b.remove()); return h.textContent.trim(); })()"
step "page.evaluate (first heading)" "h1: $(jq -r '.result.value' <<<"$out")"
ctl page.screenshot --session "$session"
hashmap_shot=$(jq -r '.result.path' <<<"$out")
step "page.screenshot" "$(jq -r '"\(.result.width)x\(.result.height) px"' <<<"$out")"

ctl session.close --session "$session"
step "session.close" ""

kill -TERM "$supervisor_pid"
wait "$supervisor_pid"
supervisor_pid=""
echo "==> supervisor stopped cleanly"
echo "screenshot: $shot"
echo "screenshot: $hashmap_shot"
