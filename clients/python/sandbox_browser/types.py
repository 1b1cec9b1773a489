"""Results of the runtime's API methods, as dataclasses.

Generated from docs/api.schema.json by scripts/gen-python.py: do not edit by hand (CI checks it).

Every result has the common part (:class:`Result`): ``elapsed_ms``, ``session_reset`` and
``reset_reason`` when the session's page was replaced since its last result, ``waited_for_recovery_ms``,
and the ``dialogs`` answered and ``downloads`` seen during the action. Fields a newer runtime adds are
kept in ``extra``, so an older client still shows them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

from ._decode import from_dict

__all__ = ["from_dict", "Result", "DialogInfo", "DownloadInfo", "HumanTookOver", "Restored", "HealthResult", "ActionStats", "Histogram", "StatsResult", "MetricsResult", "SessionStartResult", "SessionCloseResult", "Cookie", "CookiesResult", "StorageStateResult", "TraceResult", "HarResult", "SessionInfo", "SessionListResult", "GotoResult", "ExtractResult", "ScreenshotResult", "EvaluateResult", "TabInfo", "NetworkRequest", "WaitForResult", "SnapshotResult", "FileChooser", "InputResult", "HandleDialogResult", "SelectResult", "ScrollResult", "SetViewportResult", "FrameInfo", "FramesResult", "PdfResult", "FillFormResult", "UploadResult", "DownloadsResult", "ConsoleMessage", "ConsoleResult", "RequestDetails", "NetworkResult", "Geolocation", "HttpCredentials", "Route", "Emulation", "EmulateResult", "StorageItem", "StorageResult", "VerifyResult", "Attribute", "BoundingBox", "ElementFacts", "QueryResult", "GenerateLocatorResult", "ClipboardResult", "RouteInfo", "RoutesResult", "TabsListResult", "TabsCloseResult"]


@dataclass
class DialogInfo:
    """A JavaScript dialog that opened during an action and was answered; page actions list them in their result as ``dialogs`` (absent when there were none)."""

    accepted: bool = False
    """Whether it was accepted (OK) or dismissed (Cancel)."""
    default_value: Optional[str] = None
    """A ``prompt``'s default value (``defaultPrompt``), when it has a non-empty one; an accepted prompt without ``prompt_text`` answers with it (whole; cut here as ``message`` is)."""
    message: str = ""
    """The dialog's text: its first ``DIALOG_TEXT_CHARS`` chars, then ``…`` when it was longer."""
    type: str = ""
    """``alert``, ``confirm``, ``prompt`` or ``beforeunload``."""


@dataclass
class DownloadInfo:
    """A download a page started, reported in the session's next result as ``downloads`` (once when it starts, once when it ends; absent when there is nothing new)."""

    bytes: int = 0
    """Bytes received when it ended (0 when it started)."""
    path: Optional[str] = None
    """The file, once ``completed``: under the session's downloads directory (0700), removed with the session unless ``downloads.keep``."""
    state: str = ""
    """``started``, ``completed``, ``canceled``, or ``too_large`` (cancelled by the runtime at ``downloads.max_bytes``, its file removed)."""
    suggested_filename: str = ""
    """The name the page or server suggested; the completed file is saved under it, made one safe plain name and unique in the session's directory (``data (1).bin`` beside ``data.bin``)."""
    url: str = ""
    """Where it came from (credentials redacted)."""


@dataclass
class HumanTookOver:
    """What a person did while holding the session in the live view (``[view] takeover``), reported in the agent's next result so that it reads the page again."""

    ms: int = 0
    """How long the person held the session, ms."""
    note: Optional[str] = None
    """What the person wrote for the agent ("logged in, continue")."""
    url_after: Optional[str] = None
    """The active tab's URL when the person handed it back."""
    url_before: Optional[str] = None
    """The active tab's URL when the person took it."""


@dataclass
class Restored:
    """The session state put back after a restart (``CommonResult::restored``)."""

    cookies: int = 0
    """Cookies set again (HttpOnly ones included)."""
    origins: int = 0
    """Origins whose ``localStorage`` was written again."""
    session_storage: int = 0
    """Origins whose ``sessionStorage`` the reopened tab gets again, before its page's first script."""


