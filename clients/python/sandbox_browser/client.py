"""The synchronous client: one Unix-socket connection, one request at a time (thread-safe)."""

import socket
import threading
import time
from typing import Any, Dict, Optional, Type

from . import _wire
from ._methods import Methods
from .errors import NoAnswer, RuntimeUnreachable, unavailable
from .types import from_dict


class Client(Methods):
    """A connection to the runtime's socket.

    ``Client()`` connects to the default socket (``$XDG_RUNTIME_DIR/sandbox-browser/browser.sock``,
    else ``/tmp/sandbox-browser-$UID/browser.sock``); raises :class:`RuntimeUnreachable` when nothing
    answers there. Each call waits the request's budget (``timeout_ms``, or the runtime's largest)
    plus 2 s of slack, never longer, then raises :class:`NoAnswer`. Use as a context manager, or
    call :meth:`close`.

    ``session_token`` is the caller's identity on a runtime shared by several agents (``[limits]
    session_tokens``): sent with every request; without one, the first ``session_start``'s token is
    adopted and sent from then on.
    """

    def __init__(self, socket_path: Optional[str] = None, session_token: Optional[str] = None) -> None:
        self.session_token = session_token
        self.socket_path = socket_path or _wire.default_socket_path()
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self._sock.connect(self.socket_path)
        except OSError as e:
            self._sock.close()
            raise unavailable(RuntimeUnreachable, f"cannot connect to {self.socket_path}: {e}") from e
        self._lock = threading.Lock()
        self._buffer = bytearray()
        self._next_id = 1
        self._server_max_ms = _wire.MAX_TIMEOUT_MS

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        """Closes the connection (requests still running on it are cancelled by the runtime)."""
        self._sock.close()

    def call(self, method: str, session_id: Optional[str] = None, params: Optional[Dict[str, Any]] = None,
             timeout_ms: Optional[int] = None) -> Dict[str, Any]:
        """Sends one request and returns its ``result`` dict (any method, by its wire name);
        raises the error class of a failed answer."""
        with self._lock:
            request_id = self._next_id
            self._next_id += 1
            wait_s = _wire.wait_ms(timeout_ms, self._server_max_ms) / 1000
            deadline = time.monotonic() + wait_s
            try:
                self._sock.sendall(_wire.encode(request_id, method, session_id, params or {}, timeout_ms, self.session_token))
                while True:
                    response = self._read_line(deadline)
                    if response is not None and response.get("id") == request_id:
                        break
            except socket.timeout:
                raise unavailable(NoAnswer, f"the runtime did not answer within {int(wait_s * 1000)} ms") from None
            except OSError as e:
                raise unavailable(RuntimeUnreachable, f"connection to the runtime lost: {e}") from e
        result = _wire.result_of(response)
        self.session_token = _wire.adopted_token(self.session_token, method, result)
        if method == "runtime.health" and isinstance(result.get("max_timeout_ms"), int):
            self._server_max_ms = result["max_timeout_ms"]
        return result

    def _read_line(self, deadline: float) -> Optional[Dict[str, Any]]:
        # Each read is appended in place and only its own bytes are searched for the newline: a long
        # answer (a large page.evaluate value, tens of MB) is read in time linear in its size.
        end = self._buffer.find(b"\n")
        while end < 0:
            left = deadline - time.monotonic()
            if left <= 0:
                raise socket.timeout()
            self._sock.settimeout(left)
            chunk = self._sock.recv(1 << 20)
            if not chunk:
                raise ConnectionResetError("closed by the runtime")
            scanned = len(self._buffer)
            self._buffer += chunk
            end = self._buffer.find(b"\n", scanned)
        line = bytes(self._buffer[:end])
        del self._buffer[: end + 1]
        return _wire.decode(line)

    def _request(self, method: str, session_id: Optional[str], params: Dict[str, Any],
                 timeout_ms: Optional[int], result: Type[Any]) -> Any:
        return from_dict(result, self.call(method, session_id, params, timeout_ms))
