"""Where a live step's time goes, in whichever checkout this runs from (PYTHONPATH=<checkout>): the live simulation
is run in process with the twin session's own functions wrapped in timers, so the same probe measures the commit
before a change and after it. Prints one JSON object on stdout.

Phases (exclusive time, a phase nested in another counts only once): open (the start page), action (click or type,
including the navigation it starts), settle (waiting for the page after it), read (the page read back: DOM copy and
simplification), decision (the twin's brain), screenshot (pictures and element boxes), and other (context start and
close, checkout forms, bookkeeping). Memory: the proportional set size (PSS, /proc) of the Chromium processes,
sampled every 0.2 s, and per renderer process (one per browser context on one site).

Run by benchmarks/live_speed.py: python _live_profile.py DATA_DIR URL IDS STEPS SEED CONCURRENCY
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import json
import os
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # run by path (runpy): its own folder is not on the path
from _process_cpu import by_kind, tree_readings

PHASES = ("open", "action", "settle", "read", "decision", "screenshot")
_stack: contextvars.ContextVar[list | None] = contextvars.ContextVar("profile_stack", default=None)
totals = dict.fromkeys((*PHASES, "twin"), 0.0)
counts = dict.fromkeys((*PHASES, "twin"), 0)


def timed(phase: str, function):
    @functools.wraps(function)
    async def wrapper(*args, **kwargs):
        stack = _stack.get()
        if stack is None:
            return await function(*args, **kwargs)
        stack.append(0.0)  # time spent in nested timed calls
        started = time.perf_counter()
        try:
            return await function(*args, **kwargs)
        finally:
            elapsed = time.perf_counter() - started
            nested = stack.pop()
            totals[phase] += elapsed - nested
            counts[phase] += 1
            if stack:
                stack[-1] += elapsed

    return wrapper


def timed_twin(function):
    @functools.wraps(function)
    async def wrapper(*args, **kwargs):
        _stack.set([])  # this task's own stack (gather gives every twin its own context)
        started = time.perf_counter()
        try:
            return await function(*args, **kwargs)
        finally:
            totals["twin"] += time.perf_counter() - started
            counts["twin"] += 1

    return wrapper


def instrument() -> None:
    from playwright.async_api import Page

    import agent.browser.snapshot as snapshot
    import agent.simulation.run as simulation
    import agent.simulation.twin_session as session

    for name, phase in (
        ("open_page", "open"),
        ("perform", "action"),
        ("settle", "settle"),
        ("_decide", "decision"),
        ("_screenshot", "screenshot"),
        ("target_box", "screenshot"),
        ("with_element_boxes", "screenshot"),
    ):
        if hasattr(session, name):
            setattr(session, name, timed(phase, getattr(session, name)))
    snapshot.SnapshotTaker.take = timed("read", snapshot.SnapshotTaker.take)
    Page.screenshot = timed("screenshot", Page.screenshot)
    for module in (simulation, session):
        if hasattr(module, "run_twin"):
            module.run_twin = timed_twin(module.run_twin)


def _pss_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


class MemorySampler(threading.Thread):
    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.stop = threading.Event()
        self.peak_total_kb = 0
        self.renderer_kb: list[int] = []
        self.renderers_peak = 0
        self.cpu_s: dict[int, tuple[str, float]] = {}  # pid -> (kind, CPU seconds last seen)

    def run(self) -> None:
        while not self.stop.wait(0.2):
            processes = tree_readings(os.getpid())
            self.cpu_s.update(processes)
            sizes = {pid: _pss_kb(pid) for pid, (kind, _) in processes.items() if kind.startswith("chromium")}
            renderers = [sizes[pid] for pid, (kind, _) in processes.items() if kind == "chromium_renderer"]
            self.peak_total_kb = max(self.peak_total_kb, sum(sizes.values()))
            self.renderers_peak = max(self.renderers_peak, len([kb for kb in renderers if kb]))
            self.renderer_kb.extend(kb for kb in renderers if kb)


def main() -> None:
    data_dir, url, ids, steps, seed, concurrency = sys.argv[1:7]
    os.environ["TWINSIM_DATA_DIR"] = data_dir
    from agent.simulation import SimulationConfig, run_simulation
    from service.container import build_services
    from service.settings import Settings

    services = build_services(Settings(data_dir=Path(data_dir)), warm=True)
    config = SimulationConfig(
        url=url,
        persona_ids=ids.split(","),
        max_steps=int(steps),
        seed=int(seed),
        **({"concurrency": int(concurrency)} if int(concurrency) else {}),
    )
    personas = [services.store.get_persona(pid) for pid in config.persona_ids]
    instrument()
    sampler = MemorySampler()
    sampler.start()
    started, cpu_started = time.perf_counter(), time.process_time()
    allowed = None if os.environ.get("PROFILE_NO_GUARD") else services.settings.host_allow_list  # as the CLI does
    result = asyncio.run(run_simulation(config, personas, services.graph, allowed=allowed))
    seconds = time.perf_counter() - started
    sampler.stop.set()
    sampler.join()
    taken = sum(len(t.steps) for t in result.traces)
    per_step = {phase: round(1000 * totals[phase] / max(taken, 1), 1) for phase in PHASES}
    per_step["other"] = round(1000 * (totals["twin"] - sum(totals[p] for p in PHASES)) / max(taken, 1), 1)
    renderer = sorted(sampler.renderer_kb)
    cpu = {"python": round(time.process_time() - cpu_started, 1)}
    for kind, used in by_kind(sampler.cpu_s).items():
        cpu[kind] = round(cpu.get(kind, 0.0) + used, 1)
    print(
        json.dumps(
            {
                "seconds": round(seconds, 2),
                "steps": taken,
                "steps_per_second": round(taken / seconds, 2),
                "concurrency": config.concurrency,
                "ms_per_step": per_step,
                "calls": {p: counts[p] for p in PHASES},
                "share": {p: round(v / max(sum(per_step.values()), 1e-9), 3) for p, v in per_step.items()},
                "cpu_seconds": cpu,
                "cpu_ms_per_step": round(1000 * sum(cpu.values()) / max(taken, 1), 1),
                "memory": {
                    "chromium_peak_pss_mb": round(sampler.peak_total_kb / 1024, 1),
                    "renderers_at_once_peak": sampler.renderers_peak,
                    "per_context_renderer_pss_mb_p50": round(renderer[len(renderer) // 2] / 1024, 1)
                    if renderer
                    else None,
                    "per_context_renderer_pss_mb_max": round(renderer[-1] / 1024, 1) if renderer else None,
                },
            }
        )
    )


if __name__ == "__main__":
    main()
