#!/usr/bin/env bash
# Regenerates docs/protocol.md: every method of the harness API with a request and its response, taken
# from a real run against the local test pages. Needs the debug binaries (scripts/test.sh builds them).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
. scripts/lib.sh
ensure_cargo
ensure_chromium
ensure_packages jq
cargo build --workspace --bins --locked -q
bin=target/debug
work=$(mktemp -d)
trap 'stop_runtime; rm -rf "$work"' EXIT
# Uploads come from a directory of the runtime's configuration, with one file in it.
mkdir -p "$work/uploads"
printf 'name,role\nAda,engineer\n' >"$work/uploads/team.csv"
printf '[files]\nuploads_dir = "%s"\n' "$work/uploads" >"$work/config.toml"
SB_CONFIG="$work/config.toml" start_runtime "$bin" "$work"

out=docs/protocol.md
id=0
# example TITLE METHOD [SESSION] PARAMS_JSON [TIMEOUT_MS]: one request line and its response line.
example() {
    local title=$1 method=$2 session=$3 params=$4 timeout=${5:-}
    id=$((id + 1))
    local req
    req=$(jq -cn --argjson id "$id" --arg m "$method" --arg s "$session" --argjson p "$params" --arg t "$timeout" \
        '{id: $id, method: $m} + (if $s == "" then {} else {session_id: $s} end)
         + (if $t == "" then {} else {timeout_ms: ($t | tonumber)} end) + (if $p == {} then {} else {params: $p} end)')
    local shown=${req//$base/http:\/\/127.0.0.1:PORT}
    local args=("$method")
    [ -n "$session" ] && args+=(--session "$session")
    [ -n "$timeout" ] && args+=(--timeout-ms "$timeout")
    [ "$params" != "{}" ] && args+=(--params "$params")
    local res
    res=$("$bin/browserctl" --socket "$socket" "${args[@]}" || true)
    res=$(jq -c --argjson id "$id" '.id = $id | if .result.data then .result.data = "<base64 elided>" else . end' <<<"$res" \
        | sed "s|$base|http://127.0.0.1:PORT|g; s|$work|/run/sandbox-browser|g")
    local fence='```'
    printf '### %s\n\n%sjson\n%s\n%s\n%s\n\n' "$title" "$fence" "$shown" "$res" "$fence" >>"$out"
}

cat >"$out" <<'MD'
# Protocol

Newline-delimited JSON on the supervisor's Unix socket (mode 0600). One request a line, one response a
line; several requests may be in flight on one connection and responses come back as they complete,
paired by `id` (a number or a string, echoed back). A line that could not be read is answered with
`"id": null`.

- Request: `{"id", "method", "session_id"?, "session_token"?, "timeout_ms"?, "params"?}`. `session_id`
  names the session a `page.*` method (and `session.close`) acts on; `session_token` is the one
  `session.start` returned (required on a session's calls with `[limits] session_tokens`; the clients
  send it by themselves). A parameter the method does not take is refused
  (`bad_request` naming it, the accepted ones and the closest name); every method's params and result
  are in the API's JSON Schema, [api.schema.json](api.schema.json) (`sandbox-browser schema`).
- Response: `{"id", "ok": true, "result": {..., "elapsed_ms"}}` or
  `{"id", "ok": false, "error": {"code", "message", "phase", "retryable", "hint"?}}`; the codes and phases are
  in [errors.md](errors.md).
- Budget: `timeout_ms` is the one end-to-end deadline of the request, clamped to 1000..120000 ms (both
  configurable); absent, the method's default applies (`page.goto` 15000, `page.wait_for` 20000, others
  8000). It belongs to the action: an action that cannot finish answers `timeout` (`timed_out` for a
  navigation) at its deadline, within 100 ms of it either way, and the session's next action works: it
  waits, inside its own budget, for the tab to be freed after that answer and says so
  (`"waited_for_recovery_ms"`). See the budget rules and the escalation ladder in
  [architecture.md](architecture.md).
- `page.snapshot` is Playwright's aria snapshot (`locator('body').ariaSnapshot()`), line for line,
  in YAML (keys, text and URLs quoted as Playwright's serializer quotes them). It differs on purpose
  in these ways only: refs (`[ref=eN]`) on interactive roles, iframes and named content roles; an
  iframe's content (a `<frameset>`'s `<frame>`s are iframes too) nested under its `- iframe [ref=eN]:` line
  (Playwright leaves it out); the options
  (`interactive`, `compact`, `max_depth`, `scope`, `max_chars`, `diff`); and marker lines
  (`- note "the page is still loading; ..."`, `- note "the page is empty"`, `- ... N more lines cut at
  max_chars=...`). An element keeps its ref across snapshots of its document; a removed
  element's ref answers `stale_ref`. `tokens_estimate` is `chars / 4` rounded up. `{"diff": true}`
  answers only the lines that changed since the previous snapshot of the same document with the same
  options, marked `+ ` (added) and `- ` (removed) under their unchanged parents (marked with two
  spaces), or the whole snapshot for a new document (`"diff"` is then absent). A cross-origin iframe
  whose renderer does not answer within 3 s (stuck in a script or a synchronous request) is shown
  without content (`- iframe [ref=eN]`), as Playwright shows a frame it cannot read, and the snapshot
  answers with the rest of the page instead of at its deadline.
- Input actions that start a navigation wait for it to commit and say where it went
  (`"navigated_to"`; `"navigation_pending": true` when it had not committed at the deadline). A snapshot
  of a page still loading says `"loading": true`.
- An input action (click, type, fill, press, hover, select, check, drag) answers as soon as its effects
  are known: the navigation it started has committed, or the requests it started are answered (at most
  2 s). `"settle_ms": N` on any input waits N ms more of the page's own time
  (capped by the budget): a window in which a dialog its handlers raise counts as the input's (the MCP
  tools give their inputs 200 ms).
