"""The asyncio client: one connection, any number of concurrent requests (answers matched by id)."""

import asyncio
from typing import Any, Dict, Optional, Type

from . import _wire
from ._methods import AsyncMethods
from .errors import NoAnswer, RuntimeUnreachable, unavailable
from .types import from_dict


class AsyncClient(AsyncMethods):
    """The asyncio twin of :class:`~sandbox_browser.Client`: the same methods, each a coroutine.

    Create with ``await AsyncClient.connect(path)`` (or ``async with await AsyncClient.connect()``).
    Each call waits the request's budget plus 2 s of slack, then raises :class:`NoAnswer`; cancelling
    a call's task stops the wait.
    """

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, socket_path: str,
                 session_token: Optional[str] = None) -> None:
        self.session_token = session_token
        self.socket_path = socket_path
        self._reader = reader
        self._writer = writer
        self._pending: Dict[int, "asyncio.Future[Dict[str, Any]]"] = {}
        self._next_id = 1
        self._server_max_ms = _wire.MAX_TIMEOUT_MS
        self._closed: Optional[str] = None
        self._read_task = asyncio.get_running_loop().create_task(self._read_loop())

    @classmethod
    async def connect(cls, socket_path: Optional[str] = None, session_token: Optional[str] = None) -> "AsyncClient":
        """Connects to the runtime's socket (default: as :class:`~sandbox_browser.Client`); raises
        :class:`RuntimeUnreachable` when nothing answers there. ``session_token``: as
        :class:`~sandbox_browser.Client`'s."""
        path = socket_path or _wire.default_socket_path()
        try:
            reader, writer = await asyncio.open_unix_connection(path, limit=_wire.MAX_LINE_BYTES)
        except OSError as e:
            raise unavailable(RuntimeUnreachable, f"cannot connect to {path}: {e}") from e
        return cls(reader, writer, path, session_token)

    async def __aenter__(self) -> "AsyncClient":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()

    async def close(self) -> None:
        """Closes the connection."""
        self._read_task.cancel()
        self._writer.close()
        try:
            await self._writer.wait_closed()
        except OSError:
            pass
        self._fail_all("connection closed")

    async def _read_loop(self) -> None:
        try:
            while True:
                line = await self._reader.readline()
                if not line:
                    break
                response = _wire.decode(line)
                future = self._pending.pop(response.get("id"), None) if response else None  # type: ignore[arg-type]
                if future is not None and not future.done():
                    future.set_result(response)  # type: ignore[arg-type]
        except (OSError, ValueError) as e:
            self._fail_all(f"connection to the runtime lost: {e}")
            return
        self._fail_all("connection closed by the runtime")

    def _fail_all(self, why: str) -> None:
        self._closed = self._closed or why
        for future in self._pending.values():
            if not future.done():
                future.set_exception(unavailable(RuntimeUnreachable, why))
        self._pending.clear()

    async def call(self, method: str, session_id: Optional[str] = None, params: Optional[Dict[str, Any]] = None,
                   timeout_ms: Optional[int] = None) -> Dict[str, Any]:
        """Sends one request and returns its ``result`` dict; raises the error class of a failed answer."""
        if self._closed:
            raise unavailable(RuntimeUnreachable, self._closed)
        request_id = self._next_id
        self._next_id += 1
        future: "asyncio.Future[Dict[str, Any]]" = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        wait_ms = _wire.wait_ms(timeout_ms, self._server_max_ms)
        try:
            self._writer.write(_wire.encode(request_id, method, session_id, params or {}, timeout_ms, self.session_token))
            await self._writer.drain()
            response = await asyncio.wait_for(future, wait_ms / 1000)
        except asyncio.TimeoutError:
            raise unavailable(NoAnswer, f"the runtime did not answer within {wait_ms} ms") from None
        except OSError as e:
            raise unavailable(RuntimeUnreachable, f"connection to the runtime lost: {e}") from e
        finally:
            self._pending.pop(request_id, None)
        result = _wire.result_of(response)
        self.session_token = _wire.adopted_token(self.session_token, method, result)
        if method == "runtime.health" and isinstance(result.get("max_timeout_ms"), int):
            self._server_max_ms = result["max_timeout_ms"]
        return result

    async def _request(self, method: str, session_id: Optional[str], params: Dict[str, Any],
                       timeout_ms: Optional[int], result: Type[Any]) -> Any:
        return from_dict(result, await self.call(method, session_id, params, timeout_ms))
