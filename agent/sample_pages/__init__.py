"""Realistic OPeRA-format pages shipped with the package, for the demo, the benchmarks and the tests."""

from __future__ import annotations

from pathlib import Path

SAMPLE_PAGES_DIR = Path(__file__).resolve().parent


def sample_page(name: str) -> str:
    path = SAMPLE_PAGES_DIR / name
    if not path.is_file():
        raise FileNotFoundError(f"no sample page '{name}' in {SAMPLE_PAGES_DIR}")
    return path.read_text()
