"""`sandbox-browser mcp` driven by a real MCP client: the official Python SDK (`mcp` on PyPI) over
stdio, on real pages in real Chromium."""

import asyncio
import json
import os
import tempfile
import threading
import time
import urllib.request
from contextlib import asynccontextmanager, contextmanager
from typing import Any, AsyncIterator, Dict, Iterator, List, Optional, Set, Tuple

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

import signal

from sandbox_browser import Client

from conftest import BIN, Runtime, processes_naming

# How long a stopped MCP server (and what it started) may take to be gone.
GONE_WITHIN_S = 30


@asynccontextmanager
async def mcp_session(*args: str) -> AsyncIterator[ClientSession]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SANDBOX_BROWSER_")}
    params = StdioServerParameters(command=str(BIN / "sandbox-browser"), args=["mcp", *args], env=env)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            yield session


def text(result: Any) -> str:
    return "\n".join(block.text for block in result.content if block.type == "text")


def stat(pid: int) -> Optional[List[str]]:
    """The fields of `/proc/<pid>/stat` after the command name (state, parent, ...), or None."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None


def tree_of(marker: str) -> Set[Tuple[int, str]]:
    """The processes whose command line names `marker` (the MCP server and the supervisor it started)
    and every process under them (its workers, Chromium and Chromium's own children), each as its pid
    and start time (a pid used again later is another process)."""
    roots = set(processes_naming(marker))
    children: Dict[int, List[int]] = {}
    started: Dict[int, str] = {}
    for entry in os.listdir("/proc"):
        fields = stat(int(entry)) if entry.isdigit() else None
        if fields and len(fields) > 19:
            children.setdefault(int(fields[1]), []).append(int(entry))
            started[int(entry)] = fields[19]
    found, todo = set(roots), list(roots)
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return {(pid, started[pid]) for pid in found if pid in started}


def wait_gone(started: Set[Tuple[int, str]], marker: str) -> List[str]:
    """Waits (at most GONE_WITHIN_S) until none of the processes `started` is left, nor any naming
    `marker`; returns the command lines of those still there."""
    deadline = time.monotonic() + GONE_WITHIN_S
    while True:
        alive = {pid for pid, start in started if (stat(pid) or [""] * 20)[19] == start}
        left = {p for p in alive | set(processes_naming(marker)) if not is_zombie(p)}
        if not left or time.monotonic() > deadline:
            return [open(f"/proc/{p}/cmdline", "rb").read().replace(b"\0", b" ").decode() for p in left if os.path.exists(f"/proc/{p}")]
        time.sleep(0.1)


def is_zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def test_an_agent_drives_a_page_through_mcp(runtime, pages):
    async def run() -> None:
        async with mcp_session("--socket", runtime.socket) as s:
            tools = {t.name: t for t in (await s.list_tools()).tools}
            for name in ["browser_navigate", "browser_snapshot", "browser_click", "browser_type", "browser_press_key",
                         "browser_select_option", "browser_hover", "browser_drag", "browser_wait_for", "browser_evaluate",
                         "browser_take_screenshot", "browser_tabs", "browser_handle_dialog", "browser_fill_form",
                         "browser_file_upload"]:
                assert name in tools, name
                # Every tool takes timeout_ms; the server's instructions say so once, no schema lists it.
                assert "timeout_ms" not in tools[name].input_schema["properties"], name
            assert tools["browser_click"].input_schema["properties"]["ref"]["type"] == "string"

            nav = await s.call_tool("browser_navigate", {"url": pages.url("/test/index.html"), "timeout_ms": 15000})
            assert not nav.is_error, text(nav)
            assert json.loads(text(nav))["title"] == "Test Index"

            snap = await s.call_tool("browser_snapshot", {})
            assert not snap.is_error, text(snap)
            line = next(l for l in text(snap).splitlines() if 'button "Go"' in l)
            ref = line.split("[ref=")[1].split("]")[0]

            # As a model used to Playwright MCP calls it: with `element`, the ref's description (before:
            # refused, "unknown parameter 'element'", so such a model's every first click failed).
            assert tools["browser_click"].input_schema["properties"]["element"]["type"] == "string"
            assert "element" not in tools["browser_navigate"].input_schema["properties"]
            click = await s.call_tool("browser_click", {"element": "the Go button", "ref": ref})
            assert not click.is_error, text(click)
            assert 'button \\"Go\\"' in text(click)

            title = await s.call_tool("browser_evaluate", {"expression": "document.title"})
            assert text(title) == '"clicked"'

            shot = await s.call_tool("browser_take_screenshot", {})
            kinds = [b.type for b in shot.content]
            assert kinds == ["image", "text"], kinds
            assert shot.content[0].mime_type == "image/png" and len(shot.content[0].data) > 100
            path = text(shot).split()[1]
            assert os.path.isfile(path), path

            await s.call_tool("browser_navigate", {"url": pages.url("/test/upload.html")})
            up = await s.call_tool("browser_file_upload", {"selector": "#resume", "files": ["note.txt"]})
            assert not up.is_error and "note.txt" in text(up), text(up)

            missing = await s.call_tool("browser_click", {"ref": "e999", "timeout_ms": 1000})
            assert missing.is_error
            assert "code: unknown_ref" in text(missing) and "take a new snapshot" in text(missing)

            blocked = await s.call_tool("browser_navigate", {"url": "file:///etc/passwd"})
            assert blocked.is_error and "code: url_blocked" in text(blocked)
            assert "not retryable" in text(blocked)

    asyncio.run(run())


def test_a_model_used_to_playwright_mcp_is_understood(runtime, pages):
    """Playwright MCP's argument names (0.0.83: target, doubleClick, promptText, textGone, time in s,
    index): each of these calls was refused as an unknown argument before; a `target` that is one of
    Playwright's locators or selectors (getByRole(...), text=...) was refused as invalid CSS."""

    async def run() -> None:
        async with mcp_session("--socket", runtime.socket, "--caps", "evaluate") as s:
            # A URL without its scheme, as Playwright MCP takes it (http:// for a loopback host).
            bare = pages.url("/test/form.html").removeprefix("http://")
            nav = await s.call_tool("browser_navigate", {"url": bare})
            assert not nav.is_error, text(nav)
            snap = text(await s.call_tool("browser_snapshot", {}))
            save = next(l for l in snap.splitlines() if 'button "Save"' in l).split("[ref=")[1].split("]")[0]

            # A ref and a selector, each as `target`.
            typed = await s.call_tool("browser_type", {"element": "Name", "target": "#name", "text": "Ann", "slowly": True})
            assert not typed.is_error, text(typed)
            click = await s.call_tool("browser_click", {"element": "Save button", "target": save, "doubleClick": True})
            assert not click.is_error, text(click)
            log = await s.call_tool("browser_evaluate", {"function": "(el) => el.textContent", "target": "#log", "element": "log"})
            assert "dblclick" in text(log) and "click:0:2" in text(log), text(log)
            name = await s.call_tool("browser_evaluate", {"function": "(el) => el.value", "target": "#name"})
            assert text(name) == '"Ann"', text(name)
            # Playwright's locators and selectors as `target` (its targetLocator takes them).
            located = await s.call_tool(
                "browser_evaluate", {"function": "(el) => el.id", "target": "getByRole('button', { name: 'Save' })"}
            )
            assert text(located) == '"save"', text(located)
            labelled = await s.call_tool("browser_evaluate", {"function": "(el) => el.id", "target": "getByLabel('Name')"})
            assert text(labelled) == '"name"', text(labelled)
            by_text = await s.call_tool("browser_evaluate", {"function": "(el) => el.tagName", "target": "text=Back home"})
            assert text(by_text) == '"A"', text(by_text)
            # browser_fill_form's fields as Playwright MCP gives them ({name, type, target, value}).
            fields = [
                {"name": "Name", "type": "textbox", "target": "#name", "value": "Zed"},
                {"name": "Agree", "type": "checkbox", "target": "#agree", "value": "true"},
            ]
            filled = await s.call_tool("browser_fill_form", {"fields": fields})
            assert not filled.is_error, text(filled)
            state = await s.call_tool("browser_evaluate", {"function": "() => [document.querySelector('#name').value, agree.checked]"})
            assert json.loads(text(state)) == ["Zed", True], text(state)

            answer = await s.call_tool("browser_handle_dialog", {"accept": True, "promptText": "Bo"})
            assert not answer.is_error, text(answer)
            prompted = await s.call_tool("browser_evaluate", {"function": "() => prompt('Name?')"})
            assert text(prompted).startswith('"Bo"'), text(prompted)

            waited = await s.call_tool("browser_wait_for", {"textGone": "Nothing like this"})
            assert not waited.is_error, text(waited)
            waited = await s.call_tool("browser_wait_for", {"time": 0.2})
            assert not waited.is_error, text(waited)
            part = await s.call_tool("browser_snapshot", {"target": save})
            assert 'button "Save"' in text(part) and "Sign up" not in text(part), text(part)

            select = await s.call_tool("browser_tabs", {"action": "select", "index": 0})
            assert not select.is_error, text(select)
            past = await s.call_tool("browser_tabs", {"action": "select", "index": 3})
            assert past.is_error and "no tab at index 3: the session has 1" in text(past), text(past)
            # Issue 56 §8: close without an index closes the current tab, as Playwright MCP's does.
            opened = await s.call_tool("browser_tabs", {"action": "new"})
            assert not opened.is_error, text(opened)
            closed = await s.call_tool("browser_tabs", {"action": "close"})
            assert not closed.is_error, text(closed)
            listed = await s.call_tool("browser_tabs", {"action": "list"})
            tabs = json.loads(text(listed))["tabs"]
            assert [t["url"].endswith("/test/form.html") for t in tabs] == [True], tabs
            last = await s.call_tool("browser_tabs", {"action": "close"})
            assert last.is_error and "browser_close" in text(last) and "session.close" not in text(last), text(last)
            both = await s.call_tool("browser_click", {"target": save, "ref": save})
            assert both.is_error and "takes target, or ref or selector, not both" in text(both), text(both)

    asyncio.run(run())