@dataclass
class Result:
    """The part every result has, beside its method's own fields (in the same JSON object): how long the request took, and what happened to the session's page since its last result. Every front door shows it: a reset page, a dialog or a download always reaches the caller."""

    console_errors: Optional[int] = None
    """Console errors and uncaught exceptions the active tab raised during the action (``page.console {level: "error"}`` lists them); absent when none."""
    dialogs: List[DialogInfo] = field(default_factory=list)
    """Dialogs answered during the action, or since the session's last result: the first ``DIALOGS_LISTED`` of them."""
    dialogs_dropped: Optional[int] = None
    """How many more dialogs were answered than ``dialogs`` lists (a page that opens them in a loop); absent when none."""
    downloads: List[DownloadInfo] = field(default_factory=list)
    """Downloads that started or ended since the session's last result, each once in its latest state (one that a click started and that ended within it: ``completed``, with its path)."""
    elapsed_ms: int = 0
    """The runtime's time for the request, ms."""
    human_took_over: Optional[HumanTookOver] = None
    """A person held the session in the live view since its last result (what they did to the page is not in any result: take a new snapshot)."""
    popups: List[str] = field(default_factory=list)
    """Tabs a page of the session opened since its last result (``window.open``, a ``target=_blank`` link), by CDP ``targetId``, oldest first: ``tabs.focus`` drives one (``tabs.list`` gives their URLs). Each is reported once; absent when none."""
    reset_reason: Optional[str] = None
    """Why: ``browser_restarted``, ``supervisor_restarted``, ``tab_stuck``, ``renderer_crashed``, ``crash_loop``, ``active_tab_closed``."""
    restored: Optional[Restored] = None
    """What of the session's kept login was put back into its new browser context before this action (after a browser or supervisor restart, beside ``session_reset``): its cookies and the origins whose local storage was written; absent otherwise."""
    session_reset: Optional[bool] = None
    """``true`` when the session's page was replaced since its last result (its state is lost: take a new snapshot); absent otherwise."""
    waited_for_recovery_ms: Optional[int] = None
    """How long the action first waited for the tab to be freed (or its worker started, or its page reopened) after the previous one, ms."""
    extra: Dict[str, Any] = field(default_factory=dict)
    """Fields the runtime sent that this client does not know (a newer runtime's), as JSON."""


@dataclass
class HealthResult(Result):
    """``runtime.health`` result."""

    browser_binary: str = ""
    """The browser binary that runs (``/usr/lib/chromium/chromium-headless-shell``); empty for a browser elsewhere."""
    browser_choice: str = ""
    """Why it was chosen: ``configured`` (``[browser] path``, ``--browser``), ``default: headless shell installed`` (Debian's ``chromium-headless-shell``, the default for a headless browser, as Playwright's), ``default: no headless shell installed``, ``default: headed mode needs the full browser``; ``remote`` for a browser elsewhere."""
    browser_pid: int = 0
    """The browser's process id."""
    browser_sandbox: str = ""
    """Chromium's own sandbox: ``"chromium"`` (on), or ``"off: running as root"`` / ``"off: browser.no_sandbox"`` (the container is then the only sandbox; ``doctor`` says why)."""
    browser_version: str = ""
    """``Browser.getVersion``'s ``product``, e.g. ``"HeadlessChrome/156.0.8078.79"``."""
    cdp_transport: str = ""
    """How the runtime speaks CDP to the browser: ``"pipe"`` (``--remote-debugging-pipe``: no DevTools port, no ``DevToolsActivePort``; docs/security.md), or ``"websocket"`` for a browser elsewhere (``[browser] cdp_url``; ``browser_pid`` is then 0)."""
    last_probe_ms: int = 0
    """How long ago the browser last passed its probe, in ms."""
    max_timeout_ms: int = 120000
    """The largest ``timeout_ms`` this runtime honours (its clamp, ``timeouts.max_ms``): a client waits for up to this long (plus its slack) on a request without ``timeout_ms``."""
    restarts: int = 0
    """Browser restarts since the supervisor started."""
    sessions: int = 0
    """Open sessions."""
    uptime_ms: int = 0
    """Since the supervisor started, ms."""


@dataclass
class ActionStats:
    """Calls, failures and timeouts of one method (``runtime.stats``)."""

    count: int = 0
    """Requests answered."""
    failures: int = 0
    """Requests answered with an error."""
    timeouts: int = 0
    """Failures with code ``timeout`` (also counted in ``failures``)."""


@dataclass
class Histogram:
    """A histogram: ``counts[i]`` observations were at most ``bounds_ms[i]`` (cumulative, the last bound is ``+Inf``, written ``null``); ``sum_ms`` and ``count`` over all of them."""

    bounds_ms: List[Optional[float]] = field(default_factory=list)
    """Upper bounds of the buckets, ms (``null``: ``+Inf``)."""
    count: int = 0
    """Number of observations."""
    counts: List[int] = field(default_factory=list)
    """Observations at most each bound (cumulative)."""
    sum_ms: float = 0.0
    """Sum of all observations, ms."""


@dataclass
class StatsResult(Result):
    """``runtime.stats`` result: counters since the supervisor started."""

    actions: Dict[str, ActionStats] = field(default_factory=dict)
    """Per method (``page.goto``, ...): calls, failures, timeouts."""
    cdp_sessions: int = 0
    """Flat CDP sessions the relay routes now: the workers' (a page's, its out-of-process iframes') and the supervisor's standby sessions (one on each session's active tab)."""
    evaluate_ms: Histogram = field(default_factory=Histogram)
    """Durations of ``page.evaluate`` calls, ms."""
    page_resets: int = 0
    """Tabs closed and reopened at their last URL (stuck page or renderer crash)."""
    probes: int = 0
    """Health probe rounds run (HTTP ``/json/version`` + CDP ``Browser.getVersion``)."""
    probes_skipped: int = 0
    """Actions that skipped the probes because one passed recently."""
    recoveries: int = 0
    """Recovery cycles that ended with a working browser."""
    renderer_crashes: int = 0
    """Renderer crashes seen (``Inspector.targetCrashed``)."""
    restart_failures: int = 0
    """Restarts that failed (the runtime then answers ``browser_unavailable``)."""
    restarts: int = 0
    """Browser restarts attempted (each recovery cycle makes at most ``runtime_restart_attempts``)."""
    screencasts_started: int = 0
    """Screencasts started for the live view (``Page.startScreencast``; one while a session is watched)."""
    sessions_expired: int = 0
    """Sessions closed for going ``limits.session_idle_timeout_ms`` without a request."""
    sessions_rehydrated: int = 0
    """Sessions given a new page after a browser or supervisor restart."""
    tab_sessions: int = 0
    """CDP sessions the sessions' workers hold on tabs: one on each tab a worker drove that is still open (its active tab, and those it left for another with ``tabs.focus``, kept so their dialogs are answered and their emulation held). A tab that closes is let go at its worker's next action; a replaced worker's count is its own."""
    terminate_executions: int = 0
    """``Runtime.terminateExecution`` calls that stopped a script."""
    unhealthy_checks: int = 0
    """Health checks that found the browser unhealthy (each starts a recovery cycle)."""
    worker_kills: int = 0
    """Worker processes killed past their deadline."""


