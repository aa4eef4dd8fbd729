"""Assembles the long-lived parts (memory store, brains, graph) once, for the app and the CLI alike."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from agent.brains import registry
from agent.brains.base import Brain
from agent.experiments.context import ExperimentContext
from agent.graph import TwinGraph
from agent.llm.cache import ResponseCache
from agent.llm.client import LLMClient
from agent.llm.provider_lock import ProviderLock
from agent.llm.provider_slots import shared_slots
from service.settings import Settings
from service.tenant_store import TenantScopedStore, open_tenant_store, store_description


@dataclass
class Services:
    settings: Settings
    store: TenantScopedStore  # personas and memories as the current request's tenant sees them
    graph: TwinGraph
    llm: LLMClient

    @property
    def store_description(self) -> str:
        return store_description(self.settings)


def build_llm_client(
    settings: Settings, cache_path: Path | None = None, *, load_wait_s: float | None = None
) -> LLMClient:
    """One client per process; with a cache path, identical prompts are answered from disk (eval, experiments).
    With API keys set (a shared service) it calls only the configured provider, whatever model a request names.
    `load_wait_s`: how long a call waits for litellm's import before falling back (None: the command line waits)."""
    return LLMClient(
        api_base=settings.llm_api_base,
        api_key=settings.llm_api_key.get_secret_value() if settings.llm_api_key else None,
        timeout_s=settings.llm_timeout_s,
        retries=settings.llm_retries,
        concurrency=settings.llm_concurrency,
        cache=ResponseCache(cache_path) if cache_path else None,
        provider_lock=ProviderLock(settings.llm_model, settings.llm_api_base) if settings.api_key is not None else None,
        slots=shared_slots(tuple(settings.llm_provider_limits.items()), settings.llm_provider_limit),
        load_wait_s=load_wait_s,
    )


def build_brains(settings: Settings, llm: LLMClient) -> dict[str, Brain]:
    return registry.build_brains(
        llm,
        behaviour_params=settings.behaviour_params,
        default_model=settings.llm_model,
        prompt_style=settings.llm_prompt_style,
        grounding=settings.llm_grounding,
        vision=settings.llm_vision,
        structured_output=settings.llm_structured_output,
        context_tokens=settings.llm_context_tokens,
    )


def build_services(settings: Settings, *, warm: bool = True, llm_load_wait_s: float | None = None) -> Services:
    """`llm_load_wait_s`: a service's requests wait at most this for litellm's import, then fall back."""
    store = open_tenant_store(settings)
    if warm:
        store.embedder.embed(["warm up"])  # load the embedding model now, not on the first request
    llm = build_llm_client(settings, load_wait_s=llm_load_wait_s)
    return Services(settings=settings, store=store, graph=TwinGraph(build_brains(settings, llm), memory=store), llm=llm)


def experiment_context(services: Services) -> ExperimentContext:
    """What experiments run with here: the served graph (its embedded brain has TWINSIM_BEHAVIOUR_PARAMS), and
    for the LLM brain a graph whose calls run the spec's concurrency at a time, cached under the data dir."""
    settings = services.settings

    def llm_graph(concurrency: int) -> TwinGraph:
        tuned = settings.model_copy(update={"llm_concurrency": concurrency})
        llm = build_llm_client(tuned, cache_path=settings.data_dir / "experiments" / "llm_cache.sqlite")
        return TwinGraph(build_brains(tuned, llm), memory=services.store)

    return ExperimentContext(
        graph=services.graph,
        store=services.store,
        llm=services.llm,
        default_model=settings.llm_model,
        llm_graph=llm_graph,
        max_page_bytes=settings.max_page_bytes,
        page_limits=settings.page_limits,
        allowed_hosts=settings.host_allow_list,
        executor=settings.executor,
        ray_address=settings.ray_address,
    )
