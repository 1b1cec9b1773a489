"""The API's methods, once for both clients: each builds its request and hands it to ``_request``,
which the sync :class:`~sandbox_browser.Client` runs at once and the :class:`~sandbox_browser.AsyncClient`
returns as a coroutine.

Every method takes ``timeout_ms``: the request's one budget in ms (the runtime clamps it to
1000..120000; ``None`` means the method's default). Page methods name their element by ``ref`` (from
a snapshot, ``"e12"``) or by a CSS ``selector``.
"""

from typing import Any, Dict, List, Optional, Type

from .types import (
    EvaluateResult,
    ExtractResult,
    FramesResult,
    GotoResult,
    HandleDialogResult,
    HealthResult,
    InputResult,
    MetricsResult,
    ScreenshotResult,
    ScrollResult,
    SelectResult,
    SessionCloseResult,
    SessionListResult,
    SessionStartResult,
    SetViewportResult,
    SnapshotResult,
    StatsResult,
    TabInfo,
    TabsCloseResult,
    TabsListResult,
    WaitForResult,
)


def _params(**kwargs: Any) -> Dict[str, Any]:
    """The params object: ``None`` values left out (the runtime's defaults apply); ``ref`` as is."""
    return {k: v for k, v in kwargs.items() if v is not None}


