"""Imports point one way, so each layer can be read, tested and changed without the ones above it:
service -> agent -> personas, and inside service cli -> api, jobs and api -> jobs, all over the shared top level
(settings, tenancy, container). Checked on the source, imports inside functions included."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

# package (a folder, or one shared module) -> module prefixes it must never import
FORBIDDEN = {
    "personas": ("agent", "service"),
    "agent": ("service",),
    "service/jobs": ("service.api", "service.cli"),
    "service/api": ("service.cli",),
    "service/demo_shop": ("service.api", "service.cli", "service.jobs"),
    "service/container.py": ("service.api", "service.cli", "service.jobs"),
    "service/settings.py": ("service.api", "service.cli", "service.jobs"),
    "service/tenancy.py": ("service.api", "service.cli", "service.jobs"),
    "service/tenant_store.py": ("service.api", "service.cli", "service.jobs"),
    "agent/behaviour": ("agent.calibration",),  # serving never loads training code
    "agent/llm": ("agent.brains",),  # the LLM brain uses its parts, never the reverse
    "agent/brains/names.py": ("agent.brains.embedded", "agent.brains.llm", "agent.brains.baselines"),
}


def imported_modules(path: Path) -> set[str]:
    modules = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules.add(node.module)
    return modules


def test_every_shared_module_named_here_exists():
    for place in FORBIDDEN:
        assert (REPO / place).exists(), f"{place} moved: update FORBIDDEN"


@pytest.mark.parametrize("place", sorted(FORBIDDEN))
def test_no_layer_imports_one_above_it(place):
    root = REPO / place
    files = [root] if root.is_file() else sorted(root.rglob("*.py"))
    wrong = [
        f"{path.relative_to(REPO)} imports {module}"
        for path in files
        for module in sorted(imported_modules(path))
        if any(module == banned or module.startswith(banned + ".") for banned in FORBIDDEN[place])
    ]
    assert not wrong, "\n".join(wrong)


def folder_of(module: str) -> str | None:
    """The agent folder a module lives in (agent/llm/client.py -> agent.llm); None outside agent's folders."""
    parts = module.split(".")
    if parts[0] != "agent" or len(parts) < 3:
        return None
    return ".".join(parts[:2]) if (REPO / parts[0] / parts[1]).is_dir() else None


def test_no_import_cycle_between_agent_folders():
    edges: dict[str, set[str]] = {}
    for path in sorted((REPO / "agent").rglob("*.py")):
        module = ".".join(path.relative_to(REPO).with_suffix("").parts)
        source = folder_of(module)
        for imported in imported_modules(path):
            target = folder_of(imported)
            if source and target and target != source:
                edges.setdefault(source, set()).add(target)

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        return any(
            nxt == goal or (nxt not in seen and reaches(nxt, goal, seen | {nxt})) for nxt in edges.get(start, ())
        )

    cycles = sorted(f"{a} -> {b} -> ... -> {a}" for a in edges for b in edges[a] if reaches(b, a, {b}))
    assert not cycles, "\n".join(cycles)
