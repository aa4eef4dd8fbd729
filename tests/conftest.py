"""Shared fixtures: the real OPeRA sample data, a real embedded Chroma store, the app on a temp data dir."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

REPO = Path(__file__).resolve().parents[1]
PAGES = REPO / "agent" / "sample_pages"


@pytest.fixture(scope="session")
def opera_dir() -> Path:
    from agent.opera_data import opera_data_dir

    folder = opera_data_dir()
    if not (folder / "users_sample.csv").exists():
        pytest.fail(f"the shared OPeRA data is missing at {folder} (set TWINSIM_OPERA_DATA or TWINSIM_SHARED_DIR)")
    return folder


@pytest.fixture(scope="session")
def sample_users(opera_dir: Path):
    from personas.sources.opera_user_table import read_user_table

    return read_user_table(opera_dir / "users_sample.csv")


@pytest.fixture(scope="session", autouse=True)
def llm_client_loaded() -> None:
    """litellm imported before any test calls a model: the service imports it in the background at start-up and a
    `brain: llm` request in those first seconds answers with the embedded brain by design (tested in a process of
    its own in tests/test_llm_import_off_requests.py), which under load would turn a test of the model's answer, or
    of a provider's failure, into a "still loading" fallback. Every in-process service here starts after it."""
    from agent.llm.offline_litellm import load_litellm

    load_litellm()


@pytest.fixture
def llm_server():
    """A real OpenAI-compatible server on 127.0.0.1 whose answers a test scripts (tests/support/openai_server.py)."""
    from tests.support.openai_server import OpenAICompatibleServer

    with OpenAICompatibleServer() as server:
        yield server


@pytest.fixture(scope="session")
def local_model():
    """The real local model (SmolLM2-135M-Instruct, llama.cpp's server) on a free loopback port, started once per
    session (service/local_model.py). Missing is an error, never a skip: `bash scripts/setup --local-llm`."""
    from service.local_model import LocalModelServer, shipped_gguf

    with LocalModelServer(gguf=shipped_gguf(), context_tokens=LOCAL_MODEL_CONTEXT, threads=1) as server:
        yield server


LOCAL_MODEL_CONTEXT = 4096  # small enough that a 100 KB page must be cut to fit, large enough for a useful prompt


@pytest.fixture(scope="module")
def shop_url():
    """The project's demo shop, served on a free loopback port for one test module."""
    from service.demo_shop import create_shop_app
    from tests.support.live_server import serve

    with serve(create_shop_app()) as url:
        yield url


@pytest.fixture(scope="session")
def oscar_shop_installed() -> dict[str, float]:
    """django-oscar from PyPI in its own venv with its database built (tests/support/oscar_shop; once per machine,
    about a minute). A failed install is an error, never a skip: deselect the tests with -m "not real_shop"."""
    from tests.support.oscar_shop import install

    return install()


@pytest.fixture(scope="module")
def ray_head():
    """A local Ray head on 127.0.0.1 with two worker CPUs, for one test module; RayExecutor reuses it."""
    ray = pytest.importorskip("ray")
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        _node_ip_address="127.0.0.1",
        object_store_memory=100 * 2**20,
        log_to_driver=False,
    )
    yield ray
    ray.shutdown()


def ray_batches_run(ray) -> int:
    """Batches of units that Ray has recorded as run (task events reach the head about once a second)."""
    return sum(1 for event in ray.timeline() if event.get("name") == "agent.executors.ray_units._run_batch")


@pytest.fixture
def store(tmp_path: Path):
    from personas.open_store import open_memory_store

    return open_memory_store(path=tmp_path / "chroma")


def page(name: str) -> str:
    return (PAGES / name).read_text()
