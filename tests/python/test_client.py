"""The Python client (clients/python) against the real runtime: every method, the error classes, the
async client, and budgets."""

import asyncio
import base64
import inspect
import json
import os
import re
import signal
import socket
import tempfile
import threading
import time

import pytest

import sandbox_browser as sb
from sandbox_browser import AsyncClient, Client
from sandbox_browser._methods import Methods
from conftest import ROOT, Runtime


class Recording(Client):
    """A client that notes each wire method it sent."""

    def __init__(self, path: str) -> None:
        super().__init__(path)
        self.sent = set()

    def call(self, method, session_id=None, params=None, timeout_ms=None):
        self.sent.add(method)
        return super().call(method, session_id, params, timeout_ms)


def wire_names() -> set:
    """The wire name of every method the client has, from their docstrings (``page.goto``)."""
    names = set()
    for name, fn in inspect.getmembers(Methods, inspect.isfunction):
        if not name.startswith("_"):
            names.add(re.search(r"``([a-z_]+\.[a-z_]+)[ `]", fn.__doc__).group(1))
    return names


def rust_method_names() -> set:
    """Every method of the API schema the runtime generates (docs/api.schema.json)."""
    schema = json.loads((ROOT / "docs" / "api.schema.json").read_text())
    return {m["name"] for m in schema["x-methods"]}


def test_the_client_has_every_api_method():
    assert wire_names() == rust_method_names()


