"""One running instance of the test shop: a fresh copy of the built state (so orders and baskets of earlier
runs never leak into this one), a variant of the catalogue applied to it in one of its currencies (pounds as
built, or the euro catalogue), and Django's server on 127.0.0.1.

Several instances run at once (an A/B experiment browses two), each from its own folder under
`.oscar/instances/`. Django's runserver with --insecure serves Oscar's static files (CSS, JavaScript) as a
browser needs them; DEBUG stays off, so error pages are the shop's own.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from tests.support.oscar_shop.install import (
    BUILT,
    HOME,
    PROJECT,
    PYTHON,
    install,
    manage,
    shop_env,
)

INSTANCES = HOME / "instances"
START_TIMEOUT_S = 120.0  # a first request on a loaded 2-core machine took over 60 s
CURRENCIES = ("GBP", "EUR")  # project/shopsite/catalogue_data.py CURRENCIES: the built catalogue's first


@dataclass
class ShopInstance:
    name: str
    variant: str
    port: int
    folder: Path
    currency: str = CURRENCIES[0]
    process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    @property
    def pid_file(self) -> Path:
        return self.folder / "server.pid"


def start(
    name: str = "shop", variant: str = "control", port: int | None = None, log=print, currency: str = CURRENCIES[0]
) -> ShopInstance:
    """Install if needed, copy the built state, apply `variant` in `currency`'s catalogue, start the server; returns
    once it answers. An instance already running under `name` is stopped first."""
    if currency not in CURRENCIES:
        raise ValueError(f"unknown currency {currency!r}; the test shop sells in: {', '.join(CURRENCIES)}")
    install(log)
    stop(name)
    folder = INSTANCES / name
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(BUILT, folder)
    manage(["apply_variant", variant, "--currency", currency], folder)
    instance = ShopInstance(name=name, variant=variant, port=port or _free_port(), folder=folder, currency=currency)
    with open(folder / "server.log", "w") as output:  # the server writes to its own copy
        instance.process = subprocess.Popen(
            [
                str(PYTHON),
                str(PROJECT / "manage.py"),
                "runserver",
                "--insecure",
                "--noreload",
                f"127.0.0.1:{instance.port}",
            ],
            cwd=PROJECT,
            env={**shop_env(folder), "OSCAR_SHOP_CURRENCY": currency},  # settings.py: the formats
            stdout=output,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    instance.pid_file.write_text(str(instance.process.pid))
    _wait_until_answering(instance)
    (folder / "url").write_text(instance.url)
    return instance


def stop(name: str = "shop") -> bool:
    """Stop the instance `name` started (by the pid it recorded); True when one was running."""
    pid_file = INSTANCES / name / "server.pid"
    try:
        pid = int(pid_file.read_text())
    except (OSError, ValueError):
        return False
    pid_file.unlink(missing_ok=True)
    try:
        os.killpg(pid, signal.SIGTERM)  # its own session: the server and nothing else
    except ProcessLookupError:
        return False
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.killpg(pid, 0)
        except ProcessLookupError:
            return True
        _reap(pid)
        time.sleep(0.1)
    os.killpg(pid, signal.SIGKILL)
    _reap(pid)
    return True


def _reap(pid: int) -> None:
    with contextlib.suppress(ChildProcessError):  # started by another process (the CLI): not ours to reap
        os.waitpid(pid, os.WNOHANG)


def _wait_until_answering(instance: ShopInstance) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if instance.process is not None and instance.process.poll() is not None:
            raise RuntimeError(f"the oscar shop exited at start:\n{(instance.folder / 'server.log').read_text()}")
        try:
            with urllib.request.urlopen(instance.url, timeout=2) as answer:
                if answer.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.2)
    stop(instance.name)
    raise RuntimeError(f"the oscar shop did not answer at {instance.url} within {START_TIMEOUT_S:g} s")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
