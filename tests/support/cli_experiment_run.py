"""A small real `twinsim experiment run` for the export and interview tests: the example personas (maria-lopez,
sam-chen) in a real Chroma store, two variants of two pages each (the search page they share, then the product
page or the deal-banner page), the embedded brain. Every twin decides on page 1; those that neither buy nor leave
go on to page 2."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

REPO = Path(__file__).resolve().parents[2]
PAGES = REPO / "agent" / "sample_pages"
EXAMPLES = REPO / "examples" / "experiments"
PERSONA_FILES = [REPO / "personas" / "examples" / "maria.yaml", REPO / "personas" / "examples" / "sam-chen.json"]
INSTANCES = 4


def spec_file(directory: Path) -> Path:
    spec = yaml.safe_load((EXAMPLES / "deal_banner.yaml").read_text())
    search = {"path": str(PAGES / "search_results.html"), "page_url": "https://www.amazon.com/s?k=usb+c+cable"}
    product = "https://www.amazon.com/dp/B0TWINSIM1"
    spec["variants"] = [
        {"name": "A", "pages": [search, {"path": str(PAGES / "product_page.html"), "page_url": product}]},
        {
            "name": "B",
            "pages": [search, {"path": str(EXAMPLES / "pages" / "product_deal_banner.html"), "page_url": product}],
        },
    ]
    spec["history"] = spec["history"][:1]  # the twins searched; the results page is in front of them
    spec.update(population={"ids": ["maria-lopez", "sam-chen"]}, samples_per_persona=INSTANCES, segments=[])
    path = directory / "spec.yaml"
    path.write_text(yaml.safe_dump(spec))
    return path


def invoke(*args):
    from service.cli.main import app

    return CliRunner().invoke(app, [*map(str, args)])


def cli_run(root: Path) -> dict:
    """Run it into root/run with root/data as the data dir: {root, out, output}."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TWINSIM_DATA_DIR", str(root / "data"))
        out = root / "run"
        persona_args = [arg for path in PERSONA_FILES for arg in ("--personas", path)]
        result = invoke("experiment", "run", spec_file(root), "--out", out, *persona_args)
    assert result.exit_code == 0, result.output
    return {"root": root, "out": out, "output": result.output}
