"""One BLAS kernel for calibration on every x86-64 machine, so `twinsim calibrate` writes the same bytes.

Why: OpenBLAS picks its kernels by CPU at load time, and the AVX-512 ones (SkylakeX, chosen on recent Intel and
AMD EPYC) sum in another order than the AVX2 ones (Haswell, Zen): the same fit then differs in the fifth
decimal of a few weights (measured: 6 of the shipped file's numbers). Pinning the AVX2 kernel, which every
x86-64 CPU with AVX2 runs, makes the shipped parameters reproducible byte for byte. The choice has to be made
before numpy loads OpenBLAS, so this module imports nothing numeric.
"""

from __future__ import annotations

import os
import platform
import sys
from pathlib import Path

CALIBRATION_KERNEL = "Haswell"


def _cpu_has_avx2() -> bool:
    try:
        return " avx2" in Path("/proc/cpuinfo").read_text()
    except OSError:
        return False


def pin_calibration_kernel() -> str | None:
    """Ask OpenBLAS for the AVX2 kernel if it is not loaded yet; returns the kernel asked for, or None when
    that is not possible here (numpy already loaded, not x86-64 Linux, no AVX2): the fit is then still
    correct, and equal to the shipped one to about five decimals."""
    if "numpy" in sys.modules or platform.machine() not in ("x86_64", "AMD64") or not _cpu_has_avx2():
        return None
    os.environ["OPENBLAS_CORETYPE"] = CALIBRATION_KERNEL
    return CALIBRATION_KERNEL