def test_every_method_on_a_real_page(runtime, pages):
    with Recording(runtime.socket) as c:
        health = c.health()
        assert health.browser_version and health.cdp_transport == "pipe" and health.max_timeout_ms >= 1000
        sid = c.session_start(viewport={"width": 800, "height": 600}).session_id
        assert sid in {s.session_id for s in c.session_list().sessions}

        page = c.goto(sid, pages.url("/test/form.html"))
        # The goto answers at DOMContentLoaded; `load` when the load event had come by then too (at rest
        # it has on this small page, on a loaded machine not always).
        assert (page.title, page.status) == ("Form", 200) and page.load_state in ("domcontentloaded", "load")
        assert "Sign up" in c.extract(sid).content
        assert "<h1>Sign up</h1>" in c.extract(sid, format="html").content

        snap = c.snapshot(sid)
        assert snap.refs > 0 and snap.url == page.url
        name_ref = re.search(r'textbox "Name" \[ref=(e\d+)\]', snap.snapshot).group(1)
        assert c.snapshot(sid, interactive=True).snapshot.count("[ref=") == snap.refs

        assert c.type(sid, name_ref, "Ada").element == 'textbox "Name"'
        c.fill(sid, value="Grace", selector="#name")
        c.press(sid, "End", ref=name_ref)
        assert "save" in c.hover(sid, selector="#save").element.lower()
        assert "agree" in c.check(sid, selector="#agree").element.lower()
        c.drag(sid, {"selector": "#name"}, {"selector": "#save"})
        assert "save" in c.click(sid, selector="#save").element.lower()
        assert c.wait_for(sid, text="Sign up").matched
        assert c.evaluate(sid, "document.title").value == "saved:Grace"
        assert c.evaluate(sid, function="(el) => el.checked", selector="#agree").value is True
        assert c.evaluate(sid, "0/0").unserializable == "NaN"
        assert c.evaluate(sid, "undefined").type == "undefined"
        logged = c.evaluate(sid, "console.error('oops'), 1")
        assert logged.console_errors == 1
        assert [m.text for m in c.console(sid, level="error").messages] == ["oops"]
        assert c.evaluate(sid, "fetch(location.href).then(r => r.status)").value == 200
        assert c.wait_for(sid, response="**/form.html").response.status == 200
        assert any(r.url == page.url and r.status == 200 for r in c.network(sid).requests)
        assert c.mouse(sid, action="click", x=5, y=5).element == "the mouse at (5, 5)"
        assert c.emulate(sid, timezone="Asia/Tokyo").emulation.timezone == "Asia/Tokyo"
        assert c.evaluate(sid, "Intl.DateTimeFormat().resolvedOptions().timeZone").value == "Asia/Tokyo"
        assert c.emulate(sid, reset=True).emulation.timezone is None
        c.evaluate(sid, "window.open(location.href), 1")
        popup = c.wait_for(sid, popup=True).popup
        assert popup.target_id and not popup.active
        assert c.tabs_close(sid, popup.target_id)
        assert c.storage(sid, kind="local", action="set", key="k", value="v").items[0].value == "v"
        assert c.verify(sid, text="Sign up").check == "text"
        assert c.query(sid, selector="h1").element.tag == "h1"
        assert c.generate_locator(sid, selector="h1").locator == "getByRole('heading', { name: 'Sign up' })"
        with pytest.raises(sb.BadRequest):  # no clipboard-read granted to this session
            c.clipboard(sid, action="read")
        routed = c.route(sid, url="**/api/*", body='{"ok": 1}', content_type="application/json")
        assert routed.routes[0].action == "fulfill" and routed.routes[0].body_bytes == 9
        assert c.evaluate(sid, "fetch('/api/x').then(r => r.json())").value == {"ok": 1}
        assert [r.url for r in c.routes(sid).routes] == ["**/api/*"]
        assert c.unroute(sid).routes == []
        assert c.session_har(sid, action="start").recording
        c.evaluate(sid, "fetch('/test/index.html').then(r => r.status)")
        har = c.session_har(sid, action="stop", name="py-run")
        assert har.path.endswith("py-run.har") and har.entries >= 1 and os.path.isfile(har.path)
        state = c.session_storage_state(sid, action="save", name="py-state.json")
        assert state.origins == 1 and os.path.isfile(state.path)
        assert c.session_storage_state(sid, action="load", name="py-state.json").origins == 1
        assert c.session_trace(sid, action="start").tracing
        c.snapshot(sid)
        trace = c.session_trace(sid, action="stop", name="py-trace")
        assert trace.actions == 1 and trace.report and trace.report.endswith("py-trace.html")
        assert os.path.isfile(trace.report)
        c.evaluate(sid, "document.querySelector('#name').focus(), 1")
        c.keyboard(sid, action="press", key="End")
        c.keyboard(sid, action="insert_text", text="!")
        assert c.evaluate(sid, "document.querySelector('#name').value").value.endswith("!")

        assert c.handle_dialog(sid, False).next_dialog == "dismiss"
        dialog = c.evaluate(sid, "confirm('sure?')")
        assert dialog.value is False and dialog.dialogs[0].type == "confirm" and not dialog.dialogs[0].accepted

        shot = c.screenshot(sid, inline=True)
        assert os.path.isfile(shot.path) and (shot.width, shot.height) == (800, 600)
        assert base64.b64decode(shot.data)[:4] == b"\x89PNG"
        assert c.screenshot(sid, selector="#save").width < 800
        assert c.scroll(sid, dy=100).scroll_y is not None
        assert "save" in c.scroll(sid, selector="#save").element.lower()
        assert c.set_viewport(sid, 640, 480).width == 640
        assert c.frames(sid).frames[0].url == page.url

        c.goto(sid, pages.url("/test/nav.html"))
        chosen = c.select(sid, selector="#go", values=["/test/slow/200"])
        assert chosen.values == ["/test/slow/200"] and chosen.navigated_to.endswith("/test/slow/200")
        assert c.back(sid).title == "Nav"
        assert c.forward(sid).url.endswith("/test/slow/200")
        assert c.reload(sid).load_state == "load"
        assert c.downloads(sid).entries == []
        c.goto(sid, pages.url("/test/form.html"))
        form = c.fill_form(sid, fields=[{"selector": "#name", "value": "Ada"}, {"selector": "#agree", "value": "true"}])
        assert len(form.filled) == 2 and form.navigated_to is None
        c.goto(sid, pages.url("/test/upload.html"))
        up = c.upload(sid, selector="#resume", files=["note.txt"])
        assert (up.files, up.bytes) == (["note.txt"], 5)
        jar = c.session_cookies(sid, action="set", cookies=[{"name": "theme", "value": "dark", "url": pages.url("/")}])
        assert [(k.name, k.value, k.expires) for k in jar.cookies] == [("theme", "dark", -1)]
        assert c.session_cookies(sid, action="clear").cookies == []
        pdf = c.pdf(sid, paper="a4", landscape=True)
        assert pdf.pages >= 1 and pdf.bytes > 0 and pdf.path.endswith(".pdf")

        tab = c.tabs_open(sid, pages.url("/test/index.html"))
        assert tab.active
        assert len(c.tabs_list(sid).tabs) == 2
        first = c.tabs_list(sid).tabs[0].target_id
        assert c.tabs_focus(sid, first[:8]).target_id == first
        assert c.tabs_close(sid, tab.target_id).active == first

        assert c.stats().actions["page.goto"].count >= 2
        assert "# TYPE" in c.metrics().text
        assert c.session_close(sid).closed
        assert c.sent == rust_method_names(), rust_method_names() - c.sent


