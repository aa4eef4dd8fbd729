"""Peak memory of the service under 16 concurrent /predict carrying a screenshot at the pixel cap, for the embedded
brain (which never looks at screenshots). Writes benchmarks/results/screenshot_memory.json.

Why: a probe of the running service saw 16 such requests raise its memory from 866 to 1,418 MB, every screenshot
decoded in full for a brain that ignores it. A screenshot is now checked from its header (format, pixels, bytes)
and decoded only for a brain that looks at it (agent/screenshots.py); this measures that on a real uvicorn
process with one OPeRA persona stored (Wang et al. 2025, arXiv 2506.05606, CC-BY-4.0).

The image is the probe's: 5000x5000 16-bit grayscale PNG (25 Mpx, the default cap), a few hundred KB on the wire,
about 50 MB once decoded. The same 16-at-once load runs twice, without and then with the screenshot, so the
difference is what the screenshots cost. Memory is the server process's own, read from /proc/<pid>/status:
VmRSS sampled every 10 ms by a thread, and VmHWM (the kernel's peak, reset with /proc/<pid>/clear_refs before
each phase), so a peak between two samples is not missed. Linux only.

Run: .venv/bin/python benchmarks/screenshot_memory.py [--rounds 8] [--concurrency 16]
"""

from __future__ import annotations

import argparse
import base64
import csv
import io
import os
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
from _common import SHARED_OPERA, write_result
from PIL import Image, ImageDraw

from agent.sample_pages import sample_page
from tests.support.service_process import ServiceProcess

SIDE = 5000  # 5000 x 5000 = 25,000,000 pixels: TWINSIM_MAX_SCREENSHOT_PIXELS's default


def cap_png() -> bytes:
    """A 16-bit grayscale PNG at the pixel cap; stripes so it is not a constant, still small on the wire."""
    image = Image.new("I;16", (SIDE, SIDE), 1000)
    draw = ImageDraw.Draw(image)
    for y in range(0, SIDE, 50):
        draw.rectangle((0, y, SIDE, y + 10), fill=40000)
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def status_mb(pid: int, field: str) -> float:
    with open(f"/proc/{pid}/status") as handle:
        for line in handle:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    raise RuntimeError(f"no {field} for process {pid}")


def reset_peak(pid: int) -> bool:
    """Reset the kernel's peak RSS (VmHWM) to the current RSS; False when not permitted (then VmHWM is lifelong)."""
    try:
        with open(f"/proc/{pid}/clear_refs", "w") as handle:
            handle.write("5")
        return True
    except OSError:
        return False


class RssSampler:
    """The highest VmRSS seen every `every_s` while running."""

    def __init__(self, pid: int, every_s: float = 0.01) -> None:
        self.pid, self.every_s, self.peak_mb = pid, every_s, 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak_mb = max(self.peak_mb, status_mb(self.pid, "VmRSS"))
            time.sleep(self.every_s)

    def __enter__(self) -> RssSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()


def load_phase(url: str, body: dict, pid: int, rounds: int, concurrency: int) -> dict:
    """`rounds` x `concurrency` requests, `concurrency` at a time; memory before, at peak and after."""
    before = status_mb(pid, "VmRSS")
    peak_reset = reset_peak(pid)
    statuses: dict[int, int] = {}
    latencies: list[float] = []

    def one(client: httpx.Client) -> None:
        started = time.perf_counter()
        response = client.post("/predict", json=body)
        latencies.append(time.perf_counter() - started)
        statuses[response.status_code] = statuses.get(response.status_code, 0) + 1

    started = time.perf_counter()
    with (
        httpx.Client(base_url=url, timeout=300, limits=httpx.Limits(max_connections=concurrency)) as client,
        RssSampler(pid) as sampler,
        ThreadPoolExecutor(concurrency) as pool,
    ):
        for _ in range(rounds):
            list(pool.map(lambda _: one(client), range(concurrency)))
    wall = time.perf_counter() - started
    time.sleep(1.0)
    return {
        "requests": rounds * concurrency,
        "statuses": {str(k): v for k, v in sorted(statuses.items())},
        "rss_before_mb": round(before, 1),
        "rss_peak_sampled_mb": round(sampler.peak_mb, 1),
        "rss_peak_kernel_mb": round(status_mb(pid, "VmHWM"), 1) if peak_reset else None,
        "rss_after_mb": round(status_mb(pid, "VmRSS"), 1),
        "wall_s": round(wall, 2),
        "mean_latency_s": round(sum(latencies) / len(latencies), 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=8, help="waves of concurrent requests per phase")
    parser.add_argument("--concurrency", type=int, default=16)
    args = parser.parse_args()
    png = cap_png()
    with Image.open(io.BytesIO(png)) as check:
        image_facts = {"format": check.format, "mode": check.mode, "size": list(check.size), "png_bytes": len(png)}
    csv.field_size_limit(10**9)
    with open(SHARED_OPERA / "users_sample.csv", newline="") as users:
        row = next(csv.DictReader(users))
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as data_dir, ServiceProcess({"TWINSIM_DATA_DIR": data_dir}) as service:
        pid = service.pid
        assert pid is not None
        persona = httpx.post(f"{service.url}/personas", json=row, timeout=120)
        persona.raise_for_status()
        body = {
            "persona_id": persona.json()["id"],
            "page": {"simplified_html": sample_page("search_results.html"), "url": "https://www.amazon.com/s?k=cable"},
            "brain": "embedded",
        }
        with httpx.Client(base_url=service.url, timeout=120) as client:  # warm: embedder, recall, page reading
            for _ in range(5):
                client.post("/predict", json=body).raise_for_status()
            shot = {**body, "screenshot": {"base64": base64.b64encode(png).decode("ascii")}}
            checked = client.post("/predict", json=shot)
            checked.raise_for_status()
        without = load_phase(service.url, body, pid, args.rounds, args.concurrency)
        with_shot = load_phase(service.url, shot, pid, args.rounds, args.concurrency)
    peak = "rss_peak_kernel_mb" if with_shot["rss_peak_kernel_mb"] is not None else "rss_peak_sampled_mb"
    write_result(
        "screenshot_memory",
        {
            "command": f"benchmarks/screenshot_memory.py --rounds {args.rounds} --concurrency {args.concurrency}",
            "target": "uvicorn service.api.main:app on 127.0.0.1, embedded brain, one OPeRA persona stored",
            "screenshot": image_facts,
            "screenshot_base64_bytes": len(shot["screenshot"]["base64"]),
            "without_screenshot": without,
            "with_screenshot": with_shot,
            "peak_increase_with_screenshots_mb": round(with_shot[peak] - with_shot["rss_before_mb"], 1),
            "peak_over_the_same_load_without_mb": round(with_shot[peak] - without[peak], 1),
            "load_average_1m_before_after": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        },
    )


if __name__ == "__main__":
    main()
