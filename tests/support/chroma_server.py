"""A real `chroma run` server on loopback, for tests of replicas sharing one store and of its timeouts."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.support.service_process import free_port, wait_until_answering

CHROMA_CLI = Path(sys.executable).with_name("chroma")


class ChromaServer:
    """`with ChromaServer(path) as chroma: chroma.url` — stopped (and never left running) on exit."""

    def __init__(self, path: Path, startup_timeout_s: float = 60.0) -> None:
        self.path = Path(path)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self._timeout = startup_timeout_s
        self._output = tempfile.TemporaryFile()  # noqa: SIM115 - the server's output for its whole life, read back if it fails
        self._proc: subprocess.Popen | None = None

    def start(self) -> ChromaServer:
        self.path.mkdir(parents=True, exist_ok=True)
        env = {**os.environ, "ANONYMIZED_TELEMETRY": "False"}
        self._proc = subprocess.Popen(
            [str(CHROMA_CLI), "run", "--path", str(self.path), "--host", "127.0.0.1", "--port", str(self.port)],
            env=env,
            stdout=self._output,
            stderr=subprocess.STDOUT,
        )
        if wait_until_answering(self._proc, f"{self.url}/api/v2/heartbeat", self._timeout, "chroma", self._read_output):
            return self
        self.stop()
        raise TimeoutError(f"chroma not ready after {self._timeout} s")

    def _read_output(self) -> str:
        self._output.flush()
        self._output.seek(0)
        return self._output.read().decode(errors="replace")

    def pause(self) -> None:
        """SIGSTOP: the kernel still accepts connections, nothing answers them (a hung server)."""
        os.kill(self._proc.pid, signal.SIGSTOP)

    def resume(self) -> None:
        os.kill(self._proc.pid, signal.SIGCONT)

    def stop(self) -> None:
        if self._proc and self._proc.poll() is None:
            self.resume()
            self._proc.terminate()
            try:
                self._proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()

    def __enter__(self) -> ChromaServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