def test_each_error_code_has_its_class():
    source = (ROOT / "crates" / "protocol" / "src" / "error.rs").read_text()
    codes = set(re.findall(r'ErrorCode::\w+ => "([a-z_]+)"', source)) - {"unknown"}
    assert codes == set(sb.ERRORS), codes ^ set(sb.ERRORS)
    for code, cls in sb.ERRORS.items():
        assert issubclass(cls, sb.BrowserError) and cls.code == code


def test_errors_raise_their_class_with_code_phase_retryable(runtime, pages):
    with Client(runtime.socket) as c:
        sid = c.session_start().session_id
        with pytest.raises(sb.UrlBlocked) as blocked:
            c.goto(sid, "file:///etc/passwd")
        assert blocked.value.code == "url_blocked" and not blocked.value.retryable and blocked.value.phase
        with pytest.raises(sb.UnknownRef):
            c.click(sid, "e4242")
        with pytest.raises(sb.EvaluateError) as thrown:
            c.evaluate(sid, "throw new Error('boom')")
        assert "boom" in thrown.value.message
        with pytest.raises(sb.BadRequest):
            c.click(sid)
        with pytest.raises(sb.UnknownSession):
            c.goto("no-such-session", pages.url("/test/index.html"))
        c.goto(sid, pages.url("/test/form.html"))
        with pytest.raises(sb.NotEnabled) as off:
            c.click(sid, selector="#off", timeout_ms=1000)
        assert off.value.retryable
        c.session_close(sid)
    with pytest.raises(sb.BrowserUnavailable) as down:
        Client(os.path.join(tempfile.gettempdir(), "no-such-dir", "browser.sock"))
    assert isinstance(down.value, sb.RuntimeUnreachable) and sb.errors.DO_NOT_RETRY in down.value.message


def test_a_number_json_has_not_is_refused_before_it_is_sent(runtime, pages):
    # Python writes NaN and Infinity, which are not JSON: the runtime could only answer "not JSON"
    # without the request's id, and the call waited out its budget plus the slack (measured: 122 s,
    # then NoAnswer "Do NOT retry browser tool"). Both clients refuse such a number at once.
    with Client(runtime.socket) as c:
        sid = c.session_start().session_id
        for bad in (float("nan"), float("inf")):
            with pytest.raises(sb.BadRequest) as refused:
                c.pdf(sid, scale=bad, timeout_ms=60_000)
            assert "NaN or infinite" in refused.value.message and not refused.value.retryable
        assert c.evaluate(sid, "1 + 1").value == 2, "the connection goes on"

        async def on_async() -> None:
            async with await AsyncClient.connect(runtime.socket) as a:
                with pytest.raises(sb.BadRequest):
                    await a.scroll(sid, dy=float("-inf"), timeout_ms=60_000)
                assert (await a.evaluate(sid, "2 + 2")).value == 4

        asyncio.run(on_async())
        c.session_close(sid)


def test_a_budget_overrun_answers_timeout_at_the_deadline(runtime, pages):
    with Client(runtime.socket) as c:
        sid = c.session_start().session_id
        c.goto(sid, pages.url("/test/index.html"))
        t0 = time.monotonic()
        with pytest.raises(sb.Timeout) as late:
            c.wait_for(sid, function="false", timeout_ms=1500)
        elapsed = time.monotonic() - t0
        assert isinstance(late.value, TimeoutError) and late.value.retryable
        # The product's contract (crates/protocol/src/margins.rs): the answer comes in [T - EARLY,
        # T + LATE], 100 ms either side; this client adds its own trip (Python, the socket) after it.
        assert 1.5 - 0.1 <= elapsed < 1.5 + 0.1 + 0.25, elapsed
        c.session_close(sid)