@dataclass
class MetricsResult(Result):
    """``runtime.metrics`` result."""

    content_type: str = ""
    """``text/plain; version=0.0.4``."""
    text: str = ""
    """The Prometheus text exposition."""


@dataclass
class SessionStartResult(Result):
    """``session.start`` result."""

    session_id: str = ""
    """The session's id (the one asked for, or a generated one)."""
    session_token: str = ""
    """The session's token: the request's ``session_token``, or a new random one (128 bits, hex). With ``[limits] session_tokens`` every call on the session must carry it."""
    target_id: str = ""
    """CDP ``targetId`` of the session's page."""


@dataclass
class SessionCloseResult(Result):
    """``session.close`` result."""

    closed: bool = False
    """Whether it was open (and is closed now)."""
    session_id: str = ""
    """The session closed."""


@dataclass
class Cookie:
    """A cookie, as Playwright's ``BrowserContext.cookies()`` and its ``storageState`` give one: its keys as Playwright writes them (``httpOnly``, ``sameSite``), in every answer."""

    domain: str = ""
    """Its domain (``.example.com`` for a domain cookie, ``example.com`` for a host-only one)."""
    expires: float = 0.0
    """When it expires, seconds since the Unix epoch; -1 for a session cookie."""
    httpOnly: bool = False
    """``HttpOnly``: scripts cannot read it."""
    name: str = ""
    """Its name."""
    path: str = ""
    """Its path."""
    sameSite: str = ""
    """``SameSite``: ``Lax`` for a cookie set without one (``document.cookie = "a=1"``), as Playwright's ``context.cookies()`` reports it (``sameSite ?? 'Lax'`` in ``crBrowser.ts``) and Chromium applies it."""
    secure: bool = False
    """``Secure``: sent over https only."""
    value: str = ""
    """Its value."""


@dataclass
class CookiesResult(Result):
    """``session.cookies`` result."""

    cookies: List[Cookie] = field(default_factory=list)
    """The session's cookies after the action (those sent to ``urls`` when given)."""


@dataclass
class StorageStateResult(Result):
    """``session.storage_state`` result."""

    cookies: int = 0
    """Cookies saved or set."""
    origins: int = 0
    """Origins whose local storage was saved or written."""
    path: str = ""
    """The file written or read."""


@dataclass
class TraceResult(Result):
    """``session.trace`` result."""

    actions: int = 0
    """Actions recorded so far in this trace."""
    bytes: int = 0
    """Bytes the trace's files hold (JSON lines and screenshots)."""
    jsonl: str = ""
    """The JSON lines file (one line per action)."""
    report: Optional[str] = None
    """stop: the HTML report written."""
    tracing: bool = False
    """Whether the session is being traced after this call."""


@dataclass
class HarResult(Result):
    """``session.har`` result."""

    bytes: Optional[int] = None
    """stop: its size, bytes."""
    entries: Optional[int] = None
    """stop: its entries (requests)."""
    path: Optional[str] = None
    """stop: the HAR file written."""
    recording: bool = False
    """Whether the session is recording after this call."""


@dataclass
class SessionInfo:
    """One entry of ``session.list``."""

    session_id: str = ""
    """The session's id."""
    target_id: str = ""
    """CDP ``targetId`` of its active tab."""
    url: Optional[str] = None
    """The last URL a ``page.goto`` reached, when any."""


@dataclass
class SessionListResult(Result):
    """``session.list`` result."""

    sessions: List[SessionInfo] = field(default_factory=list)
    """The open sessions, by id."""


@dataclass
class GotoResult(Result):
    """``page.goto`` result."""

    load_state: str = ""
    """What the navigation reached: ``"commit"``, ``"domcontentloaded"`` or ``"load"``."""
    status: Optional[int] = None
    """HTTP status of the main document; absent for ``about:``, ``data:`` and same-document navigations."""
    timed_out: bool = False
    """True when ``domcontentloaded`` did not arrive within the budget and the answer is what ``commit`` reached."""
    title: str = ""
    """The page's title."""
    url: str = ""
    """The URL after redirects."""


@dataclass
class ExtractResult(Result):
    """``page.extract`` result."""

    chars: int = 0
    """Length of ``content`` in Unicode scalar values."""
    content: str = ""
    """The page's text or HTML, at most ``max_chars`` characters."""
    format: str = ""
    """``text`` or ``html``, as asked."""
    title: str = ""
    """The page's title."""
    truncated: bool = False
    """True when the page had more than ``max_chars``."""
    url: str = ""
    """The page's URL."""