def test_the_session_of_an_mcp_connection_closes_with_it(runtime):
    from sandbox_browser import Client

    async def run() -> Set[str]:
        async with mcp_session("--socket", runtime.socket) as s:
            await s.call_tool("browser_tabs", {"action": "list"})
            return session_ids()

    def session_ids() -> Set[str]:
        with Client(runtime.socket) as c:
            return {x.session_id for x in c.session_list().sessions}

    before = session_ids()
    during = asyncio.run(run()) - before
    assert len(during) == 1, "the first tool started one session"
    assert not during & session_ids(), "the session was closed when the client went"


def test_a_tool_after_its_session_was_closed_says_a_new_one_was_started(runtime, pages):
    """A session the runtime no longer has (closed for being idle, `limits.session_idle_timeout_ms`,
    or by someone else) is started again for the next tool, and the tool's answer says so: a new blank
    page, refs from before stale. Before, the new session was silent: the model read a blank page (or
    an unknown ref) with no word of why."""

    def session_ids() -> Set[str]:
        with Client(runtime.socket) as c:
            return {x.session_id for x in c.session_list().sessions}

    async def run() -> None:
        before = session_ids()
        async with mcp_session("--socket", runtime.socket) as s:
            nav = await s.call_tool("browser_navigate", {"url": pages.url("/test/index.html")})
            assert not nav.is_error, text(nav)
            (mine,) = session_ids() - before
            with Client(runtime.socket) as c:
                c.session_close(mine)
            snap = await s.call_tool("browser_snapshot", {})
            assert not snap.is_error, text(snap)
            assert text(snap).startswith("session reset (session_restarted): "), text(snap)
            assert "a new one was started: a blank page" in text(snap), text(snap)
            (again,) = session_ids() - before
            with Client(runtime.socket) as c:
                c.session_close(again)
            click = await s.call_tool("browser_click", {"ref": "e2", "element": "the Go button"})
            assert click.is_error, text(click)
            assert "browser session had ended: no open session" in text(click), text(click)

    asyncio.run(run())