class Methods:
    """One method per API method (docs/protocol.md)."""

    def _request(
        self, method: str, session_id: Optional[str], params: Dict[str, Any], timeout_ms: Optional[int], result: Type[Any]
    ) -> Any:
        raise NotImplementedError

    # runtime.*

    def health(self, *, timeout_ms: Optional[int] = None) -> HealthResult:
        """``runtime.health``; raises :class:`BrowserUnavailable` when the browser is down."""
        return self._request("runtime.health", None, {}, timeout_ms, HealthResult)

    def stats(self, *, timeout_ms: Optional[int] = None) -> StatsResult:
        """``runtime.stats``: the runtime's counters since it started."""
        return self._request("runtime.stats", None, {}, timeout_ms, StatsResult)

    def metrics(self, *, timeout_ms: Optional[int] = None) -> MetricsResult:
        """``runtime.metrics``: the counters in Prometheus text format."""
        return self._request("runtime.metrics", None, {}, timeout_ms, MetricsResult)

    # session.*

    def session_start(
        self,
        session_id: Optional[str] = None,
        *,
        viewport: Optional[Dict[str, int]] = None,
        device_scale_factor: Optional[float] = None,
        timeout_ms: Optional[int] = None,
    ) -> SessionStartResult:
        """``session.start``: a new session (its own browser context and tab). ``session_id``:
        1..128 of ``[A-Za-z0-9._-]`` starting with a letter or digit, generated when ``None``;
        ``viewport``: ``{"width", "height"}`` in CSS px."""
        params = _params(session_id=session_id, viewport=viewport, device_scale_factor=device_scale_factor)
        return self._request("session.start", None, params, timeout_ms, SessionStartResult)

    def session_close(self, session_id: str, *, timeout_ms: Optional[int] = None) -> SessionCloseResult:
        """``session.close``: closes the session's tabs and its browser context."""
        return self._request("session.close", session_id, {}, timeout_ms, SessionCloseResult)

    def session_list(self, *, timeout_ms: Optional[int] = None) -> SessionListResult:
        """``session.list``: the open sessions."""
        return self._request("session.list", None, {}, timeout_ms, SessionListResult)

    # page.*

    def goto(self, session_id: str, url: str, *, timeout_ms: Optional[int] = None) -> GotoResult:
        """``page.goto``: loads ``url``; answers once it reached ``load`` (or what it reached when the
        budget ran out, ``timed_out=True``)."""
        return self._request("page.goto", session_id, {"url": url}, timeout_ms, GotoResult)

    def extract(
        self, session_id: str, *, format: str = "text", max_chars: Optional[int] = None, timeout_ms: Optional[int] = None
    ) -> ExtractResult:
        """``page.extract``: the page's ``text`` (innerText) or ``html``, at most ``max_chars``."""
        params = _params(format=format, max_chars=max_chars)
        return self._request("page.extract", session_id, params, timeout_ms, ExtractResult)

    def screenshot(
        self,
        session_id: str,
        *,
        full_page: bool = False,
        format: str = "png",
        quality: Optional[int] = None,
        inline: bool = False,
        max_height: Optional[int] = None,
        clip: Optional[Dict[str, float]] = None,
        ref: Optional[str] = None,
        selector: Optional[str] = None,
        timeout_ms: Optional[int] = None,
    ) -> ScreenshotResult:
        """``page.screenshot``: the viewport, the full page (cut at ``max_height`` CSS px), a ``clip``
        region (``{"x", "y", "width", "height"}``, CSS px) or an element, saved under the runtime's
        artifacts directory; ``inline=True`` also returns it as base64 ``data``."""
        params = _params(
            full_page=full_page, format=format, quality=quality, inline=inline, max_height=max_height,
            clip=clip, ref=ref, selector=selector,
        )
        return self._request("page.screenshot", session_id, params, timeout_ms, ScreenshotResult)

    def evaluate(
        self,
        session_id: str,
        expression: Optional[str] = None,
        *,
        function: Optional[str] = None,
        ref: Optional[str] = None,
        selector: Optional[str] = None,
        frame: Optional[str] = None,
        timeout_ms: Optional[int] = None,
    ) -> EvaluateResult:
        """``page.evaluate``: an ``expression``, or a ``function`` called with the element named by
        ``ref``/``selector``; promises are awaited. Raises :class:`EvaluateError` when it throws."""
        params = _params(expression=expression, function=function, ref=ref, selector=selector, frame=frame)
        return self._request("page.evaluate", session_id, params, timeout_ms, EvaluateResult)

    def wait_for(
        self,
        session_id: str,
        *,
        selector: Optional[str] = None,
        state: Optional[str] = None,
        text: Optional[str] = None,
        text_gone: Optional[str] = None,
        url: Optional[str] = None,
        load_state: Optional[str] = None,
        function: Optional[str] = None,
        time_ms: Optional[int] = None,
        timeout_ms: Optional[int] = None,
    ) -> WaitForResult:
        """``page.wait_for``: exactly one condition (a ``selector`` in a ``state``, ``text`` to appear,
        ``text_gone``, a ``url`` glob, a ``load_state``, a JS ``function`` truthy, or ``time_ms``)."""
        params = _params(
            selector=selector, state=state, text=text, text_gone=text_gone, url=url, load_state=load_state,
            function=function, time_ms=time_ms,
        )
        return self._request("page.wait_for", session_id, params, timeout_ms, WaitForResult)

    def snapshot(
        self,
        session_id: str,
        *,
        interactive: bool = False,
        compact: bool = False,
        max_depth: Optional[int] = None,
        scope: Optional[str] = None,
        max_chars: Optional[int] = None,
        diff: bool = False,
        timeout_ms: Optional[int] = None,
    ) -> SnapshotResult:
        """``page.snapshot``: the page as aria-snapshot text with ``[ref=eN]`` refs to act on."""
        params = _params(
            interactive=interactive, compact=compact, max_depth=max_depth, scope=scope, max_chars=max_chars,
            diff=diff or None,
        )
        return self._request("page.snapshot", session_id, params, timeout_ms, SnapshotResult)

    def click(
        self,
        session_id: str,
        ref: Optional[str] = None,
        *,
        selector: Optional[str] = None,
        button: Optional[str] = None,
        click_count: Optional[int] = None,
        modifiers: Optional[List[str]] = None,
        timeout_ms: Optional[int] = None,
    ) -> InputResult:
        """``page.click``: waits until the element is actionable (visible, stable, enabled, not covered),
        then clicks it with ``button`` (``left``/``right``/``middle``) ``click_count`` times."""
        params = _params(ref=ref, selector=selector, button=button, click_count=click_count, modifiers=modifiers)
        return self._request("page.click", session_id, params, timeout_ms, InputResult)

    def type(
        self,
        session_id: str,
        ref: Optional[str] = None,
        text: str = "",
        *,
        selector: Optional[str] = None,
        clear: bool = False,
        submit: bool = False,
        timeout_ms: Optional[int] = None,
    ) -> InputResult:
        """``page.type``: types ``text`` key by key (``clear`` first empties the field, ``submit``
        presses Enter after)."""
        params = _params(ref=ref, selector=selector, text=text, clear=clear, submit=submit)
        return self._request("page.type", session_id, params, timeout_ms, InputResult)

    def fill(
        self,
        session_id: str,
        ref: Optional[str] = None,
        value: str = "",
        *,
        selector: Optional[str] = None,
        timeout_ms: Optional[int] = None,
    ) -> InputResult:
        """``page.fill``: sets an input's value at once (as Playwright's ``fill``)."""
        params = _params(ref=ref, selector=selector, value=value)
        return self._request("page.fill", session_id, params, timeout_ms, InputResult)

    def press(
        self,
        session_id: str,
        key: str,
        *,
        ref: Optional[str] = None,
        selector: Optional[str] = None,
        timeout_ms: Optional[int] = None,
    ) -> InputResult:
        """``page.press``: ``Enter``, ``Tab``, ``Control+A``, ... on the element, or on the focused one."""
        params = _params(key=key, ref=ref, selector=selector)
        return self._request("page.press", session_id, params, timeout_ms, InputResult)

    def hover(
        self, session_id: str, ref: Optional[str] = None, *, selector: Optional[str] = None, timeout_ms: Optional[int] = None
    ) -> InputResult:
        """``page.hover``: moves the mouse over the element."""
        return self._request("page.hover", session_id, _params(ref=ref, selector=selector), timeout_ms, InputResult)

    def handle_dialog(
        self, session_id: str, accept: bool, *, prompt_text: Optional[str] = None, timeout_ms: Optional[int] = None
    ) -> HandleDialogResult:
        """``page.handle_dialog``: how the session answers its next JavaScript dialog."""
        params = _params(accept=accept, prompt_text=prompt_text)
        return self._request("page.handle_dialog", session_id, params, timeout_ms, HandleDialogResult)

    def select(
        self,
        session_id: str,
        ref: Optional[str] = None,
        *,
        selector: Optional[str] = None,
        values: Optional[List[str]] = None,
        labels: Optional[List[str]] = None,
        indexes: Optional[List[int]] = None,
        timeout_ms: Optional[int] = None,
    ) -> SelectResult:
        """``page.select``: selects a ``<select>``'s options by ``values``, ``labels`` or ``indexes``."""
        params = _params(ref=ref, selector=selector, values=values, labels=labels, indexes=indexes)
        return self._request("page.select", session_id, params, timeout_ms, SelectResult)

    def check(
        self,
        session_id: str,
        ref: Optional[str] = None,
        *,
        selector: Optional[str] = None,
        checked: bool = True,
        timeout_ms: Optional[int] = None,
    ) -> InputResult:
        """``page.check``: brings a checkbox or radio to ``checked``."""
        params = _params(ref=ref, selector=selector, checked=checked)
        return self._request("page.check", session_id, params, timeout_ms, InputResult)

    def scroll(
        self,
        session_id: str,
        ref: Optional[str] = None,
        *,
        selector: Optional[str] = None,
        dx: Optional[float] = None,
        dy: Optional[float] = None,
        timeout_ms: Optional[int] = None,
    ) -> ScrollResult:
        """``page.scroll``: an element into view, or the page by a wheel delta ``dx``/``dy`` (CSS px)."""
        params = _params(ref=ref, selector=selector, dx=dx, dy=dy)
        return self._request("page.scroll", session_id, params, timeout_ms, ScrollResult)

    def drag(
        self, session_id: str, source: Dict[str, str], target: Dict[str, str], *, timeout_ms: Optional[int] = None
    ) -> InputResult:
        """``page.drag``: from ``source`` to ``target``, each ``{"ref": ...}`` or ``{"selector": ...}``."""
        return self._request("page.drag", session_id, {"from": source, "to": target}, timeout_ms, InputResult)

    def set_viewport(
        self,
        session_id: str,
        width: int,
        height: int,
        *,
        device_scale_factor: Optional[float] = None,
        timeout_ms: Optional[int] = None,
    ) -> SetViewportResult:
        """``page.set_viewport``: the session's viewport in CSS px from now on."""
        params = _params(width=width, height=height, device_scale_factor=device_scale_factor)
        return self._request("page.set_viewport", session_id, params, timeout_ms, SetViewportResult)

    def frames(self, session_id: str, *, timeout_ms: Optional[int] = None) -> FramesResult:
        """``page.frames``: the active tab's frame tree, main frame first."""
        return self._request("page.frames", session_id, {}, timeout_ms, FramesResult)

    # tabs.*

    def tabs_list(self, session_id: str, *, timeout_ms: Optional[int] = None) -> TabsListResult:
        """``tabs.list``: the session's tabs, popups included."""
        return self._request("tabs.list", session_id, {}, timeout_ms, TabsListResult)

    def tabs_open(self, session_id: str, url: Optional[str] = None, *, timeout_ms: Optional[int] = None) -> TabInfo:
        """``tabs.open``: a new tab (the active one from now on) at ``url`` (not waited for)."""
        return self._request("tabs.open", session_id, _params(url=url), timeout_ms, TabInfo)

    def tabs_focus(self, session_id: str, target_id: str, *, timeout_ms: Optional[int] = None) -> TabInfo:
        """``tabs.focus``: page methods go to this tab (a unique ``target_id`` prefix is enough)."""
        return self._request("tabs.focus", session_id, {"target_id": target_id}, timeout_ms, TabInfo)

    def tabs_close(self, session_id: str, target_id: str, *, timeout_ms: Optional[int] = None) -> TabsCloseResult:
        """``tabs.close``: closes the tab."""
        return self._request("tabs.close", session_id, {"target_id": target_id}, timeout_ms, TabsCloseResult)
