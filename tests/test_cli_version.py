"""`twinsim --version` answers from the package metadata, before any subcommand or model is loaded."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import version

from typer.testing import CliRunner

from service.cli.main import app


def test_version_prints_the_installed_version_and_exits_zero():
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0, result.output
    assert result.output.strip() == f"twinsim {version('twinsim')}"


def test_version_loads_no_brain_and_no_llm_client():
    script = (
        "import sys; from service.cli.main import app\n"
        "try: app(['--version'])\nexcept SystemExit: pass\n"
        "print(sorted(m for m in ('litellm', 'agent.brains.llm', 'agent.behaviour.engine') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-1000:]
    assert done.stdout.strip().splitlines()[-1] == "[]"
