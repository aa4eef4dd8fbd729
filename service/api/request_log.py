"""Structured logs: one JSON object per line on stdout, ready for any log shipper.

Every request leaves one `twinsim.access` record (method, path, route, status, latency_ms, request_id,
client); errors carry their traceback in the log, never in the response.
"""

from __future__ import annotations

import logging
import sys
from typing import TextIO

from pythonjsonlogger.core import RESERVED_ATTRS
from pythonjsonlogger.json import JsonFormatter

LOGGER = "twinsim"
ACCESS_LOGGER = "twinsim.access"


# litellm marks every log record it has redacted with this attribute (an object() sentinel): not ours to log.
_NOT_FIELDS = [*RESERVED_ATTRS, "litellm_redacted"]


def json_formatter() -> JsonFormatter:
    return JsonFormatter(
        "%(asctime)s %(levelname)s %(name)s %(message)s",
        reserved_attrs=_NOT_FIELDS,
        rename_fields={"asctime": "time", "levelname": "level", "name": "logger"},
    )


class StdoutHandler(logging.StreamHandler):
    """Writes to whatever `sys.stdout` is at the moment (test runners and servers swap it)."""

    twinsim_json = True  # the mark configure_logging finds its own handler by

    def __init__(self) -> None:
        super().__init__()

    @property
    def stream(self) -> TextIO:
        return sys.stdout

    @stream.setter
    def stream(self, _value) -> None:
        pass


def configure_logging(level: str = "info") -> logging.Logger:
    """Give the `twinsim` logger one JSON handler on stdout (idempotent: apps built twice share it)."""
    logger = logging.getLogger(LOGGER)
    if not any(getattr(handler, "twinsim_json", False) for handler in logger.handlers):
        handler = StdoutHandler()
        handler.setFormatter(json_formatter())
        handler.twinsim_json = True
        logger.addHandler(handler)
        logger.propagate = False
    logger.setLevel(level.upper())
    return logger


def uvicorn_log_config(level: str = "info") -> dict:
    """uvicorn's own lines (start-up, shutdown, errors) as JSON too; its access log is off (the app writes one)."""
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": {"()": json_formatter}},
        "handlers": {"stdout": {"()": StdoutHandler, "formatter": "json"}},
        "loggers": {
            "uvicorn": {"handlers": ["stdout"], "level": level.upper(), "propagate": False},
            "uvicorn.error": {"level": level.upper()},
            "uvicorn.access": {"handlers": [], "level": "WARNING", "propagate": False},
        },
    }