@dataclass
class ScreenshotResult(Result):
    """``page.screenshot`` result."""

    bytes: int = 0
    """File size in bytes."""
    data: Optional[str] = None
    """Base64 image, only with ``inline: true``."""
    format: str = ""
    """``png`` or ``jpeg``."""
    height: int = 0
    """Image height, device px."""
    path: str = ""
    """Absolute path of the image under the artifacts dir."""
    truncated: bool = False
    """True when a full-page capture was cut at ``max_height``."""
    width: int = 0
    """Image size in device pixels."""


@dataclass
class EvaluateResult(Result):
    """``page.evaluate`` result: a JavaScript value, typed so that nothing is lost. ``type`` is JavaScript's ``typeof`` (``"undefined"``, ``"object"``, ``"number"``, ...). JSON-representable values are in ``value``; ``NaN``, ``-0``, ``Infinity``, ``-Infinity`` and bigints are in ``unserializable`` (CDP's ``unserializableValue``, e.g. ``"NaN"``, ``"12n"``); ``description`` is CDP's text for the rest."""

    description: Optional[str] = None
    """V8's text of a value JSON cannot hold (a function, a DOM node, a symbol)."""
    type: str = ""
    """``type``: JavaScript's ``typeof`` of the value."""
    unserializable: Optional[str] = None
    """CDP's ``unserializableValue``: ``"NaN"``, ``"-0"``, ``"Infinity"``, ``"-Infinity"``, or a bigint such as ``"12n"``."""
    value: Any = None
    """The value as JSON, whole (as Playwright returns it) up to about 64 MiB; absent for ``undefined`` and unserializable values; ``Some(Value::Null)`` for ``null``. Inside an object or array, what JSON cannot hold is a tagged object: ``{"$undefined": true}``, ``{"$number": "NaN"}``, ``{"$bigint": "12"}``, ``{"$function": "f"}``, ``{"$node": "<div id=\\"x\\">"}``, ``{"$circular": true}``, ``{"$map": [[k, v]]}``, ``{"$set": [..]}``, ``{"$regexp": "/a/g"}``, ``{"$error": ".."}``, ``{"$object": "Window"}``; Date and URL are their ISO string and href. Past depth 32, or once the value passes 64 MiB (each array then ends with one ``{"$truncated": "N more items: .."}`` and each object with a ``"$truncated"`` key), what is left out is said by ``$truncated``."""


@dataclass
class TabInfo:
    """One tab of a session."""

    active: bool = False
    """Whether page actions go to this tab."""
    opener_id: Optional[str] = None
    """The tab that opened it (``window.open``, ``target=_blank``), when it is a popup."""
    target_id: str = ""
    """CDP ``targetId``."""
    title: str = ""
    """The tab's title."""
    url: str = ""
    """The tab's URL."""


@dataclass
class NetworkRequest:
    """One request of a tab (a redirect's hops are one entry each)."""

    blocked: Optional[str] = None
    """The URL policy's rule that refused its host, when the runtime's gate refused it."""
    bytes: Optional[int] = None
    """Bytes received over the network (``encodedDataLength``), once it finished."""
    failure: Optional[str] = None
    """Why it failed (Chromium's ``net::ERR_...`` text), when it did."""
    id: int = 0
    """Its number in the tab's buffer (increasing; ``since`` takes it)."""
    method: str = ""
    """``GET``, ``POST``, ..."""
    ms: Optional[int] = None
    """From the request to its end (finished or failed), ms; absent while in flight."""
    resource_type: str = ""
    """The resource type as Playwright's ``request.resourceType()`` gives it: ``document``, ``stylesheet``, ``image``, ``script``, ``xhr``, ``fetch``, ``font``, ``websocket``, ... (``other`` for the rest)."""
    status: Optional[int] = None
    """The HTTP status, once a response came (a redirect's hop has its 3xx)."""
    url: str = ""
    """The URL (credentials redacted; ``data:`` URLs cut at 100 chars)."""


@dataclass
class WaitForResult(Result):
    """``page.wait_for`` result."""

    download: Optional[DownloadInfo] = None
    """The download waited for (``download``), as it ended."""
    matched: str = ""
    """Which condition was met, e.g. ``"selector #done visible"``."""
    popup: Optional[TabInfo] = None
    """The popup waited for (``popup``)."""
    response: Optional[NetworkRequest] = None
    """The response waited for (``response``)."""
    url: str = ""
    """The page's URL when it was met."""


@dataclass
class SnapshotResult(Result):
    """``page.snapshot`` result."""

    chars: int = 0
    """Characters (Unicode scalar values) in ``snapshot``."""
    diff: bool = False
    """True when ``snapshot`` is a diff against the previous snapshot (``page.snapshot {diff: true}``)."""
    lines: int = 0
    """Lines in ``snapshot``."""
    loading: bool = False
    """True when the page's document was still loading (it had not reached ``DOMContentLoaded`` within half the budget, which the snapshot waits): the text may be partial and starts with a marker line, ``- note "the page is still loading; take another snapshot"``. An empty page is never an empty text either: it says ``- note "the page is empty"``."""
    refs: int = 0
    """How many refs the text carries."""
    snapshot: str = ""
    """Aria-snapshot text: ``- button "Submit" [ref=e12]``, one node a line, two-space indent."""
    title: str = ""
    """The page's title."""
    tokens_estimate: int = 0
    """The text's size in model tokens, estimated as one token per 4 characters (rounded up): the rule of thumb for English text in the common tokenizers; snapshot text, with its markup, runs a little over it."""
    truncated: bool = False
    """True when the text was cut at ``max_chars`` (it ends with a marker line saying so)."""
    url: str = ""
    """The page's URL."""