- Page actions list the JavaScript dialogs they answered in `dialogs` (absent when there were none). A
  dialog that opens between actions (a timer an earlier click started) is answered by the session's
  policy at once and listed in the session's next result; `page.wait_for {"dialog": true}` waits for
  one. A `prompt` reports its `default_value`. A dialog of a popup not yet focused (`tabs.focus`) is
  answered the same way (`page.handle_dialog`'s answer for the next dialog of any of the session's
  tabs, else dismissed, `beforeunload` accepted) and listed in the session's next result; it meets a
  `page.wait_for {"dialog": true}` too. A result lists at most 20 dialogs, each text cut to 1000
  chars and `…`; `dialogs_dropped` counts the rest (a page that opens them in a loop).
- A session's results list its pages' downloads in `downloads` once when one starts and once when it
  ends (`{"url", "suggested_filename", "state": "started" | "completed" | "canceled" | "too_large",
  "bytes", "path"}`; `path` when completed: a file named by the download's guid in the session's own
  directory under the artifacts dir, removed with the session unless `downloads.keep`).
- Pages measure the configured viewport (`innerWidth` x `innerHeight`, 1280x800 by default), or the
  session's own (`session.start {"viewport": {"width", "height"}, "device_scale_factor"}`, changed later
  with `page.set_viewport`), with no
  scrollbars taking room; a page's own `window.open` opens a tab that joins the session, with the
  session's viewport and emulation from its first request on. A result lists the tabs the session's
  pages opened since its last one, once, by `targetId`: `"popups": ["520DE60B..."]` (`tabs.focus`
  drives one).
- A session whose page the runtime had to replace (browser or supervisor restarted, a stuck tab reset, a
  crashed renderer) says so once, in its next result: `"session_reset": true, "reset_reason":
  "browser_restarted"` (see [errors.md](errors.md)); the page was loaded again before that action ran.
- With the live view's takeover on (`[view] takeover`, docs/operations.md), a person may hold a session:
  its actions wait for them within their budget (past it: `human_in_control`, retryable), and the first
  result after they hand it back says what happened meanwhile, once: `"human_took_over": {"ms": 5200,
  "url_before": "https://shop.example/login", "url_after": "https://shop.example/account", "note":
  "logged in, continue"}` (take a new snapshot: refs from before may be stale).
- `session.trace` writes what the session does (each action's params with typed text redacted, its time,
  outcome, URL, dialogs, downloads, console errors, resets, and a small JPEG after it) as JSON lines
  under the artifacts dir, and on `stop` one self-contained HTML report; `[trace] always = true` traces
  every session (its report is written when it closes).