def test_caps_leave_out_tool_groups(runtime):
    """A group left out is not listed; a call to one of its tools says which group has it and how to
    turn it on (it said only "unknown tool")."""

    async def run() -> Any:
        async with mcp_session("--socket", runtime.socket, "--caps", "core") as s:
            names = {t.name for t in (await s.list_tools()).tools}
            errors = []
            for tool in ["browser_take_screenshot", "browser_no_such_tool"]:
                try:
                    await s.call_tool(tool, {})
                    errors.append(None)
                except Exception as e:  # the SDK raises the JSON-RPC error
                    errors.append(str(e))
            return names, errors

    names, errors = asyncio.run(run())
    assert "browser_click" in names
    assert "browser_evaluate" not in names and "browser_take_screenshot" not in names
    assert "browser_pdf_save" not in names and "browser_cookie_list" not in names
    assert errors[0] is not None and '"files" group' in errors[0] and "--caps files" in errors[0], errors
    assert errors[1] is not None and "unknown tool" in errors[1] and "group" not in errors[1], errors


def test_the_pdf_group_saves_the_page(runtime, pages):
    """Playwright MCP's `pdf` group: off by default, `--caps pdf` offers browser_pdf_save."""
    async def run() -> None:
        async with mcp_session("--socket", runtime.socket) as s:
            assert "browser_pdf_save" not in {t.name for t in (await s.list_tools()).tools}
        async with mcp_session("--socket", runtime.socket, "--caps", "pdf") as s:
            await s.call_tool("browser_navigate", {"url": pages.url("/test/index.html")})
            pdf = await s.call_tool("browser_pdf_save", {"paper": "a4"})
            assert not pdf.is_error and ".pdf" in text(pdf), text(pdf)

    asyncio.run(run())


