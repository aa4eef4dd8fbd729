"""A screenshot sent to POST /predict: base64 bytes, or the address of a screenshot this service itself took during
one of the caller's simulations. Nothing is ever fetched from a URL: an address is only mapped to a file under
that simulation's output directory, and any other address is refused with the reason.

Both forms end in agent/screenshots.py's checks (PNG, JPEG or WebP; within the byte and pixel caps, read from the
header; decoded in full when the brain will look at it), so a bad image is a 422 that says what is wrong, before
any model is called.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlparse

from fastapi import HTTPException, status

from agent.screenshots import (
    Screenshot,
    ScreenshotLimits,
    ScreenshotRefused,
    decode_base64,
    read_screenshot,
)
from service.jobs.simulation_jobs import SimulationJobs

SCREENSHOT_FILE = re.compile(r"^step_\d{3,6}\.png$")
_SEGMENT = re.compile(r"^[A-Za-z0-9_.\-]{1,128}$")
OWN_SCREENSHOT_PATH = re.compile(
    r"^/simulations/(?P<simulation>[A-Za-z0-9]{1,64})/screenshots/(?P<persona>[^/]+)/"
    r"(?P<file>[^/]+)$"
)
OWN_ONLY = (
    "only screenshots of this service's own simulations can be named by URL "
    "(/simulations/{id}/screenshots/{persona}/step_NNN.png, as a path or on this service's own address); "
    "send any other image as base64"
)


def unprocessable(reason: str) -> HTTPException:
    return HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, f"screenshot: {reason}")


def simulation_screenshot_file(jobs: SimulationJobs, simulation_id: str, persona_id: str, file_name: str) -> Path:
    """The file of a screenshot a simulation of the caller's tenant took; HTTPException 404 when there is none."""
    job = jobs.get(simulation_id)
    if job is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"simulation '{simulation_id}' not found")
    if not _SEGMENT.match(persona_id) or persona_id in (".", "..") or not SCREENSHOT_FILE.match(file_name):
        raise HTTPException(
            status.HTTP_404_NOT_FOUND,
            f"no screenshot {persona_id}/{file_name} in simulation "
            f"'{simulation_id}' (files are screenshots/<persona>/step_NNN.png)",
        )
    root = (job.out_dir / "screenshots").resolve()
    path = (root / persona_id / file_name).resolve()
    if not path.is_relative_to(root) or not path.is_file():
        raise HTTPException(
            status.HTTP_404_NOT_FOUND,
            f"no screenshot {persona_id}/{file_name} in simulation "
            f"'{simulation_id}' (was it run with screenshots: true?)",
        )
    return path


def own_screenshot(
    url: str, jobs: SimulationJobs, own_netloc: str, limits: ScreenshotLimits, decode: bool = True
) -> Screenshot:
    """The screenshot a URL names, when it names one of this service's own; else a 422 saying what is accepted."""
    try:
        parsed = urlparse(url.strip())
        parsed.port  # noqa: B018 - raises for a port that is not a number
    except ValueError as error:  # "http://[::1", "http://host:port"
        raise unprocessable(f"{url[:200]!r} is not a URL ({error}); {OWN_ONLY}") from None
    if (parsed.scheme or parsed.netloc) and (
        parsed.scheme not in ("http", "https") or parsed.netloc.lower() != own_netloc.lower()
    ):
        raise unprocessable(f"{url[:200]!r} is not on this service; {OWN_ONLY}")
    if parsed.query or parsed.fragment:
        raise unprocessable(f"{url[:200]!r} has a query or fragment; {OWN_ONLY}")
    match = OWN_SCREENSHOT_PATH.match(parsed.path)
    if match is None:
        raise unprocessable(f"{url[:200]!r} is not a simulation screenshot; {OWN_ONLY}")
    path = simulation_screenshot_file(jobs, match["simulation"], match["persona"], match["file"])
    if path.stat().st_size > limits.max_bytes:
        raise unprocessable(f"the file is over the limit of {limits.max_bytes:,} bytes")
    try:
        return read_screenshot(path.read_bytes(), limits, decode=decode)
    except ScreenshotRefused as error:
        raise unprocessable(str(error)) from None


def request_screenshot(
    base64_text: str | None,
    url: str | None,
    jobs: SimulationJobs,
    own_netloc: str,
    limits: ScreenshotLimits,
    decode: bool = True,
) -> Screenshot | None:
    """The screenshot checked (agent/screenshots.py); its pixels decoded only with `decode` (a brain will look)."""
    if base64_text is not None:
        try:
            return decode_base64(base64_text, limits, decode=decode)
        except ScreenshotRefused as error:
            raise unprocessable(str(error)) from None
    if url is not None:
        return own_screenshot(url, jobs, own_netloc, limits, decode)
    return None
