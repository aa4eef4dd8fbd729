"""`twinsim llm serve`: a local model for the LLM brain, offline and keyless, in one command.

It starts llama.cpp's OpenAI-compatible server (service/local_model.py) on the shipped SmolLM2-135M or any GGUF
the user names, waits until it answers, prints the settings that point twinsim at it, and runs until stopped.
"""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from service.cli.failure import fail

llm_app = typer.Typer(
    help="A local model for --brain llm (llama.cpp's OpenAI-compatible server).", no_args_is_help=True
)
console = Console(soft_wrap=True)


@llm_app.command("serve")
def serve_local_model(
    model: Annotated[
        Path | None,
        typer.Option(
            "--model", help="A GGUF file; default: the shipped SmolLM2-135M-Instruct (bash scripts/setup --local-llm)."
        ),
    ] = None,
    context: Annotated[
        int,
        typer.Option(
            "--context",
            min=256,
            max=1_048_576,
            help="The context size in tokens the server allocates; twinsim cuts prompts to fit it "
            "(TWINSIM_LLM_CONTEXT_TOKENS). A larger one lets prompts grow, and on a CPU a decision's time grows "
            "faster than its prompt.",
        ),
    ] = 4096,  # service.local_model.DEFAULT_CONTEXT_TOKENS (not imported here: the CLI starts without it)
    host: Annotated[str, typer.Option("--host")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=1, max=65535)] = 8011,
    alias: Annotated[
        str | None,
        typer.Option(
            "--alias",
            help="The model name the server answers to; default: the "
            "file's name (smollm2-135m-instruct for the shipped one).",
        ),
    ] = None,
    threads: Annotated[
        int | None,
        typer.Option(
            "--threads",
            min=1,
            help="CPU threads; default: llama-cpp-python's (half the cores to write, all to read the prompt). "
            "On a busy machine 1 is often faster.",
        ),
    ] = None,
) -> None:
    """Start the local model server, wait until it answers, print the TWINSIM_LLM_* settings, serve until Ctrl-C."""
    from service.local_model import DEFAULT_ALIAS, LocalModelError, LocalModelServer, shipped_gguf

    try:
        gguf = model if model is not None else shipped_gguf()
    except LocalModelError as error:
        fail(str(error))
    if not gguf.is_file():
        fail(f"no GGUF model file at {gguf}")
    name = alias or (DEFAULT_ALIAS if model is None else gguf.stem.lower())
    server = LocalModelServer(gguf=gguf, host=host, port=port, context_tokens=context, alias=name, threads=threads)
    console.print(f"starting {gguf.name} on http://{host}:{port} (context {context} tokens)...", highlight=False)
    try:
        server.start()
    except LocalModelError as error:
        fail(str(error))
    console.print("the model answers; point twinsim at it with:", highlight=False)
    for key, value in server.env().items():
        console.print(f"export {key}={value}", highlight=False)
    console.print(f"(server log: {server.log_path}; Ctrl-C stops it)", highlight=False)
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    assert server.process is not None  # started above
    try:
        server.process.wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    if server.process.returncode not in (0, -signal.SIGTERM, None):
        fail(f"the model server stopped with code {server.process.returncode}:\n{server.log_tail()}")
