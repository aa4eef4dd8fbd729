"""CPU seconds of a process tree by kind of process (the Python process, Playwright's driver, Chromium's browser,
renderer, GPU and network processes), read from /proc.

Why not getrusage(RUSAGE_CHILDREN): it counts only children that were waited for, and Chromium's renderers are
reaped by its zygote, not by the CLI that started the browser, so most of a live run's browser work went uncounted.
A sampler that reads the tree every quarter second while the run goes keeps each process's last reading; what a
process spends in its last quarter second before it exits is missed (at most 0.25 s a process).
"""

from __future__ import annotations

import os
import resource
import threading

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def _kind(pid: int, name: str) -> str:
    if name.startswith("node"):
        return "playwright_driver"
    if name.startswith("python"):
        return "python"
    if not name.startswith("chromium"):  # chromium, or chromium-headless-shell (the name is cut: "chromium-headle")
        return "other"
    try:  # Chromium rewrites its children's command lines with spaces, not NULs
        with open(f"/proc/{pid}/cmdline") as cmdline:
            words = cmdline.read().replace("\0", " ").split()
    except OSError:
        return "chromium"
    if not words:  # a Chromium child whose command line reads empty (seen for short-lived children of the browser)
        return "chromium_unlabelled"
    kind = next((w.removeprefix("--type=") for w in words if w.startswith("--type=")), "browser")
    if kind == "utility":
        sub = next((w.split("=", 1)[1] for w in words if w.startswith("--utility-sub-type=")), "")
        kind = "network" if "network" in sub else "utility"
    return f"chromium_{kind.removesuffix('-process')}"


def tree_readings(root: int) -> dict[int, tuple[str, float]]:
    """pid -> (kind, CPU seconds so far) for `root` and every process below it."""
    children: dict[int, list[tuple[int, str, float]]] = {}
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{entry}/stat") as stat_file:
                stat = stat_file.read()
        except OSError:
            continue
        name = stat[stat.index("(") + 1 : stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2 :].split()
        children.setdefault(int(fields[1]), []).append(
            (int(entry), name, (int(fields[11]) + int(fields[12])) / CLOCK_TICKS)
        )
    found: dict[int, tuple[str, float]] = {}
    todo = [root]
    while todo:
        for pid, name, seconds in children.get(todo.pop(), []):
            found[pid] = (_kind(pid, name), seconds)
            todo.append(pid)
    return found


def by_kind(readings: dict[int, tuple[str, float]]) -> dict[str, float]:
    totals: dict[str, float] = {}
    for kind, seconds in readings.values():
        totals[kind] = totals.get(kind, 0.0) + seconds
    return totals


def own_tree_cpu() -> dict[str, float]:
    """This process ("benchmark") and everything it started, by kind, now."""
    used = resource.getrusage(resource.RUSAGE_SELF)
    return {"benchmark": used.ru_utime + used.ru_stime, **by_kind(tree_readings(os.getpid()))}


class TreeSampler:
    """`with TreeSampler(pid) as cpu:` ... `cpu.totals()`: the CPU a started process and its descendants used, by
    kind, read every quarter second until the block ends."""

    def __init__(self, root: int, every_s: float = 0.25) -> None:
        self.root, self.every_s = root, every_s
        self._last: dict[int, tuple[str, float]] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while True:
            readings = tree_readings(self.root)
            try:
                with open(f"/proc/{self.root}/stat") as stat_file:
                    fields = stat_file.read().rsplit(")", 1)[1].split()
                readings[self.root] = ("cli", (int(fields[11]) + int(fields[12])) / CLOCK_TICKS)
            except OSError:
                pass
            self._last.update(readings)
            if self._stop.wait(self.every_s):
                return

    def __enter__(self) -> TreeSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def totals(self) -> dict[str, float]:
        return {kind: round(seconds, 2) for kind, seconds in sorted(by_kind(self._last).items())}