def test_a_runtime_that_never_answers_is_given_up_on_after_budget_and_slack():
    with tempfile.TemporaryDirectory() as dir:
        path = os.path.join(dir, "mute.sock")
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.bind(path)
        server.listen(1)
        accepted = []
        threading.Thread(target=lambda: accepted.append(server.accept()), daemon=True).start()
        with Client(path) as c:
            t0 = time.monotonic()
            with pytest.raises(sb.NoAnswer) as mute:
                c.health(timeout_ms=1000)
            elapsed = time.monotonic() - t0
        assert 3.0 <= elapsed < 4.5, elapsed
        assert isinstance(mute.value, sb.BrowserUnavailable) and sb.errors.DO_NOT_RETRY in mute.value.message

        async def run() -> float:
            async with await AsyncClient.connect(path) as a:
                t0 = time.monotonic()
                with pytest.raises(sb.NoAnswer):
                    await a.health(timeout_ms=1000)
                return time.monotonic() - t0

        assert 3.0 <= asyncio.run(run()) < 4.5
        server.close()


def test_the_async_client_runs_sessions_concurrently(runtime, pages):
    async def one(client: AsyncClient, n: int) -> str:
        sid = (await client.session_start()).session_id
        await client.goto(sid, pages.url("/test/index.html"))
        await client.evaluate(sid, f"document.title = 'tab {n}'")
        snap = await client.snapshot(sid)
        await client.session_close(sid)
        return snap.title

    async def run() -> list:
        async with await AsyncClient.connect(runtime.socket) as client:
            titles = await asyncio.gather(*(one(client, n) for n in range(3)))
            with pytest.raises(sb.UnknownSession):
                await client.snapshot("gone")
            return titles

    assert asyncio.run(run()) == ["tab 0", "tab 1", "tab 2"]


def test_both_clients_read_the_largest_answer_whole(runtime, pages):
    """A value cut at the runtime's 64 MiB makes an answer line just over 64 MiB: the async client's
    reader was limited to 64 MiB and lost the connection ("chunk exceed the limit"), failing every
    call on it; both clients read it whole."""
    expression = "Array.from({length: 66}, (_, i) => String(i % 10).repeat(1 << 20))"

    def check(value: list) -> None:
        assert len(value) == 65 and all(len(s) == 1 << 20 and s[0] == str(i % 10) for i, s in enumerate(value[:64]))
        assert value[64] == {"$truncated": "2 more items: the value passed 64 MiB as JSON"}

    with Client(runtime.socket) as c:
        sid = c.session_start().session_id
        c.goto(sid, pages.url("/test/index.html"))
        check(c.evaluate(sid, expression, timeout_ms=60_000).value)

        async def run() -> list:
            async with await AsyncClient.connect(runtime.socket) as client:
                value = (await client.evaluate(sid, expression, timeout_ms=60_000)).value
                assert (await client.evaluate(sid, "1 + 1")).value == 2
                return value

        check(asyncio.run(run()))
        c.session_close(sid)


def test_the_common_result_part_and_unknown_fields_are_kept():
    r = sb.types.from_dict(
        sb.types.ExtractResult,
        {"content": "x", "session_reset": True, "reset_reason": "browser_restarted", "shiny_new": 1},
    )
    assert (r.content, r.session_reset, r.reset_reason) == ("x", True, "browser_restarted")
    assert r.extra == {"shiny_new": 1}


def test_a_read_after_the_browser_died_says_session_reset(pages):
    """Issue 25: the Python client shows the common result part; here a browser killed under a session
    (a runtime of the test's own: the shared one's other sessions would see the reset too)."""
    own = Runtime()
    try:
        with Client(own.socket) as c:
            sid = c.session_start().session_id
            c.goto(sid, pages.url("/test/index.html"))
            os.killpg(c.health().browser_pid, signal.SIGKILL)
            r = c.extract(sid, timeout_ms=10_000)
            assert (r.session_reset, r.reset_reason) == (True, "browser_restarted")
            assert "Hello from the test server" in r.content
    finally:
        own.stop()


