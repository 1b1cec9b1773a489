"""The API's methods, once for both clients: each builds its request and hands it to ``_request``,
which the sync :class:`~sandbox_browser.Client` runs at once and the :class:`~sandbox_browser.AsyncClient`
returns as a coroutine.

Generated from docs/api.schema.json by scripts/gen-python.py: do not edit by hand (CI checks it).

Every method takes ``timeout_ms``: the request's one budget in ms (the runtime clamps it to
1000..120000; ``None`` means the method's default). Page methods name their element by ``ref`` (from
a snapshot, ``"e12"``) or by a CSS ``selector``. A parameter left ``None`` is not sent (the runtime's
default applies).
"""

from typing import Any, Dict, List, Literal, Optional, Type

from .types import (
    ClipboardResult,
    ConsoleResult,
    CookiesResult,
    DownloadsResult,
    EmulateResult,
    EvaluateResult,
    ExtractResult,
    FillFormResult,
    FramesResult,
    GenerateLocatorResult,
    GotoResult,
    HandleDialogResult,
    HarResult,
    HealthResult,
    InputResult,
    MetricsResult,
    NetworkResult,
    PdfResult,
    QueryResult,
    RoutesResult,
    ScreenshotResult,
    ScrollResult,
    SelectResult,
    SessionCloseResult,
    SessionListResult,
    SessionStartResult,
    SetViewportResult,
    SnapshotResult,
    StatsResult,
    StorageResult,
    StorageStateResult,
    TabInfo,
    TabsCloseResult,
    TabsListResult,
    TraceResult,
    UploadResult,
    VerifyResult,
    WaitForResult,
)


def _params(values: Dict[str, Any]) -> Dict[str, Any]:
    """The params object: ``None`` values left out (the runtime's defaults apply)."""
    return {k: v for k, v in values.items() if v is not None}