def test_the_storage_group_lists_sets_and_clears_cookies(runtime, pages):
    """Playwright MCP's `storage` group's cookie tools, off by default, on with `--caps storage`."""
    async def run() -> None:
        async with mcp_session("--socket", runtime.socket, "--caps", "storage") as s:
            await s.call_tool("browser_navigate", {"url": pages.url("/test/index.html")})
            cookie = {"name": "theme", "value": "dark", "url": pages.url("/")}
            added = await s.call_tool("browser_cookie_set", {"cookies": [cookie]})
            assert not added.is_error and "dark" in text(added), text(added)
            listed = await s.call_tool("browser_cookie_list", {"urls": [pages.url("/test/")]})
            assert "theme" in text(listed), text(listed)
            cleared = await s.call_tool("browser_cookie_clear", {})
            assert not cleared.is_error and "theme" not in text(cleared), text(cleared)
            wrong = await s.call_tool("browser_cookie_set", {"cookies": [{"name": "x", "value": "1"}]})
            assert wrong.is_error and "code: bad_request" in text(wrong), text(wrong)

    asyncio.run(run())


def test_the_devtools_group_traces_the_session(runtime, pages):
    """Playwright MCP's `devtools` group's tracing tools: a trace of the session's actions and its
    HTML report."""
    async def run() -> None:
        async with mcp_session("--socket", runtime.socket, "--caps", "devtools") as s:
            started = await s.call_tool("browser_start_tracing", {})
            assert not started.is_error and '"tracing":true' in text(started), text(started)
            await s.call_tool("browser_navigate", {"url": pages.url("/test/index.html")})
            await s.call_tool("browser_snapshot", {})
            stopped = await s.call_tool("browser_stop_tracing", {})
            assert not stopped.is_error and '"actions":2' in text(stopped), text(stopped)
            report = json.loads(text(stopped))["report"]
            with open(report, encoding="utf-8") as f:
                html = f.read()
            assert "page.goto" in html and "page.snapshot" in html

    asyncio.run(run())


def test_the_testing_group_verifies_with_playwright_mcps_arguments(runtime, pages):
    """Playwright MCP's `testing` group (`--caps testing`): its four verify tools, called with its own
    arguments (`accessibleName`, `target`, `type`), hold on a real page, and a check that does not hold
    is an error result with code verify_failed and what the page has; `browser_generate_locator` writes
    an element's locator as Playwright does."""
    async def run() -> None:
        async with mcp_session("--socket", runtime.socket) as s:
            assert "browser_verify_value" not in {t.name for t in (await s.list_tools()).tools}
        async with mcp_session("--socket", runtime.socket, "--caps", "testing") as s:
            await s.call_tool("browser_navigate", {"url": pages.url("/test/form.html")})
            snap = text(await s.call_tool("browser_snapshot", {}))
            ref = lambda line: snap.split(line)[1].split("[ref=")[1].split("]")[0]
            name, agree = ref('textbox "Name"'), ref('checkbox "Agree"')
            await s.call_tool("browser_type", {"target": name, "text": "Ada"})
            holds = [
                ("browser_verify_element_visible", {"role": "button", "accessibleName": "Save"}),
                ("browser_verify_text_visible", {"text": "Sign up"}),
                ("browser_verify_list_visible", {"element": "list", "target": "ul", "items": ["One", "Two"]}),
                ("browser_verify_value", {"type": "textbox", "element": "Name", "target": name, "value": "Ada"}),
                ("browser_verify_value", {"type": "checkbox", "element": "Agree", "target": agree, "value": "false"}),
            ]
            for tool, args in holds:
                r = await s.call_tool(tool, args)
                assert not r.is_error, (tool, text(r))
            fails = [
                ("browser_verify_text_visible", {"text": "Signed in"}, "not found"),
                ("browser_verify_value", {"type": "textbox", "target": name, "value": "Bob"}, '"Ada"'),
                ("browser_verify_value", {"type": "checkbox", "target": agree, "value": "true"}, "unchecked"),
                ("browser_verify_element_visible", {"role": "link", "accessibleName": "Nowhere"}, "No element"),
            ]
            for tool, args, said in fails:
                r = await s.call_tool(tool, args)
                assert r.is_error and "code: verify_failed" in text(r) and said in text(r), (tool, text(r))
            # Playwright MCP's locator for a test, with its arguments (`element`, `target`).
            r = await s.call_tool("browser_generate_locator", {"element": "Save button", "target": "#save"})
            assert not r.is_error and "getByRole('button', { name: 'Save' })" in text(r), text(r)

    asyncio.run(run())