@dataclass
class FileChooser:
    """A file chooser a page opened (``Page.fileChooserOpened``: the runtime intercepts it, as Playwright does while a ``filechooser`` listener waits)."""

    multiple: bool = False
    """It takes several files."""


@dataclass
class InputResult(Result):
    """Result of the input actions."""

    element: str = ""
    """The element acted on, e.g. ``button "Submit"``."""
    file_chooser: Optional[FileChooser] = None
    """The input opened a file chooser (a click on a file input, or on a button that clicks one): ``page.upload`` without an element sets its files. Absent when none opened."""
    navigated_to: Optional[str] = None
    """Where a navigation the action started went, once it committed (a link, a form submitted with Enter, a select whose ``change`` navigates): the action waits for that within its budget, as Playwright's actions do. Absent when the action started none (a URL the page's own timers changed while the action waited for its element is not the action's)."""
    navigation_pending: bool = False
    """True when a navigation the action started had not committed when the budget ran out (the action itself was done: do not repeat it; wait for the page instead)."""


@dataclass
class HandleDialogResult(Result):
    """``page.handle_dialog`` result."""

    next_dialog: str = ""
    """``accept`` or ``dismiss``."""


@dataclass
class SelectResult(Result):
    """``page.select`` result."""

    element: str = ""
    """The ``<select>`` acted on, e.g. ``combobox "Size"``."""
    navigated_to: Optional[str] = None
    """As ``InputResult::navigated_to``."""
    navigation_pending: bool = False
    """As ``InputResult::navigation_pending``."""
    values: List[str] = field(default_factory=list)
    """The values now selected."""


@dataclass
class ScrollResult(Result):
    """``page.scroll``'s result: ``InputResult`` when it scrolled an element into view, ``ScrollResult`` when it scrolled the page by ``dx``/``dy``."""

    element: str = ""
    """The element acted on, e.g. ``button "Submit"``."""
    file_chooser: Optional[FileChooser] = None
    """The input opened a file chooser (a click on a file input, or on a button that clicks one): ``page.upload`` without an element sets its files. Absent when none opened."""
    navigated_to: Optional[str] = None
    """Where a navigation the action started went, once it committed (a link, a form submitted with Enter, a select whose ``change`` navigates): the action waits for that within its budget, as Playwright's actions do. Absent when the action started none (a URL the page's own timers changed while the action waited for its element is not the action's)."""
    navigation_pending: bool = False
    """True when a navigation the action started had not committed when the budget ran out (the action itself was done: do not repeat it; wait for the page instead)."""
    scroll_x: float = 0.0
    """``scrollX`` after the scroll, CSS px."""
    scroll_y: float = 0.0
    """``scrollY`` after the scroll, CSS px."""


@dataclass
class SetViewportResult(Result):
    """``page.set_viewport`` result: the viewport now in force."""

    device_scale_factor: float = 0.0
    """Device pixels per CSS px."""
    height: int = 0
    """Viewport height, CSS px."""
    width: int = 0
    """Viewport width, CSS px."""


@dataclass
class FrameInfo:
    """One frame of a page (``Page.getFrameTree``)."""

    frame_id: str = ""
    """CDP ``frameId`` (the main frame's is the tab's ``target_id``)."""
    name: str = ""
    """The ``<iframe>``'s ``name`` attribute (empty when none)."""
    parent_id: Optional[str] = None
    """The parent frame's id; absent for the main frame."""
    url: str = ""
    """The frame's document URL."""


@dataclass
class FramesResult(Result):
    """``page.frames`` result: the main frame first, then its descendants, parents before children."""

    frames: List[FrameInfo] = field(default_factory=list)
    """The active tab's frames, main frame first, parents before children."""


@dataclass
class PdfResult(Result):
    """``page.pdf`` result."""

    bytes: int = 0
    """Its size, bytes."""
    pages: int = 0
    """The pages in it (the PDF's ``/Type /Page`` objects)."""
    path: str = ""
    """The file written, under the runtime's artifacts directory."""


@dataclass
class FillFormResult(Result):
    """``page.fill_form`` result."""

    filled: List[str] = field(default_factory=list)
    """Each field as the action describes it, with what was done (``textbox "Email": filled``)."""
    navigated_to: Optional[str] = None
    """Where a navigation a field's input started went (a select whose ``change`` navigates): the fields after it were not filled."""


@dataclass
class UploadResult(Result):
    """``page.upload`` result."""

    bytes: int = 0
    """Their sizes together, bytes."""
    element: str = ""
    """The input, as the action describes it (``button "Go"`` for a ref, ``<input id="resume">`` for a selector)."""
    files: List[str] = field(default_factory=list)
    """The names set, in order."""