class Methods:
    """One method per API method (docs/protocol.md)."""

    def _request(
        self, method: str, session_id: Optional[str], params: Dict[str, Any], timeout_ms: Optional[int], result: Type[Any]
    ) -> Any:
        raise NotImplementedError

    # runtime.*

    def health(self, *, timeout_ms: Optional[int] = None) -> HealthResult:
        """``runtime.health`` -> ``HealthResult``: the browser's state (probed when the last probe is old);
        ``browser_unavailable`` when the browser is down.
        """
        return self._request("runtime.health", None, {}, timeout_ms, HealthResult)

    def stats(self, *, timeout_ms: Optional[int] = None) -> StatsResult:
        """``runtime.stats`` -> ``StatsResult``: the runtime's counters since it started.
        """
        return self._request("runtime.stats", None, {}, timeout_ms, StatsResult)

    def metrics(self, *, timeout_ms: Optional[int] = None) -> MetricsResult:
        """``runtime.metrics`` -> ``MetricsResult``: the same counters in Prometheus text format.
        """
        return self._request("runtime.metrics", None, {}, timeout_ms, MetricsResult)

    # session.*

    def session_start(
        self,
        session_id: Optional[str] = None,
        *,
        color_scheme: Optional[Literal["light", "dark", "no-preference"]] = None,
        contrast: Optional[Literal["more", "no-preference"]] = None,
        device_scale_factor: Optional[float] = None,
        extra_http_headers: Optional[Dict[str, Any]] = None,
        forced_colors: Optional[Literal["active", "none"]] = None,
        geolocation: Optional[Dict[str, Any]] = None,
        http_credentials: Optional[Dict[str, Any]] = None,
        init_scripts: Optional[List[str]] = None,
        locale: Optional[str] = None,
        media: Optional[Literal["screen", "print"]] = None,
        offline: Optional[bool] = None,
        permissions: Optional[List[Literal["clipboard-read", "clipboard-write", "notifications", "geolocation", "camera", "microphone"]]] = None,
        reduced_motion: Optional[Literal["reduce", "no-preference"]] = None,
        routes: Optional[List[Dict[str, Any]]] = None,
        storage_state: Optional[str] = None,
        timezone: Optional[str] = None,
        user_agent: Optional[str] = None,
        viewport: Optional[Dict[str, Any]] = None,
        timeout_ms: Optional[int] = None,
    ) -> SessionStartResult:
        """``session.start {session_id?, viewport?, device_scale_factor?, storage_state?, ...emulation}`` ->
        ``SessionStartResult``: a new session with its own browser context and tab, its pages emulating what
        ``page.emulate`` takes (extra headers and permissions included) from their first request.
        ``session_id``: 1..=128 chars of ``[A-Za-z0-9._-]`` starting with a letter or digit, generated when
        absent; ``viewport``: ``{width, height}`` in CSS px.

        :param session_id: The id to use; generated when absent. 1..=128 chars of ``[A-Za-z0-9._-]``, starting
        with a letter or digit (never ``.`` or ``..``).
        :param color_scheme: ``prefers-color-scheme`` (``Emulation.setEmulatedMedia``).
        :param contrast: ``prefers-contrast`` (``Emulation.setEmulatedMedia``).
        :param device_scale_factor: Device pixels per CSS px (``devicePixelRatio``), 0.5..=4; 1 when absent.
        Screenshots are taken at this scale.
        :param extra_http_headers: Headers sent with every request of the session's pages, as Playwright's
        ``extraHTTPHeaders`` (``Network.setExtraHTTPHeaders``). At most ``MAX_EXTRA_HEADERS``, names as HTTP
        tokens, values without line breaks; ``{}`` sends none.
        :param forced_colors: ``forced-colors`` (``Emulation.setEmulatedMedia``).
        :param geolocation: The position the page gets.
        :param http_credentials: HTTP authentication for the session's pages, as Playwright's
        ``httpCredentials``: a server's Basic or Digest challenge (a 401 with ``WWW-Authenticate``) is
        answered with them, once a request. Results show the password as ``***``.
        :param init_scripts: Scripts run in every document of the session's pages before the page's own, as
        Playwright's ``addInitScript`` (``Page.addScriptToEvaluateOnNewDocument``), in every frame: a cross-
        site (out-of-process) iframe is held as it attaches until they are in; at most ``MAX_INIT_SCRIPTS`` of
        at most ``MAX_INIT_SCRIPT_BYTES`` each. ``page.emulate`` replaces the list (the next document of every
        tab runs the new one: a script left out is removed, ``Page.removeScriptToEvaluateOnNewDocument``); its
        ``reset`` keeps them.
        :param locale: A BCP 47 locale such as ``de-DE``: ``Intl`` and dates
        (``Emulation.setLocaleOverride``), ``navigator.language`` and the ``Accept-Language`` header
        (``Emulation.setUserAgentOverride``), as Playwright's ``locale`` sets them.
        :param media: The CSS media type, ``screen`` or ``print`` (``Emulation.setEmulatedMedia``).
        :param offline: No network: every request fails as offline (``Network.emulateNetworkConditions``).
        :param permissions: Permissions granted to every origin in the session's browser context, as
        Playwright's ``permissions`` (``Browser.grantPermissions``); the rest are denied. ``[]`` grants none
        (``geolocation`` stays granted while a position is emulated).
        :param reduced_motion: ``prefers-reduced-motion`` (``Emulation.setEmulatedMedia``).
        :param routes: Routes the session's requests take, newest first (``page.route`` adds one,
        ``page.unroute`` removes them; ``session.start`` may give the first ones). ``page.emulate`` does not
        take them, its ``reset`` keeps them, and its result leaves them out (``page.routes`` lists them).
        :param storage_state: A storage state file to start from (``session.storage_state``'s ``name``: a
        Playwright ``storageState`` JSON in the uploads dir, else the artifacts dir): its cookies and local
        storage.
        :param timezone: An IANA time zone such as ``Europe/Berlin`` (``Emulation.setTimezoneOverride``); one
        the browser's ICU data does not know answers ``bad_request``.
        :param user_agent: The ``User-Agent`` header and ``navigator.userAgent``
        (``Emulation.setUserAgentOverride``).
        :param viewport: The session's viewport, CSS px (each side 1..=10000); the configured one (1280x800 by
        default) when absent. Every page of the session measures it (``innerWidth`` x ``innerHeight``).
        """
        params = _params(
            {
                "session_id": session_id,
                "color_scheme": color_scheme,
                "contrast": contrast,
                "device_scale_factor": device_scale_factor,
                "extra_http_headers": extra_http_headers,
                "forced_colors": forced_colors,
                "geolocation": geolocation,
                "http_credentials": http_credentials,
                "init_scripts": init_scripts,
                "locale": locale,
                "media": media,
                "offline": offline,
                "permissions": permissions,
                "reduced_motion": reduced_motion,
                "routes": routes,
                "storage_state": storage_state,
                "timezone": timezone,
                "user_agent": user_agent,
                "viewport": viewport,
            }
        )
        return self._request("session.start", None, params, timeout_ms, SessionStartResult)

    def session_close(self, session_id: str, *, timeout_ms: Optional[int] = None) -> SessionCloseResult:
        """``session.close`` -> ``SessionCloseResult``: closes the session's tabs and its browser context.
        """
        return self._request("session.close", session_id, {}, timeout_ms, SessionCloseResult)

    def session_cookies(
        self,
        session_id: str,
        *,
        action: Optional[Literal["get", "set", "clear", "delete"]] = None,
        cookies: Optional[List[Dict[str, Any]]] = None,
        name: Optional[str] = None,
        urls: Optional[List[str]] = None,
        timeout_ms: Optional[int] = None,
    ) -> CookiesResult:
        """``session.cookies {action: get | set | clear, cookies?, urls?}`` -> ``CookiesResult``: the cookies of
        the session's browser context (``Storage.getCookies``, ``setCookies``, ``clearCookies``), as they are
        after the action (only those sent to ``urls`` when given).

        :param action: ``get`` (the default), ``set`` or ``clear``.
        :param cookies: The cookies to set (``set`` only), at most 200 (``MAX_SET_COOKIES``).
        :param name: ``get``: only the cookies of this name; ``delete``: the cookies to delete (the answer
        lists those left).
        :param urls: Only the cookies a request to one of these URLs would send (domain, path and secure as
        the browser matches them); absent: all.
        """
        params = _params({"action": action, "cookies": cookies, "name": name, "urls": urls})
        return self._request("session.cookies", session_id, params, timeout_ms, CookiesResult)

    def session_storage_state(
        self,
        session_id: str,
        *,
        action: Literal["save", "load"],
        name: Optional[str] = None,
        timeout_ms: Optional[int] = None,
    ) -> StorageStateResult:
        """``session.storage_state {action: save | load, name?}`` -> ``StorageStateResult``: the session's
        cookies and the local storage of its tabs' origins saved to a JSON file in Playwright's
        ``storageState`` format (under the artifacts dir), or such a file (from the uploads dir, else the
        artifacts dir) loaded into the session: its cookies set, each origin's local storage written.

        :param action: save or load.
        :param name: A plain file name (``state.json``): save writes it under the artifacts dir (default
        ``state-<session>.json``); load reads it from the uploads dir, else the artifacts dir.
        """
        params = _params({"action": action, "name": name})
        return self._request("session.storage_state", session_id, params, timeout_ms, StorageStateResult)

    def session_trace(
        self,
        session_id: str,
        *,
        action: Literal["start", "stop"],
        name: Optional[str] = None,
        timeout_ms: Optional[int] = None,
    ) -> TraceResult:
        """``session.trace {action: start | stop, name?}`` -> ``TraceResult``: records each of the session's
        actions (params redacted, timing, outcome, URL, dialogs, downloads, console errors, resets, a small
        JPEG after it) as JSON lines under the artifacts dir; ``stop`` also writes one self-contained HTML
        report (a timeline with the screenshots inline) named ``name`` (default
        ``<session>-trace-<ms>.html``).

        :param action: start or stop.
        :param name: stop: a plain file name for the report under the artifacts dir (``run.html``); default
        ``<session>-trace-<ms>.html``.
        """
        params = _params({"action": action, "name": name})
        return self._request("session.trace", session_id, params, timeout_ms, TraceResult)

    def session_har(
        self,
        session_id: str,
        *,
        action: Literal["start", "stop"],
        content: Optional[Literal["embed", "omit"]] = None,
        name: Optional[str] = None,
        url_filter: Optional[str] = None,
        timeout_ms: Optional[int] = None,
    ) -> HarResult:
        """``session.har {action: start | stop, content?, url_filter?, name?}`` -> ``HarResult``: records the
        session's requests, in every tab the session drives, as Playwright's ``recordHar``; ``stop`` writes
        them as one HAR 1.2 file (timings, headers, post data, response bodies cut at ``NETWORK_BODY_BYTES``
        each) under the artifacts dir (``<owner>/hars``). What a tab closed during the recording requested,
        and a tab's requests past its buffer (``NETWORK_BUFFER``), are left out (the file's ``comment`` counts
        the latter).

        :param action: start or stop.
        :param content: start: ``embed`` the response bodies in the file (the default, each cut at 64 KiB), or
        ``omit`` them, as Playwright's ``recordHar.content``.
        :param name: stop: a plain file name (``run.har``; ``.har`` added when missing); default
        ``<session>-<ms>.har``.
        :param url_filter: start: only requests whose URL matches this glob or ``/regex/`` (Playwright's
        ``urlFilter``).
        """
        params = _params({"action": action, "content": content, "name": name, "url_filter": url_filter})
        return self._request("session.har", session_id, params, timeout_ms, HarResult)

    def session_list(self, *, timeout_ms: Optional[int] = None) -> SessionListResult:
        """``session.list`` -> ``SessionListResult``: the open sessions.
        """
        return self._request("session.list", None, {}, timeout_ms, SessionListResult)

    # page.*

    def goto(self, session_id: str, url: str, *, timeout_ms: Optional[int] = None) -> GotoResult:
        """``page.goto {url}`` -> ``GotoResult``: loads ``url`` and answers once its document reached
        ``DOMContentLoaded`` (``load_state`` says what it had reached by then: ``load`` when its subresources
        were done), or what it reached when the budget ran out (``timed_out: true``). A document that sends
        the tab on while it loads (a script's ``location.href = ...``) is followed: the answer comes once the
        page it went to is loaded, with the first response's ``status``.

        :param url: The URL to load: ``http(s)``, ``about:blank``, ``data:`` or what the URL policy allows
        (docs/security.md).
        """
        params = _params({"url": url})
        return self._request("page.goto", session_id, params, timeout_ms, GotoResult)

    def back(self, session_id: str, *, timeout_ms: Optional[int] = None) -> GotoResult:
        """``page.back`` -> ``GotoResult``: the previous entry of the tab's history, waited for as ``page.goto``
        waits, until ``DOMContentLoaded`` (``timed_out`` with what it reached); ``bad_request`` when there is
        none.
        """
        return self._request("page.back", session_id, {}, timeout_ms, GotoResult)

    def forward(self, session_id: str, *, timeout_ms: Optional[int] = None) -> GotoResult:
        """``page.forward`` -> ``GotoResult``: the next entry of the tab's history, as ``page.back``.
        """
        return self._request("page.forward", session_id, {}, timeout_ms, GotoResult)

    def reload(self, session_id: str, *, timeout_ms: Optional[int] = None) -> GotoResult:
        """``page.reload`` -> ``GotoResult``: the tab's document loaded again, waited for as ``page.goto``.
        """
        return self._request("page.reload", session_id, {}, timeout_ms, GotoResult)

    def extract(
        self,
        session_id: str,
        *,
        format: Optional[Literal["text", "html"]] = None,
        max_chars: Optional[int] = None,
        timeout_ms: Optional[int] = None,
    ) -> ExtractResult:
        """``page.extract {format?, max_chars?}`` -> ``ExtractResult``: the page's ``text`` (innerText) or
        ``html``, at most ``max_chars``.

        :param format: ``text`` (the page's ``innerText``, the default) or ``html``
        (``document.documentElement.outerHTML``).
        :param max_chars: Cap on the content, in Unicode scalar values; default 100000
        (``DEFAULT_EXTRACT_MAX_CHARS``).
        """
        params = _params({"format": format, "max_chars": max_chars})
        return self._request("page.extract", session_id, params, timeout_ms, ExtractResult)

    def screenshot(
        self,
        session_id: str,
        *,
        clip: Optional[Dict[str, Any]] = None,
        format: Optional[Literal["png", "jpeg"]] = None,
        full_page: Optional[bool] = None,
        inline: Optional[bool] = None,
        max_height: Optional[int] = None,
        quality: Optional[int] = None,
        ref: Optional[str] = None,
        selector: Optional[str] = None,
        timeout_ms: Optional[int] = None,
    ) -> ScreenshotResult:
        """``page.screenshot {full_page?, format?, quality?, inline?, max_height?, clip?, ref? | selector?}`` ->
        ``ScreenshotResult``: the viewport, the full page (cut at ``max_height`` CSS px), a ``clip`` region
        (``{x, y, width, height}``, CSS px) or an element, saved under the runtime's artifacts directory;
        ``inline`` also returns it as base64 ``data``.

        :param clip: A region to capture, CSS px: of the viewport, or of the whole page with ``full_page`` (as
        Playwright's ``clip``).
        :param format: ``png`` (the default) or ``jpeg``.
        :param full_page: The whole scrollable page rather than the viewport.
        :param inline: Also return the image as base64 in ``data``.
        :param max_height: Full page only: the tallest capture, CSS px. Default 16384
        (``DEFAULT_SCREENSHOT_MAX_HEIGHT``), at most 65535 (``MAX_SCREENSHOT_HEIGHT``); a taller page is cut
        and the result says ``truncated: true``, as is a page wider than 16384 CSS px
        (``FULL_PAGE_MAX_WIDTH``).
        :param quality: JPEG quality 0..=100.
        :param ref: A ref from a snapshot (``e12``).
        :param selector: A selector, its first match in document order, through open shadow roots: CSS
        (``#save``), or Playwright's selectors (``text=Save``, ``role=button[name="Save"]``, ``//xpath``,
        ``css >> nth=1``, ``button:has-text("Save")``, ...) and locators (``getByRole('button', { name: 'Save'
        })``, ``getByLabel('Email')``, ``getByText(...)``, ``.first()``, ``.nth(i)``, ``.filter({ hasText
        })``), with Playwright's matching rules (docs/protocol.md, Selectors).
        """
        params = _params(
            {
                "clip": clip,
                "format": format,
                "full_page": full_page,
                "inline": inline,
                "max_height": max_height,
                "quality": quality,
                "ref": ref,
                "selector": selector,
            }
        )
        return self._request("page.screenshot", session_id, params, timeout_ms, ScreenshotResult)

    def evaluate(
        self,
        session_id: str,
        expression: Optional[str] = None,
        *,
        arg: Optional[Any] = None,
        frame: Optional[str] = None,
        function: Optional[str] = None,
        ref: Optional[str] = None,
        selector: Optional[str] = None,
        timeout_ms: Optional[int] = None,
    ) -> EvaluateResult:
        """``page.evaluate {expression | function, ref? | selector?, frame?, arg?}`` -> ``EvaluateResult``: an
        ``expression``, or a ``function`` called with the element named by ``ref``/``selector`` and the JSON
        ``arg`` (Playwright's ``evaluate(fn, arg)``); promises are awaited; ``evaluate_error`` when it throws.

        :param expression: A JavaScript expression; a promise is awaited. One whose value is a function (``()
        => document.title``) is called without arguments, as Playwright's Python ``page.evaluate`` calls it.
        :param arg: A JSON value passed to the function, as Playwright's ``evaluate(fn, arg)``. A ``function``
        gets it as its argument (after the element, ``(el, arg) => ...``, when ``ref``/``selector`` names one,
        as ``locator.evaluate(fn, arg)``); an ``expression`` whose value is a function is called with it
        (Playwright's ``page.evaluate(string, arg)``). Data goes here rather than into the source, which then
        needs no quoting.
        :param frame: The frame to run in: a ``frame_id`` from ``page.frames``, or an ``<iframe>``'s ref. As
        Playwright's ``frame.evaluate``. The script runs in that frame's main world; default: the main frame.
        Not with ``ref``/``selector`` (an element names its own frame).
        :param function: A JavaScript function such as ``(el) => el.textContent``; a promise it returns is
        awaited.
        :param ref: A ref from a snapshot (``e12``).
        :param selector: A selector, its first match in document order, through open shadow roots: CSS
        (``#save``), or Playwright's selectors (``text=Save``, ``role=button[name="Save"]``, ``//xpath``,
        ``css >> nth=1``, ``button:has-text("Save")``, ...) and locators (``getByRole('button', { name: 'Save'
        })``, ``getByLabel('Email')``, ``getByText(...)``, ``.first()``, ``.nth(i)``, ``.filter({ hasText
        })``), with Playwright's matching rules (docs/protocol.md, Selectors).
        """
        params = _params(
            {
                "expression": expression,
                "arg": arg,
                "frame": frame,
                "function": function,
                "ref": ref,
                "selector": selector,
            }
        )
        return self._request("page.evaluate", session_id, params, timeout_ms, EvaluateResult)

    def wait_for(
        self,
        session_id: str,
        *,
        dialog: Optional[bool] = None,
        download: Optional[bool] = None,
        function: Optional[str] = None,
        load_state: Optional[Literal["domcontentloaded", "load", "networkidle"]] = None,
        popup: Optional[bool] = None,
        response: Optional[str] = None,
        selector: Optional[str] = None,
        state: Optional[Literal["attached", "detached", "visible", "hidden"]] = None,
        text: Optional[str] = None,
        text_gone: Optional[str] = None,
        time_ms: Optional[int] = None,
        url: Optional[str] = None,
        timeout_ms: Optional[int] = None,
    ) -> WaitForResult:
        """``page.wait_for {selector+state | text | text_gone | url | load_state | function | time_ms}`` ->
        ``WaitForResult``: exactly one condition (a ``selector`` in a ``state``, ``text`` to appear,
        ``text_gone``, a ``url`` glob, a ``load_state``, a JS ``function`` truthy, or ``time_ms``).

        :param dialog: Wait for a JavaScript dialog in any of the session's tabs. One answered since the
        session's last result counts; each is answered by the session's policy (``page.handle_dialog``) and is
        in this result's ``dialogs``.
        :param download: Wait for a download of the session to end (completed, canceled or too large). One
        that ended since the session's previous request started counts (each is returned once); it is this
        result's ``download``.
        :param function: A JavaScript expression polled until truthy (a promise is awaited).
        :param load_state: ``load``, ``domcontentloaded`` or ``networkidle`` (Chromium's lifecycle event: no
        request for 500 ms).
        :param popup: Wait for a tab of the session to open another (a popup: ``window.open``,
        ``target=_blank``). One opened since the session's previous request started counts (each is returned
        once); it is this result's ``popup`` (``tabs.focus`` drives it).
        :param response: A glob or ``/pattern/flags`` a response's URL must match. As ``url``'s glob, or
        ``page.network``'s ``filter`` regular expression: one the active tab received since the session's
        previous action started, or one that comes within the budget. It is this result's ``response``.
        :param selector: A selector (as ``ElementParams::selector``), with ``state``.
        :param state: For ``selector``: ``attached``, ``detached``, ``visible`` (default) or ``hidden``.
        :param text: Text that must appear in the page (case-insensitive, as ``getByText``). In an element
        that shows it, whitespace (a no-break space too) normalized, as Playwright MCP's ``browser_wait_for``
        waits for ``page.getByText(text)``.
        :param text_gone: Text that must disappear from the page: no element that shows it (matched as
        ``text`` is).
        :param time_ms: Just wait this long, in ms.
        :param url: A glob the URL must match: ``**`` any characters, ``*`` any but ``/``, ``?`` one
        character.
        """
        params = _params(
            {
                "dialog": dialog,
                "download": download,
                "function": function,
                "load_state": load_state,
                "popup": popup,
                "response": response,
                "selector": selector,
                "state": state,
                "text": text,
                "text_gone": text_gone,
                "time_ms": time_ms,
                "url": url,
            }
        )
        return self._request("page.wait_for", session_id, params, timeout_ms, WaitForResult)

    def snapshot(
        self,
        session_id: str,
        *,
        compact: Optional[bool] = None,
        diff: Optional[bool] = None,
        interactive: Optional[bool] = None,
        max_chars: Optional[int] = None,
        max_depth: Optional[int] = None,
        scope: Optional[str] = None,
        timeout_ms: Optional[int] = None,
    ) -> SnapshotResult:
        """``page.snapshot {interactive?, compact?, max_depth?, scope?, max_chars?, diff?}`` ->
        ``SnapshotResult``: the page as aria-snapshot text with ``[ref=eN]`` refs to act on.

        :param compact: Drop unnamed structure (lists, groups, paragraphs without a name).
        :param diff: Answer only what changed since the session's previous snapshot of this document and
        options. Changed lines are marked ``+ `` (added) and ``- `` (removed), each under its unchanged
        parents' lines (marked with two spaces); a new document, other options, or no earlier snapshot answer
        the whole snapshot (``diff`` is then false in the result).
        :param interactive: Only the elements with refs, as a flat list.
        :param max_chars: Cap on the text (default 40000 (``DEFAULT_SNAPSHOT_MAX_CHARS``)); when cut, a marker
        line ends it and ``truncated`` is true.
        :param max_depth: Deepest level shown (the root's children are level 1); all levels when absent.
        :param scope: A ref (``e3``) or a selector to snapshot under.
        """
        params = _params(
            {
                "compact": compact,
                "diff": diff,
                "interactive": interactive,
                "max_chars": max_chars,
                "max_depth": max_depth,
                "scope": scope,
            }
        )
        return self._request("page.snapshot", session_id, params, timeout_ms, SnapshotResult)

    def click(
        self,
        session_id: str,
        ref: Optional[str] = None,
        *,
        button: Optional[Literal["left", "right", "middle"]] = None,
        click_count: Optional[int] = None,
        modifiers: Optional[List[Literal["Alt", "Control", "Meta", "Shift", "ControlOrMeta"]]] = None,
        selector: Optional[str] = None,
        settle_ms: Optional[int] = None,
        timeout_ms: Optional[int] = None,
    ) -> InputResult:
        """``page.click {ref | selector, button?, click_count?, modifiers?}`` -> ``InputResult``: waits until the
        element is actionable (visible, stable, enabled, not covered), then clicks it with ``button``
        ``click_count`` times.

        :param ref: A ref from a snapshot (``e12``).
        :param button: ``left`` (default), ``right`` or ``middle``.
        :param click_count: 2 for a double click.
        :param modifiers: ``Alt``, ``Control``, ``Meta``, ``Shift`` (or ``ControlOrMeta``) held during the
        click.
        :param selector: A selector, its first match in document order, through open shadow roots: CSS
        (``#save``), or Playwright's selectors (``text=Save``, ``role=button[name="Save"]``, ``//xpath``,
        ``css >> nth=1``, ``button:has-text("Save")``, ...) and locators (``getByRole('button', { name: 'Save'
        })``, ``getByLabel('Email')``, ``getByText(...)``, ``.first()``, ``.nth(i)``, ``.filter({ hasText
        })``), with Playwright's matching rules (docs/protocol.md, Selectors).
        :param settle_ms: Ms more to wait after the input (capped by the budget): a dialog its handlers raise
        within it is in this result; default 0.
        """
        params = _params(
            {
                "ref": ref,
                "button": button,
                "click_count": click_count,
                "modifiers": modifiers,
                "selector": selector,
                "settle_ms": settle_ms,
            }
        )
        return self._request("page.click", session_id, params, timeout_ms, InputResult)

    def type(
        self,
        session_id: str,
        ref: Optional[str] = None,
        text: Optional[str] = None,
        *,
        clear: Optional[bool] = None,
        selector: Optional[str] = None,
        settle_ms: Optional[int] = None,
        submit: Optional[bool] = None,
        timeout_ms: Optional[int] = None,
    ) -> InputResult:
        """``page.type {ref | selector, text, clear?, submit?}`` -> ``InputResult``: types ``text`` key by key
        (``clear`` first empties the field, ``submit`` presses Enter after).

        :param ref: A ref from a snapshot (``e12``).
        :param text: The text, typed key by key (characters without a key are inserted as an IME would).
        :param clear: Empty the field first.
        :param selector: A selector, its first match in document order, through open shadow roots: CSS
        (``#save``), or Playwright's selectors (``text=Save``, ``role=button[name="Save"]``, ``//xpath``,
        ``css >> nth=1``, ``button:has-text("Save")``, ...) and locators (``getByRole('button', { name: 'Save'
        })``, ``getByLabel('Email')``, ``getByText(...)``, ``.first()``, ``.nth(i)``, ``.filter({ hasText
        })``), with Playwright's matching rules (docs/protocol.md, Selectors).
        :param settle_ms: Ms more to wait after the input (capped by the budget): a dialog its handlers raise
        within it is in this result; default 0.
        :param submit: Press Enter after.
        """
        params = _params(
            {
                "ref": ref,
                "text": text,
                "clear": clear,
                "selector": selector,
                "settle_ms": settle_ms,
                "submit": submit,
            }
        )
        return self._request("page.type", session_id, params, timeout_ms, InputResult)

    def fill(
        self,
        session_id: str,
        ref: Optional[str] = None,
        value: Optional[str] = None,
        *,
        selector: Optional[str] = None,
        settle_ms: Optional[int] = None,
        timeout_ms: Optional[int] = None,
    ) -> InputResult:
        """``page.fill {ref | selector, value}`` -> ``InputResult``: sets an input's value at once (as
        Playwright's ``fill``).

        :param ref: A ref from a snapshot (``e12``).
        :param value: The value it gets (``""`` empties it).
        :param selector: A selector, its first match in document order, through open shadow roots: CSS
        (``#save``), or Playwright's selectors (``text=Save``, ``role=button[name="Save"]``, ``//xpath``,
        ``css >> nth=1``, ``button:has-text("Save")``, ...) and locators (``getByRole('button', { name: 'Save'
        })``, ``getByLabel('Email')``, ``getByText(...)``, ``.first()``, ``.nth(i)``, ``.filter({ hasText
        })``), with Playwright's matching rules (docs/protocol.md, Selectors).
        :param settle_ms: Ms more to wait after the input (capped by the budget): a dialog its handlers raise
        within it is in this result; default 0.
        """
        params = _params({"ref": ref, "value": value, "selector": selector, "settle_ms": settle_ms})
        return self._request("page.fill", session_id, params, timeout_ms, InputResult)

    def press(
        self,
        session_id: str,
        key: str,
        *,
        ref: Optional[str] = None,
        selector: Optional[str] = None,
        settle_ms: Optional[int] = None,
        timeout_ms: Optional[int] = None,
    ) -> InputResult:
        """``page.press {key, ref? | selector?}`` -> ``InputResult``: ``Enter``, ``Tab``, ``Control+A``, ... on
        the element, or on the focused one.

        :param key: ``Enter``, ``Tab``, ``ArrowLeft``, ``Control+A``, ``Shift+Tab``, ... (US layout).
        :param ref: A ref from a snapshot (``e12``).
        :param selector: A selector, its first match in document order, through open shadow roots: CSS
        (``#save``), or Playwright's selectors (``text=Save``, ``role=button[name="Save"]``, ``//xpath``,
        ``css >> nth=1``, ``button:has-text("Save")``, ...) and locators (``getByRole('button', { name: 'Save'
        })``, ``getByLabel('Email')``, ``getByText(...)``, ``.first()``, ``.nth(i)``, ``.filter({ hasText
        })``), with Playwright's matching rules (docs/protocol.md, Selectors).
        :param settle_ms: Ms more to wait after the input (capped by the budget): a dialog its handlers raise
        within it is in this result; default 0.
        """
        params = _params({"key": key, "ref": ref, "selector": selector, "settle_ms": settle_ms})
        return self._request("page.press", session_id, params, timeout_ms, InputResult)

    def hover(
        self,
        session_id: str,
        ref: Optional[str] = None,
        *,
        selector: Optional[str] = None,
        settle_ms: Optional[int] = None,
        timeout_ms: Optional[int] = None,
    ) -> InputResult:
        """``page.hover {ref | selector}`` -> ``InputResult``: moves the mouse over the element.

        :param ref: A ref from a snapshot (``e12``).
        :param selector: A selector, its first match in document order, through open shadow roots: CSS
        (``#save``), or Playwright's selectors (``text=Save``, ``role=button[name="Save"]``, ``//xpath``,
        ``css >> nth=1``, ``button:has-text("Save")``, ...) and locators (``getByRole('button', { name: 'Save'
        })``, ``getByLabel('Email')``, ``getByText(...)``, ``.first()``, ``.nth(i)``, ``.filter({ hasText
        })``), with Playwright's matching rules (docs/protocol.md, Selectors).
        :param settle_ms: Ms more to wait after the input (capped by the budget): a dialog its handlers raise
        within it is in this result; default 0.
        """
        params = _params({"ref": ref, "selector": selector, "settle_ms": settle_ms})
        return self._request("page.hover", session_id, params, timeout_ms, InputResult)

    def handle_dialog(
        self,
        session_id: str,
        accept: bool,
        *,
        prompt_text: Optional[str] = None,
        timeout_ms: Optional[int] = None,
    ) -> HandleDialogResult:
        """``page.handle_dialog {accept, prompt_text?}`` -> ``HandleDialogResult``: how the session answers its
        next JavaScript dialog, in any of its tabs (a popup not focused yet too); one dialog only.

        :param accept: Accept (OK) or dismiss (Cancel) the next dialog.
        :param prompt_text: The text a ``prompt`` gets when accepted.
        """
        params = _params({"accept": accept, "prompt_text": prompt_text})
        return self._request("page.handle_dialog", session_id, params, timeout_ms, HandleDialogResult)

    def select(
        self,
        session_id: str,
        ref: Optional[str] = None,
        *,
        indexes: Optional[List[int]] = None,
        labels: Optional[List[str]] = None,
        selector: Optional[str] = None,
        settle_ms: Optional[int] = None,
        values: Optional[List[str]] = None,
        timeout_ms: Optional[int] = None,
    ) -> SelectResult:
        """``page.select {ref | selector, values? | labels? | indexes?}`` -> ``SelectResult``: selects a
        ``<select>``'s options.

        :param ref: A ref from a snapshot (``e12``).
        :param indexes: Options to select by their position, 0-based.
        :param labels: Options to select by their label (whitespace normalized).
        :param selector: A selector, its first match in document order, through open shadow roots: CSS
        (``#save``), or Playwright's selectors (``text=Save``, ``role=button[name="Save"]``, ``//xpath``,
        ``css >> nth=1``, ``button:has-text("Save")``, ...) and locators (``getByRole('button', { name: 'Save'
        })``, ``getByLabel('Email')``, ``getByText(...)``, ``.first()``, ``.nth(i)``, ``.filter({ hasText
        })``), with Playwright's matching rules (docs/protocol.md, Selectors).
        :param settle_ms: Ms more to wait after the input (capped by the budget): a dialog its handlers raise
        within it is in this result; default 0.
        :param values: Options to select by their value (or, failing that, their label).
        """
        params = _params(
            {
                "ref": ref,
                "indexes": indexes,
                "labels": labels,
                "selector": selector,
                "settle_ms": settle_ms,
                "values": values,
            }
        )
        return self._request("page.select", session_id, params, timeout_ms, SelectResult)

    def check(
        self,
        session_id: str,
        ref: Optional[str] = None,
        *,
        checked: Optional[bool] = None,
        selector: Optional[str] = None,
        settle_ms: Optional[int] = None,
        timeout_ms: Optional[int] = None,
    ) -> InputResult:
        """``page.check {ref | selector, checked?}`` -> ``InputResult``: brings a checkbox or radio to
        ``checked`` (default true).

        :param ref: A ref from a snapshot (``e12``).
        :param checked: The state wanted (default true). A checked radio button cannot be unchecked (only
        checking another of its group does that): ``false`` for one answers ``bad_request``, without a click,
        as Playwright's ``uncheck``.
        :param selector: A selector, its first match in document order, through open shadow roots: CSS
        (``#save``), or Playwright's selectors (``text=Save``, ``role=button[name="Save"]``, ``//xpath``,
        ``css >> nth=1``, ``button:has-text("Save")``, ...) and locators (``getByRole('button', { name: 'Save'
        })``, ``getByLabel('Email')``, ``getByText(...)``, ``.first()``, ``.nth(i)``, ``.filter({ hasText
        })``), with Playwright's matching rules (docs/protocol.md, Selectors).
        :param settle_ms: Ms more to wait after the input (capped by the budget): a dialog its handlers raise
        within it is in this result; default 0.
        """
        params = _params({"ref": ref, "checked": checked, "selector": selector, "settle_ms": settle_ms})
        return self._request("page.check", session_id, params, timeout_ms, InputResult)

    def scroll(
        self,
        session_id: str,
        ref: Optional[str] = None,
        *,
        dx: Optional[float] = None,
        dy: Optional[float] = None,
        selector: Optional[str] = None,
        timeout_ms: Optional[int] = None,
    ) -> ScrollResult:
        """``page.scroll {ref | selector}`` -> ``InputResult``: an element into view; or ``{dx?, dy?}`` ->
        ``ScrollResult``: the page by a wheel delta (CSS px).

        :param ref: A ref from a snapshot (``e12``).
        :param dx: Horizontal wheel delta, CSS px (positive: right).
        :param dy: Vertical wheel delta, CSS px (positive: down).
        :param selector: A selector, its first match in document order, through open shadow roots: CSS
        (``#save``), or Playwright's selectors (``text=Save``, ``role=button[name="Save"]``, ``//xpath``,
        ``css >> nth=1``, ``button:has-text("Save")``, ...) and locators (``getByRole('button', { name: 'Save'
        })``, ``getByLabel('Email')``, ``getByText(...)``, ``.first()``, ``.nth(i)``, ``.filter({ hasText
        })``), with Playwright's matching rules (docs/protocol.md, Selectors).
        """
        params = _params({"ref": ref, "dx": dx, "dy": dy, "selector": selector})
        return self._request("page.scroll", session_id, params, timeout_ms, ScrollResult)

    def drag(
        self,
        session_id: str,
        source: Dict[str, Any],
        target: Dict[str, Any],
        *,
        settle_ms: Optional[int] = None,
        timeout_ms: Optional[int] = None,
    ) -> InputResult:
        """``page.drag {from: {ref | selector}, to: {ref | selector}}`` -> ``InputResult``: drags with the mouse
        from one element to the other.

        :param source: The element to press on.
        :param target: The element to release over.
        :param settle_ms: Ms more to wait after the input (capped by the budget): a dialog its handlers raise
        within it is in this result; default 0.
        """
        params = _params({"from": source, "to": target, "settle_ms": settle_ms})
        return self._request("page.drag", session_id, params, timeout_ms, InputResult)

    def set_viewport(
        self,
        session_id: str,
        width: int,
        height: int,
        *,
        device_scale_factor: Optional[float] = None,
        timeout_ms: Optional[int] = None,
    ) -> SetViewportResult:
        """``page.set_viewport {width, height, device_scale_factor?}`` -> ``SetViewportResult``: the session's
        viewport in CSS px from now on (its pages, and the pages of every later worker).

        :param width: Viewport width, CSS px (1..=10000).
        :param height: Viewport height, CSS px (1..=10000).
        :param device_scale_factor: Device pixels per CSS px (0.5..=4); the session's current one when absent.
        """
        params = _params({"width": width, "height": height, "device_scale_factor": device_scale_factor})
        return self._request("page.set_viewport", session_id, params, timeout_ms, SetViewportResult)

    def frames(self, session_id: str, *, timeout_ms: Optional[int] = None) -> FramesResult:
        """``page.frames`` -> ``FramesResult``: the active tab's frame tree, main frame first (out-of-process
        iframes included).
        """
        return self._request("page.frames", session_id, {}, timeout_ms, FramesResult)

    def pdf(
        self,
        session_id: str,
        *,
        landscape: Optional[bool] = None,
        margin_in: Optional[float] = None,
        page_ranges: Optional[str] = None,
        paper: Optional[Literal["letter", "legal", "tabloid", "a3", "a4", "a5"]] = None,
        print_background: Optional[bool] = None,
        scale: Optional[float] = None,
        timeout_ms: Optional[int] = None,
    ) -> PdfResult:
        """``page.pdf {paper?, landscape?, print_background?, margin_in?, scale?, page_ranges?}`` ->
        ``PdfResult``: the page printed to PDF (``Page.printToPDF``, print media), written under the artifacts
        directory.

        :param landscape: Landscape instead of portrait.
        :param margin_in: Every margin, inches, 0..=5; default 0.4 (Chromium's 1 cm).
        :param page_ranges: Pages to print, 1-based: ``1-5, 8, 11-13``, none past page 1000
        (``MAX_PDF_PAGES``); default all, up to the 1000th.
        :param paper: Paper size; default ``letter``.
        :param print_background: Print background colours and images (off by default, as in print).
        :param scale: Scale of the rendering, 0.1..=2; default 1.
        """
        params = _params(
            {
                "landscape": landscape,
                "margin_in": margin_in,
                "page_ranges": page_ranges,
                "paper": paper,
                "print_background": print_background,
                "scale": scale,
            }
        )
        return self._request("page.pdf", session_id, params, timeout_ms, PdfResult)

    def fill_form(
        self,
        session_id: str,
        *,
        fields: List[Dict[str, Any]],
        timeout_ms: Optional[int] = None,
    ) -> FillFormResult:
        """``page.fill_form {fields: [{ref | selector, value}]}`` -> ``FillFormResult``: fills several fields in
        order, each as its element takes a value (text: filled; checkbox, radio: checked by
        ``"true"``/``"false"``; select: chosen by value or label), stopping at the first that fails and naming
        it.

        :param fields: The fields, filled in this order; at most 100 (``MAX_FORM_FIELDS``).
        """
        params = _params({"fields": fields})
        return self._request("page.fill_form", session_id, params, timeout_ms, FillFormResult)

    def upload(
        self,
        session_id: str,
        *,
        files: List[str],
        ref: Optional[str] = None,
        selector: Optional[str] = None,
        timeout_ms: Optional[int] = None,
    ) -> UploadResult:
        """``page.upload {ref | selector, files}`` -> ``UploadResult``: sets the files of a file input
        (``DOM.setFileInputFiles``), each a plain name of a file in ``[files] uploads_dir``.

        :param files: Plain names of files in the runtime's ``[files] uploads_dir`` (no directories, no
        symlinks); an empty list clears the input. At most 100 (``MAX_UPLOAD_FILES``).
        :param ref: A ref from a snapshot (``e12``).
        :param selector: A selector, its first match in document order, through open shadow roots: CSS
        (``#save``), or Playwright's selectors (``text=Save``, ``role=button[name="Save"]``, ``//xpath``,
        ``css >> nth=1``, ``button:has-text("Save")``, ...) and locators (``getByRole('button', { name: 'Save'
        })``, ``getByLabel('Email')``, ``getByText(...)``, ``.first()``, ``.nth(i)``, ``.filter({ hasText
        })``), with Playwright's matching rules (docs/protocol.md, Selectors).
        """
        params = _params({"files": files, "ref": ref, "selector": selector})
        return self._request("page.upload", session_id, params, timeout_ms, UploadResult)

    def downloads(self, session_id: str, *, timeout_ms: Optional[int] = None) -> DownloadsResult:
        """``page.downloads`` -> ``DownloadsResult``: every download of the session so far (its pages' and
        popups'), oldest first, each in its latest state.
        """
        return self._request("page.downloads", session_id, {}, timeout_ms, DownloadsResult)

    def console(
        self,
        session_id: str,
        *,
        level: Optional[Literal["error", "warning", "info", "debug"]] = None,
        limit: Optional[int] = None,
        since: Optional[int] = None,
        timeout_ms: Optional[int] = None,
    ) -> ConsoleResult:
        """``page.console {since?, level?, limit?}`` -> ``ConsoleResult``: the active tab's console messages and
        uncaught exceptions (``Runtime.consoleAPICalled``, ``Runtime.exceptionThrown``) from a bounded buffer
        (``CONSOLE_BUFFER`` entries), oldest first, at ``level`` or more severe.

        :param level: The least severe level listed (default ``info``: errors, warnings and info).
        :param limit: At most this many, the newest (1..=1000, default 100).
        :param since: Only entries after this ``id`` (a previous answer's ``last_id``); all kept when absent.
        """
        params = _params({"level": level, "limit": limit, "since": since})
        return self._request("page.console", session_id, params, timeout_ms, ConsoleResult)

    def network(
        self,
        session_id: str,
        *,
        filter: Optional[str] = None,
        id: Optional[int] = None,
        include_static: Optional[bool] = None,
        limit: Optional[int] = None,
        since: Optional[int] = None,
        timeout_ms: Optional[int] = None,
    ) -> NetworkResult:
        """``page.network {since?, filter?, include_static?, limit?}`` -> ``NetworkResult``: the active tab's
        requests (``Network.requestWillBeSent`` and what followed) from a bounded buffer (``NETWORK_BUFFER``
        entries), oldest first; ``page.network {id}``: that request alone with its ``RequestDetails``
        (headers, post data, the response's headers and body, capped).

        :param filter: A URL glob (``**`` any characters, ``*`` any but ``/``) or a ``/pattern/flags`` regular
        expression. The glob as ``page.wait_for``'s ``url``; the regular expression as Playwright writes it
        (``/api\\/v\\d+/i``), found anywhere in the URL; one that does not compile is ``bad_request``.
        :param id: One request's details instead of a list (an ``id`` from a listing): its headers and body,
        the response's status, headers and body (as Playwright MCP's ``browser_network_request``); the other
        fields are then not taken.
        :param include_static: Also list images, fonts, stylesheets and media that loaded. They are left out
        by default, as Playwright MCP's ``browser_network_requests`` does; a failed one is always listed.
        :param limit: At most this many, the newest (1..=1000, default 100).
        :param since: Only entries after this ``id`` (a previous answer's ``last_id``); all kept when absent.
        """
        params = _params(
            {
                "filter": filter,
                "id": id,
                "include_static": include_static,
                "limit": limit,
                "since": since,
            }
        )
        return self._request("page.network", session_id, params, timeout_ms, NetworkResult)

    def mouse(
        self,
        session_id: str,
        *,
        action: Literal["move", "down", "up", "click", "wheel", "drag"],
        button: Optional[Literal["left", "right", "middle"]] = None,
        click_count: Optional[int] = None,
        dx: Optional[float] = None,
        dy: Optional[float] = None,
        settle_ms: Optional[int] = None,
        to_x: Optional[float] = None,
        to_y: Optional[float] = None,
        x: Optional[float] = None,
        y: Optional[float] = None,
        timeout_ms: Optional[int] = None,
    ) -> InputResult:
        """``page.mouse {action, x?, y?, button?, click_count?, dx?, dy?, to_x?, to_y?}`` -> ``InputResult``: raw
        mouse input at viewport coordinates (CSS px), as Playwright's ``page.mouse`` (``move``, ``down``,
        ``up``, ``click``, ``wheel``) plus ``drag`` (down at x, y, move to to_x, to_y, up); no element is
        checked. Buttons stay down between calls until ``up``.

        :param action: move, down, up, click, wheel or drag.
        :param button: ``left`` (default), ``right`` or ``middle``.
        :param click_count: For click: 2 for a double click (1..=3).
        :param dx: For wheel: horizontal delta, CSS px.
        :param dy: For wheel: vertical delta, CSS px.
        :param settle_ms: Ms more to wait after the input (capped by the budget): a dialog its handlers raise
        within it is in this result; default 0.
        :param to_x: For drag: where to release, X.
        :param to_y: For drag: where to release, Y.
        :param x: X, CSS px from the viewport's left (needed by move, click, drag).
        :param y: Y, CSS px from the viewport's top (needed by move, click, drag).
        """
        params = _params(
            {
                "action": action,
                "button": button,
                "click_count": click_count,
                "dx": dx,
                "dy": dy,
                "settle_ms": settle_ms,
                "to_x": to_x,
                "to_y": to_y,
                "x": x,
                "y": y,
            }
        )
        return self._request("page.mouse", session_id, params, timeout_ms, InputResult)

    def keyboard(
        self,
        session_id: str,
        *,
        action: Literal["down", "up", "press", "insert_text"],
        key: Optional[str] = None,
        settle_ms: Optional[int] = None,
        text: Optional[str] = None,
        timeout_ms: Optional[int] = None,
    ) -> InputResult:
        """``page.keyboard {action, key? | text?}`` -> ``InputResult``: raw keys on the focused element, as
        Playwright's ``page.keyboard`` (``down`` and ``up`` of one key, modifiers held between calls until
        their ``up``; ``press`` of a key or combo; ``insert_text`` as ``Input.insertText``).

        :param action: down, up, press or insert_text.
        :param key: For down, up, press: a key name (``Enter``, ``Shift``, ``a``, ``ArrowLeft``; press also
        takes a combo).
        :param settle_ms: Ms more to wait after the input (capped by the budget): a dialog its handlers raise
        within it is in this result; default 0.
        :param text: For insert_text: the text.
        """
        params = _params({"action": action, "key": key, "settle_ms": settle_ms, "text": text})
        return self._request("page.keyboard", session_id, params, timeout_ms, InputResult)

    def emulate(
        self,
        session_id: str,
        *,
        color_scheme: Optional[Literal["light", "dark", "no-preference"]] = None,
        contrast: Optional[Literal["more", "no-preference"]] = None,
        extra_http_headers: Optional[Dict[str, Any]] = None,
        forced_colors: Optional[Literal["active", "none"]] = None,
        geolocation: Optional[Dict[str, Any]] = None,
        http_credentials: Optional[Dict[str, Any]] = None,
        init_scripts: Optional[List[str]] = None,
        locale: Optional[str] = None,
        media: Optional[Literal["screen", "print"]] = None,
        offline: Optional[bool] = None,
        permissions: Optional[List[Literal["clipboard-read", "clipboard-write", "notifications", "geolocation", "camera", "microphone"]]] = None,
        reduced_motion: Optional[Literal["reduce", "no-preference"]] = None,
        reset: Optional[bool] = None,
        routes: Optional[List[Dict[str, Any]]] = None,
        timezone: Optional[str] = None,
        user_agent: Optional[str] = None,
        timeout_ms: Optional[int] = None,
    ) -> EmulateResult:
        """``page.emulate {color_scheme?, reduced_motion?, locale?, timezone?, geolocation?, user_agent?,
        offline?, extra_http_headers?, permissions?, reset?}`` -> ``EmulateResult``: what the session's pages
        emulate from now on, as Playwright's context options (each field given replaces the one in force;
        ``reset`` clears them all first), on every page of the session and kept across a supervisor restart,
        as the viewport is.

        :param color_scheme: ``prefers-color-scheme`` (``Emulation.setEmulatedMedia``).
        :param contrast: ``prefers-contrast`` (``Emulation.setEmulatedMedia``).
        :param extra_http_headers: Headers sent with every request of the session's pages, as Playwright's
        ``extraHTTPHeaders`` (``Network.setExtraHTTPHeaders``). At most ``MAX_EXTRA_HEADERS``, names as HTTP
        tokens, values without line breaks; ``{}`` sends none.
        :param forced_colors: ``forced-colors`` (``Emulation.setEmulatedMedia``).
        :param geolocation: The position the page gets.
        :param http_credentials: HTTP authentication for the session's pages, as Playwright's
        ``httpCredentials``: a server's Basic or Digest challenge (a 401 with ``WWW-Authenticate``) is
        answered with them, once a request. Results show the password as ``***``.
        :param init_scripts: Scripts run in every document of the session's pages before the page's own, as
        Playwright's ``addInitScript`` (``Page.addScriptToEvaluateOnNewDocument``), in every frame: a cross-
        site (out-of-process) iframe is held as it attaches until they are in; at most ``MAX_INIT_SCRIPTS`` of
        at most ``MAX_INIT_SCRIPT_BYTES`` each. ``page.emulate`` replaces the list (the next document of every
        tab runs the new one: a script left out is removed, ``Page.removeScriptToEvaluateOnNewDocument``); its
        ``reset`` keeps them.
        :param locale: A BCP 47 locale such as ``de-DE``: ``Intl`` and dates
        (``Emulation.setLocaleOverride``), ``navigator.language`` and the ``Accept-Language`` header
        (``Emulation.setUserAgentOverride``), as Playwright's ``locale`` sets them.
        :param media: The CSS media type, ``screen`` or ``print`` (``Emulation.setEmulatedMedia``).
        :param offline: No network: every request fails as offline (``Network.emulateNetworkConditions``).
        :param permissions: Permissions granted to every origin in the session's browser context, as
        Playwright's ``permissions`` (``Browser.grantPermissions``); the rest are denied. ``[]`` grants none
        (``geolocation`` stays granted while a position is emulated).
        :param reduced_motion: ``prefers-reduced-motion`` (``Emulation.setEmulatedMedia``).
        :param reset: Clear everything emulated first (then set what is given).
        :param routes: Routes the session's requests take, newest first (``page.route`` adds one,
        ``page.unroute`` removes them; ``session.start`` may give the first ones). ``page.emulate`` does not
        take them, its ``reset`` keeps them, and its result leaves them out (``page.routes`` lists them).
        :param timezone: An IANA time zone such as ``Europe/Berlin`` (``Emulation.setTimezoneOverride``); one
        the browser's ICU data does not know answers ``bad_request``.
        :param user_agent: The ``User-Agent`` header and ``navigator.userAgent``
        (``Emulation.setUserAgentOverride``).
        """
        params = _params(
            {
                "color_scheme": color_scheme,
                "contrast": contrast,
                "extra_http_headers": extra_http_headers,
                "forced_colors": forced_colors,
                "geolocation": geolocation,
                "http_credentials": http_credentials,
                "init_scripts": init_scripts,
                "locale": locale,
                "media": media,
                "offline": offline,
                "permissions": permissions,
                "reduced_motion": reduced_motion,
                "reset": reset,
                "routes": routes,
                "timezone": timezone,
                "user_agent": user_agent,
            }
        )
        return self._request("page.emulate", session_id, params, timeout_ms, EmulateResult)

    def storage(
        self,
        session_id: str,
        *,
        action: Optional[Literal["get", "set", "delete", "clear"]] = None,
        key: Optional[str] = None,
        kind: Literal["local", "session"],
        value: Optional[str] = None,
        timeout_ms: Optional[int] = None,
    ) -> StorageResult:
        """``page.storage {kind: local | session, action?: get | set | delete | clear, key?, value?}`` ->
        ``StorageResult``: the active tab's ``localStorage`` or ``sessionStorage`` (its origin's), after the
        action.

        :param action: get (default), set, delete or clear.
        :param key: The item (set and delete need it; get lists only it when given).
        :param kind: local or session.
        :param value: For set: its value.
        """
        params = _params({"action": action, "key": key, "kind": kind, "value": value})
        return self._request("page.storage", session_id, params, timeout_ms, StorageResult)

    def verify(
        self,
        session_id: str,
        *,
        attribute: Optional[Dict[str, Any]] = None,
        checked: Optional[bool] = None,
        count: Optional[int] = None,
        items: Optional[List[str]] = None,
        name: Optional[str] = None,
        ref: Optional[str] = None,
        role: Optional[str] = None,
        selector: Optional[str] = None,
        text: Optional[str] = None,
        value: Optional[str] = None,
        visible: Optional[bool] = None,
        timeout_ms: Optional[int] = None,
    ) -> VerifyResult:
        """``page.verify {ref | selector | role+name, visible | text | value | checked | count | attribute |
        items}`` -> ``VerifyResult``: one check of the page as it is now (Playwright MCP's
        ``browser_verify_*``, Playwright's ``expect`` without its retries); ``verify_failed`` (not retryable)
        with what the page has when it does not hold. ``text`` without an element: visible text anywhere on
        the page.

        :param attribute: An attribute: present (no ``value``), or with exactly ``value``.
        :param checked: A checkbox's, radio's or switch's state.
        :param count: How many elements the selector matches.
        :param items: Texts each in the element's text. A list's items, matched as ``text`` is.
        :param name: The role's accessible name (a case-insensitive substring).
        :param ref: A ref from a snapshot (``e12``).
        :param role: An ARIA role, as the snapshot shows it (``button``). With ``name``, Playwright's
        ``getByRole(role, {name})``.
        :param selector: A selector, its first match in document order, through open shadow roots: CSS
        (``#save``), or Playwright's selectors (``text=Save``, ``role=button[name="Save"]``, ``//xpath``,
        ``css >> nth=1``, ``button:has-text("Save")``, ...) and locators (``getByRole('button', { name: 'Save'
        })``, ``getByLabel('Email')``, ``getByText(...)``, ``.first()``, ``.nth(i)``, ``.filter({ hasText
        })``), with Playwright's matching rules (docs/protocol.md, Selectors).
        :param text: Text visible on the page, or in the element (case-insensitive). Whitespace collapsed, as
        ``getByText`` matches.
        :param value: An input's value, exactly. Of an input, textarea or select (Playwright's
        ``inputValue``).
        :param visible: true: a match is visible; false: none is (no match, or all hidden).
        """
        params = _params(
            {
                "attribute": attribute,
                "checked": checked,
                "count": count,
                "items": items,
                "name": name,
                "ref": ref,
                "role": role,
                "selector": selector,
                "text": text,
                "value": value,
                "visible": visible,
            }
        )
        return self._request("page.verify", session_id, params, timeout_ms, VerifyResult)

    def query(
        self,
        session_id: str,
        *,
        ref: Optional[str] = None,
        selector: Optional[str] = None,
        timeout_ms: Optional[int] = None,
    ) -> QueryResult:
        """``page.query {ref | selector}`` -> ``QueryResult``: how many elements a selector matches (and how many
        are visible), and the first one's tag, text, value, checked state, visibility, attributes and bounding
        box, read at once without JavaScript of the caller's.

        :param ref: A ref from a snapshot (``e12``).
        :param selector: A selector, its first match in document order, through open shadow roots: CSS
        (``#save``), or Playwright's selectors (``text=Save``, ``role=button[name="Save"]``, ``//xpath``,
        ``css >> nth=1``, ``button:has-text("Save")``, ...) and locators (``getByRole('button', { name: 'Save'
        })``, ``getByLabel('Email')``, ``getByText(...)``, ``.first()``, ``.nth(i)``, ``.filter({ hasText
        })``), with Playwright's matching rules (docs/protocol.md, Selectors).
        """
        params = _params({"ref": ref, "selector": selector})
        return self._request("page.query", session_id, params, timeout_ms, QueryResult)

    def generate_locator(
        self,
        session_id: str,
        *,
        ref: Optional[str] = None,
        selector: Optional[str] = None,
        timeout_ms: Optional[int] = None,
    ) -> GenerateLocatorResult:
        """``page.generate_locator {ref | selector}`` -> ``GenerateLocatorResult``: a locator for the element, as
        Playwright writes one for a test: the first of a test id, its role and name, its placeholder, alt
        text, text or title, its ``id``, its role or its tag that matches it alone, else the first that
        matches it, with its index among the matches (Playwright MCP's ``browser_generate_locator``).

        :param ref: A ref from a snapshot (``e12``).
        :param selector: A selector, its first match in document order, through open shadow roots: CSS
        (``#save``), or Playwright's selectors (``text=Save``, ``role=button[name="Save"]``, ``//xpath``,
        ``css >> nth=1``, ``button:has-text("Save")``, ...) and locators (``getByRole('button', { name: 'Save'
        })``, ``getByLabel('Email')``, ``getByText(...)``, ``.first()``, ``.nth(i)``, ``.filter({ hasText
        })``), with Playwright's matching rules (docs/protocol.md, Selectors).
        """
        params = _params({"ref": ref, "selector": selector})
        return self._request("page.generate_locator", session_id, params, timeout_ms, GenerateLocatorResult)

    def clipboard(
        self,
        session_id: str,
        *,
        action: Literal["read", "write"],
        text: Optional[str] = None,
        timeout_ms: Optional[int] = None,
    ) -> ClipboardResult:
        """``page.clipboard {action: read | write, text?}`` -> ``ClipboardResult``: the system clipboard as the
        active tab's page sees it (``navigator.clipboard.readText`` / ``writeText``, in the runtime's isolated
        world, as a user's gesture). Reading needs the session's ``clipboard-read`` permission
        (``session.start`` or ``page.emulate {permissions}``); without it ``bad_request`` says so.

        :param action: read or write.
        :param text: For write: the text, at most ``MAX_CLIPBOARD_CHARS`` characters.
        """
        params = _params({"action": action, "text": text})
        return self._request("page.clipboard", session_id, params, timeout_ms, ClipboardResult)

    def route(
        self,
        session_id: str,
        *,
        action: Optional[Literal["fulfill", "abort", "continue"]] = None,
        body: Optional[str] = None,
        body_base64: Optional[str] = None,
        body_file: Optional[str] = None,
        content_type: Optional[str] = None,
        error: Optional[Literal["aborted", "accessdenied", "addressunreachable", "blockedbyclient", "blockedbyresponse", "connectionaborted", "connectionclosed", "connectionfailed", "connectionrefused", "connectionreset", "internetdisconnected", "namenotresolved", "timedout", "failed"]] = None,
        headers: Optional[Dict[str, Any]] = None,
        method: Optional[str] = None,
        post_data: Optional[str] = None,
        remove_headers: Optional[List[str]] = None,
        request_headers: Optional[Dict[str, Any]] = None,
        status: Optional[int] = None,
        url: str,
        timeout_ms: Optional[int] = None,
    ) -> RoutesResult:
        """``page.route {url, action?, status?, content_type?, headers?, body? | body_base64? | body_file?,
        error?, request_headers?, remove_headers?, method?, post_data?}`` -> ``RoutesResult``: a ``Route`` of
        the session's requests, in every tab, tried before the ones already there (as Playwright's
        ``context.route``); at most ``MAX_ROUTES``. While a session has no route (and no ``http_credentials``)
        its requests are not intercepted at all.

        :param action: When absent: ``abort`` with ``error``, ``fulfill`` with a status, body, content type or
        headers, else ``continue``.
        :param body: fulfill: the body, text.
        :param body_base64: fulfill: the body, base64.
        :param body_file: fulfill: the body from this file of the uploads dir, read once (``page.route``
        only).
        :param content_type: fulfill: the ``Content-Type`` (from ``body_file``'s name when absent).
        :param error: abort: Playwright's error code, ``failed`` when absent.
        :param headers: fulfill: the response's headers.
        :param method: continue: another method.
        :param post_data: continue: another body, text.
        :param remove_headers: continue: request headers removed.
        :param request_headers: continue: request headers set.
        :param status: fulfill: the status (100..=599), 200 when absent.
        :param url: A glob matched against the whole URL (``**/api/*``, ``**/*.{png,jpg}``) or
        ``/regex/flags``.
        """
        params = _params(
            {
                "action": action,
                "body": body,
                "body_base64": body_base64,
                "body_file": body_file,
                "content_type": content_type,
                "error": error,
                "headers": headers,
                "method": method,
                "post_data": post_data,
                "remove_headers": remove_headers,
                "request_headers": request_headers,
                "status": status,
                "url": url,
            }
        )
        return self._request("page.route", session_id, params, timeout_ms, RoutesResult)

    def unroute(self, session_id: str, *, url: Optional[str] = None, timeout_ms: Optional[int] = None) -> RoutesResult:
        """``page.unroute {url?}`` -> ``RoutesResult``: removes the routes added with that ``url`` (every route
        without it), as Playwright's ``context.unroute(url)`` / ``unrouteAll()``.

        :param url: The ``url`` the routes were added with; every route when absent.
        """
        params = _params({"url": url})
        return self._request("page.unroute", session_id, params, timeout_ms, RoutesResult)

    def routes(self, session_id: str, *, timeout_ms: Optional[int] = None) -> RoutesResult:
        """``page.routes`` -> ``RoutesResult``: the session's routes, newest first.
        """
        return self._request("page.routes", session_id, {}, timeout_ms, RoutesResult)

    # tabs.*

    def tabs_list(self, session_id: str, *, timeout_ms: Optional[int] = None) -> TabsListResult:
        """``tabs.list`` -> ``TabsListResult``: the session's tabs (popups included).
        """
        return self._request("tabs.list", session_id, {}, timeout_ms, TabsListResult)

    def tabs_open(self, session_id: str, url: Optional[str] = None, *, timeout_ms: Optional[int] = None) -> TabInfo:
        """``tabs.open {url?}`` -> ``TabInfo``: a new tab, the active one from now on, loaded at ``url`` as
        ``page.goto`` loads it, with the session's viewport and emulation from its first request (a load that
        fails answers ``page.goto``'s error; the tab stays open and active).

        :param url: Where the new tab goes (``about:blank`` when absent), loaded as ``page.goto`` loads it.
        """
        params = _params({"url": url})
        return self._request("tabs.open", session_id, params, timeout_ms, TabInfo)

    def tabs_focus(self, session_id: str, target_id: str, *, timeout_ms: Optional[int] = None) -> TabInfo:
        """``tabs.focus {target_id}`` -> ``TabInfo``: page methods go to this tab from now on (a unique
        ``target_id`` prefix is enough).

        :param target_id: A tab's ``target_id``, whole or a unique prefix (``ambiguous_target`` when several
        tabs match, ``tab_not_found`` when none does; ``bad_request`` when empty).
        """
        params = _params({"target_id": target_id})
        return self._request("tabs.focus", session_id, params, timeout_ms, TabInfo)

    def tabs_close(self, session_id: str, target_id: str, *, timeout_ms: Optional[int] = None) -> TabsCloseResult:
        """``tabs.close {target_id}`` -> ``TabsCloseResult``: closes the tab.

        :param target_id: A tab's ``target_id``, whole or a unique prefix (``ambiguous_target`` when several
        tabs match, ``tab_not_found`` when none does; ``bad_request`` when empty).
        """
        params = _params({"target_id": target_id})
        return self._request("tabs.close", session_id, params, timeout_ms, TabsCloseResult)


