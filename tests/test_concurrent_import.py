"""Two imports of the same persona at once: the persona stays whole (one version's memories, all of them).

The interleaving is forced, not hoped for: writer A writes its generation and waits; writer B writes its
own and waits; A commits and cleans up; then B commits. Before the fix A's clean-up deleted "every other
generation", B's uncommitted one included, and B then committed a persona with no memories.
"""

from __future__ import annotations

import threading

from personas.memory_store import MEMORIES_COLLECTION, MemoryStore
from personas.memory_texts import persona_memory_texts
from personas.open_store import open_chroma_client

WAIT_S = 120  # a deadlock guard only: each wait is released by the other writer's progress


class PausingStore(MemoryStore):
    """Holds each writer, named by its thread, at the point between writing a generation and committing it."""

    def __init__(self, client, pauses: dict[str, callable]) -> None:
        super().__init__(client)
        self._pauses = pauses

    def _generation_written(self, persona_id: str, generation: str) -> None:
        self._pauses.get(threading.current_thread().name, lambda: None)()


def _wait(event: threading.Event) -> None:
    assert event.wait(WAIT_S), "the other writer never got there"


def test_two_concurrent_imports_of_one_id_leave_it_whole(tmp_path, sample_users):
    original = sample_users[0]
    rich = original.model_copy(update={"self_description": "Version A: I compare every price before I buy."})
    thin = original.model_copy(update={"transcript": None, "self_description": "Version B: I buy on impulse."})
    a_written, b_written, a_done = threading.Event(), threading.Event(), threading.Event()

    def pause_a() -> None:
        a_written.set()
        _wait(b_written)

    def pause_b() -> None:
        b_written.set()
        _wait(a_done)

    client = open_chroma_client(path=tmp_path / "chroma")
    store = PausingStore(client, {"A": pause_a, "B": pause_b})
    store.put_persona(original)
    errors: list[BaseException] = []

    def write(persona, done: threading.Event | None, before: threading.Event | None) -> None:
        try:
            if before is not None:
                _wait(before)
            store.put_persona(persona)
        except BaseException as error:  # noqa: BLE001 - reported below, in the test's own thread
            errors.append(error)
        finally:
            if done is not None:
                done.set()

    writer_a = threading.Thread(target=write, args=(rich, a_done, None), name="A")
    writer_b = threading.Thread(target=write, args=(thin, None, a_written), name="B")
    writer_a.start(), writer_b.start()
    writer_a.join(WAIT_S * 3), writer_b.join(WAIT_S * 3)
    assert not errors, errors

    stored = store.get_persona(original.id)
    assert stored.self_description.startswith("Version B")  # B committed last
    expected = [text for _, text in persona_memory_texts(thin)]
    assert [m.text for m in store.list_memories(original.id, limit=10_000)] == expected
    assert store.recall(original.id, "how do I shop", k=3)
    # and nothing else of this persona is left behind: no old or displaced generation
    left = client.get_collection(MEMORIES_COLLECTION).get(where={"persona_id": original.id}, include=[])["ids"]
    assert len(left) == len(expected)
