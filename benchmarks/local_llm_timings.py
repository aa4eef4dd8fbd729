"""Where one local decision's time goes, from the model server itself: llama.cpp's own timings (prompt evaluation
and generation, printed to the server's log after each completion) and the CPU seconds the server process used.

Why both: on a shared 2-core machine the wall time of a call says mostly how busy the machine was; the CPU
seconds the server spent, split by llama.cpp into reading the prompt and writing the answer, say what the
decision costs, and whether the grammar (schema-constrained sampling) or the prompt is the expensive part.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

_PROMPT_EVAL = re.compile(r"prompt eval time =\s*([\d.]+) ms /\s*(\d+) tokens")
_EVAL = re.compile(r"^llama_perf_context_print:\s+eval time =\s*([\d.]+) ms /\s*(\d+) runs", re.MULTILINE)
_PREFIX_HIT = re.compile(r"(\d+) prefix-match hit")
_CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def process_cpu_s(pid: int) -> float:
    """User + system CPU seconds of a process, all its threads (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / _CLOCK_TICKS


@dataclass
class CallTimings:
    cpu_s: float  # the server process's CPU seconds during the call
    prompt_eval_ms: float | None  # llama.cpp's wall time reading the prompt tokens not already cached
    prompt_eval_tokens: int | None
    cached_prefix_tokens: int  # prompt tokens reused from the previous request's KV cache
    generation_ms: float | None
    generated_tokens: int | None


class ServerTimings:
    """Call start() before a request and finish() after it; finish() reads what the server wrote in between."""

    def __init__(self, log_path: Path, pid: int) -> None:
        self.log_path = log_path
        self.pid = pid
        self._offset = 0
        self._cpu = 0.0

    def start(self) -> None:
        self._offset = self.log_path.stat().st_size
        self._cpu = process_cpu_s(self.pid)

    def finish(self) -> CallTimings:
        with open(self.log_path, "rb") as log:
            log.seek(self._offset)
            text = log.read().decode(errors="replace")
        prompt = _PROMPT_EVAL.findall(text)
        generation = _EVAL.findall(text)
        prefix = _PREFIX_HIT.findall(text)
        return CallTimings(
            cpu_s=round(process_cpu_s(self.pid) - self._cpu, 2),
            prompt_eval_ms=float(prompt[-1][0]) if prompt else None,
            prompt_eval_tokens=int(prompt[-1][1]) if prompt else None,
            cached_prefix_tokens=int(prefix[-1]) if prefix else 0,
            generation_ms=float(generation[-1][0]) if generation else None,
            generated_tokens=int(generation[-1][1]) if generation else None,
        )