class AsyncMethods:
    """The same methods as :class:`Methods`, each a coroutine (the :class:`~sandbox_browser.AsyncClient`'s):
    typed so that ``await client.goto(...)`` is the result."""

    async def _request(
        self, method: str, session_id: Optional[str], params: Dict[str, Any], timeout_ms: Optional[int], result: Type[Any]
    ) -> Any:
        raise NotImplementedError

    # runtime.*

    async def health(self, *, timeout_ms: Optional[int] = None) -> HealthResult:
        """``runtime.health`` -> ``HealthResult``: the browser's state (probed when the last probe is old);
        ``browser_unavailable`` when the browser is down.
        """
        return await self._request("runtime.health", None, {}, timeout_ms, HealthResult)

    async def stats(self, *, timeout_ms: Optional[int] = None) -> StatsResult:
        """``runtime.stats`` -> ``StatsResult``: the runtime's counters since it started.
        """
        return await self._request("runtime.stats", None, {}, timeout_ms, StatsResult)

    async def metrics(self, *, timeout_ms: Optional[int] = None) -> MetricsResult:
        """``runtime.metrics`` -> ``MetricsResult``: the same counters in Prometheus text format.
        """
        return await self._request("runtime.metrics", None, {}, timeout_ms, MetricsResult)

    # session.*

    async def session_start(
        self,
        session_id: Optional[str] = None,
        *,
        color_scheme: Optional[Literal["light", "dark", "no-preference"]] = None,
        contrast: Optional[Literal["more", "no-preference"]] = None,
        device_scale_factor: Optional[float] = None,
        extra_http_headers: Optional[Dict[str, Any]] = None,
        forced_colors: Optional[Literal["active", "none"]] = None,
        geolocation: Optional[Dict[str, Any]] = None,
        http_credentials: Optional[Dict[str, Any]] = None,
        init_scripts: Optional[List[str]] = None,
        locale: Optional[str] = None,
        media: Optional[Literal["screen", "print"]] = None,
        offline: Optional[bool] = None,
        permissions: Optional[List[Literal["clipboard-read", "clipboard-write", "notifications", "geolocation", "camera", "microphone"]]] = None,
        reduced_motion: Optional[Literal["reduce", "no-preference"]] = None,
        routes: Optional[List[Dict[str, Any]]] = None,
        storage_state: Optional[str] = None,
        timezone: Optional[str] = None,
        user_agent: Optional[str] = None,
        viewport: Optional[Dict[str, Any]] = None,
        timeout_ms: Optional[int] = None,
    ) -> SessionStartResult:
        """``session.start {session_id?, viewport?, device_scale_factor?, storage_state?, ...emulation}`` ->
        ``SessionStartResult``: a new session with its own browser context and tab, its pages emulating what
        ``page.emulate`` takes (extra headers and permissions included) from their first request.
        ``session_id``: 1..=128 chars of ``[A-Za-z0-9._-]`` starting with a letter or digit, generated when
        absent; ``viewport``: ``{width, height}`` in CSS px.

        :param session_id: The id to use; generated when absent. 1..=128 chars of ``[A-Za-z0-9._-]``, starting
        with a letter or digit (never ``.`` or ``..``).
        :param color_scheme: ``prefers-color-scheme`` (``Emulation.setEmulatedMedia``).
        :param contrast: ``prefers-contrast`` (``Emulation.setEmulatedMedia``).
        :param device_scale_factor: Device pixels per CSS px (``devicePixelRatio``), 0.5..=4; 1 when absent.
        Screenshots are taken at this scale.
        :param extra_http_headers: Headers sent with every request of the session's pages, as Playwright's
        ``extraHTTPHeaders`` (``Network.setExtraHTTPHeaders``). At most ``MAX_EXTRA_HEADERS``, names as HTTP
        tokens, values without line breaks; ``{}`` sends none.
        :param forced_colors: ``forced-colors`` (``Emulation.setEmulatedMedia``).
        :param geolocation: The position the page gets.
        :param http_credentials: HTTP authentication for the session's pages, as Playwright's
        ``httpCredentials``: a server's Basic or Digest challenge (a 401 with ``WWW-Authenticate``) is
        answered with them, once a request. Results show the password as ``***``.
        :param init_scripts: Scripts run in every document of the session's pages before the page's own, as
        Playwright's ``addInitScript`` (``Page.addScriptToEvaluateOnNewDocument``), in every frame: a cross-
        site (out-of-process) iframe is held as it attaches until they are in; at most ``MAX_INIT_SCRIPTS`` of
        at most ``MAX_INIT_SCRIPT_BYTES`` each. ``page.emulate`` replaces the list (the next document of every
        tab runs the new one: a script left out is removed, ``Page.removeScriptToEvaluateOnNewDocument``); its
        ``reset`` keeps them.
        :param locale: A BCP 47 locale such as ``de-DE``: ``Intl`` and dates
        (``Emulation.setLocaleOverride``), ``navigator.language`` and the ``Accept-Language`` header
        (``Emulation.setUserAgentOverride``), as Playwright's ``locale`` sets them.
        :param media: The CSS media type, ``screen`` or ``print`` (``Emulation.setEmulatedMedia``).
        :param offline: No network: every request fails as offline (``Network.emulateNetworkConditions``).
        :param permissions: Permissions granted to every origin in the session's browser context, as
        Playwright's ``permissions`` (``Browser.grantPermissions``); the rest are denied. ``[]`` grants none
        (``geolocation`` stays granted while a position is emulated).
        :param reduced_motion: ``prefers-reduced-motion`` (``Emulation.setEmulatedMedia``).
        :param routes: Routes the session's requests take, newest first (``page.route`` adds one,
        ``page.unroute`` removes them; ``session.start`` may give the first ones). ``page.emulate`` does not
        take them, its ``reset`` keeps them, and its result leaves them out (``page.routes`` lists them).
        :param storage_state: A storage state file to start from (``session.storage_state``'s ``name``: a
        Playwright ``storageState`` JSON in the uploads dir, else the artifacts dir): its cookies and local
        storage.
        :param timezone: An IANA time zone such as ``Europe/Berlin`` (``Emulation.setTimezoneOverride``); one
        the browser's ICU data does not know answers ``bad_request``.
        :param user_agent: The ``User-Agent`` header and ``navigator.userAgent``
        (``Emulation.setUserAgentOverride``).
        :param viewport: The session's viewport, CSS px (each side 1..=10000); the configured one (1280x800 by
        default) when absent. Every page of the session measures it (``innerWidth`` x ``innerHeight``).
        """
        params = _params(
            {
                "session_id": session_id,
                "color_scheme": color_scheme,
                "contrast": contrast,
                "device_scale_factor": device_scale_factor,
                "extra_http_headers": extra_http_headers,
                "forced_colors": forced_colors,
                "geolocation": geolocation,
                "http_credentials": http_credentials,
                "init_scripts": init_scripts,
                "locale": locale,
                "media": media,
                "offline": offline,
                "permissions": permissions,
                "reduced_motion": reduced_motion,
                "routes": routes,
                "storage_state": storage_state,
                "timezone": timezone,
                "user_agent": user_agent,
                "viewport": viewport,
            }
        )
        return await self._request("session.start", None, params, timeout_ms, SessionStartResult)

    async def session_close(self, session_id: str, *, timeout_ms: Optional[int] = None) -> SessionCloseResult:
        """``session.close`` -> ``SessionCloseResult``: closes the session's tabs and its browser context.
        """
        return await self._request("session.close", session_id, {}, timeout_ms, SessionCloseResult)

    async def session_cookies(
        self,
        session_id: str,
        *,
        action: Optional[Literal["get", "set", "clear", "delete"]] = None,
        cookies: Optional[List[Dict[str, Any]]] = None,
        name: Optional[str] = None,
        urls: Optional[List[str]] = None,
        timeout_ms: Optional[int] = None,
    ) -> CookiesResult:
        """``session.cookies {action: get | set | clear, cookies?, urls?}`` -> ``CookiesResult``: the cookies of
        the session's browser context (``Storage.getCookies``, ``setCookies``, ``clearCookies``), as they are
        after the action (only those sent to ``urls`` when given).

        :param action: ``get`` (the default), ``set`` or ``clear``.
        :param cookies: The cookies to set (``set`` only), at most 200 (``MAX_SET_COOKIES``).
        :param name: ``get``: only the cookies of this name; ``delete``: the cookies to delete (the answer
        lists those left).
        :param urls: Only the cookies a request to one of these URLs would send (domain, path and secure as
        the browser matches them); absent: all.
        """
        params = _params({"action": action, "cookies": cookies, "name": name, "urls": urls})
        return await self._request("session.cookies", session_id, params, timeout_ms, CookiesResult)

    async def session_storage_state(
        self,
        session_id: str,
        *,
        action: Literal["save", "load"],
        name: Optional[str] = None,
        timeout_ms: Optional[int] = None,
    ) -> StorageStateResult:
        """``session.storage_state {action: save | load, name?}`` -> ``StorageStateResult``: the session's
        cookies and the local storage of its tabs' origins saved to a JSON file in Playwright's
        ``storageState`` format (under the artifacts dir), or such a file (from the uploads dir, else the
        artifacts dir) loaded into the session: its cookies set, each origin's local storage written.

        :param action: save or load.
        :param name: A plain file name (``state.json``): save writes it under the artifacts dir (default
        ``state-<session>.json``); load reads it from the uploads dir, else the artifacts dir.
        """
        params = _params({"action": action, "name": name})
        return await self._request("session.storage_state", session_id, params, timeout_ms, StorageStateResult)

    async def session_trace(
        self,
        session_id: str,
        *,
        action: Literal["start", "stop"],
        name: Optional[str] = None,
        timeout_ms: Optional[int] = None,
    ) -> TraceResult:
        """``session.trace {action: start | stop, name?}`` -> ``TraceResult``: records each of the session's
        actions (params redacted, timing, outcome, URL, dialogs, downloads, console errors, resets, a small
        JPEG after it) as JSON lines under the artifacts dir; ``stop`` also writes one self-contained HTML
        report (a timeline with the screenshots inline) named ``name`` (default
        ``<session>-trace-<ms>.html``).

        :param action: start or stop.
        :param name: stop: a plain file name for the report under the artifacts dir (``run.html``); default
        ``<session>-trace-<ms>.html``.
        """
        params = _params({"action": action, "name": name})
        return await self._request("session.trace", session_id, params, timeout_ms, TraceResult)

    async def session_har(
        self,
        session_id: str,
        *,
        action: Literal["start", "stop"],
        content: Optional[Literal["embed", "omit"]] = None,
        name: Optional[str] = None,
        url_filter: Optional[str] = None,
        timeout_ms: Optional[int] = None,
    ) -> HarResult:
        """``session.har {action: start | stop, content?, url_filter?, name?}`` -> ``HarResult``: records the
        session's requests, in every tab the session drives, as Playwright's ``recordHar``; ``stop`` writes
        them as one HAR 1.2 file (timings, headers, post data, response bodies cut at ``NETWORK_BODY_BYTES``
        each) under the artifacts dir (``<owner>/hars``). What a tab closed during the recording requested,
        and a tab's requests past its buffer (``NETWORK_BUFFER``), are left out (the file's ``comment`` counts
        the latter).

        :param action: start or stop.
        :param content: start: ``embed`` the response bodies in the file (the default, each cut at 64 KiB), or
        ``omit`` them, as Playwright's ``recordHar.content``.
        :param name: stop: a plain file name (``run.har``; ``.har`` added when missing); default
        ``<session>-<ms>.har``.
        :param url_filter: start: only requests whose URL matches this glob or ``/regex/`` (Playwright's
        ``urlFilter``).
        """
        params = _params({"action": action, "content": content, "name": name, "url_filter": url_filter})
        return await self._request("session.har", session_id, params, timeout_ms, HarResult)

    async def session_list(self, *, timeout_ms: Optional[int] = None) -> SessionListResult:
        """``session.list`` -> ``SessionListResult``: the open sessions.
        """
        return await self._request("session.list", None, {}, timeout_ms, SessionListResult)

    # page.*

    async def goto(self, session_id: str, url: str, *, timeout_ms: Optional[int] = None) -> GotoResult:
        """``page.goto {url}`` -> ``GotoResult``: loads ``url`` and answers once its document reached
        ``DOMContentLoaded`` (``load_state`` says what it had reached by then: ``load`` when its subresources
        were done), or what it reached when the budget ran out (``timed_out: true``). A document that sends
        the tab on while it loads (a script's ``location.href = ...``) is followed: the answer comes once the
        page it went to is loaded, with the first response's ``status``.

        :param url: The URL to load: ``http(s)``, ``about:blank``, ``data:`` or what the URL policy allows
        (docs/security.md).
        """
        params = _params({"url": url})
        return await self._request("page.goto", session_id, params, timeout_ms, GotoResult)

    async def back(self, session_id: str, *, timeout_ms: Optional[int] = None) -> GotoResult:
        """``page.back`` -> ``GotoResult``: the previous entry of the tab's history, waited for as ``page.goto``
        waits, until ``DOMContentLoaded`` (``timed_out`` with what it reached); ``bad_request`` when there is
        none.
        """
        return await self._request("page.back", session_id, {}, timeout_ms, GotoResult)

    async def forward(self, session_id: str, *, timeout_ms: Optional[int] = None) -> GotoResult:
        """``page.forward`` -> ``GotoResult``: the next entry of the tab's history, as ``page.back``.
        """
        return await self._request("page.forward", session_id, {}, timeout_ms, GotoResult)

    async def reload(self, session_id: str, *, timeout_ms: Optional[int] = None) -> GotoResult:
        """``page.reload`` -> ``GotoResult``: the tab's document loaded again, waited for as ``page.goto``.
        """
        return await self._request("page.reload", session_id, {}, timeout_ms, GotoResult)

    async def extract(
        self,
        session_id: str,
        *,
        format: Optional[Literal["text", "html"]] = None,
        max_chars: Optional[int] = None,
        timeout_ms: Optional[int] = None,
    ) -> ExtractResult:
        """``page.extract {format?, max_chars?}`` -> ``ExtractResult``: the page's ``text`` (innerText) or
        ``html``, at most ``max_chars``.

        :param format: ``text`` (the page's ``innerText``, the default) or ``html``
        (``document.documentElement.outerHTML``).
        :param max_chars: Cap on the content, in Unicode scalar values; default 100000
        (``DEFAULT_EXTRACT_MAX_CHARS``).
        """
        params = _params({"format": format, "max_chars": max_chars})
        return await self._request("page.extract", session_id, params, timeout_ms, ExtractResult)

    async def screenshot(
        self,
        session_id: str,
        *,
        clip: Optional[Dict[str, Any]] = None,
        format: Optional[Literal["png", "jpeg"]] = None,
        full_page: Optional[bool] = None,
        inline: Optional[bool] = None,
        max_height: Optional[int] = None,
        quality: Optional[int] = None,
        ref: Optional[str] = None,
        selector: Optional[str] = None,
        timeout_ms: Optional[int] = None,
    ) -> ScreenshotResult:
        """``page.screenshot {full_page?, format?, quality?, inline?, max_height?, clip?, ref? | selector?}`` ->
        ``ScreenshotResult``: the viewport, the full page (cut at ``max_height`` CSS px), a ``clip`` region
        (``{x, y, width, height}``, CSS px) or an element, saved under the runtime's artifacts directory;
        ``inline`` also returns it as base64 ``data``.

        :param clip: A region to capture, CSS px: of the viewport, or of the whole page with ``full_page`` (as
        Playwright's ``clip``).
        :param format: ``png`` (the default) or ``jpeg``.
        :param full_page: The whole scrollable page rather than the viewport.
        :param inline: Also return the image as base64 in ``data``.
        :param max_height: Full page only: the tallest capture, CSS px. Default 16384
        (``DEFAULT_SCREENSHOT_MAX_HEIGHT``), at most 65535 (``MAX_SCREENSHOT_HEIGHT``); a taller page is cut
        and the result says ``truncated: true``, as is a page wider than 16384 CSS px
        (``FULL_PAGE_MAX_WIDTH``).
        :param quality: JPEG quality 0..=100.
        :param ref: A ref from a snapshot (``e12``).
        :param selector: A selector, its first match in document order, through open shadow roots: CSS
        (``#save``), or Playwright's selectors (``text=Save``, ``role=button[name="Save"]``, ``//xpath``,
        ``css >> nth=1``, ``button:has-text("Save")``, ...) and locators (``getByRole('button', { name: 'Save'
        })``, ``getByLabel('Email')``, ``getByText(...)``, ``.first()``, ``.nth(i)``, ``.filter({ hasText
        })``), with Playwright's matching rules (docs/protocol.md, Selectors).
        """
        params = _params(
            {
                "clip": clip,
                "format": format,
                "full_page": full_page,
                "inline": inline,
                "max_height": max_height,
                "quality": quality,
                "ref": ref,
                "selector": selector,
            }
        )
        return await self._request("page.screenshot", session_id, params, timeout_ms, ScreenshotResult)

    async def evaluate(
        self,
        session_id: str,
        expression: Optional[str] = None,
        *,
        arg: Optional[Any] = None,
        frame: Optional[str] = None,
        function: Optional[str] = None,
        ref: Optional[str] = None,
        selector: Optional[str] = None,
        timeout_ms: Optional[int] = None,
    ) -> EvaluateResult:
        """``page.evaluate {expression | function, ref? | selector?, frame?, arg?}`` -> ``EvaluateResult``: an
        ``expression``, or a ``function`` called with the element named by ``ref``/``selector`` and the JSON
        ``arg`` (Playwright's ``evaluate(fn, arg)``); promises are awaited; ``evaluate_error`` when it throws.

        :param expression: A JavaScript expression; a promise is awaited. One whose value is a function (``()
        => document.title``) is called without arguments, as Playwright's Python ``page.evaluate`` calls it.
        :param arg: A JSON value passed to the function, as Playwright's ``evaluate(fn, arg)``. A ``function``
        gets it as its argument (after the element, ``(el, arg) => ...``, when ``ref``/``selector`` names one,
        as ``locator.evaluate(fn, arg)``); an ``expression`` whose value is a function is called with it
        (Playwright's ``page.evaluate(string, arg)``). Data goes here rather than into the source, which then
        needs no quoting.
        :param frame: The frame to run in: a ``frame_id`` from ``page.frames``, or an ``<iframe>``'s ref. As
        Playwright's ``frame.evaluate``. The script runs in that frame's main world; default: the main frame.
        Not with ``ref``/``selector`` (an element names its own frame).
        :param function: A JavaScript function such as ``(el) => el.textContent``; a promise it returns is
        awaited.
        :param ref: A ref from a snapshot (``e12``).
        :param selector: A selector, its first match in document order, through open shadow roots: CSS
        (``#save``), or Playwright's selectors (``text=Save``, ``role=button[name="Save"]``, ``//xpath``,
        ``css >> nth=1``, ``button:has-text("Save")``, ...) and locators (``getByRole('button', { name: 'Save'
        })``, ``getByLabel('Email')``, ``getByText(...)``, ``.first()``, ``.nth(i)``, ``.filter({ hasText
        })``), with Playwright's matching rules (docs/protocol.md, Selectors).
        """
        params = _params(
            {
                "expression": expression,
                "arg": arg,
                "frame": frame,
                "function": function,
                "ref": ref,
                "selector": selector,
            }
        )
        return await self._request("page.evaluate", session_id, params, timeout_ms, EvaluateResult)

    async def wait_for(
        self,
        session_id: str,
        *,
        dialog: Optional[bool] = None,
        download: Optional[bool] = None,
        function: Optional[str] = None,
        load_state: Optional[Literal["domcontentloaded", "load", "networkidle"]] = None,
        popup: Optional[bool] = None,
        response: Optional[str] = None,
        selector: Optional[str] = None,
        state: Optional[Literal["attached", "detached", "visible", "hidden"]] = None,
        text: Optional[str] = None,
        text_gone: Optional[str] = None,
        time_ms: Optional[int] = None,
        url: Optional[str] = None,
        timeout_ms: Optional[int] = None,
    ) -> WaitForResult:
        """``page.wait_for {selector+state | text | text_gone | url | load_state | function | time_ms}`` ->
        ``WaitForResult``: exactly one condition (a ``selector`` in a ``state``, ``text`` to appear,
        ``text_gone``, a ``url`` glob, a ``load_state``, a JS ``function`` truthy, or ``time_ms``).

        :param dialog: Wait for a JavaScript dialog in any of the session's tabs. One answered since the
        session's last result counts; each is answered by the session's policy (``page.handle_dialog``) and is
        in this result's ``dialogs``.
        :param download: Wait for a download of the session to end (completed, canceled or too large). One
        that ended since the session's previous request started counts (each is returned once); it is this
        result's ``download``.
        :param function: A JavaScript expression polled until truthy (a promise is awaited).
        :param load_state: ``load``, ``domcontentloaded`` or ``networkidle`` (Chromium's lifecycle event: no
        request for 500 ms).
        :param popup: Wait for a tab of the session to open another (a popup: ``window.open``,
        ``target=_blank``). One opened since the session's previous request started counts (each is returned
        once); it is this result's ``popup`` (``tabs.focus`` drives it).
        :param response: A glob or ``/pattern/flags`` a response's URL must match. As ``url``'s glob, or
        ``page.network``'s ``filter`` regular expression: one the active tab received since the session's
        previous action started, or one that comes within the budget. It is this result's ``response``.
        :param selector: A selector (as ``ElementParams::selector``), with ``state``.
        :param state: For ``selector``: ``attached``, ``detached``, ``visible`` (default) or ``hidden``.
        :param text: Text that must appear in the page (case-insensitive, as ``getByText``). In an element
        that shows it, whitespace (a no-break space too) normalized, as Playwright MCP's ``browser_wait_for``
        waits for ``page.getByText(text)``.
        :param text_gone: Text that must disappear from the page: no element that shows it (matched as
        ``text`` is).
        :param time_ms: Just wait this long, in ms.
        :param url: A glob the URL must match: ``**`` any characters, ``*`` any but ``/``, ``?`` one
        character.
        """
        params = _params(
            {
                "dialog": dialog,
                "download": download,
                "function": function,
                "load_state": load_state,
                "popup": popup,
                "response": response,
                "selector": selector,
                "state": state,
                "text": text,
                "text_gone": text_gone,
                "time_ms": time_ms,
                "url": url,
            }
        )
        return await self._request("page.wait_for", session_id, params, timeout_ms, WaitForResult)

    async def snapshot(
        self,
        session_id: str,
        *,
        compact: Optional[bool] = None,
        diff: Optional[bool] = None,
        interactive: Optional[bool] = None,
        max_chars: Optional[int] = None,
        max_depth: Optional[int] = None,
        scope: Optional[str] = None,
        timeout_ms: Optional[int] = None,
    ) -> SnapshotResult:
        """``page.snapshot {interactive?, compact?, max_depth?, scope?, max_chars?, diff?}`` ->
        ``SnapshotResult``: the page as aria-snapshot text with ``[ref=eN]`` refs to act on.

        :param compact: Drop unnamed structure (lists, groups, paragraphs without a name).
        :param diff: Answer only what changed since the session's previous snapshot of this document and
        options. Changed lines are marked ``+ `` (added) and ``- `` (removed), each under its unchanged
        parents' lines (marked with two spaces); a new document, other options, or no earlier snapshot answer
        the whole snapshot (``diff`` is then false in the result).
        :param interactive: Only the elements with refs, as a flat list.
        :param max_chars: Cap on the text (default 40000 (``DEFAULT_SNAPSHOT_MAX_CHARS``)); when cut, a marker
        line ends it and ``truncated`` is true.
        :param max_depth: Deepest level shown (the root's children are level 1); all levels when absent.
        :param scope: A ref (``e3``) or a selector to snapshot under.
        """
        params = _params(
            {
                "compact": compact,
                "diff": diff,
                "interactive": interactive,
                "max_chars": max_chars,
                "max_depth": max_depth,
                "scope": scope,
            }
        )
        return await self._request("page.snapshot", session_id, params, timeout_ms, SnapshotResult)

    async def click(
        self,
        session_id: str,
        ref: Optional[str] = None,
        *,
        button: Optional[Literal["left", "right", "middle"]] = None,
        click_count: Optional[int] = None,
        modifiers: Optional[List[Literal["Alt", "Control", "Meta", "Shift", "ControlOrMeta"]]] = None,
        selector: Optional[str] = None,
        settle_ms: Optional[int] = None,
        timeout_ms: Optional[int] = None,
    ) -> InputResult:
        """``page.click {ref | selector, button?, click_count?, modifiers?}`` -> ``InputResult``: waits until the
        element is actionable (visible, stable, enabled, not covered), then clicks it with ``button``
        ``click_count`` times.

        :param ref: A ref from a snapshot (``e12``).
        :param button: ``left`` (default), ``right`` or ``middle``.
        :param click_count: 2 for a double click.
        :param modifiers: ``Alt``, ``Control``, ``Meta``, ``Shift`` (or ``ControlOrMeta``) held during the
        click.
        :param selector: A selector, its first match in document order, through open shadow roots: CSS
        (``#save``), or Playwright's selectors (``text=Save``, ``role=button[name="Save"]``, ``//xpath``,
        ``css >> nth=1``, ``button:has-text("Save")``, ...) and locators (``getByRole('button', { name: 'Save'
        })``, ``getByLabel('Email')``, ``getByText(...)``, ``.first()``, ``.nth(i)``, ``.filter({ hasText
        })``), with Playwright's matching rules (docs/protocol.md, Selectors).
        :param settle_ms: Ms more to wait after the input (capped by the budget): a dialog its handlers raise
        within it is in this result; default 0.
        """
        params = _params(
            {
                "ref": ref,
                "button": button,
                "click_count": click_count,
                "modifiers": modifiers,
                "selector": selector,
                "settle_ms": settle_ms,
            }
        )
        return await self._request("page.click", session_id, params, timeout_ms, InputResult)

    async def type(
        self,
        session_id: str,
        ref: Optional[str] = None,
        text: Optional[str] = None,
        *,
        clear: Optional[bool] = None,
        selector: Optional[str] = None,
        settle_ms: Optional[int] = None,
        submit: Optional[bool] = None,
        timeout_ms: Optional[int] = None,
    ) -> InputResult:
        """``page.type {ref | selector, text, clear?, submit?}`` -> ``InputResult``: types ``text`` key by key
        (``clear`` first empties the field, ``submit`` presses Enter after).

        :param ref: A ref from a snapshot (``e12``).
        :param text: The text, typed key by key (characters without a key are inserted as an IME would).
        :param clear: Empty the field first.
        :param selector: A selector, its first match in document order, through open shadow roots: CSS
        (``#save``), or Playwright's selectors (``text=Save``, ``role=button[name="Save"]``, ``//xpath``,
        ``css >> nth=1``, ``button:has-text("Save")``, ...) and locators (``getByRole('button', { name: 'Save'
        })``, ``getByLabel('Email')``, ``getByText(...)``, ``.first()``, ``.nth(i)``, ``.filter({ hasText
        })``), with Playwright's matching rules (docs/protocol.md, Selectors).
        :param settle_ms: Ms more to wait after the input (capped by the budget): a dialog its handlers raise
        within it is in this result; default 0.
        :param submit: Press Enter after.
        """
        params = _params(
            {
                "ref": ref,
                "text": text,
                "clear": clear,
                "selector": selector,
                "settle_ms": settle_ms,
                "submit": submit,
            }
        )
        return await self._request("page.type", session_id, params, timeout_ms, InputResult)

    async def fill(
        self,
        session_id: str,
        ref: Optional[str] = None,
        value: Optional[str] = None,
        *,
        selector: Optional[str] = None,
        settle_ms: Optional[int] = None,
        timeout_ms: Optional[int] = None,
    ) -> InputResult:
        """``page.fill {ref | selector, value}`` -> ``InputResult``: sets an input's value at once (as
        Playwright's ``fill``).

        :param ref: A ref from a snapshot (``e12``).
        :param value: The value it gets (``""`` empties it).
        :param selector: A selector, its first match in document order, through open shadow roots: CSS
        (``#save``), or Playwright's selectors (``text=Save``, ``role=button[name="Save"]``, ``//xpath``,
        ``css >> nth=1``, ``button:has-text("Save")``, ...) and locators (``getByRole('button', { name: 'Save'
        })``, ``getByLabel('Email')``, ``getByText(...)``, ``.first()``, ``.nth(i)``, ``.filter({ hasText
        })``), with Playwright's matching rules (docs/protocol.md, Selectors).
        :param settle_ms: Ms more to wait after the input (capped by the budget): a dialog its handlers raise
        within it is in this result; default 0.
        """
        params = _params({"ref": ref, "value": value, "selector": selector, "settle_ms": settle_ms})
        return await self._request("page.fill", session_id, params, timeout_ms, InputResult)

    async def press(
        self,
        session_id: str,
        key: str,
        *,
        ref: Optional[str] = None,
        selector: Optional[str] = None,
        settle_ms: Optional[int] = None,
        timeout_ms: Optional[int] = None,
    ) -> InputResult:
        """``page.press {key, ref? | selector?}`` -> ``InputResult``: ``Enter``, ``Tab``, ``Control+A``, ... on
        the element, or on the focused one.

        :param key: ``Enter``, ``Tab``, ``ArrowLeft``, ``Control+A``, ``Shift+Tab``, ... (US layout).
        :param ref: A ref from a snapshot (``e12``).
        :param selector: A selector, its first match in document order, through open shadow roots: CSS
        (``#save``), or Playwright's selectors (``text=Save``, ``role=button[name="Save"]``, ``//xpath``,
        ``css >> nth=1``, ``button:has-text("Save")``, ...) and locators (``getByRole('button', { name: 'Save'
        })``, ``getByLabel('Email')``, ``getByText(...)``, ``.first()``, ``.nth(i)``, ``.filter({ hasText
        })``), with Playwright's matching rules (docs/protocol.md, Selectors).
        :param settle_ms: Ms more to wait after the input (capped by the budget): a dialog its handlers raise
        within it is in this result; default 0.
        """
        params = _params({"key": key, "ref": ref, "selector": selector, "settle_ms": settle_ms})
        return await self._request("page.press", session_id, params, timeout_ms, InputResult)

    async def hover(
        self,
        session_id: str,
        ref: Optional[str] = None,
        *,
        selector: Optional[str] = None,
        settle_ms: Optional[int] = None,
        timeout_ms: Optional[int] = None,
    ) -> InputResult:
        """``page.hover {ref | selector}`` -> ``InputResult``: moves the mouse over the element.

        :param ref: A ref from a snapshot (``e12``).
        :param selector: A selector, its first match in document order, through open shadow roots: CSS
        (``#save``), or Playwright's selectors (``text=Save``, ``role=button[name="Save"]``, ``//xpath``,
        ``css >> nth=1``, ``button:has-text("Save")``, ...) and locators (``getByRole('button', { name: 'Save'
        })``, ``getByLabel('Email')``, ``getByText(...)``, ``.first()``, ``.nth(i)``, ``.filter({ hasText
        })``), with Playwright's matching rules (docs/protocol.md, Selectors).
        :param settle_ms: Ms more to wait after the input (capped by the budget): a dialog its handlers raise
        within it is in this result; default 0.
        """
        params = _params({"ref": ref, "selector": selector, "settle_ms": settle_ms})
        return await self._request("page.hover", session_id, params, timeout_ms, InputResult)

    async def handle_dialog(
        self,
        session_id: str,
        accept: bool,
        *,
        prompt_text: Optional[str] = None,
        timeout_ms: Optional[int] = None,
    ) -> HandleDialogResult:
        """``page.handle_dialog {accept, prompt_text?}`` -> ``HandleDialogResult``: how the session answers its
        next JavaScript dialog, in any of its tabs (a popup not focused yet too); one dialog only.

        :param accept: Accept (OK) or dismiss (Cancel) the next dialog.
        :param prompt_text: The text a ``prompt`` gets when accepted.
        """
        params = _params({"accept": accept, "prompt_text": prompt_text})
        return await self._request("page.handle_dialog", session_id, params, timeout_ms, HandleDialogResult)

    async def select(
        self,
        session_id: str,
        ref: Optional[str] = None,
        *,
        indexes: Optional[List[int]] = None,
        labels: Optional[List[str]] = None,
        selector: Optional[str] = None,
        settle_ms: Optional[int] = None,
        values: Optional[List[str]] = None,
        timeout_ms: Optional[int] = None,
    ) -> SelectResult:
        """``page.select {ref | selector, values? | labels? | indexes?}`` -> ``SelectResult``: selects a
        ``<select>``'s options.

        :param ref: A ref from a snapshot (``e12``).
        :param indexes: Options to select by their position, 0-based.
        :param labels: Options to select by their label (whitespace normalized).
        :param selector: A selector, its first match in document order, through open shadow roots: CSS
        (``#save``), or Playwright's selectors (``text=Save``, ``role=button[name="Save"]``, ``//xpath``,
        ``css >> nth=1``, ``button:has-text("Save")``, ...) and locators (``getByRole('button', { name: 'Save'
        })``, ``getByLabel('Email')``, ``getByText(...)``, ``.first()``, ``.nth(i)``, ``.filter({ hasText
        })``), with Playwright's matching rules (docs/protocol.md, Selectors).
        :param settle_ms: Ms more to wait after the input (capped by the budget): a dialog its handlers raise
        within it is in this result; default 0.
        :param values: Options to select by their value (or, failing that, their label).
        """
        params = _params(
            {
                "ref": ref,
                "indexes": indexes,
                "labels": labels,
                "selector": selector,
                "settle_ms": settle_ms,
                "values": values,
            }
        )
        return await self._request("page.select", session_id, params, timeout_ms, SelectResult)

    async def check(
        self,
        session_id: str,
        ref: Optional[str] = None,
        *,
        checked: Optional[bool] = None,
        selector: Optional[str] = None,
        settle_ms: Optional[int] = None,
        timeout_ms: Optional[int] = None,
    ) -> InputResult:
        """``page.check {ref | selector, checked?}`` -> ``InputResult``: brings a checkbox or radio to
        ``checked`` (default true).

        :param ref: A ref from a snapshot (``e12``).
        :param checked: The state wanted (default true). A checked radio button cannot be unchecked (only
        checking another of its group does that): ``false`` for one answers ``bad_request``, without a click,
        as Playwright's ``uncheck``.
        :param selector: A selector, its first match in document order, through open shadow roots: CSS
        (``#save``), or Playwright's selectors (``text=Save``, ``role=button[name="Save"]``, ``//xpath``,
        ``css >> nth=1``, ``button:has-text("Save")``, ...) and locators (``getByRole('button', { name: 'Save'
        })``, ``getByLabel('Email')``, ``getByText(...)``, ``.first()``, ``.nth(i)``, ``.filter({ hasText
        })``), with Playwright's matching rules (docs/protocol.md, Selectors).
        :param settle_ms: Ms more to wait after the input (capped by the budget): a dialog its handlers raise
        within it is in this result; default 0.
        """
        params = _params({"ref": ref, "checked": checked, "selector": selector, "settle_ms": settle_ms})
        return await self._request("page.check", session_id, params, timeout_ms, InputResult)

    async def scroll(
        self,
        session_id: str,
        ref: Optional[str] = None,
        *,
        dx: Optional[float] = None,
        dy: Optional[float] = None,
        selector: Optional[str] = None,
        timeout_ms: Optional[int] = None,
    ) -> ScrollResult:
        """``page.scroll {ref | selector}`` -> ``InputResult``: an element into view; or ``{dx?, dy?}`` ->
        ``ScrollResult``: the page by a wheel delta (CSS px).

        :param ref: A ref from a snapshot (``e12``).
        :param dx: Horizontal wheel delta, CSS px (positive: right).
        :param dy: Vertical wheel delta, CSS px (positive: down).
        :param selector: A selector, its first match in document order, through open shadow roots: CSS
        (``#save``), or Playwright's selectors (``text=Save``, ``role=button[name="Save"]``, ``//xpath``,
        ``css >> nth=1``, ``button:has-text("Save")``, ...) and locators (``getByRole('button', { name: 'Save'
        })``, ``getByLabel('Email')``, ``getByText(...)``, ``.first()``, ``.nth(i)``, ``.filter({ hasText
        })``), with Playwright's matching rules (docs/protocol.md, Selectors).
        """
        params = _params({"ref": ref, "dx": dx, "dy": dy, "selector": selector})
        return await self._request("page.scroll", session_id, params, timeout_ms, ScrollResult)

    async def drag(
        self,
        session_id: str,
        source: Dict[str, Any],
        target: Dict[str, Any],
        *,
        settle_ms: Optional[int] = None,
        timeout_ms: Optional[int] = None,
    ) -> InputResult:
        """``page.drag {from: {ref | selector}, to: {ref | selector}}`` -> ``InputResult``: drags with the mouse
        from one element to the other.

        :param source: The element to press on.
        :param target: The element to release over.
        :param settle_ms: Ms more to wait after the input (capped by the budget): a dialog its handlers raise
        within it is in this result; default 0.
        """
        params = _params({"from": source, "to": target, "settle_ms": settle_ms})
        return await self._request("page.drag", session_id, params, timeout_ms, InputResult)

    async def set_viewport(
        self,
        session_id: str,
        width: int,
        height: int,
        *,
        device_scale_factor: Optional[float] = None,
        timeout_ms: Optional[int] = None,
    ) -> SetViewportResult:
        """``page.set_viewport {width, height, device_scale_factor?}`` -> ``SetViewportResult``: the session's
        viewport in CSS px from now on (its pages, and the pages of every later worker).

        :param width: Viewport width, CSS px (1..=10000).
        :param height: Viewport height, CSS px (1..=10000).
        :param device_scale_factor: Device pixels per CSS px (0.5..=4); the session's current one when absent.
        """
        params = _params({"width": width, "height": height, "device_scale_factor": device_scale_factor})
        return await self._request("page.set_viewport", session_id, params, timeout_ms, SetViewportResult)

    async def frames(self, session_id: str, *, timeout_ms: Optional[int] = None) -> FramesResult:
        """``page.frames`` -> ``FramesResult``: the active tab's frame tree, main frame first (out-of-process
        iframes included).
        """
        return await self._request("page.frames", session_id, {}, timeout_ms, FramesResult)

    async def pdf(
        self,
        session_id: str,
        *,
        landscape: Optional[bool] = None,
        margin_in: Optional[float] = None,
        page_ranges: Optional[str] = None,
        paper: Optional[Literal["letter", "legal", "tabloid", "a3", "a4", "a5"]] = None,
        print_background: Optional[bool] = None,
        scale: Optional[float] = None,
        timeout_ms: Optional[int] = None,
    ) -> PdfResult:
        """``page.pdf {paper?, landscape?, print_background?, margin_in?, scale?, page_ranges?}`` ->
        ``PdfResult``: the page printed to PDF (``Page.printToPDF``, print media), written under the artifacts
        directory.

        :param landscape: Landscape instead of portrait.
        :param margin_in: Every margin, inches, 0..=5; default 0.4 (Chromium's 1 cm).
        :param page_ranges: Pages to print, 1-based: ``1-5, 8, 11-13``, none past page 1000
        (``MAX_PDF_PAGES``); default all, up to the 1000th.
        :param paper: Paper size; default ``letter``.
        :param print_background: Print background colours and images (off by default, as in print).
        :param scale: Scale of the rendering, 0.1..=2; default 1.
        """
        params = _params(
            {
                "landscape": landscape,
                "margin_in": margin_in,
                "page_ranges": page_ranges,
                "paper": paper,
                "print_background": print_background,
                "scale": scale,
            }
        )
        return await self._request("page.pdf", session_id, params, timeout_ms, PdfResult)

    async def fill_form(
        self,
        session_id: str,
        *,
        fields: List[Dict[str, Any]],
        timeout_ms: Optional[int] = None,
    ) -> FillFormResult:
        """``page.fill_form {fields: [{ref | selector, value}]}`` -> ``FillFormResult``: fills several fields in
        order, each as its element takes a value (text: filled; checkbox, radio: checked by
        ``"true"``/``"false"``; select: chosen by value or label), stopping at the first that fails and naming
        it.

        :param fields: The fields, filled in this order; at most 100 (``MAX_FORM_FIELDS``).
        """
        params = _params({"fields": fields})
        return await self._request("page.fill_form", session_id, params, timeout_ms, FillFormResult)

    async def upload(
        self,
        session_id: str,
        *,
        files: List[str],
        ref: Optional[str] = None,
        selector: Optional[str] = None,
        timeout_ms: Optional[int] = None,
    ) -> UploadResult:
        """``page.upload {ref | selector, files}`` -> ``UploadResult``: sets the files of a file input
        (``DOM.setFileInputFiles``), each a plain name of a file in ``[files] uploads_dir``.

        :param files: Plain names of files in the runtime's ``[files] uploads_dir`` (no directories, no
        symlinks); an empty list clears the input. At most 100 (``MAX_UPLOAD_FILES``).
        :param ref: A ref from a snapshot (``e12``).
        :param selector: A selector, its first match in document order, through open shadow roots: CSS
        (``#save``), or Playwright's selectors (``text=Save``, ``role=button[name="Save"]``, ``//xpath``,
        ``css >> nth=1``, ``button:has-text("Save")``, ...) and locators (``getByRole('button', { name: 'Save'
        })``, ``getByLabel('Email')``, ``getByText(...)``, ``.first()``, ``.nth(i)``, ``.filter({ hasText
        })``), with Playwright's matching rules (docs/protocol.md, Selectors).
        """
        params = _params({"files": files, "ref": ref, "selector": selector})
        return await self._request("page.upload", session_id, params, timeout_ms, UploadResult)

    async def downloads(self, session_id: str, *, timeout_ms: Optional[int] = None) -> DownloadsResult:
        """``page.downloads`` -> ``DownloadsResult``: every download of the session so far (its pages' and
        popups'), oldest first, each in its latest state.
        """
        return await self._request("page.downloads", session_id, {}, timeout_ms, DownloadsResult)

    async def console(
        self,
        session_id: str,
        *,
        level: Optional[Literal["error", "warning", "info", "debug"]] = None,
        limit: Optional[int] = None,
        since: Optional[int] = None,
        timeout_ms: Optional[int] = None,
    ) -> ConsoleResult:
        """``page.console {since?, level?, limit?}`` -> ``ConsoleResult``: the active tab's console messages and
        uncaught exceptions (``Runtime.consoleAPICalled``, ``Runtime.exceptionThrown``) from a bounded buffer
        (``CONSOLE_BUFFER`` entries), oldest first, at ``level`` or more severe.

        :param level: The least severe level listed (default ``info``: errors, warnings and info).
        :param limit: At most this many, the newest (1..=1000, default 100).
        :param since: Only entries after this ``id`` (a previous answer's ``last_id``); all kept when absent.
        """
        params = _params({"level": level, "limit": limit, "since": since})
        return await self._request("page.console", session_id, params, timeout_ms, ConsoleResult)

    async def network(
        self,
        session_id: str,
        *,
        filter: Optional[str] = None,
        id: Optional[int] = None,
        include_static: Optional[bool] = None,
        limit: Optional[int] = None,
        since: Optional[int] = None,
        timeout_ms: Optional[int] = None,
    ) -> NetworkResult:
        """``page.network {since?, filter?, include_static?, limit?}`` -> ``NetworkResult``: the active tab's
        requests (``Network.requestWillBeSent`` and what followed) from a bounded buffer (``NETWORK_BUFFER``
        entries), oldest first; ``page.network {id}``: that request alone with its ``RequestDetails``
        (headers, post data, the response's headers and body, capped).

        :param filter: A URL glob (``**`` any characters, ``*`` any but ``/``) or a ``/pattern/flags`` regular
        expression. The glob as ``page.wait_for``'s ``url``; the regular expression as Playwright writes it
        (``/api\\/v\\d+/i``), found anywhere in the URL; one that does not compile is ``bad_request``.
        :param id: One request's details instead of a list (an ``id`` from a listing): its headers and body,
        the response's status, headers and body (as Playwright MCP's ``browser_network_request``); the other
        fields are then not taken.
        :param include_static: Also list images, fonts, stylesheets and media that loaded. They are left out
        by default, as Playwright MCP's ``browser_network_requests`` does; a failed one is always listed.
        :param limit: At most this many, the newest (1..=1000, default 100).
        :param since: Only entries after this ``id`` (a previous answer's ``last_id``); all kept when absent.
        """
        params = _params(
            {
                "filter": filter,
                "id": id,
                "include_static": include_static,
                "limit": limit,
                "since": since,
            }
        )
        return await self._request("page.network", session_id, params, timeout_ms, NetworkResult)

    async def mouse(
        self,
        session_id: str,
        *,
        action: Literal["move", "down", "up", "click", "wheel", "drag"],
        button: Optional[Literal["left", "right", "middle"]] = None,
        click_count: Optional[int] = None,
        dx: Optional[float] = None,
        dy: Optional[float] = None,
        settle_ms: Optional[int] = None,
        to_x: Optional[float] = None,
        to_y: Optional[float] = None,
        x: Optional[float] = None,
        y: Optional[float] = None,
        timeout_ms: Optional[int] = None,
    ) -> InputResult:
        """``page.mouse {action, x?, y?, button?, click_count?, dx?, dy?, to_x?, to_y?}`` -> ``InputResult``: raw
        mouse input at viewport coordinates (CSS px), as Playwright's ``page.mouse`` (``move``, ``down``,
        ``up``, ``click``, ``wheel``) plus ``drag`` (down at x, y, move to to_x, to_y, up); no element is
        checked. Buttons stay down between calls until ``up``.

        :param action: move, down, up, click, wheel or drag.
        :param button: ``left`` (default), ``right`` or ``middle``.
        :param click_count: For click: 2 for a double click (1..=3).
        :param dx: For wheel: horizontal delta, CSS px.
        :param dy: For wheel: vertical delta, CSS px.
        :param settle_ms: Ms more to wait after the input (capped by the budget): a dialog its handlers raise
        within it is in this result; default 0.
        :param to_x: For drag: where to release, X.
        :param to_y: For drag: where to release, Y.
        :param x: X, CSS px from the viewport's left (needed by move, click, drag).
        :param y: Y, CSS px from the viewport's top (needed by move, click, drag).
        """
        params = _params(
            {
                "action": action,
                "button": button,
                "click_count": click_count,
                "dx": dx,
                "dy": dy,
                "settle_ms": settle_ms,
                "to_x": to_x,
                "to_y": to_y,
                "x": x,
                "y": y,
            }
        )
        return await self._request("page.mouse", session_id, params, timeout_ms, InputResult)

    async def keyboard(
        self,
        session_id: str,
        *,
        action: Literal["down", "up", "press", "insert_text"],
        key: Optional[str] = None,
        settle_ms: Optional[int] = None,
        text: Optional[str] = None,
        timeout_ms: Optional[int] = None,
    ) -> InputResult:
        """``page.keyboard {action, key? | text?}`` -> ``InputResult``: raw keys on the focused element, as
        Playwright's ``page.keyboard`` (``down`` and ``up`` of one key, modifiers held between calls until
        their ``up``; ``press`` of a key or combo; ``insert_text`` as ``Input.insertText``).

        :param action: down, up, press or insert_text.
        :param key: For down, up, press: a key name (``Enter``, ``Shift``, ``a``, ``ArrowLeft``; press also
        takes a combo).
        :param settle_ms: Ms more to wait after the input (capped by the budget): a dialog its handlers raise
        within it is in this result; default 0.
        :param text: For insert_text: the text.
        """
        params = _params({"action": action, "key": key, "settle_ms": settle_ms, "text": text})
        return await self._request("page.keyboard", session_id, params, timeout_ms, InputResult)

    async def emulate(
        self,
        session_id: str,
        *,
        color_scheme: Optional[Literal["light", "dark", "no-preference"]] = None,
        contrast: Optional[Literal["more", "no-preference"]] = None,
        extra_http_headers: Optional[Dict[str, Any]] = None,
        forced_colors: Optional[Literal["active", "none"]] = None,
        geolocation: Optional[Dict[str, Any]] = None,
        http_credentials: Optional[Dict[str, Any]] = None,
        init_scripts: Optional[List[str]] = None,
        locale: Optional[str] = None,
        media: Optional[Literal["screen", "print"]] = None,
        offline: Optional[bool] = None,
        permissions: Optional[List[Literal["clipboard-read", "clipboard-write", "notifications", "geolocation", "camera", "microphone"]]] = None,
        reduced_motion: Optional[Literal["reduce", "no-preference"]] = None,
        reset: Optional[bool] = None,
        routes: Optional[List[Dict[str, Any]]] = None,
        timezone: Optional[str] = None,
        user_agent: Optional[str] = None,
        timeout_ms: Optional[int] = None,
    ) -> EmulateResult:
        """``page.emulate {color_scheme?, reduced_motion?, locale?, timezone?, geolocation?, user_agent?,
        offline?, extra_http_headers?, permissions?, reset?}`` -> ``EmulateResult``: what the session's pages
        emulate from now on, as Playwright's context options (each field given replaces the one in force;
        ``reset`` clears them all first), on every page of the session and kept across a supervisor restart,
        as the viewport is.

        :param color_scheme: ``prefers-color-scheme`` (``Emulation.setEmulatedMedia``).
        :param contrast: ``prefers-contrast`` (``Emulation.setEmulatedMedia``).
        :param extra_http_headers: Headers sent with every request of the session's pages, as Playwright's
        ``extraHTTPHeaders`` (``Network.setExtraHTTPHeaders``). At most ``MAX_EXTRA_HEADERS``, names as HTTP
        tokens, values without line breaks; ``{}`` sends none.
        :param forced_colors: ``forced-colors`` (``Emulation.setEmulatedMedia``).
        :param geolocation: The position the page gets.
        :param http_credentials: HTTP authentication for the session's pages, as Playwright's
        ``httpCredentials``: a server's Basic or Digest challenge (a 401 with ``WWW-Authenticate``) is
        answered with them, once a request. Results show the password as ``***``.
        :param init_scripts: Scripts run in every document of the session's pages before the page's own, as
        Playwright's ``addInitScript`` (``Page.addScriptToEvaluateOnNewDocument``), in every frame: a cross-
        site (out-of-process) iframe is held as it attaches until they are in; at most ``MAX_INIT_SCRIPTS`` of
        at most ``MAX_INIT_SCRIPT_BYTES`` each. ``page.emulate`` replaces the list (the next document of every
        tab runs the new one: a script left out is removed, ``Page.removeScriptToEvaluateOnNewDocument``); its
        ``reset`` keeps them.
        :param locale: A BCP 47 locale such as ``de-DE``: ``Intl`` and dates
        (``Emulation.setLocaleOverride``), ``navigator.language`` and the ``Accept-Language`` header
        (``Emulation.setUserAgentOverride``), as Playwright's ``locale`` sets them.
        :param media: The CSS media type, ``screen`` or ``print`` (``Emulation.setEmulatedMedia``).
        :param offline: No network: every request fails as offline (``Network.emulateNetworkConditions``).
        :param permissions: Permissions granted to every origin in the session's browser context, as
        Playwright's ``permissions`` (``Browser.grantPermissions``); the rest are denied. ``[]`` grants none
        (``geolocation`` stays granted while a position is emulated).
        :param reduced_motion: ``prefers-reduced-motion`` (``Emulation.setEmulatedMedia``).
        :param reset: Clear everything emulated first (then set what is given).
        :param routes: Routes the session's requests take, newest first (``page.route`` adds one,
        ``page.unroute`` removes them; ``session.start`` may give the first ones). ``page.emulate`` does not
        take them, its ``reset`` keeps them, and its result leaves them out (``page.routes`` lists them).
        :param timezone: An IANA time zone such as ``Europe/Berlin`` (``Emulation.setTimezoneOverride``); one
        the browser's ICU data does not know answers ``bad_request``.
        :param user_agent: The ``User-Agent`` header and ``navigator.userAgent``
        (``Emulation.setUserAgentOverride``).
        """
        params = _params(
            {
                "color_scheme": color_scheme,
                "contrast": contrast,
                "extra_http_headers": extra_http_headers,
                "forced_colors": forced_colors,
                "geolocation": geolocation,
                "http_credentials": http_credentials,
                "init_scripts": init_scripts,
                "locale": locale,
                "media": media,
                "offline": offline,
                "permissions": permissions,
                "reduced_motion": reduced_motion,
                "reset": reset,
                "routes": routes,
                "timezone": timezone,
                "user_agent": user_agent,
            }
        )
        return await self._request("page.emulate", session_id, params, timeout_ms, EmulateResult)

    async def storage(
        self,
        session_id: str,
        *,
        action: Optional[Literal["get", "set", "delete", "clear"]] = None,
        key: Optional[str] = None,
        kind: Literal["local", "session"],
        value: Optional[str] = None,
        timeout_ms: Optional[int] = None,
    ) -> StorageResult:
        """``page.storage {kind: local | session, action?: get | set | delete | clear, key?, value?}`` ->
        ``StorageResult``: the active tab's ``localStorage`` or ``sessionStorage`` (its origin's), after the
        action.

        :param action: get (default), set, delete or clear.
        :param key: The item (set and delete need it; get lists only it when given).
        :param kind: local or session.
        :param value: For set: its value.
        """
        params = _params({"action": action, "key": key, "kind": kind, "value": value})
        return await self._request("page.storage", session_id, params, timeout_ms, StorageResult)

    async def verify(
        self,
        session_id: str,
        *,
        attribute: Optional[Dict[str, Any]] = None,
        checked: Optional[bool] = None,
        count: Optional[int] = None,
        items: Optional[List[str]] = None,
        name: Optional[str] = None,
        ref: Optional[str] = None,
        role: Optional[str] = None,
        selector: Optional[str] = None,
        text: Optional[str] = None,
        value: Optional[str] = None,
        visible: Optional[bool] = None,
        timeout_ms: Optional[int] = None,
    ) -> VerifyResult:
        """``page.verify {ref | selector | role+name, visible | text | value | checked | count | attribute |
        items}`` -> ``VerifyResult``: one check of the page as it is now (Playwright MCP's
        ``browser_verify_*``, Playwright's ``expect`` without its retries); ``verify_failed`` (not retryable)
        with what the page has when it does not hold. ``text`` without an element: visible text anywhere on
        the page.

        :param attribute: An attribute: present (no ``value``), or with exactly ``value``.
        :param checked: A checkbox's, radio's or switch's state.
        :param count: How many elements the selector matches.
        :param items: Texts each in the element's text. A list's items, matched as ``text`` is.
        :param name: The role's accessible name (a case-insensitive substring).
        :param ref: A ref from a snapshot (``e12``).
        :param role: An ARIA role, as the snapshot shows it (``button``). With ``name``, Playwright's
        ``getByRole(role, {name})``.
        :param selector: A selector, its first match in document order, through open shadow roots: CSS
        (``#save``), or Playwright's selectors (``text=Save``, ``role=button[name="Save"]``, ``//xpath``,
        ``css >> nth=1``, ``button:has-text("Save")``, ...) and locators (``getByRole('button', { name: 'Save'
        })``, ``getByLabel('Email')``, ``getByText(...)``, ``.first()``, ``.nth(i)``, ``.filter({ hasText
        })``), with Playwright's matching rules (docs/protocol.md, Selectors).
        :param text: Text visible on the page, or in the element (case-insensitive). Whitespace collapsed, as
        ``getByText`` matches.
        :param value: An input's value, exactly. Of an input, textarea or select (Playwright's
        ``inputValue``).
        :param visible: true: a match is visible; false: none is (no match, or all hidden).
        """
        params = _params(
            {
                "attribute": attribute,
                "checked": checked,
                "count": count,
                "items": items,
                "name": name,
                "ref": ref,
                "role": role,
                "selector": selector,
                "text": text,
                "value": value,
                "visible": visible,
            }
        )
        return await self._request("page.verify", session_id, params, timeout_ms, VerifyResult)

    async def query(
        self,
        session_id: str,
        *,
        ref: Optional[str] = None,
        selector: Optional[str] = None,
        timeout_ms: Optional[int] = None,
    ) -> QueryResult:
        """``page.query {ref | selector}`` -> ``QueryResult``: how many elements a selector matches (and how many
        are visible), and the first one's tag, text, value, checked state, visibility, attributes and bounding
        box, read at once without JavaScript of the caller's.

        :param ref: A ref from a snapshot (``e12``).
        :param selector: A selector, its first match in document order, through open shadow roots: CSS
        (``#save``), or Playwright's selectors (``text=Save``, ``role=button[name="Save"]``, ``//xpath``,
        ``css >> nth=1``, ``button:has-text("Save")``, ...) and locators (``getByRole('button', { name: 'Save'
        })``, ``getByLabel('Email')``, ``getByText(...)``, ``.first()``, ``.nth(i)``, ``.filter({ hasText
        })``), with Playwright's matching rules (docs/protocol.md, Selectors).
        """
        params = _params({"ref": ref, "selector": selector})
        return await self._request("page.query", session_id, params, timeout_ms, QueryResult)

    async def generate_locator(
        self,
        session_id: str,
        *,
        ref: Optional[str] = None,
        selector: Optional[str] = None,
        timeout_ms: Optional[int] = None,
    ) -> GenerateLocatorResult:
        """``page.generate_locator {ref | selector}`` -> ``GenerateLocatorResult``: a locator for the element, as
        Playwright writes one for a test: the first of a test id, its role and name, its placeholder, alt
        text, text or title, its ``id``, its role or its tag that matches it alone, else the first that
        matches it, with its index among the matches (Playwright MCP's ``browser_generate_locator``).

        :param ref: A ref from a snapshot (``e12``).
        :param selector: A selector, its first match in document order, through open shadow roots: CSS
        (``#save``), or Playwright's selectors (``text=Save``, ``role=button[name="Save"]``, ``//xpath``,
        ``css >> nth=1``, ``button:has-text("Save")``, ...) and locators (``getByRole('button', { name: 'Save'
        })``, ``getByLabel('Email')``, ``getByText(...)``, ``.first()``, ``.nth(i)``, ``.filter({ hasText
        })``), with Playwright's matching rules (docs/protocol.md, Selectors).
        """
        params = _params({"ref": ref, "selector": selector})
        return await self._request("page.generate_locator", session_id, params, timeout_ms, GenerateLocatorResult)

    async def clipboard(
        self,
        session_id: str,
        *,
        action: Literal["read", "write"],
        text: Optional[str] = None,
        timeout_ms: Optional[int] = None,
    ) -> ClipboardResult:
        """``page.clipboard {action: read | write, text?}`` -> ``ClipboardResult``: the system clipboard as the
        active tab's page sees it (``navigator.clipboard.readText`` / ``writeText``, in the runtime's isolated
        world, as a user's gesture). Reading needs the session's ``clipboard-read`` permission
        (``session.start`` or ``page.emulate {permissions}``); without it ``bad_request`` says so.

        :param action: read or write.
        :param text: For write: the text, at most ``MAX_CLIPBOARD_CHARS`` characters.
        """
        params = _params({"action": action, "text": text})
        return await self._request("page.clipboard", session_id, params, timeout_ms, ClipboardResult)

    async def route(
        self,
        session_id: str,
        *,
        action: Optional[Literal["fulfill", "abort", "continue"]] = None,
        body: Optional[str] = None,
        body_base64: Optional[str] = None,
        body_file: Optional[str] = None,
        content_type: Optional[str] = None,
        error: Optional[Literal["aborted", "accessdenied", "addressunreachable", "blockedbyclient", "blockedbyresponse", "connectionaborted", "connectionclosed", "connectionfailed", "connectionrefused", "connectionreset", "internetdisconnected", "namenotresolved", "timedout", "failed"]] = None,
        headers: Optional[Dict[str, Any]] = None,
        method: Optional[str] = None,
        post_data: Optional[str] = None,
        remove_headers: Optional[List[str]] = None,
        request_headers: Optional[Dict[str, Any]] = None,
        status: Optional[int] = None,
        url: str,
        timeout_ms: Optional[int] = None,
    ) -> RoutesResult:
        """``page.route {url, action?, status?, content_type?, headers?, body? | body_base64? | body_file?,
        error?, request_headers?, remove_headers?, method?, post_data?}`` -> ``RoutesResult``: a ``Route`` of
        the session's requests, in every tab, tried before the ones already there (as Playwright's
        ``context.route``); at most ``MAX_ROUTES``. While a session has no route (and no ``http_credentials``)
        its requests are not intercepted at all.

        :param action: When absent: ``abort`` with ``error``, ``fulfill`` with a status, body, content type or
        headers, else ``continue``.
        :param body: fulfill: the body, text.
        :param body_base64: fulfill: the body, base64.
        :param body_file: fulfill: the body from this file of the uploads dir, read once (``page.route``
        only).
        :param content_type: fulfill: the ``Content-Type`` (from ``body_file``'s name when absent).
        :param error: abort: Playwright's error code, ``failed`` when absent.
        :param headers: fulfill: the response's headers.
        :param method: continue: another method.
        :param post_data: continue: another body, text.
        :param remove_headers: continue: request headers removed.
        :param request_headers: continue: request headers set.
        :param status: fulfill: the status (100..=599), 200 when absent.
        :param url: A glob matched against the whole URL (``**/api/*``, ``**/*.{png,jpg}``) or
        ``/regex/flags``.
        """
        params = _params(
            {
                "action": action,
                "body": body,
                "body_base64": body_base64,
                "body_file": body_file,
                "content_type": content_type,
                "error": error,
                "headers": headers,
                "method": method,
                "post_data": post_data,
                "remove_headers": remove_headers,
                "request_headers": request_headers,
                "status": status,
                "url": url,
            }
        )
        return await self._request("page.route", session_id, params, timeout_ms, RoutesResult)

    async def unroute(
        self,
        session_id: str,
        *,
        url: Optional[str] = None,
        timeout_ms: Optional[int] = None,
    ) -> RoutesResult:
        """``page.unroute {url?}`` -> ``RoutesResult``: removes the routes added with that ``url`` (every route
        without it), as Playwright's ``context.unroute(url)`` / ``unrouteAll()``.

        :param url: The ``url`` the routes were added with; every route when absent.
        """
        params = _params({"url": url})
        return await self._request("page.unroute", session_id, params, timeout_ms, RoutesResult)

    async def routes(self, session_id: str, *, timeout_ms: Optional[int] = None) -> RoutesResult:
        """``page.routes`` -> ``RoutesResult``: the session's routes, newest first.
        """
        return await self._request("page.routes", session_id, {}, timeout_ms, RoutesResult)

    # tabs.*

    async def tabs_list(self, session_id: str, *, timeout_ms: Optional[int] = None) -> TabsListResult:
        """``tabs.list`` -> ``TabsListResult``: the session's tabs (popups included).
        """
        return await self._request("tabs.list", session_id, {}, timeout_ms, TabsListResult)

    async def tabs_open(
        self,
        session_id: str,
        url: Optional[str] = None,
        *,
        timeout_ms: Optional[int] = None,
    ) -> TabInfo:
        """``tabs.open {url?}`` -> ``TabInfo``: a new tab, the active one from now on, loaded at ``url`` as
        ``page.goto`` loads it, with the session's viewport and emulation from its first request (a load that
        fails answers ``page.goto``'s error; the tab stays open and active).

        :param url: Where the new tab goes (``about:blank`` when absent), loaded as ``page.goto`` loads it.
        """
        params = _params({"url": url})
        return await self._request("tabs.open", session_id, params, timeout_ms, TabInfo)

    async def tabs_focus(self, session_id: str, target_id: str, *, timeout_ms: Optional[int] = None) -> TabInfo:
        """``tabs.focus {target_id}`` -> ``TabInfo``: page methods go to this tab from now on (a unique
        ``target_id`` prefix is enough).

        :param target_id: A tab's ``target_id``, whole or a unique prefix (``ambiguous_target`` when several
        tabs match, ``tab_not_found`` when none does; ``bad_request`` when empty).
        """
        params = _params({"target_id": target_id})
        return await self._request("tabs.focus", session_id, params, timeout_ms, TabInfo)

    async def tabs_close(self, session_id: str, target_id: str, *, timeout_ms: Optional[int] = None) -> TabsCloseResult:
        """``tabs.close {target_id}`` -> ``TabsCloseResult``: closes the tab.

        :param target_id: A tab's ``target_id``, whole or a unique prefix (``ambiguous_target`` when several
        tabs match, ``tab_not_found`` when none does; ``bad_request`` when empty).
        """
        params = _params({"target_id": target_id})
        return await self._request("tabs.close", session_id, params, timeout_ms, TabsCloseResult)
