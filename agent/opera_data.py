"""Where the OPeRA data is (Wang et al. 2025, arXiv 2506.05606, CC-BY-4.0): one answer for calibration,
the demo, the benchmarks and the tests, so they never read different copies."""

from __future__ import annotations

import os
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[1]


def opera_data_dir() -> Path:
    """The OPeRA data folder: timelines.jsonl, personas.jsonl, users_sample.csv (raw pages are in ../pages).

    $TWINSIM_OPERA_DATA names the folder itself; else $TWINSIM_SHARED_DIR names the shared folder that holds
    it as data/opera; else it is ../shared/data/opera beside the repository. The first wins when both are
    set. Read at each call, so a test or a shell can point it elsewhere.
    """
    folder = os.environ.get("TWINSIM_OPERA_DATA")
    if folder:
        return Path(folder)
    shared = os.environ.get("TWINSIM_SHARED_DIR")
    return Path(shared or REPOSITORY.parent / "shared") / "data" / "opera"
