"""Every outbound call is bounded: a hung Chroma server makes a store call fail, not hang the request.

Chroma's own HTTP client has no timeout at all; the store sets one. (The LLM client's timeout is covered by
tests/test_predict_llm_integration.py::test_a_slow_server_times_out_into_the_fallback.)
"""

from __future__ import annotations

import socket
import threading

import httpx
import pytest

from personas.open_store import open_memory_store
from personas.persona import Persona
from tests.support.chroma_server import ChromaServer

pytestmark = pytest.mark.integration


def call_in_thread(fn, bound_s: float):
    """Run fn; return ('ok', value) / ('error', exc), or ('hung', None) if it is still running after bound_s."""
    outcome: list = []

    def run():
        try:
            outcome.append(("ok", fn()))
        except BaseException as exc:  # noqa: BLE001 - reported to the test
            outcome.append(("error", exc))

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(bound_s)
    return outcome[0] if outcome else ("hung", None)


def test_a_hung_chroma_server_times_out_instead_of_hanging(tmp_path):
    with ChromaServer(tmp_path / "chroma") as chroma:
        store = open_memory_store(url=chroma.url, timeout_s=2.0)
        store.put_persona(Persona(id="ann", name="Ann", self_description="I buy books."))
        assert store.get_persona("ann").name == "Ann"
        chroma.pause()
        try:
            kind, value = call_in_thread(lambda: store.get_persona("ann"), bound_s=60)
        finally:
            chroma.resume()
        assert kind == "error", f"the call {'hung' if kind == 'hung' else 'succeeded'} on a stopped server"
        assert isinstance(value, httpx.TimeoutException) or "timed out" in str(value).lower()
        assert store.get_persona("ann").name == "Ann"  # the same client works again once the server does


def test_a_server_that_never_answers_is_a_clear_error_at_start_up():
    with socket.socket() as listener:  # accepts connections (backlog) but never answers them
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        url = f"http://127.0.0.1:{listener.getsockname()[1]}"
        kind, value = call_in_thread(lambda: open_memory_store(url=url, timeout_s=1.0), bound_s=60)
    assert kind == "error" and isinstance(value, ConnectionError)
    assert url in str(value) and "did not answer" in str(value)