@dataclass
class DownloadsResult(Result):
    """``page.downloads`` result."""

    entries: List[DownloadInfo] = field(default_factory=list)
    """The session's downloads, oldest first, each in its latest state (``started`` while in flight). (Not ``downloads``: that is the common part's news of downloads since the last result.)"""


@dataclass
class ConsoleMessage:
    """One console message or uncaught exception."""

    id: int = 0
    """Its number in the tab's buffer (increasing; ``since`` takes it)."""
    level: str = ""
    """Its severity."""
    source: Optional[str] = None
    """Where it came from, ``url:line`` (1-based), when known."""
    stack: Optional[str] = None
    """An uncaught exception's stack as V8 writes it (``Error: boom\\n at f (http://...:3:9)``), as Playwright's ``pageerror`` error's ``stack``; absent for console calls and for a thrown value that is not an error."""
    text: str = ""
    """The arguments as text, joined by spaces, as Playwright's ``ConsoleMessage.text()`` writes them (``hello 5 {foo: bar}``, ``[1, empty, 3]``; each at most 2000 chars), or the exception's first line (``Error: boom``)."""
    timestamp_ms: int = 0
    """When, ms since the Unix epoch."""
    type: str = ""
    """The console call (``log``, ``error``, ``warning``, ``info``, ``debug``, ``assert``, ``trace``, ...) or ``pageerror`` for an uncaught exception (Playwright's names)."""


@dataclass
class ConsoleResult(Result):
    """``page.console`` result."""

    dropped: int = 0
    """Messages the buffer let go since the tab was opened (it keeps the newest ``CONSOLE_BUFFER``)."""
    last_id: int = 0
    """The newest ``id`` in the buffer (pass it as ``since`` to get only what comes next); 0 when empty."""
    messages: List[ConsoleMessage] = field(default_factory=list)
    """The messages, oldest first."""


@dataclass
class RequestDetails:
    """One request's details (``page.network {id}``), beside its ``NetworkRequest`` entry. Headers are name -> value, as the page sent them (``Network.requestWillBeSent``: the browser's own, such as ``Cookie``, are added on the way and not shown) and as the response came (repeated ones joined by a newline)."""

    body: Optional[str] = None
    """The response's body (``Network.getResponseBody``), cut at ``NETWORK_BODY_BYTES``: text, or base64 when ``body_base64``. Absent when there is none to give (``body_missing`` says why)."""
    body_base64: bool = False
    """``body`` is base64 (a binary response)."""
    body_bytes: Optional[int] = None
    """The whole body's size, bytes (before any cut)."""
    body_missing: Optional[str] = None
    """Why there is no body: the request is still in flight, it failed, a redirect or a ``204``/``304`` has none, or the browser no longer holds it (a page that navigated away lets its bodies go)."""
    mime_type: Optional[str] = None
    """The response's MIME type (``text/html``, ``image/png``)."""
    post_data: Optional[str] = None
    """The request's body (a form's, a ``fetch``'s), cut at ``NETWORK_BODY_BYTES``; absent when none."""
    request_headers: Dict[str, str] = field(default_factory=dict)
    """The request's headers."""
    response_headers: Optional[Dict[str, str]] = None
    """The response's headers, once it came."""
    status_text: Optional[str] = None
    """The status line's text (``OK``; empty over HTTP/2), once a response came."""
    truncated: bool = False
    """``body`` (or ``post_data``) was cut at ``NETWORK_BODY_BYTES``."""


@dataclass
class NetworkResult(Result):
    """``page.network`` result."""

    details: Optional[RequestDetails] = None
    """With ``id``: that request's details (``requests`` then lists its entry alone)."""
    dropped: int = 0
    """Requests the buffer let go since the tab was opened (it keeps the newest ``NETWORK_BUFFER``)."""
    last_id: int = 0
    """The newest ``id`` in the buffer (pass it as ``since`` to get only what comes next); 0 when empty."""
    requests: List[NetworkRequest] = field(default_factory=list)
    """The requests, oldest first."""


@dataclass
class Geolocation:
    """A position ``navigator.geolocation`` reports (``Emulation.setGeolocationOverride``; the session's context is granted the ``geolocation`` permission)."""

    accuracy: float = 0.0
    """Metres, 0 or more (default 0)."""
    latitude: float = 0.0
    """Degrees, -90..=90."""
    longitude: float = 0.0
    """Degrees, -180..=180."""


@dataclass
class HttpCredentials:
    """``http_credentials``: who the session's pages sign in to HTTP authentication as."""

    origin: Optional[str] = None
    """Only for this origin (``https://example.com``, scheme, host and port as a URL gives them); for every origin when absent."""
    password: str = ""
    """The password."""
    username: str = ""
    """The user name."""


