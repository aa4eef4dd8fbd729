"""Run the real service as a separate process on loopback, for restart and multi-replica tests."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_until_answering(proc: subprocess.Popen, url: str, timeout_s: float, what: str, output) -> bool:
    """Poll `url` until it answers 200 (True) or `timeout_s` passes (False); an early exit raises with `output()`."""
    deadline = time.perf_counter() + timeout_s
    while time.perf_counter() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited early:\n{output()}")
        try:
            if httpx.get(url, timeout=1.0).status_code == 200:
                return True
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    return False


class ServiceProcess:
    """`uvicorn service.api.main:app` in a subprocess; `with ServiceProcess(env) as svc: svc.url`."""

    def __init__(self, env: dict[str, str], startup_timeout_s: float = 90.0, args: tuple[str, ...] = ()) -> None:
        self.port = free_port()
        self._args = tuple(args)  # extra uvicorn options, e.g. ("--timeout-graceful-shutdown", "10")
        # Output goes to a file, not an unread pipe: JSON access logs would fill a pipe and stall the server.
        self._output = tempfile.TemporaryFile()  # noqa: SIM115 - the server's output for its whole life, read back if it fails
        self.url = f"http://127.0.0.1:{self.port}"
        self._env = {**os.environ, "HF_HUB_OFFLINE": "1", **env}
        self._timeout = startup_timeout_s
        self._proc: subprocess.Popen | None = None
        self.ready_after_s: float | None = None

    def start(self) -> ServiceProcess:
        started = time.perf_counter()
        self._proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "uvicorn",
                "service.api.main:app",
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--log-level",
                "warning",
                *self._args,
            ],
            cwd=REPO,
            env=self._env,
            stdout=self._output,
            stderr=subprocess.STDOUT,
        )
        if wait_until_answering(self._proc, f"{self.url}/healthz", self._timeout, "service", self.output):
            self.ready_after_s = time.perf_counter() - started
            return self
        self.stop()
        raise TimeoutError(f"service not ready after {self._timeout} s")

    def stop(self, kill: bool = False) -> None:
        if self._proc and self._proc.poll() is None:
            self._proc.kill() if kill else self._proc.terminate()
            try:
                self._proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()

    def output(self) -> str:
        """Everything the process wrote so far (stdout and stderr)."""
        self._output.flush()
        self._output.seek(0)
        return self._output.read().decode(errors="replace")

    @property
    def process(self) -> subprocess.Popen | None:
        return self._proc

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc else None

    def __enter__(self) -> ServiceProcess:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
