"""Imports point one way, so each layer can be read, tested and changed without the ones above it:
service -> agent -> personas, and inside service cli -> api, jobs and api -> jobs, all over the shared top level
(settings, tenancy, container). Checked on the source: imports inside functions, under `if TYPE_CHECKING:` and
relative ones all count, since each is a dependency a reader has to follow. No two modules import each other,
directly or round a longer circle, and service/ comes into agent/ only through its front door."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from agent.front_door import FRONT_DOOR

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("agent", "service", "personas")

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


def module_name(path: Path, root: Path) -> str:
    """agent/llm/client.py -> agent.llm.client; agent/llm/__init__.py -> agent.llm."""
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(path: Path, root: Path = REPO) -> set[str]:
    """Every module the file's source names in an import, wherever the import stands (top level, inside a
    function, under `if TYPE_CHECKING:`), relative imports resolved against the file's package. `from a.b import
    c` names a.b.c when c is a module (a file or folder under root), else a.b."""
    module = module_name(path, root)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    modules = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            for alias in node.names:
                submodule = f"{source}.{alias.name}"
                modules.add(submodule if _is_module(submodule, root) else source)
    return modules


def _is_module(module: str, root: Path) -> bool:
    path = root.joinpath(*module.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def import_graph(root: Path, packages: tuple[str, ...]) -> dict[str, set[str]]:
    """module -> the modules of `packages` it imports (itself left out)."""
    paths = [path for package in packages for path in sorted((root / package).rglob("*.py"))]
    known = {module_name(path, root) for path in paths}
    graph = {}
    for path in paths:
        module = module_name(path, root)
        graph[module] = {target for target in imported_modules(path, root) if target in known and target != module}
    return graph


def import_circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Each group of modules that reach one another through imports (Tarjan's strongly connected components),
    sorted: one import circle, or several sharing modules."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(module: str) -> None:  # recursive: the import graph is a few hundred modules, a few levels deep
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for target in sorted(graph.get(module, ())):
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in on_stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == module:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return sorted(groups)


def circle_through(group: list[str], graph: dict[str, set[str]]) -> list[str]:
    """The shortest way from the group's first module back to itself, inside the group (breadth first)."""
    start, members = group[0], set(group)
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        following = []
        for module in frontier:
            for target in sorted(graph[module] & members):
                if target == start:
                    return paths[module] + [start]
                if target not in paths:
                    paths[target] = paths[module] + [target]
                    following.append(target)
        frontier = following
    raise AssertionError(f"{group} is no circle")  # pragma: no cover  (Tarjan's groups always are)


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


def test_no_import_circle_between_modules():
    graph = import_graph(REPO, PACKAGES)
    circles = import_circles(graph)
    assert not circles, "\n".join(
        f"{', '.join(group)} import one another, e.g. {' -> '.join(circle_through(group, graph))}" for group in circles
    )


def folder_of(module: str) -> str | None:
    """The agent folder a module lives in (agent/llm/client.py -> agent.llm); None outside agent's folders."""
    parts = module.split(".")
    if parts[0] != "agent" or len(parts) < 3:
        return None
    return ".".join(parts[:2]) if (REPO / parts[0] / parts[1]).is_dir() else None


def test_no_import_cycle_between_agent_folders():
    """Coarser than modules: agent's folders too import one way (agent.llm -> agent.brains -> agent.llm through
    different modules is no module circle, but is one between folders)."""
    edges: dict[str, set[str]] = {}
    for module, targets in import_graph(REPO, ("agent",)).items():
        source = folder_of(module)
        for target in map(folder_of, targets):
            if source and target and target != source:
                edges.setdefault(source, set()).add(target)
    circles = import_circles(edges)
    assert not circles, "\n".join(" -> ".join(circle_through(group, edges)) for group in circles)


def _write(root: Path, files: dict[str, str]) -> None:
    for name, source in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(source)


HIDDEN_CIRCLE = {  # each import hidden as this codebase's circles were: in a function, under TYPE_CHECKING, relative
    "shop/__init__.py": "",
    "shop/cart.py": "def total():\n    from shop.pricing import price\n    return price()\n",
    "shop/pricing.py": (
        "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from .tax import Rate\n\n\n"
        "def price():\n    return 1\n"
    ),
    "shop/tax.py": "from . import cart\n\nRate = float\n",
    "shop/catalog.py": "from shop.cart import total\n",  # into the circle, not part of it
}


def test_the_checker_finds_a_planted_circle(tmp_path):
    _write(tmp_path, HIDDEN_CIRCLE)
    graph = import_graph(tmp_path, ("shop",))
    assert import_circles(graph) == [["shop.cart", "shop.pricing", "shop.tax"]]
    assert circle_through(["shop.cart", "shop.pricing", "shop.tax"], graph) == [
        "shop.cart",
        "shop.pricing",
        "shop.tax",
        "shop.cart",
    ]


def test_the_checker_finds_no_circle_where_imports_point_one_way(tmp_path):
    _write(tmp_path, {**HIDDEN_CIRCLE, "shop/tax.py": "Rate = float\n"})
    graph = import_graph(tmp_path, ("shop",))
    assert graph["shop.pricing"] == {"shop.tax"} and graph["shop.catalog"] == {"shop.cart"}
    assert import_circles(graph) == []


def past_the_front_door(root: Path, door: tuple[str, ...]) -> list[str]:
    """Each import by a service/ file of an agent module the door does not list."""
    return [
        f"{path.relative_to(root)} imports {module}"
        for path in sorted((root / "service").rglob("*.py"))
        for module in sorted(imported_modules(path, root))
        if (module == "agent" or module.startswith("agent.")) and module not in door
    ]


def test_service_enters_agent_only_through_its_front_door():
    wrong = past_the_front_door(REPO, FRONT_DOOR)
    assert not wrong, "\n".join(wrong) + "\n(agent/front_door.py lists what service/ may import)"


def test_the_front_door_lists_only_modules_service_uses():
    used = {module for path in (REPO / "service").rglob("*.py") for module in imported_modules(path)}
    assert len(set(FRONT_DOOR)) == len(FRONT_DOOR), "a module listed twice"
    assert not [module for module in FRONT_DOOR if not _is_module(module, REPO)], "listed, but no such module"
    assert not sorted(set(FRONT_DOOR) - used), "listed, but service/ does not import it: narrow the door"


def test_the_front_door_check_refuses_a_module_it_does_not_list(tmp_path):
    route = "def handle():\n    from agent.inner import step\n    from agent import use_case\n"
    _write(
        tmp_path,
        {
            "agent/__init__.py": "",
            "agent/use_case.py": "",
            "agent/inner/__init__.py": "",
            "agent/inner/step.py": "",
            "service/__init__.py": "",
            "service/route.py": route,
        },
    )
    assert past_the_front_door(tmp_path, ("agent.use_case",)) == ["service/route.py imports agent.inner.step"]
    assert past_the_front_door(tmp_path, ("agent.use_case", "agent.inner.step")) == []
