"""One exception class per error code of the runtime's API.

Every error the runtime answers is raised as the subclass of :class:`BrowserError` named for its
``code`` (``"url_blocked"`` -> :class:`UrlBlocked`), carrying ``code``, ``message``, ``phase``,
``retryable`` and ``hint``. A harness catches what it can act on::

    try:
        client.click(sid, "e12")
    except StaleRef:
        ...  # take a new snapshot, pick the ref again
    except BrowserUnavailable:
        ...  # stop: the runtime is down (the message says "Do NOT retry")

The client's own failures are errors of the same family: :class:`RuntimeUnreachable` (no socket, or
the connection broke) and :class:`NoAnswer` (no answer within the budget plus slack) are both
:class:`BrowserUnavailable`: the runtime cannot serve, and retrying the call will not help.
"""

from typing import Any, Dict, Optional, Type

DO_NOT_RETRY = "Do NOT retry browser tool; browser runtime is unavailable."
RUNTIME_HINT = "Check sandbox browser runtime/container health."


class BrowserError(Exception):
    """An error answered by the runtime (or met by the client on its way there).

    Attributes:
        code: the stable error code, e.g. ``"timeout"`` (docs/protocol.md lists them).
        message: one line for a model to read.
        phase: the step that was running, e.g. ``"navigate"``.
        retryable: whether the same request may succeed when sent again unchanged.
        hint: an operator hint, when the runtime gave one.
    """

    code = "unknown"

    def __init__(
        self,
        message: str,
        *,
        code: Optional[str] = None,
        phase: str = "request",
        retryable: bool = False,
        hint: Optional[str] = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        self.phase = phase
        self.retryable = retryable
        self.hint = hint

    def __str__(self) -> str:
        return f"{self.code} ({self.phase}): {self.message}"


class BadRequest(BrowserError):
    """The request was malformed: a field is missing, of the wrong type, or out of range."""

    code = "bad_request"


class UnknownMethod(BrowserError):
    """The runtime does not know the method (an older runtime than this client)."""

    code = "unknown_method"


class UnknownSession(BrowserError):
    """The session id names no open session: start a new one."""

    code = "unknown_session"


class SessionExists(BrowserError):
    """``session_start`` named a session id that is already open."""

    code = "session_exists"


class TooManySessions(BrowserError):
    """Over the runtime's limit of open sessions: close one first."""

    code = "too_many_sessions"


class TooManyConnections(BrowserError):
    """Over the runtime's limit of connections; retryable once another closes."""

    code = "too_many_connections"


class FrameTooLarge(BrowserError):
    """The request line was longer than the runtime accepts (1 MiB by default)."""

    code = "frame_too_large"


class Timeout(BrowserError, TimeoutError):
    """The action did not finish within its budget (``timeout_ms``). Retryable."""

    code = "timeout"


class NavigationFailed(BrowserError):
    """The page could not be loaded (DNS, refused connection, bad URL). Retryable."""

    code = "navigation_failed"


class PageReset(BrowserError):
    """The tab was stuck or its renderer died; it was reopened at its last URL (page state is lost)."""

    code = "page_reset"


class Cancelled(BrowserError):
    """The request was cancelled because its connection closed."""

    code = "cancelled"


class EvaluateError(BrowserError):
    """In-page JavaScript threw; the message is the JavaScript error's."""

    code = "evaluate_error"


class EvaluateDisabled(BrowserError):
    """``evaluate`` is turned off by the runtime's configuration."""

    code = "evaluate_disabled"


class UrlBlocked(BrowserError):
    """The runtime's URL policy refuses the URL; the message names the rule. Not retryable."""

    code = "url_blocked"


class WorkerCrashed(BrowserError):
    """The session's worker died during the action and has been replaced. Retryable."""

    code = "worker_crashed"


class BrowserUnavailable(BrowserError):
    """The browser runtime is down and could not be restarted: stop using the browser tool."""

    code = "browser_unavailable"


class RuntimeUnreachable(BrowserUnavailable):
    """The client could not reach the runtime's socket, or the connection broke."""


class NoAnswer(BrowserUnavailable):
    """The runtime did not answer within the request's budget plus the client's slack."""


class CdpError(BrowserError):
    """Chromium answered a DevTools call with an error the runtime did not expect. Retryable."""

    code = "cdp_error"


class Internal(BrowserError):
    """A bug in the runtime."""

    code = "internal"


class StaleRef(BrowserError):
    """The ref belongs to a document that is gone: take a new snapshot."""

    code = "stale_ref"


class UnknownRef(BrowserError):
    """No snapshot of this session issued the ref: take a new snapshot."""

    code = "unknown_ref"


class ElementCovered(BrowserError):
    """Another element receives the click at the element's point; the message names it. Retryable."""

    code = "element_covered"


class NotVisible(BrowserError):
    """The element has an empty box or is hidden. Retryable."""

    code = "not_visible"


class NotEnabled(BrowserError):
    """The element is disabled. Retryable."""

    code = "not_enabled"


class NotStable(BrowserError):
    """The element kept moving. Retryable."""

    code = "not_stable"


class AmbiguousTarget(BrowserError):
    """A target id prefix matches several tabs; the message lists them."""

    code = "ambiguous_target"


class TabNotFound(BrowserError):
    """No tab of the session has that target id (or prefix)."""

    code = "tab_not_found"


class HumanInControl(BrowserError):
    """A person holds the session in the live view and did not hand it back in time. Retryable: the
    next result says ``human_took_over``."""

    code = "human_in_control"


class DiskFull(BrowserError):
    """A file the action writes (a screenshot, a PDF, a storage state, a trace) could not be written:
    its disk is full or over quota. Nothing was written and the session goes on; free space first."""

    code = "disk_full"


class VerifyFailed(BrowserError):
    """``page.verify``'s check does not hold; the message says what was wanted and what the page has.
    Not retryable as is: wait for the state (``page.wait_for``) first."""

    code = "verify_failed"


class AuthRequired(BrowserError):
    """The server asks for HTTP authentication and the session has no credentials it takes: set
    ``http_credentials`` (``session_start`` or ``emulate``). Not retryable as is."""

    code = "auth_required"


ERRORS: Dict[str, Type[BrowserError]] = {
    cls.code: cls
    for cls in [
        BadRequest, UnknownMethod, UnknownSession, SessionExists, TooManySessions, TooManyConnections,
        FrameTooLarge, Timeout, NavigationFailed, PageReset, Cancelled, EvaluateError, EvaluateDisabled,
        UrlBlocked, WorkerCrashed, BrowserUnavailable, CdpError, Internal, StaleRef, UnknownRef,
        ElementCovered, NotVisible, NotEnabled, NotStable, AmbiguousTarget, TabNotFound, HumanInControl,
        DiskFull, VerifyFailed, AuthRequired,
    ]
}
"""Error code -> exception class (a code this client does not know raises :class:`BrowserError`)."""


def from_body(body: Dict[str, Any]) -> BrowserError:
    """The exception for a response's ``error`` object (``{code, message, phase, retryable, hint?}``)."""
    code = str(body.get("code", "unknown"))
    cls = ERRORS.get(code, BrowserError)
    return cls(
        str(body.get("message", "")),
        code=code,
        phase=str(body.get("phase", "request")),
        retryable=bool(body.get("retryable", False)),
        hint=body.get("hint"),
    )


def unavailable(cls: Type[BrowserUnavailable], why: str) -> BrowserUnavailable:
    """A client-side failure to reach the runtime, worded as the runtime words a down browser."""
    return cls(f"{why}. {DO_NOT_RETRY}", phase="session", retryable=False, hint=RUNTIME_HINT)
