"""Python client of the sandbox-browser runtime: a sync :class:`Client` and an asyncio
:class:`AsyncClient` over the runtime's Unix socket, one method per API method, results as
dataclasses, and one exception class per error code (:mod:`sandbox_browser.errors`).

    from sandbox_browser import Client, BrowserUnavailable

    with Client() as browser:
        sid = browser.session_start().session_id
        browser.goto(sid, "https://example.com/", timeout_ms=15_000)
        print(browser.snapshot(sid).snapshot)
        browser.session_close(sid)

Standard library only; Python 3.9 or newer.
"""

from .aio import AsyncClient
from .client import Client
from .errors import *  # noqa: F401,F403 (one class per error code)
from .errors import ERRORS, BrowserError, BrowserUnavailable, NoAnswer, RuntimeUnreachable
from .types import *  # noqa: F401,F403 (the result dataclasses)

__all__ = ["AsyncClient", "Client", "BrowserError", "BrowserUnavailable", "NoAnswer", "RuntimeUnreachable", "ERRORS"]
__all__ += [cls.__name__ for cls in ERRORS.values() if cls.__name__ not in __all__]
