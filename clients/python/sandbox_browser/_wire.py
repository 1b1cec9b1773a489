"""The socket protocol, shared by both clients: NDJSON request lines, answers matched by ``id``."""

import json
import os
from typing import Any, Dict, Optional

from .errors import from_body

MIN_TIMEOUT_MS = 1_000
MAX_TIMEOUT_MS = 120_000
CLIENT_SLACK_MS = 2_000
"""How long past a request's budget the client waits before giving up on the runtime, ms (as the
Rust client's ``CLIENT_SLACK``)."""
MAX_LINE_BYTES = 512 << 20
"""The longest answer line read, bytes: above the runtime's largest (a worker's output is at most its
256 MiB IPC frame, a little more as JSON)."""


def default_socket_path() -> str:
    """``$XDG_RUNTIME_DIR/sandbox-browser/browser.sock``, else ``/tmp/sandbox-browser-$UID/browser.sock``
    (the runtime's own default)."""
    runtime_dir = os.environ.get("XDG_RUNTIME_DIR")
    if runtime_dir:
        return os.path.join(runtime_dir, "sandbox-browser", "browser.sock")
    return f"/tmp/sandbox-browser-{os.getuid()}/browser.sock"


def wait_ms(timeout_ms: Optional[int], server_max_ms: int) -> int:
    """How long to wait for an answer, ms: the budget the runtime will use, plus the slack (without
    a budget: the runtime's largest one, which bounds whatever default it applies)."""
    budget = server_max_ms if timeout_ms is None else timeout_ms
    return max(int(budget), MIN_TIMEOUT_MS) + CLIENT_SLACK_MS


def encode(request_id: int, method: str, session_id: Optional[str], params: Dict[str, Any], timeout_ms: Optional[int],
           session_token: Optional[str] = None) -> bytes:
    """One request line; raises ``BadRequest`` when ``params`` hold a NaN or an infinity."""
    request: Dict[str, Any] = {"id": request_id, "method": method}
    if session_id is not None:
        request["session_id"] = session_id
    if session_token is not None:
        request["session_token"] = session_token
    if timeout_ms is not None:
        request["timeout_ms"] = timeout_ms
    if params:
        request["params"] = params
    try:
        line = json.dumps(request, separators=(",", ":"), allow_nan=False)
    except ValueError:
        # Python would write NaN or Infinity, which is not JSON: the runtime could only answer that the
        # line is not JSON, without the request's id to match it to.
        raise from_body({
            "code": "bad_request",
            "message": f"{method}: a number in the params is NaN or infinite; JSON has no such number",
            "phase": "request",
        }) from None
    return (line + "\n").encode()


def adopted_token(token: Optional[str], method: str, result: Dict[str, Any]) -> Optional[str]:
    """The client's session token after ``result``: the first ``session.start`` result's token is
    adopted by a client that has none (its later sessions then share it, as one agent's)."""
    issued = result.get("session_token")
    if token is None and method == "session.start" and isinstance(issued, str) and issued:
        return issued
    return token


def decode(line: bytes) -> Optional[Dict[str, Any]]:
    """A response line as a dict, or ``None`` when it is not one (skipped)."""
    try:
        response = json.loads(line)
    except ValueError:
        return None
    return response if isinstance(response, dict) else None


def result_of(response: Dict[str, Any]) -> Dict[str, Any]:
    """The ``result`` of an ``ok`` answer; raises the error class of a failed one."""
    if response.get("ok"):
        result = response.get("result")
        return result if isinstance(result, dict) else {}
    raise from_body(response.get("error") or {"code": "internal", "message": "answer without result or error"})