def schema_params(schema: dict, ref: dict) -> set:
    """The parameter names of a params type in the API schema (flattened ones included)."""
    d = schema["$defs"][ref["$ref"].rsplit("/", 1)[-1]]
    names = set(d.get("properties", {}))
    for key in ("allOf", "anyOf", "oneOf"):
        for part in d.get(key, []):
            names |= schema_params(schema, part) if "$ref" in part else set(part.get("properties", {}))
    return names


def test_each_method_takes_the_parameters_the_schema_declares():
    """Issue 25: the client's keyword arguments are the API schema's params, no more, no fewer
    (``page.drag``'s ``from``/``to`` are ``source``/``target`` in Python: ``from`` is a keyword)."""
    schema = json.loads((ROOT / "docs" / "api.schema.json").read_text())
    declared = {m["name"]: schema_params(schema, m["params"]) for m in schema["x-methods"]}
    python_names = {"source": "from", "target": "to"}
    for name, fn in inspect.getmembers(Methods, inspect.isfunction):
        if name.startswith("_"):
            continue
        wire = re.search(r"``([a-z_]+\.[a-z_]+)[ `]", fn.__doc__).group(1)
        skip = {"self", "timeout_ms"} | ({"session_id"} if wire != "session.start" else set())
        params = {python_names.get(p, p) for p in inspect.signature(fn).parameters} - skip
        assert params == declared[wire], (name, wire)


def test_the_async_clients_methods_are_typed_as_coroutines(tmp_path):
    """Issue 56 §8: mypy takes ``await client.goto(...)`` as the result (the methods were typed as
    returning results, so mypy refused the await) and refuses a result used without its await."""
    import subprocess
    import sys

    ok = tmp_path / "ok.py"
    ok.write_text(
        "from sandbox_browser import AsyncClient\n\n\n"
        "async def drive(c: AsyncClient) -> str:\n"
        "    r = await c.goto('s', 'https://example.com/')\n"
        "    return r.url\n"
    )
    bad = tmp_path / "bad.py"
    bad.write_text(
        "from sandbox_browser import AsyncClient\n\n\n"
        "async def drive(c: AsyncClient) -> str:\n"
        "    return c.goto('s', 'https://example.com/').url\n"
    )
    mypy = [sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent", "--no-incremental"]
    mypy += ["--cache-dir", str(tmp_path / "cache")]
    # The client's source, whatever copy the venv has installed.
    env = {**os.environ, "MYPYPATH": str(ROOT / "clients" / "python")}
    checked = subprocess.run(mypy + [str(ok)], capture_output=True, text=True, env=env)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    refused = subprocess.run(mypy + [str(bad)], capture_output=True, text=True, env=env)
    assert refused.returncode != 0 and "Coroutine" in refused.stdout, refused.stdout



def test_verify_and_query_without_javascript(runtime, pages):
    """``page.verify`` answers its result when the check holds and raises ``VerifyFailed`` (not
    retryable) with what the page has when not; ``page.query`` gives the first match's facts as
    dataclasses."""
    with Client(runtime.socket) as c:
        sid = c.session_start().session_id
        c.goto(sid, pages.url("/test/form.html"))
        assert c.verify(sid, role="heading", name="Sign up", visible=True).actual is True
        assert c.verify(sid, selector="li", count=2).actual == 2
        with pytest.raises(sb.VerifyFailed) as failed:
            c.verify(sid, selector="#name", value="Ada")
        assert not failed.value.retryable and 'got ""' in str(failed.value)
        q = c.query(sid, selector="#off")
        assert q.count == 1 and q.element is not None and q.element.enabled is False


def test_evaluate_passes_arg_as_json(runtime, pages):
    """``page.evaluate`` gives ``arg`` to the function, as Playwright's ``evaluate(fn, arg)``."""
    with Client(runtime.socket) as c:
        sid = c.session_start().session_id
        c.goto(sid, pages.url("/test/form.html"))
        words = {"words": ["it's", '"x"'], "n": 1}
        r = c.evaluate(sid, function="(a) => a.words.join(' ') + a.n", arg=words)
        assert r.value == "it's \"x\"1"
        r = c.evaluate(sid, function="(el, s) => el.textContent + s", selector="h1", arg="!")
        assert r.value == "Sign up!"
