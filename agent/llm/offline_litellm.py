"""litellm, configured to stay offline and quiet, imported once per process and, in a service, never by a request.

Importing litellm takes seconds (it pulls in the OpenAI SDK and its type tables, 6 s at load 1, over 10 s under
load); the embedded brain and the store commands never need it, so nothing imports it at module level. A service
starts the import in a thread at start-up (`start_loading`), and a request that needs it while it is still running
waits a bounded time (`wait_for_litellm`) and falls back instead of paying for it. Its price map is read from the
copy inside the package, never fetched.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from types import ModuleType

_lock = threading.Lock()  # held for the whole import
_loader_lock = threading.Lock()  # held only to start the thread, so starting never waits for the import
_loaded = threading.Event()
_module: ModuleType | None = None
_loader: threading.Thread | None = None
_log = logging.getLogger(__name__)
# What a provider can only be given through its environment variables (no credential chain behind them).
_PLAIN_SETTINGS = ("_API_KEY", "_API_BASE", "_API_VERSION")


def litellm_loaded() -> bool:
    return _module is not None


def load_litellm() -> ModuleType:
    """The module, imported now if nothing has yet (a command line that calls a model waits for it)."""
    global _module
    with _lock:
        if _module is None:
            # Must precede the import: otherwise importing litellm fetches a price list from the internet.
            os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
            os.environ.setdefault("LITELLM_LOG", "ERROR")
            import litellm

            litellm.suppress_debug_info = True  # no "Give Feedback / Get Help" banners on every error
            litellm.telemetry = False
            for name in ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy", "litellm"):
                logging.getLogger(name).setLevel(logging.CRITICAL)
            _module = litellm
            _loaded.set()
        return _module


def _load_in_background() -> None:
    try:
        load_litellm()
    except Exception:  # noqa: BLE001 - a broken install: logged here; each call then fails with its own reason
        _log.exception("importing litellm failed")
        _loaded.set()  # waiters stop waiting; litellm_loaded() stays False


def start_loading() -> None:
    """Import litellm in a daemon thread, once per process; returns at once."""
    global _loader
    with _loader_lock:
        if _module is not None or _loader is not None:
            return
        _loader = threading.Thread(target=_load_in_background, name="load-litellm", daemon=True)
    _loader.start()


async def wait_for_litellm(wait_s: float | None) -> bool:
    """Whether litellm is imported, after waiting at most `wait_s` (None: as long as the import takes) for the
    import a thread runs. The event loop stays free meanwhile; nothing here imports it on the caller's behalf."""
    if _module is not None:
        return True
    start_loading()
    if wait_s is None:
        await asyncio.to_thread(load_litellm)
        return True
    if wait_s > 0:
        await asyncio.to_thread(_loaded.wait, wait_s)
    return _module is not None


def missing_credentials(model: str) -> str | None:
    """What litellm says `model`'s provider needs from the environment and does not find there (its key, or
    OLLAMA_API_BASE), named for the person to set; None when nothing is missing, the provider is unknown, or its
    credentials may come from elsewhere (an AWS profile, Google's application default credentials).
    Asked only when no api_base or key is configured: otherwise litellm would retry a call that cannot succeed,
    or call the provider's default address."""
    try:
        found = load_litellm().validate_environment(model=model)
    except Exception:  # noqa: BLE001 - a model litellm cannot place: the call itself reports it, without retries
        return None
    missing = [str(name) for name in found.get("missing_keys") or []]
    if found.get("keys_in_environment") or not missing:
        return None
    if not all(name.endswith(_PLAIN_SETTINGS) for name in missing):
        return None  # AWS, Vertex: credentials can come from a profile or the machine; litellm finds them or says so
    return " / ".join(missing)