@dataclass
class Route:
    """A route of the session's requests, as Playwright's ``context.route(url, handler)`` with the handler's one answer: the first route whose ``url`` matches a request (the newest first) answers it, in every tab of the session (``Fetch.requestPaused``, then ``Fetch.fulfillRequest``, ``Fetch.failRequest`` or ``Fetch.continueRequest``). The URL policy comes first: a request a route lets go (``continue``) still meets the connection gate, and ``page.goto`` to a blocked URL is refused whatever routes say; a route may fulfill a request for a blocked URL (nothing reaches the network)."""

    action: Optional[str] = None
    """When absent: ``abort`` with ``error``, ``fulfill`` with a status, body, content type or headers, else ``continue``."""
    body: Optional[str] = None
    """fulfill: the body, text."""
    body_base64: Optional[str] = None
    """fulfill: the body, base64."""
    body_file: Optional[str] = None
    """fulfill: the body from this file of the uploads dir, read once (``page.route`` only)."""
    content_type: Optional[str] = None
    """fulfill: the ``Content-Type`` (from ``body_file``'s name when absent)."""
    error: Optional[str] = None
    """abort: Playwright's error code, ``failed`` when absent."""
    headers: Optional[Dict[str, str]] = None
    """fulfill: the response's headers."""
    method: Optional[str] = None
    """continue: another method."""
    post_data: Optional[str] = None
    """continue: another body, text."""
    remove_headers: Optional[List[str]] = None
    """continue: request headers removed."""
    request_headers: Optional[Dict[str, str]] = None
    """continue: request headers set."""
    status: Optional[int] = None
    """fulfill: the status (100..=599), 200 when absent."""
    url: str = ""
    """A glob matched against the whole URL (``**/api/*``, ``**/*.{png,jpg}``) or ``/regex/flags``."""


@dataclass
class Emulation:
    """What a session's pages emulate; an absent field is the browser's own."""

    color_scheme: Optional[str] = None
    """``prefers-color-scheme`` (``Emulation.setEmulatedMedia``)."""
    contrast: Optional[str] = None
    """``prefers-contrast`` (``Emulation.setEmulatedMedia``)."""
    extra_http_headers: Optional[Dict[str, str]] = None
    """Headers sent with every request of the session's pages, as Playwright's ``extraHTTPHeaders`` (``Network.setExtraHTTPHeaders``). At most ``MAX_EXTRA_HEADERS``, names as HTTP tokens, values without line breaks; ``{}`` sends none."""
    forced_colors: Optional[str] = None
    """``forced-colors`` (``Emulation.setEmulatedMedia``)."""
    geolocation: Optional[Geolocation] = None
    """The position the page gets."""
    http_credentials: Optional[HttpCredentials] = None
    """HTTP authentication for the session's pages, as Playwright's ``httpCredentials``: a server's Basic or Digest challenge (a 401 with ``WWW-Authenticate``) is answered with them, once a request. Results show the password as ``***``."""
    init_scripts: Optional[List[str]] = None
    """Scripts run in every document of the session's pages before the page's own, as Playwright's ``addInitScript`` (``Page.addScriptToEvaluateOnNewDocument``), in every frame: a cross-site (out-of-process) iframe is held as it attaches until they are in; at most ``MAX_INIT_SCRIPTS`` of at most ``MAX_INIT_SCRIPT_BYTES`` each. ``page.emulate`` replaces the list (the next document of every tab runs the new one: a script left out is removed, ``Page.removeScriptToEvaluateOnNewDocument``); its ``reset`` keeps them."""
    locale: Optional[str] = None
    """A BCP 47 locale such as ``de-DE``: ``Intl`` and dates (``Emulation.setLocaleOverride``), ``navigator.language`` and the ``Accept-Language`` header (``Emulation.setUserAgentOverride``), as Playwright's ``locale`` sets them."""
    media: Optional[str] = None
    """The CSS media type, ``screen`` or ``print`` (``Emulation.setEmulatedMedia``)."""
    offline: Optional[bool] = None
    """No network: every request fails as offline (``Network.emulateNetworkConditions``)."""
    permissions: Optional[List[str]] = None
    """Permissions granted to every origin in the session's browser context, as Playwright's ``permissions`` (``Browser.grantPermissions``); the rest are denied. ``[]`` grants none (``geolocation`` stays granted while a position is emulated)."""
    reduced_motion: Optional[str] = None
    """``prefers-reduced-motion`` (``Emulation.setEmulatedMedia``)."""
    routes: Optional[List[Route]] = None
    """Routes the session's requests take, newest first (``page.route`` adds one, ``page.unroute`` removes them; ``session.start`` may give the first ones). ``page.emulate`` does not take them, its ``reset`` keeps them, and its result leaves them out (``page.routes`` lists them)."""
    timezone: Optional[str] = None
    """An IANA time zone such as ``Europe/Berlin`` (``Emulation.setTimezoneOverride``); one the browser's ICU data does not know answers ``bad_request``."""
    user_agent: Optional[str] = None
    """The ``User-Agent`` header and ``navigator.userAgent`` (``Emulation.setUserAgentOverride``)."""


@dataclass
class EmulateResult(Result):
    """``page.emulate`` result: everything the session's pages emulate now."""

    emulation: Emulation = field(default_factory=Emulation)
    """In force from now on."""


@dataclass
class StorageItem:
    """One Web Storage item (Playwright's ``storageState`` shape)."""

    name: str = ""
    """Its key."""
    value: str = ""
    """Its value."""


@dataclass
class StorageResult(Result):
    """``page.storage`` result."""

    items: List[StorageItem] = field(default_factory=list)
    """The items after the action, in the storage's order."""
    origin: str = ""
    """The origin whose storage it is, e.g. ``https://example.com``."""