def test_routes_take_playwright_mcps_arguments(runtime, pages):
    """Playwright MCP's route tools (`network` group) with its arguments: `pattern`, `status`, `body`,
    `contentType` fulfill; `headers` as "Name: Value" lines and `removeHeaders` as a comma list go on
    the request it continues; `browser_route_list` lists them, `browser_unroute` removes them."""
    async def run() -> None:
        async with mcp_session("--socket", runtime.socket, "--caps", "network,evaluate") as s:
            await s.call_tool("browser_navigate", {"url": pages.url("/test/index.html")})
            r = await s.call_tool("browser_route", {"pattern": "**/api/*", "status": 201, "body": '{"ok":1}', "contentType": "application/json"})
            assert not r.is_error, text(r)
            fetched = "fetch('/api/x').then(async r => r.status + ' ' + await r.text())"
            assert text(await s.call_tool("browser_evaluate", {"expression": fetched})) == '"201 {\\"ok\\":1}"'
            r = await s.call_tool("browser_route", {"pattern": "**/test/headers", "headers": ["X-Agent-Run: mcp"], "removeHeaders": "Accept-Language"})
            assert not r.is_error, text(r)
            listed = text(await s.call_tool("browser_route_list", {}))
            assert "**/api/*" in listed and '"X-Agent-Run":"mcp"' in listed, listed
            await s.call_tool("browser_navigate", {"url": pages.url("/test/headers")})
            shown = "document.getElementById('custom').textContent + '|' + document.getElementById('language').textContent"
            assert text(await s.call_tool("browser_evaluate", {"expression": shown})) == '"mcp|"'
            r = await s.call_tool("browser_unroute", {"pattern": "**/api/*"})
            assert "**/api/*" not in text(r) and "**/test/headers" in text(r), text(r)
            await s.call_tool("browser_unroute", {})
            assert text(await s.call_tool("browser_route_list", {})) == '{"routes":[]}'
            bad = await s.call_tool("browser_route", {"pattern": "**/x", "headers": ["no colon"]})
            assert bad.is_error and "Name: Value" in text(bad), text(bad)

    asyncio.run(run())


def test_the_issue_29_tools_in_their_groups(runtime, pages):
    """Console (core), network, vision and the storage group's Web Storage tools, each as Playwright MCP
    names it, on a real page."""
    async def run() -> None:
        caps = "core,evaluate,network,vision,storage"
        async with mcp_session("--socket", runtime.socket, "--caps", caps) as s:
            await s.call_tool("browser_navigate", {"url": pages.url("/test/index.html")})
            await s.call_tool("browser_evaluate", {"expression": "console.warn('heads up'), 1"})
            console = await s.call_tool("browser_console_messages", {"level": "warning"})
            assert "[WARNING] heads up" in text(console), text(console)
            network = await s.call_tool("browser_network_requests", {})
            assert "[GET] " + pages.url("/test/index.html") + " => [200]" in text(network), text(network)
            # Issue 56 §2: one request's details by the number the list gives it (Playwright MCP's
            # `index` is taken too).
            line = next(li for li in text(network).splitlines() if pages.url("/test/index.html") in li)
            number = int(line.split(".", 1)[0])
            for args in ({"id": number}, {"index": number}):
                one = await s.call_tool("browser_network_request", args)
                shown = text(one)
                assert not one.is_error and "status:    [200] OK" in shown, shown
                assert "mimeType:  text/html" in shown and "Response body" in shown, shown
            clicked = await s.call_tool("browser_mouse_click_xy", {"x": 5, "y": 5})
            assert not clicked.is_error and "(5, 5)" in text(clicked), text(clicked)
            await s.call_tool("browser_localstorage_set", {"key": "k", "value": "v"})
            got = await s.call_tool("browser_localstorage_get", {"key": "k"})
            assert '"value":"v"' in text(got), text(got)
            media = await s.call_tool("browser_emulate_media", {"color_scheme": "dark"})
            assert '"color_scheme":"dark"' in text(media), text(media)
            await s.call_tool("browser_cookie_set", {"cookies": [{"name": "a", "value": "1", "url": pages.url("/")}]})
            deleted = await s.call_tool("browser_cookie_delete", {"name": "a"})
            assert not deleted.is_error and '"a"' not in text(deleted), text(deleted)
            offline = await s.call_tool("browser_network_state_set", {"offline": True})
            assert '"offline":true' in text(offline), text(offline)

    asyncio.run(run())


