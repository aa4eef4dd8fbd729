"""A screenshot of the page, however it arrives (live Chromium, a /predict body, OPeRA's `image`, Mind2Web's
`screenshot`), checked the one way: decoded by Pillow, PNG, JPEG or WebP only, within a byte and a pixel cap.

Every screenshot's header is read (Pillow's Image.open reads no pixels): its format, its size in pixels and in
bytes, so a file that is not an image, another format, or a tiny file that would inflate to gigapixels is refused
here with its reason, cheaply. The pixels are decoded only for a screenshot something will look at (`decode=True`:
a vision model is billed for, and a set-of-marks drawing is made on, the decoded picture, so a truncated file must
fail here, before any model call); a brain that never looks (the embedded one) costs no decoding. Decoding a
25 MP image takes up to ~150 MB, so at most DECODES_AT_ONCE run at a time.
"""

from __future__ import annotations

import base64
import binascii
import io
import re
import threading
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_MAX_SCREENSHOT_BYTES = 5_000_000
# A full-page screenshot of a long page (Mind2Web's are 1280 wide and often several thousand tall) fits; a
# decompression bomb does not. 25 MP of RGB is 75 MB decoded.
DEFAULT_MAX_SCREENSHOT_PIXELS = 25_000_000
FORMATS = {"PNG": "image/png", "JPEG": "image/jpeg", "WEBP": "image/webp"}
DECODES_AT_ONCE = 2  # bounds the memory of concurrent full decodes (16 at once once took 550 MB)
_decoding = threading.BoundedSemaphore(DECODES_AT_ONCE)
_DATA_URL = re.compile(r"^data:(?P<mime>[\w.+-]+/[\w.+-]+)?(?:;[\w=.+-]+)*;base64,", re.IGNORECASE)


class ScreenshotRefused(ValueError):
    """Not a usable screenshot; the message says why (for a 4xx, a CLI message or an evaluation note)."""


@dataclass(frozen=True)
class ScreenshotLimits:
    max_bytes: int = DEFAULT_MAX_SCREENSHOT_BYTES
    max_pixels: int = DEFAULT_MAX_SCREENSHOT_PIXELS


DEFAULT_SCREENSHOT_LIMITS = ScreenshotLimits()


@dataclass(frozen=True)
class Screenshot:
    """Verified image bytes with their type and size in pixels."""

    data: bytes = field(repr=False)
    mime: str
    width: int
    height: int

    def data_url(self) -> str:
        """The form OpenAI-style image parts (and litellm, for every provider) take."""
        return f"data:{self.mime};base64,{base64.b64encode(self.data).decode('ascii')}"


def read_screenshot(
    data: bytes, limits: ScreenshotLimits = DEFAULT_SCREENSHOT_LIMITS, *, decode: bool = True
) -> Screenshot:
    """The bytes as a Screenshot, or ScreenshotRefused: empty, over the caps, not an image, another format, or
    (with `decode`, for a screenshot something will look at) an image that does not decode to the end."""
    from PIL import Image, UnidentifiedImageError

    if not data:
        raise ScreenshotRefused("the screenshot is empty")
    if len(data) > limits.max_bytes:
        raise ScreenshotRefused(f"the screenshot is {len(data):,} bytes, over the limit of {limits.max_bytes:,}")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data))
            kind = image.format or "unknown"
            if kind not in FORMATS:
                raise ScreenshotRefused(f"the screenshot is {kind}, not PNG, JPEG or WebP")
            width, height = image.size
            if width * height > limits.max_pixels:
                raise ScreenshotRefused(
                    f"the screenshot is {width}x{height} pixels, over the limit of {limits.max_pixels:,} pixels"
                )
            if decode:
                with _decoding:
                    image.load()  # every pixel: a truncated or corrupt file fails here, not inside a model call
                image.close()
    except ScreenshotRefused:
        raise
    except UnidentifiedImageError:
        raise ScreenshotRefused("the screenshot is not an image Pillow can read (expected PNG, JPEG or WebP)") from None
    except (Image.DecompressionBombWarning, Image.DecompressionBombError) as error:
        raise ScreenshotRefused(f"the screenshot is too many pixels ({error})") from None
    except (OSError, SyntaxError, ValueError) as error:  # what Pillow raises for broken files
        raise ScreenshotRefused(f"the screenshot does not decode: {str(error)[:200]}") from None
    return Screenshot(data=data, mime=FORMATS[kind], width=width, height=height)


def decode_base64(
    text: str, limits: ScreenshotLimits = DEFAULT_SCREENSHOT_LIMITS, *, decode: bool = True
) -> Screenshot:
    """Plain base64 or a data: URL, checked as read_screenshot checks bytes. The text is measured before it is
    decoded, so an oversized body never becomes an oversized buffer."""
    text = text.strip()
    match = _DATA_URL.match(text)
    if match:
        text = text[match.end() :]
    elif text.startswith("data:"):
        raise ScreenshotRefused("a data: URL screenshot must be base64 (data:image/png;base64,...)")
    if len(text) > (limits.max_bytes + 2) // 3 * 4 + 4:
        raise ScreenshotRefused(f"the screenshot is over the limit of {limits.max_bytes:,} bytes")
    try:
        data = base64.b64decode("".join(text.split()), validate=True)
    except (binascii.Error, ValueError):
        raise ScreenshotRefused("the screenshot is not valid base64") from None
    return read_screenshot(data, limits, decode=decode)


def cell_bytes(value: object, base_dir: Path | None = None) -> bytes | None:
    """The image bytes of a dataset cell, in the shapes the releases use: Hugging Face's image struct
    ({"bytes": ..., "path": ...}, OPeRA's `image` and Mind2Web's `screenshot` in parquet), raw bytes, base64 text
    (a JSONL copy), or a path (relative to the table's folder). None when the cell holds no image."""
    if value is None:
        return None
    if isinstance(value, Mapping):
        raw = value.get("bytes")
        if raw:
            return bytes(raw)
        path = value.get("path")
        return cell_bytes(path, base_dir) if isinstance(path, str) and path else None
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value) or None
    if isinstance(value, str) and value.strip():
        text = value.strip()
        if _DATA_URL.match(text) or len(text) > 512:
            match = _DATA_URL.match(text)
            try:
                return base64.b64decode("".join(text[match.end() if match else 0 :].split()), validate=True)
            except (binascii.Error, ValueError):
                return None
        candidate = Path(text) if base_dir is None or Path(text).is_absolute() else base_dir / text
        try:
            return candidate.read_bytes() if candidate.is_file() else None
        except OSError:
            return None
    return None
