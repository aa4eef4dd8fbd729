"""The memory store as the current tenant sees it (service/tenancy.py): its own personas under their own ids.

One Chroma store holds every tenant. A named tenant's persona `maria` is stored as `acme..maria`; the default
tenant's ids are stored as they are, so a store written before tenants belongs to the default tenant, and an
admin key sees the store as it is (every tenant, stored ids). Callers never see another tenant's persona: it
is not found, not listed, not recalled. Only the methods below exist, so a store method added later cannot
bypass the scope by accident: it has to be added here, scoped.
"""

from __future__ import annotations

from personas.memory_store import MemoryStore, PersonaNotFound, PersonaSummary
from personas.memory_types import Memory, MemoryKind
from personas.open_store import open_memory_store
from personas.persona import Persona
from service.settings import Settings
from service.tenancy import ADMIN, DEFAULT_TENANT, current_tenant, tenants_of

SEPARATOR = ".."  # allowed in persona ids, refused in the ids callers send, so a prefix cannot be forged
MAX_ID = 128


class TenantScopedStore:
    def __init__(self, store: MemoryStore, tenants: frozenset[str] = frozenset()) -> None:
        self.raw = store
        self.tenants = tenants  # named tenants; ids of others (and unprefixed ids) belong to the default tenant

    @property
    def embedder(self):
        return self.raw.embedder

    # ---- id mapping -----------------------------------------------------------------------------

    def owner(self, stored_id: str) -> str:
        prefix, separator, _ = stored_id.partition(SEPARATOR)
        return prefix if separator and prefix in self.tenants else DEFAULT_TENANT

    def _stored(self, persona_id: str) -> str:
        """The stored id for the caller's id; PersonaNotFound when the caller may not name it."""
        tenant = current_tenant()
        if tenant == ADMIN:
            return persona_id
        if SEPARATOR in persona_id:
            raise PersonaNotFound(persona_id)
        return persona_id if tenant == DEFAULT_TENANT else f"{tenant}{SEPARATOR}{persona_id}"

    def _shown(self, stored_id: str) -> str:
        tenant = current_tenant()
        if tenant in (ADMIN, DEFAULT_TENANT):
            return stored_id
        return stored_id.removeprefix(f"{tenant}{SEPARATOR}")

    def _visible(self, stored_id: str) -> bool:
        tenant = current_tenant()
        return tenant == ADMIN or self.owner(stored_id) == tenant

    def _memory(self, memory: Memory, stored_id: str) -> Memory:
        shown = self._shown(stored_id)
        return memory.model_copy(update={"persona_id": shown, "id": shown + memory.id.removeprefix(stored_id)})

    # ---- personas -------------------------------------------------------------------------------

    def put_persona(self, persona: Persona, *, keep_events: bool = False) -> int:
        return self.put_personas([(persona, keep_events)])[0]

    def put_personas(self, items: list[tuple[Persona, bool]]) -> list[int]:
        """MemoryStore.put_personas under the caller's ids: (persona, keep_events) pairs, memory counts back."""
        scoped = []
        for persona, keep_events in items:
            if SEPARATOR in persona.id and current_tenant() != ADMIN:
                raise ValueError(f"persona id must not contain '{SEPARATOR}'")
            stored = self._stored(persona.id)
            if len(stored) > MAX_ID:
                raise ValueError(f"persona id must be at most {MAX_ID - len(stored) + len(persona.id)} characters here")
            scoped.append((persona.model_copy(update={"id": stored}), keep_events))
        return self.raw.put_personas(scoped)

    def get_persona(self, persona_id: str) -> Persona:
        stored = self._stored(persona_id)
        return self.raw.get_persona(stored).model_copy(update={"id": self._shown(stored)})

    def has_persona(self, persona_id: str) -> bool:
        try:
            return self.raw.has_persona(self._stored(persona_id))
        except PersonaNotFound:
            return False

    def persona_ids(self) -> list[str]:
        return [self._shown(i) for i in self.raw.persona_ids() if self._visible(i)]

    def list_personas(self, limit: int = 1000, offset: int = 0) -> list[PersonaSummary]:
        if not self.tenants or current_tenant() == ADMIN:
            return self.raw.list_personas(limit, offset)
        everyone = self.raw.list_personas(limit=max(1, len(self.raw.persona_ids())), offset=0)
        mine = [s for s in everyone if self._visible(s.id)][offset : offset + limit]
        return [PersonaSummary(self._shown(s.id), s.name, s.source, s.memories, s.updated_at) for s in mine]

    def delete_persona(self, persona_id: str) -> None:
        self.raw.delete_persona(self._stored(persona_id))

    # ---- memories -------------------------------------------------------------------------------

    def add_memory(self, persona_id: str, text: str, kind: MemoryKind = "event") -> Memory:
        stored = self._stored(persona_id)
        return self._memory(self.raw.add_memory(stored, text, kind), stored)

    def recall(self, persona_id: str, query: str, k: int = 5) -> list[Memory]:
        stored = self._stored(persona_id)
        return [self._memory(m, stored) for m in self.raw.recall(stored, query, k)]

    def list_memories(
        self, persona_id: str, kind: str | None = None, limit: int = 200, offset: int = 0
    ) -> list[Memory]:
        stored = self._stored(persona_id)
        return [self._memory(m, stored) for m in self.raw.list_memories(stored, kind, limit, offset)]


def open_tenant_store(settings: Settings) -> TenantScopedStore:
    """The store of record, opened alone: what `personas list` and `personas import` need, without the brains
    and the LLM client (importing litellm alone takes seconds)."""
    raw = open_memory_store(path=settings.chroma_path, url=settings.chroma_url, timeout_s=settings.chroma_timeout_s)
    return TenantScopedStore(raw, tenants_of(settings.api_key.get_secret_value() if settings.api_key else None))


def store_description(settings: Settings) -> str:
    return (
        f"chroma server {settings.chroma_url}" if settings.chroma_url else f"embedded chroma at {settings.chroma_path}"
    )