@contextmanager
def own_runtime() -> Iterator[List[str]]:
    """The args that make `sandbox-browser mcp` start a runtime of its own (a socket nothing answers
    on, a runtime dir that names its processes); on exit, asserts that nothing it started is left.
    What it started is the process tree under the processes naming that dir, followed while it runs
    (a process left behind is no longer under them): other processes of the machine (another test
    run's browsers) are not counted."""
    with tempfile.TemporaryDirectory(prefix="sb-mcp-own-") as dir:
        marker = os.path.join(dir, "rt")
        started: Set[Tuple[int, str]] = set()
        done = threading.Event()

        def follow() -> None:
            while not done.is_set():
                started.update(tree_of(marker))
                done.wait(0.05)

        follower = threading.Thread(target=follow, daemon=True)
        follower.start()
        try:
            yield ["--socket", os.path.join(dir, "none.sock"), "--runtime-dir", marker]
        finally:
            done.set()
            follower.join()
        started.update(tree_of(marker))
        started = {(pid, start) for pid, start in started if pid != os.getpid()}
        left = wait_gone(started, marker)
        assert not left, left


def test_with_no_supervisor_it_runs_its_own_and_leaves_no_process(pages):
    with own_runtime() as args:
        marker = args[-1]

        async def run() -> None:
            async with mcp_session(*args) as s:
                nav = await s.call_tool("browser_navigate", {"url": pages.url("/test/index.html")})
                assert not nav.is_error, text(nav)
                assert processes_naming(marker), "its own supervisor runs with the given runtime dir"

        asyncio.run(run())


def test_a_client_that_disconnects_mid_action_leaves_no_process(pages):
    with own_runtime() as args:

        async def run() -> None:
            async with mcp_session(*args) as s:
                await s.call_tool("browser_navigate", {"url": pages.url("/test/index.html")})
                # The page asks for /test/release/mcp-cut once the action runs in it, and never ends.
                script = "fetch('/test/release/mcp-cut').then(() => new Promise(() => {}))"
                task = asyncio.create_task(s.call_tool("browser_evaluate", {"expression": script, "timeout_ms": 60000}))
                held = asyncio.to_thread(urllib.request.urlopen, pages.url("/test/hold/mcp-cut"), timeout=30)
                await asyncio.wait_for(held, 30)
                # The action is running in the page: the client goes away in the middle of it.
                task.cancel()

        asyncio.run(run())


def test_a_tool_after_the_browser_died_says_session_reset_and_unknown_arguments_are_refused(pages):
    """Issue 25: the MCP tools render the common result part (a reset page reaches the model in one
    line) and refuse an argument their schema does not list, naming the closest one."""
    own = Runtime()
    try:

        async def run() -> None:
            async with mcp_session("--socket", own.socket) as s:
                nav = await s.call_tool("browser_navigate", {"url": pages.url("/test/index.html")})
                assert not nav.is_error, text(nav)
                typo = await s.call_tool("browser_extract", {"formatt": "html"})
                assert typo.is_error and "did you mean 'format'" in text(typo), text(typo)
                with Client(own.socket) as c:
                    os.killpg(c.health().browser_pid, signal.SIGKILL)
                read = await s.call_tool("browser_extract", {"timeout_ms": 10000})
                assert not read.is_error, text(read)
                assert text(read).startswith("session reset (browser_restarted)"), text(read)
                assert "Hello from the test server" in text(read)

        asyncio.run(run())
    finally:
        own.stop()