@dataclass
class VerifyResult(Result):
    """``page.verify`` result: the check held. (One that does not hold answers ``verify_failed``, naming what was wanted and what the page has.)"""

    actual: Any = None
    """What the page has: the value, the state, the count (the wanted one, which held)."""
    check: str = ""
    """The check that held: ``visible``, ``text``, ``value``, ``checked``, ``count``, ``attribute`` or ``items``."""


@dataclass
class Attribute:
    """One attribute of an element (``page.query``)."""

    name: str = ""
    """Its name."""
    value: str = ""
    """Its value."""


@dataclass
class BoundingBox:
    """An element's box in the page's viewport, CSS px (Playwright's ``boundingBox()``)."""

    height: float = 0.0
    """Height, CSS px."""
    width: float = 0.0
    """Width, CSS px."""
    x: float = 0.0
    """Left edge, CSS px from the viewport's left."""
    y: float = 0.0
    """Top edge, CSS px from the viewport's top."""


@dataclass
class ElementFacts:
    """An element as it is now (``page.query``, and what ``page.verify`` compares)."""

    attributes: List[Attribute] = field(default_factory=list)
    """Its attributes, in the element's order (values at most ``QUERY_TEXT_CHARS`` characters)."""
    bounding_box: Optional[BoundingBox] = None
    """Its border box in the page's viewport, CSS px (``getBoundingClientRect``, offset by an out-of-process iframe's place); absent when it has no box (``display: none``)."""
    checked: Optional[bool] = None
    """A checkbox's, radio's or switch's state (``checked``, or ``aria-checked`` for its role); absent for others; ``aria-checked="mixed"`` is false."""
    enabled: bool = False
    """Not disabled (``disabled``, a disabled fieldset, ``aria-disabled="true"``)."""
    tag: str = ""
    """Its tag, lower case (``input``)."""
    text: str = ""
    """Its text as the page shows it (``innerText``; ``textContent`` where it is not rendered), whitespace collapsed, at most ``QUERY_TEXT_CHARS`` characters."""
    text_truncated: bool = False
    """Whether its text was cut at ``QUERY_TEXT_CHARS``."""
    value: Optional[str] = None
    """The value of an input, textarea or select (Playwright's ``inputValue``); absent for others."""
    visible: bool = False
    """Visible as Playwright has it (a non-empty box, ``visibility: visible``)."""


@dataclass
class QueryResult(Result):
    """``page.query`` result: how many elements match and what the first one is now."""

    count: int = 0
    """Elements the selector matches now (a ref: 1)."""
    element: Optional[ElementFacts] = None
    """The first match; absent when nothing matches."""
    visible_count: int = 0
    """Of them, how many are visible."""


@dataclass
class GenerateLocatorResult(Result):
    """``page.generate_locator`` result."""

    locator: str = ""
    """A locator that finds the element in its frame's document, written as Playwright writes locators (``getByRole('button', { name: 'Save' })``, ``getByTestId('save')``, ``locator('#save')``): for a test, or as a ``selector`` of this API. It names the element alone when ``unique``; otherwise it picks it among the matches (``.nth(2)``)."""
    unique: bool = False
    """Whether the locator matches this element and no other (without an index)."""


@dataclass
class ClipboardResult(Result):
    """``page.clipboard`` result."""

    text: str = ""
    """The clipboard's text: what was read, or what was written."""


@dataclass
class RouteInfo:
    """A route as results list it (``Route::shown``)."""

    action: Optional[str] = None
    """When absent: ``abort`` with ``error``, ``fulfill`` with a status, body, content type or headers, else ``continue``."""
    body: Optional[str] = None
    """fulfill: the body, text."""
    body_base64: Optional[str] = None
    """fulfill: the body, base64."""
    body_bytes: Optional[int] = None
    """The size of the body it answers with, bytes."""
    body_file: Optional[str] = None
    """fulfill: the body from this file of the uploads dir, read once (``page.route`` only)."""
    content_type: Optional[str] = None
    """fulfill: the ``Content-Type`` (from ``body_file``'s name when absent)."""
    error: Optional[str] = None
    """abort: Playwright's error code, ``failed`` when absent."""
    headers: Optional[Dict[str, str]] = None
    """fulfill: the response's headers."""
    method: Optional[str] = None
    """continue: another method."""
    post_data: Optional[str] = None
    """continue: another body, text."""
    remove_headers: Optional[List[str]] = None
    """continue: request headers removed."""
    request_headers: Optional[Dict[str, str]] = None
    """continue: request headers set."""
    status: Optional[int] = None
    """fulfill: the status (100..=599), 200 when absent."""
    url: str = ""
    """A glob matched against the whole URL (``**/api/*``, ``**/*.{png,jpg}``) or ``/regex/flags``."""


@dataclass
class RoutesResult(Result):
    """``page.route``, ``page.unroute`` and ``page.routes`` result: the session's routes now."""

    routes: List[RouteInfo] = field(default_factory=list)
    """Newest first: the order requests are matched in."""


@dataclass
class TabsListResult(Result):
    """``tabs.list`` result, in the order the tabs were opened."""

    tabs: List[TabInfo] = field(default_factory=list)
    """The session's tabs, oldest first."""


@dataclass
class TabsCloseResult(Result):
    """``tabs.close`` result."""

    active: str = ""
    """The session's active tab afterwards."""
    closed: str = ""
    """The closed tab."""
