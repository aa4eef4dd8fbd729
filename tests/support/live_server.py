"""Serve an ASGI app with uvicorn on a free loopback port in a background thread, for browser tests."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import uvicorn

from tests.support.service_process import free_port


@contextmanager
def serve(app, startup_timeout_s: float = 20.0, host: str = "127.0.0.1") -> Iterator[str]:
    """`with serve(app) as base_url:` (a loopback `host`: 127.0.0.1, 127.0.0.2 ...) ... the server stops (and its
    thread ends) on exit."""
    server = uvicorn.Server(uvicorn.Config(app, host=host, port=free_port(), log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, name="live-server", daemon=True)
    thread.start()
    deadline = time.monotonic() + startup_timeout_s
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the live server did not start")
        time.sleep(0.05)
    try:
        yield f"http://{host}:{server.config.port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