Every example below is a real request and its response (regenerate with `scripts/protocol-examples.sh`;
URLs and paths are shortened, screenshot data elided).

MD

example "runtime.health" runtime.health "" '{}'
example "session.start" session.start "" '{"session_id": "s1"}'
example "session.start with a viewport of its own" session.start "" '{"session_id": "phone", "viewport": {"width": 390, "height": 844}, "device_scale_factor": 3}'
example "session.start with extra headers and permissions (what page.emulate takes, from the first request)" session.start "" '{"session_id": "s2", "extra_http_headers": {"X-Agent-Run": "run-7"}, "permissions": ["clipboard-read", "clipboard-write"]}'
example "page.emulate: other headers, no permissions" page.emulate s2 '{"extra_http_headers": {"X-Agent-Run": "run-8"}, "permissions": []}'
example "page.emulate of a header HTTP cannot carry, refused" page.emulate s2 '{"extra_http_headers": {"X-Bad": "a\r\nInjected: 1"}}'
example "session.start with an init script (before the page's own scripts, in every document of its pages)" session.start "" '{"session_id": "s3", "init_scripts": ["window.__agent = {startedAt: Date.now()};"]}'
example "page.emulate of init scripts, refused (a session's are its start's)" page.emulate s3 '{"init_scripts": ["1"]}'
example "page.emulate with HTTP credentials (the answer shows the password as ***)" page.emulate s3 "{\"http_credentials\": {\"username\": \"ada\", \"password\": \"lovelace\", \"origin\": \"${base%/}\"}}"
example "page.goto of a page behind HTTP authentication" page.goto s3 "{\"url\": \"$base/test/auth\"}"
example "page.set_viewport" page.set_viewport phone '{"width": 800, "height": 600, "device_scale_factor": 1}'
example "session.close" session.close phone '{}'
example "session.list" session.list "" '{}'
example "page.goto" page.goto s1 "{\"url\": \"$base/test/form.html\"}"
example "page.goto (a second page, for page.back)" page.goto s1 "{\"url\": \"$base/test/index.html\"}"
example "page.back" page.back s1 '{}'
example "page.forward" page.forward s1 '{}'
example "page.forward at the end of the history" page.forward s1 '{}'
example "page.back (to the form, for the next examples)" page.back s1 '{}'
example "page.reload" page.reload s1 '{}'
example "page.goto to a server that never answers" page.goto s1 "{\"url\": \"$base/test/never\"}" 2000
example "page.snapshot, interactive" page.snapshot s1 '{"interactive": true}'
example "page.snapshot" page.snapshot s1 '{}'
example "page.type by ref" page.type s1 '{"ref": "e2", "text": "Ann"}'
example "page.click by ref" page.click s1 '{"ref": "e5"}'
example "page.click on a disabled button" page.click s1 '{"ref": "e6"}' 1000
example "page.fill" page.fill s1 '{"selector": "#name", "value": "Zoë"}'
example "page.press" page.press s1 '{"selector": "#name", "key": "Control+A"}'
example "page.press by a code name" page.press s1 '{"selector": "#name", "key": "Shift+Digit3"}'
example "page.hover" page.hover s1 '{"ref": "e4"}'
example "page.check" page.check s1 '{"ref": "e3", "checked": true}'
example "page.snapshot, diff: what changed since the previous snapshot" page.snapshot s1 '{"diff": true}'
example "page.evaluate" page.evaluate s1 '{"expression": "({title: document.title, n: NaN, big: 2n ** 64n, at: new Date(0)})"}'
example "page.evaluate, a function on an element" page.evaluate s1 '{"function": "(el) => el.textContent", "selector": "h1"}'
example "page.evaluate with an argument (Playwright's evaluate(fn, arg))" page.evaluate s1 '{"function": "(el, n) => el.textContent.repeat(n)", "selector": "h1", "arg": 2}'
example "page.evaluate that throws" page.evaluate s1 '{"expression": "null.x"}'
example "page.evaluate that never ends" page.evaluate s1 '{"expression": "(async () => { await 0; while (true) {} })()"}' 2000
example "page.handle_dialog" page.handle_dialog s1 '{"accept": true, "prompt_text": "yes"}'
example "page.evaluate raising a dialog" page.evaluate s1 "{\"expression\": \"prompt('Name?')\"}"
example "page.evaluate: a click handler that raises a dialog 100 ms later" page.evaluate s1 "{\"expression\": \"document.querySelector('h1').onclick = () => setTimeout(() => alert('later'), 100), 1\"}"
example "page.click with settle_ms: the late dialog is the click's" page.click s1 '{"selector": "h1", "settle_ms": 300}'
example "page.click without settle_ms answers at once" page.click s1 '{"selector": "h1"}'
example "page.wait_for a dialog (the one that click raised)" page.wait_for s1 '{"dialog": true}'
example "page.wait_for" page.wait_for s1 '{"selector": "h1", "state": "visible"}'
example "page.wait_for that is never met" page.wait_for s1 '{"text": "never there"}' 1500
example "page.extract" page.extract s1 '{"format": "text", "max_chars": 60}'
example "page.screenshot" page.screenshot s1 '{"full_page": true, "inline": true}'
example "page.screenshot of a clip (CSS px of the viewport)" page.screenshot s1 '{"clip": {"x": 0, "y": 0, "width": 200, "height": 100}}'
example "page.screenshot of an element" page.screenshot s1 '{"selector": "h1"}'
example "page.scroll into view" page.scroll s1 '{"selector": "#off"}'
example "page.scroll by a wheel" page.scroll s1 '{"dy": 200}'
example "page.scroll out of range" page.scroll s1 '{"dy": 1e308}'
example "page.evaluate (a select for the next example)" page.evaluate s1 "{\"expression\": \"document.body.insertAdjacentHTML('beforeend', '<select id=s><option value=a>A</option><option value=b>B</option></select>'), 1\"}"
example "page.select" page.select s1 '{"selector": "#s", "labels": ["B"]}'
example "page.select by a label given as a value" page.select s1 '{"selector": "#s", "values": ["A"]}'
example "page.emulate (every page of the session, kept across restarts)" page.emulate s1 '{"color_scheme": "dark", "locale": "de-DE", "timezone": "Europe/Berlin", "geolocation": {"latitude": 52.52, "longitude": 13.4}}'
example "page.emulate merges: offline on, the rest kept" page.emulate s1 '{"offline": true}'
example "page.emulate reset" page.emulate s1 '{"reset": true}'
example "page.emulate of an unknown time zone" page.emulate s1 '{"timezone": "Mars/Olympus"}'
example "page.mouse click at viewport coordinates (CSS px)" page.mouse s1 '{"action": "click", "x": 120, "y": 40}'
example "page.mouse down, then a move drags until up" page.mouse s1 '{"action": "down", "x": 10, "y": 10}'
example "page.mouse up" page.mouse s1 '{"action": "up", "x": 60, "y": 10}'
example "page.keyboard down (Shift stays held until its up)" page.keyboard s1 '{"action": "down", "key": "Shift"}'
example "page.keyboard up" page.keyboard s1 '{"action": "up", "key": "Shift"}'
example "page.keyboard insert_text" page.keyboard s1 '{"action": "insert_text", "text": "naïve ✓"}'
example "page.keyboard down of a combo, refused" page.keyboard s1 '{"action": "down", "key": "Control+a"}'
example "page.drag" page.drag s1 '{"from": {"selector": "#save"}, "to": {"selector": "#name"}}'
example "page.goto (a page with frames, for the next example)" page.goto s1 "{\"url\": \"$base/test/frames.html\"}"
example "page.frames" page.frames s1 '{}'
same_frame=$("$bin/browserctl" --socket "$socket" page.frames --session s1 | jq -r '.result.frames[] | select(.url == "about:srcdoc") | .frame_id')
example "page.evaluate in a frame (a frame_id from page.frames, or the ref of an <iframe>)" page.evaluate s1 "{\"expression\": \"document.querySelector('button').textContent\", \"frame\": \"$same_frame\"}"
example "page.pdf (A4, backgrounds, the first page)" page.pdf s1 '{"paper": "a4", "print_background": true, "page_ranges": "1"}'
example "page.goto (the form again)" page.goto s1 "{\"url\": \"$base/test/form.html\"}"
example "page.fill_form (a text field and a checkbox)" page.fill_form s1 '{"fields": [{"selector": "#name", "value": "Ada"}, {"selector": "#agree", "value": "true"}]}'
example "page.fill_form stops at the first field that fails" page.fill_form s1 '{"fields": [{"selector": "#name", "value": "Grace"}, {"selector": "#agree", "value": "yes"}]}'
example "page.verify of an input's value (the page as it is now; no waiting)" page.verify s1 '{"selector": "#name", "value": "Grace"}'
example "page.verify of an element by role and accessible name" page.verify s1 '{"role": "button", "name": "Save", "visible": true}'
example "page.verify of a list's items" page.verify s1 '{"selector": "ul", "items": ["One", "Two"]}'
example "page.verify that does not hold (the second field above was refused, so the box is unchecked)" page.verify s1 '{"selector": "#agree", "checked": true}'
example "page.query (how many match, and the first one)" page.query s1 '{"selector": "button"}'
example "page.generate_locator (a locator for a test, as Playwright writes it)" page.generate_locator s1 '{"selector": "#save"}'
example "session.start with the clipboard permissions" session.start "" '{"session_id": "s5", "permissions": ["clipboard-read", "clipboard-write"]}'
example "page.goto (a page for the clipboard)" page.goto s5 "{\"url\": \"$base/test/form.html\"}"
example "page.clipboard write" page.clipboard s5 '{"action": "write", "text": "order 1234"}'
example "page.clipboard read" page.clipboard s5 '{"action": "read"}'
example "page.route that fulfills (a glob; the newest route is tried first, in every tab of the session)" page.route s5 '{"url": "**/api/orders", "body": "[{\"id\": 1234, \"state\": \"shipped\"}]", "content_type": "application/json"}'
example "page.evaluate (the page's request answered by the route)" page.evaluate s5 "{\"expression\": \"fetch('/api/orders').then(r => r.json())\"}"
example "page.route that aborts (Playwright's error codes)" page.route s5 '{"url": "**/*.{png,jpg}", "error": "blockedbyclient"}'
example "page.route that continues with a header set" page.route s5 '{"url": "**/test/headers", "request_headers": {"X-Agent-Run": "run-7"}}'
example "page.routes" page.routes s5 '{}'
example "page.unroute (the routes added with that url)" page.unroute s5 '{"url": "**/*.{png,jpg}"}'
example "page.route with fields of two actions, refused" page.route s5 '{"url": "**/api/orders", "action": "abort", "body": "x"}'
example "page.unroute (every route)" page.unroute s5 '{}'
example "session.har start (the session's requests, in every tab, from now on; as Playwright's recordHar)" session.har s5 '{"action": "start", "content": "embed"}'
example "page.goto (a page with images, recorded)" page.goto s5 "{\"url\": \"$base/test/images/2\"}"
example "session.har stop (a HAR 1.2 file under the artifacts dir: timings, headers, bodies cut at 64 KiB)" session.har s5 '{"action": "stop", "name": "run.har"}'
example "session.har stop without a recording, refused" session.har s5 '{"action": "stop"}'
example "page.goto (a page with a file input)" page.goto s1 "{\"url\": \"$base/test/upload.html\"}"
example "page.upload (a file of [files] uploads_dir to a file input)" page.upload s1 '{"selector": "#resume", "files": ["team.csv"]}'
example "page.upload of a path, refused" page.upload s1 '{"selector": "#resume", "files": ["../config.toml"]}'
example "page.evaluate (a button that opens the file chooser, for the next examples)" page.evaluate s1 "{\"expression\": \"document.body.insertAdjacentHTML('beforeend', '<button id=pick onclick=resume.click()>Pick</button>'), 1\"}"
example "page.click that opens a file chooser" page.click s1 '{"selector": "#pick"}'
example "page.upload to the file chooser the click opened (no element)" page.upload s1 '{"files": ["team.csv"]}'
example "session.cookies set (by url; or domain and path)" session.cookies s1 '{"action": "set", "cookies": [{"name": "theme", "value": "dark", "url": "https://example.com/", "sameSite": "Lax"}]}'
example "session.cookies get (those sent to a URL)" session.cookies s1 '{"urls": ["https://example.com/account"]}'
example "session.cookies clear" session.cookies s1 '{"action": "clear"}'
example "page.downloads (none yet)" page.downloads s1 '{}'
example "page.storage set (localStorage of the page's origin)" page.storage s1 '{"kind": "local", "action": "set", "key": "theme", "value": "dark"}'
example "page.storage get" page.storage s1 '{"kind": "local"}'
example "session.storage_state save (Playwright's storageState format, under the artifacts dir)" session.storage_state s1 '{"action": "save", "name": "login.json"}'
example "session.storage_state load (from the uploads dir, else the artifacts dir)" session.storage_state s1 '{"action": "load", "name": "login.json"}'
example "session.storage_state load of a path, refused" session.storage_state s1 '{"action": "load", "name": "../config.toml"}'
example "session.trace start (each action from now on, with a screenshot after it, as JSON lines)" session.trace s1 '{"action": "start"}'
example "page.snapshot (traced)" page.snapshot s1 '{"interactive": true, "max_chars": 300}'
example "session.trace stop (the self-contained HTML report)" session.trace s1 '{"action": "stop", "name": "run.html"}'
example "page.evaluate that logs (its result counts the console errors it raised)" page.evaluate s1 "{\"expression\": \"console.log('ready', 2); console.error('failed to load', {code: 7}); fetch('/test/missing').then(r => r.status)\"}"
example "page.wait_for a response (one that came during the previous action counts)" page.wait_for s1 '{"response": "**/missing"}'
example "page.console (errors, warnings and info; since a previous last_id with since)" page.console s1 '{"level": "info", "limit": 10}'
example "page.network (static resources left out; filter by URL glob)" page.network s1 '{"limit": 5}'
example "tabs.open" tabs.open s1 "{\"url\": \"$base/test/popup.html\"}"
example "page.click that opens a popup" page.click s1 '{"selector": "#open"}'
example "page.wait_for a popup (one the previous action opened counts)" page.wait_for s1 '{"popup": true}'
example "tabs.list" tabs.list s1 '{}'
example "tabs.focus with a prefix that matches every tab" tabs.focus s1 '{"target_id": ""}'
example "tabs.focus on no tab" tabs.focus s1 '{"target_id": "ZZZZ"}'
first_tab=$("$bin/browserctl" --socket "$socket" tabs.list --session s1 | jq -r '.result.tabs[0].target_id')
example "tabs.focus by a prefix" tabs.focus s1 "{\"target_id\": \"${first_tab:0:8}\"}"
popup_tab=$("$bin/browserctl" --socket "$socket" tabs.list --session s1 | jq -r '.result.tabs[2].target_id')
example "tabs.close" tabs.close s1 "{\"target_id\": \"$popup_tab\"}"
example "page.goto after the snapshot: refs are stale" page.goto s1 "{\"url\": \"$base/test/index.html\"}"
example "stale ref" page.click s1 '{"ref": "e5"}'
example "unknown ref" page.click s1 '{"ref": "e999"}'
example "page.goto (a page with a link, for the next example)" page.goto s1 "{\"url\": \"$base/test/form.html\"}"
example "page.click on a link: it waits for the navigation it starts (navigated_to)" page.click s1 '{"selector": "a"}'
example "page.goto to a URL the policy refuses" page.goto s1 '{"url": "file:///etc/passwd"}'
example "unknown method" page.fly s1 '{}'
example "unknown session" page.extract nobody '{}'
# A browser that dies between actions: the next action still works and says the page was reset.
browser_pid=$("$bin/browserctl" --socket "$socket" runtime.health | jq -r .result.browser_pid)
kill -KILL -- "-$browser_pid"
while kill -0 "$browser_pid" 2>/dev/null && [ "$(awk '{print $3}' "/proc/$browser_pid/stat" 2>/dev/null)" != Z ]; do sleep 0.01; done
example "page.wait_for after the browser was killed (session_reset)" page.wait_for s1 '{"text": "Hello"}'
example "runtime.stats" runtime.stats "" '{}'
example "runtime.metrics" runtime.metrics "" '{}'
example "session.close" session.close s1 '{}'
echo "wrote $out" >&2
