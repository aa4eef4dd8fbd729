"""Opening a store: a Chroma client on an embedded directory or a server URL, and the store class that fits it.

The one place that knows both store classes (personas/memory_store.py, personas/embedded_store.py, which builds
on the first), so neither has to import the other back.
"""

from __future__ import annotations

from pathlib import Path

import chromadb
from chromadb.config import Settings as ChromaSettings

from personas.embedded_store import EmbeddedMemoryStore
from personas.memory_store import MemoryStore
from personas.store_lock import hold_store_directory


def open_chroma_client(
    path: str | Path | None = None, url: str | None = None, timeout_s: float = 30.0
) -> chromadb.ClientAPI:
    """An embedded persistent client by default; a Chroma server client when a URL is given.

    Chroma's HTTP client waits forever on a stuck server (its httpx session has timeout=None): we check
    the server answers within `timeout_s` first, then bound every later request by the same timeout.
    """
    settings = ChromaSettings(anonymized_telemetry=False)
    if url:
        from urllib.parse import urlparse

        parsed = urlparse(url if "://" in url else f"http://{url}")
        host, port = parsed.hostname or "127.0.0.1", parsed.port or (443 if parsed.scheme == "https" else 8000)
        _check_server_answers(f"{'https' if parsed.scheme == 'https' else 'http'}://{host}:{port}", timeout_s)
        client = chromadb.HttpClient(host=host, port=port, ssl=parsed.scheme == "https", settings=settings)
        _bound_requests(client, timeout_s)
        return client
    if path is None:
        raise ValueError("a Chroma path or URL is required")
    hold_store_directory(path)  # one process per embedded store: StoreInUse names the way out
    return chromadb.PersistentClient(path=str(path), settings=settings)


def _check_server_answers(base_url: str, timeout_s: float) -> None:
    import httpx

    try:
        httpx.get(f"{base_url}/api/v2/heartbeat", timeout=timeout_s).raise_for_status()
    except httpx.HTTPError as error:
        raise ConnectionError(
            f"the Chroma server at {base_url} did not answer within {timeout_s:g} s: {error}"
        ) from error


def _bound_requests(client: chromadb.ClientAPI, timeout_s: float) -> None:
    """Give the client's httpx session a timeout; fail loudly if a Chroma upgrade moved it."""
    import httpx

    session = getattr(getattr(client, "_server", None), "_session", None)
    if not isinstance(session, httpx.Client):
        raise RuntimeError("cannot set a timeout on this chromadb version's HTTP client; pin chromadb<1.6")
    session.timeout = httpx.Timeout(timeout_s, connect=min(timeout_s, 10.0))


def open_memory_store(path: str | Path | None = None, url: str | None = None, timeout_s: float = 30.0) -> MemoryStore:
    """A Chroma server's store reads Chroma every time (it has other writers); an embedded one, held by this
    process alone, keeps what it reads (personas/embedded_store.py)."""
    client = open_chroma_client(path=path, url=url, timeout_s=timeout_s)
    if url:
        return MemoryStore(client)
    if path is None:
        raise ValueError("an embedded store needs a path (or give the Chroma server's url)")
    return EmbeddedMemoryStore(client, path)
