"""Installing the test shop (django-oscar from PyPI) in its own virtualenv and building its database once.

Everything lives under `.oscar/` at the repository root (git-ignored): `venv/` (Oscar's Django and Pillow pins
never touch twinsim's .venv), and `built/` (the migrated SQLite database with the catalogue, the search index,
media). Each step leaves a stamp with the hash of what it was made from, so a second run reuses the venv and
the database, and a change to the requirements or to the shop's project files redoes only what depends on them.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROJECT = HERE / "project"
REQUIREMENTS = HERE / "requirements.txt"
REPO = HERE.parents[2]
HOME = Path(os.environ.get("TWINSIM_OSCAR_HOME", REPO / ".oscar"))
VENV = HOME / "venv"
BUILT = HOME / "built"
PYTHON = VENV / "bin" / "python"
STAMP = ".twinsim-stamp"


class InstallFailed(RuntimeError):
    """A step of the install failed; the message carries the command's output."""


def install(log=print) -> dict[str, float]:
    """Make sure the venv and the built database are there; returns seconds spent per step (0 when reused)."""
    HOME.mkdir(parents=True, exist_ok=True)
    with _locked(HOME / "install.lock"):
        return {"venv": _venv(log), "build": _build(log)}


def _venv(log) -> float:
    wanted = _digest([REQUIREMENTS])
    if _stamp(VENV) == wanted and PYTHON.exists():
        return 0.0
    started = time.perf_counter()
    log(f"oscar shop: creating {VENV} and installing django-oscar (one-time)")
    shutil.rmtree(VENV, ignore_errors=True)
    _run([sys.executable, "-m", "venv", str(VENV)], "create the venv")
    _run(
        [str(PYTHON), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-r", str(REQUIREMENTS)],
        "pip install the shop's requirements",
    )
    (VENV / STAMP).write_text(wanted)
    return time.perf_counter() - started


def _build(log) -> float:
    wanted = _digest([REQUIREMENTS, *sorted(p for p in PROJECT.rglob("*.py"))])
    if _stamp(BUILT) == wanted:
        return 0.0
    started = time.perf_counter()
    log(f"oscar shop: migrating a new database and building the catalogue in {BUILT}")
    fresh = HOME / "built.tmp"
    shutil.rmtree(fresh, ignore_errors=True)
    (fresh / "media").mkdir(parents=True)
    # Oscar's documented step: its "image not found" picture must be in MEDIA_ROOT for the thumbnailer.
    missing = next(VENV.glob("lib/python*/site-packages/oscar/static/oscar/img/image_not_found.jpg"))
    shutil.copy(missing, fresh / "media" / "image_not_found.jpg")
    for step in (["migrate", "--noinput", "-v", "0"], ["build_catalogue"], ["rebuild_index", "--noinput", "-v", "0"]):
        manage(step, fresh)
    (fresh / STAMP).write_text(wanted)
    shutil.rmtree(BUILT, ignore_errors=True)
    fresh.rename(BUILT)
    return time.perf_counter() - started


def manage(args: list[str], state: Path) -> str:
    """`manage.py ARGS` with Oscar's interpreter on the shop state in `state` (database, index, media)."""
    return _run([str(PYTHON), str(PROJECT / "manage.py"), *args], "manage.py " + " ".join(args), env=shop_env(state))


def shop_env(state: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV", "DJANGO"))}
    env.update(OSCAR_SHOP_STATE=str(state), PYTHONDONTWRITEBYTECODE="1")
    return env


def _run(command: list[str], what: str, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(command, cwd=PROJECT, env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    if done.returncode != 0:
        raise InstallFailed(f"oscar shop: could not {what} (exit {done.returncode}):\n{done.stdout}{done.stderr}")
    return done.stdout


def _digest(paths: list[Path]) -> str:
    sha = hashlib.sha256()
    for path in paths:
        sha.update(path.relative_to(HERE).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return sha.hexdigest()


def _stamp(folder: Path) -> str | None:
    try:
        return (folder / STAMP).read_text()
    except OSError:
        return None


@contextmanager
def _locked(path: Path):
    """One install at a time (two test sessions, or the CLI while tests run)."""
    with open(path, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
