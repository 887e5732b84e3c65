"""The pictures' one font, the characters it can draw, and text cut to a width."""

from __future__ import annotations

import logging
import threading
import unicodedata
from collections import OrderedDict
from collections.abc import Hashable
from functools import lru_cache
from importlib import resources
from io import BytesIO
from typing import Any

from PIL import Image, ImageDraw, ImageFont

log = logging.getLogger(__name__)

FONT_FILE = "DejaVuSansCondensed-Bold.ttf"
ELLIPSIS = "…"
# A character far outside every script the font holds: it draws as the "missing" box.
_MISSING = "\U0010fff0"

Font = ImageFont.FreeTypeFont
Mask = tuple[Any, tuple[int, int]]
# The text bitmaps kept, in bytes (a byte a pixel): names, counts and words recur from one
# picture to the next, and rasterizing them was half of drawing a table.
MASK_BYTES = 4_000_000


class _Masks:
    """The text bitmaps drawn lately, the least recently used dropped past `MASK_BYTES`."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.size = 0
        self._kept: OrderedDict[Hashable, tuple[Mask, int]] = OrderedDict()
        self._lock = threading.Lock()  # pictures are drawn in worker threads

    def get(self, key: Hashable) -> Mask | None:
        """Return a kept bitmap (and mark it used), or None."""
        with self._lock:
            found = self._kept.get(key)
            if found is None:
                return None
            self._kept.move_to_end(key)
            return found[0]

    def put(self, key: Hashable, mask: Mask) -> None:
        """Keep a bitmap, dropping the least recently used ones past the limit."""
        width, height = mask[0].size
        cost = max(width * height, 1)
        with self._lock:
            if key in self._kept:
                return
            self._kept[key] = (mask, cost)
            self.size += cost
            while self.size > self.limit and self._kept:
                _, (_, dropped) = self._kept.popitem(last=False)
                self.size -= dropped


_masks = _Masks(MASK_BYTES)


# Text widths kept per font size: names, counts and words are measured for every picture
# (to cut them to their room), and measuring shapes the text anew each time.
LENGTHS_KEPT = 8192


class _Face(ImageFont.FreeTypeFont):
    """The pictures' font, drawing each text bitmap once while it is kept (`_masks`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._lengths: dict[tuple[str, str], float] = {}

    def getlength(self, text: str | bytes, mode: str = "", *args: Any, **kwargs: Any) -> float:
        """Return a text's advance width in pixels, as Pillow measures it: kept, or measured."""
        if args or kwargs or not isinstance(text, str):
            return super().getlength(text, mode, *args, **kwargs)
        key = (text, mode)
        found = self._lengths.get(key)
        if found is None:
            found = super().getlength(text, mode)
            if len(self._lengths) >= LENGTHS_KEPT:
                self._lengths.clear()  # a rare reset keeps this cheap and bounded
            self._lengths[key] = found
        return found

    def getmask2(self, text: str | bytes, mode: str = "", *args: Any, **kwargs: Any) -> Mask:
        """Return the bitmap of a text, as Pillow draws it: kept, or drawn and kept."""
        if mode == "RGBA":  # colour glyphs come back to be written on: never shared
            return super().getmask2(text, mode, *args, **kwargs)
        try:
            key = (self.size, text, mode, args, tuple(sorted(kwargs.items())))
            hash(key)
        except TypeError:
            return super().getmask2(text, mode, *args, **kwargs)
        found = _masks.get(key)
        if found is None:
            found = super().getmask2(text, mode, *args, **kwargs)
            _masks.put(key, found)
        return found


@lru_cache(maxsize=1)
def _font_bytes() -> bytes | None:
    """Read the shipped font, or None when the package was installed without it."""
    try:
        return (resources.files("bot.pictures") / "fonts" / FONT_FILE).read_bytes()
    except OSError:
        log.warning("%s is missing: pictures fall back to Pillow's ASCII font", FONT_FILE)
        return None


@lru_cache(maxsize=64)
def font(size: int) -> Font:
    """Return the pictures' font at `size` pixels."""
    data = _font_bytes()
    if data is not None:
        return _Face(BytesIO(data), size)
    fallback = ImageFont.load_default(size=size)
    if not isinstance(fallback, ImageFont.FreeTypeFont):
        raise RuntimeError("drawing pictures needs Pillow built with FreeType")
    return fallback


@lru_cache(maxsize=1)
def _missing() -> bytes:
    """Draw the missing-glyph box."""
    return _glyph(_MISSING)


def _glyph(character: str) -> bytes:
    """Draw one character at a fixed size, to compare it with the missing-glyph box."""
    image = Image.new("L", (48, 48))
    ImageDraw.Draw(image).text((8, 8), character, font=font(24), fill=255)
    return image.tobytes()


@lru_cache(maxsize=4096)
def drawable(character: str) -> bool:
    """Say whether the font draws `character` (rather than the missing-glyph box)."""
    if character == " ":
        return True
    if unicodedata.category(character)[0] in "CZ":
        return False
    return _glyph(character) != _missing()


def printable(text: str) -> str:
    """Keep the characters the font can draw; runs of spaces left behind become one."""
    kept = "".join(c for c in unicodedata.normalize("NFC", text) if drawable(c))
    return " ".join(kept.split())


def clipped(text: str, face: Font, width: float) -> str:
    """Cut `text` to `width` pixels, ending with "…" when it had to be cut."""
    if face.getlength(text) <= width:
        return text
    low, high = 0, len(text)
    # The longest prefix that still fits with the ellipsis, by bisection.
    while low < high:
        middle = (low + high + 1) // 2
        if face.getlength(text[:middle].rstrip() + ELLIPSIS) <= width:
            low = middle
        else:
            high = middle - 1
    return text[:low].rstrip() + ELLIPSIS
