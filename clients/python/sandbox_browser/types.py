"""Results of the runtime's API methods, as dataclasses (the shapes of docs/protocol.md).

Fields the runtime adds in a newer version are ignored, so an older client keeps working. Every page
action's result also carries ``elapsed_ms`` (the runtime's own time for the request, ms) and the
``dialogs`` answered and ``downloads`` seen during it.
"""

import dataclasses
import sys
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Type, TypeVar, Union, get_type_hints

T = TypeVar("T")


@dataclass
class DialogInfo:
    """A JavaScript dialog that opened during an action and was answered."""

    type: str = ""
    """``alert``, ``confirm``, ``prompt`` or ``beforeunload``."""
    message: str = ""
    accepted: bool = False
    default_value: Optional[str] = None


@dataclass
class DownloadInfo:
    """A download the page started (reported once when it starts, once when it ends)."""

    url: str = ""
    suggested_filename: str = ""
    state: str = ""
    """``started``, ``completed``, ``canceled`` or ``too_large``."""
    bytes: int = 0
    path: Optional[str] = None
    """The file, once ``completed``."""


@dataclass
class Result:
    """What every result has."""

    elapsed_ms: int = 0
    """The runtime's time for the request, ms."""
    dialogs: List[DialogInfo] = field(default_factory=list)
    downloads: List[DownloadInfo] = field(default_factory=list)


@dataclass
class HealthResult(Result):
    browser_version: str = ""
    browser_pid: int = 0
    cdp_transport: str = ""
    browser_sandbox: str = ""
    uptime_ms: int = 0
    sessions: int = 0
    restarts: int = 0
    last_probe_ms: int = 0
    max_timeout_ms: int = 120_000
    """The largest budget the runtime honours, ms."""


@dataclass
class ActionStats:
    count: int = 0
    failures: int = 0
    timeouts: int = 0


@dataclass
class Histogram:
    bounds_ms: List[Optional[float]] = field(default_factory=list)
    counts: List[int] = field(default_factory=list)
    sum_ms: float = 0.0
    count: int = 0


@dataclass
class StatsResult(Result):
    restarts: int = 0
    restart_failures: int = 0
    unhealthy_checks: int = 0
    recoveries: int = 0
    probes: int = 0
    probes_skipped: int = 0
    sessions_rehydrated: int = 0
    worker_kills: int = 0
    terminate_executions: int = 0
    page_resets: int = 0
    renderer_crashes: int = 0
    actions: Dict[str, ActionStats] = field(default_factory=dict)
    evaluate_ms: Histogram = field(default_factory=Histogram)
    cdp_sessions: int = 0
    """Flat CDP sessions the relay routes now (the workers' and the supervisor's standby sessions)."""


@dataclass
class MetricsResult(Result):
    content_type: str = ""
    text: str = ""
    """The Prometheus text exposition."""


@dataclass
class SessionStartResult(Result):
    session_id: str = ""
    target_id: str = ""
    """CDP ``targetId`` of the session's page."""


@dataclass
class SessionCloseResult(Result):
    session_id: str = ""
    closed: bool = False


@dataclass
class SessionInfo:
    session_id: str = ""
    target_id: str = ""
    url: Optional[str] = None


@dataclass
class SessionListResult(Result):
    sessions: List[SessionInfo] = field(default_factory=list)


@dataclass
class GotoResult(Result):
    url: str = ""
    """The URL after redirects."""
    title: str = ""
    status: Optional[int] = None
    """HTTP status of the main document (absent for ``about:``/``data:``)."""
    load_state: str = ""
    """``commit``, ``domcontentloaded`` or ``load``."""
    timed_out: bool = False


@dataclass
class ExtractResult(Result):
    format: str = "text"
    content: str = ""
    chars: int = 0
    truncated: bool = False
    url: str = ""
    title: str = ""


@dataclass
class ScreenshotResult(Result):
    path: str = ""
    """Absolute path of the image under the runtime's artifacts directory."""
    format: str = "png"
    width: int = 0
    """Device pixels."""
    height: int = 0
    bytes: int = 0
    truncated: bool = False
    data: Optional[str] = None
    """Base64 image, with ``inline=True``."""


@dataclass
class EvaluateResult(Result):
    """A JavaScript value: ``type`` is ``typeof``; JSON values in ``value``; ``NaN``, ``-0``,
    ``Infinity`` and bigints in ``unserializable``; CDP's text for the rest in ``description``."""

    type: str = ""
    value: Any = None
    unserializable: Optional[str] = None
    description: Optional[str] = None


@dataclass
class WaitForResult(Result):
    matched: str = ""
    url: str = ""


@dataclass
class SnapshotResult(Result):
    snapshot: str = ""
    """Aria-snapshot text: ``- button "Submit" [ref=e12]``, one node a line."""
    lines: int = 0
    chars: int = 0
    tokens_estimate: int = 0
    diff: bool = False
    refs: int = 0
    truncated: bool = False
    loading: bool = False
    url: str = ""
    title: str = ""


@dataclass
class InputResult(Result):
    element: str = ""
    """The element acted on, e.g. ``button "Submit"``."""
    navigated_to: Optional[str] = None
    navigation_pending: bool = False


@dataclass
class SelectResult(InputResult):
    values: List[str] = field(default_factory=list)


@dataclass
class ScrollResult(InputResult):
    """``scroll`` of an element: ``element``; of the page by a delta: ``scroll_x``/``scroll_y`` (CSS px)."""

    scroll_x: Optional[float] = None
    scroll_y: Optional[float] = None


@dataclass
class HandleDialogResult(Result):
    next_dialog: str = ""


@dataclass
class SetViewportResult(Result):
    width: int = 0
    height: int = 0
    device_scale_factor: float = 1.0


@dataclass
class FrameInfo:
    frame_id: str = ""
    parent_id: Optional[str] = None
    name: str = ""
    url: str = ""


@dataclass
class FramesResult(Result):
    frames: List[FrameInfo] = field(default_factory=list)


@dataclass
class TabInfo(Result):
    target_id: str = ""
    url: str = ""
    title: str = ""
    active: bool = False
    opener_id: Optional[str] = None


@dataclass
class TabsListResult(Result):
    tabs: List[TabInfo] = field(default_factory=list)


@dataclass
class TabsCloseResult(Result):
    closed: str = ""
    active: str = ""


def from_dict(cls: Type[T], data: Any) -> T:
    """Builds dataclass ``cls`` from a JSON object, nested dataclasses and lists/dicts of them
    included; keys ``cls`` does not have are ignored."""
    hints = get_type_hints(cls, vars(sys.modules[cls.__module__]))
    kwargs = {}
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        if isinstance(data, dict) and f.name in data:
            kwargs[f.name] = _convert(hints[f.name], data[f.name])
    return cls(**kwargs)


def _convert(hint: Any, value: Any) -> Any:
    origin = getattr(hint, "__origin__", None)
    args = getattr(hint, "__args__", ())
    if value is None:
        return None
    if origin is Union:
        inner = [a for a in args if a is not type(None)]
        return _convert(inner[0], value) if len(inner) == 1 else value
    if origin in (list, List) and isinstance(value, list):
        return [_convert(args[0], v) for v in value] if args else value
    if origin in (dict, Dict) and isinstance(value, dict):
        return {k: _convert(args[1], v) for k, v in value.items()} if args else value
    if dataclasses.is_dataclass(hint) and isinstance(value, dict):
        return from_dict(hint, value)
    return value
