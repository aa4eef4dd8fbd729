"""Ending the `twinsim` process once its command is done, without taking the interpreter apart first.

Why: by its end a command has imported LangGraph, Chroma, Playwright, pyarrow and pandas, and on exit Python frees
their objects module by module, which took 0.4-0.7 s of a one-twin `twinsim simulate` here (memory the OS takes
back at once when the process ends). So the process leaves the way Python's own exit would, minus that teardown:
the exit handlers run (logging, file locks and the like), standard output and error are flushed, and the process
ends with the command's status. While another thread still runs, the ordinary exit (which waits for it) is used.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import sys
import threading
from typing import NoReturn


def leave(code: str | int | None) -> NoReturn:
    """End the process with `code` as `sys.exit(code)` would: None is 0, a number is itself, any other value is
    printed to standard error and the status is 1."""
    if threading.active_count() > 1:
        sys.exit(code)
    if code is None:
        status = 0
    elif isinstance(code, int):
        status = code
    else:
        print(code, file=sys.stderr)
        status = 1
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed or broken stream: nothing more can be said on it
            stream.flush()
    os._exit(status)
