"""Pictures of the table and of a hand, drawn with Pillow from a snapshot.

`table_picture` shows what a spectator sees; `hand_picture` what one seat sees of its own
cards. Each comes with a key of what it shows, known before anything is drawn, so the
presenter uploads a picture again only when its key changed (`picture_key` gives the key
alone). The JPEG is drawn when `Picture.data` is first read.

Pillow (with the scenes and fonts that need it) is imported on the first picture asked
for: a bot with pictures off never loads it (about 4 MB).
"""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

import discord

from tables.outcome import Snapshot

TABLE_FILE = "table.jpg"
HAND_FILE = "hand.jpg"


class _Upload(io.BytesIO):
    """A picture's bytes for one upload, which go as soon as the upload is done.

    `discord.File` stubs `close` on what it sends and, once sent, puts the real one back as
    an attribute (`fp.close = <fp's own close>`): on a plain `BytesIO` that is a reference
    cycle, which kept every sent picture's JPEG until the collector's next full pass (over
    a hundred MB with pictures on at 50 tables). Here putting it back drops the stub instead.
    """

    def __setattr__(self, name: str, value: object) -> None:
        if name == "close" and getattr(value, "__self__", None) is self:
            self.__dict__.pop("close", None)  # the class's own `close` shows through again
            return
        super().__setattr__(name, value)


@dataclass(frozen=True)
class Picture:
    """A picture to attach: its file name, the key of what it shows, its JPEG when read."""

    filename: str
    key: str
    draw: Callable[[], bytes] = field(repr=False, compare=False)

    @cached_property
    def data(self) -> bytes:
        """Draw the JPEG (once; later reads return the same bytes)."""
        return self.draw()

    @property
    def url(self) -> str:
        """Name the picture inside its message, for `Embed.set_image`."""
        return f"attachment://{self.filename}"

    def file(self) -> discord.File:
        """Make a new `discord.File` of the picture (a file can be sent only once)."""
        return discord.File(_Upload(self.data), filename=self.filename)


def table_picture(snapshot: Snapshot, locale: str) -> Picture | None:
    """Picture the table as everyone sees it; None while there is no game."""
    from bot.pictures.draw import draw_table, encode
    from bot.pictures.scenes import fingerprint, table_scene

    scene = table_scene(snapshot, locale)
    if scene is None:
        return None
    return Picture(TABLE_FILE, fingerprint("table", scene), lambda: encode(draw_table(scene)))


def hand_picture(snapshot: Snapshot, seat: int, locale: str) -> Picture | None:
    """Picture a seat's own cards; None when the seat has no view (no game, not a member)."""
    from bot.pictures.draw import draw_hand, encode
    from bot.pictures.scenes import fingerprint, hand_scene

    scene = hand_scene(snapshot, seat, locale)
    if scene is None:
        return None
    return Picture(HAND_FILE, fingerprint("hand", scene), lambda: encode(draw_hand(scene)))


def picture_key(snapshot: Snapshot, seat: int | None, locale: str) -> str:
    """Key the table picture (`seat` None) or a seat's hand picture without drawing it."""
    from bot.pictures.scenes import fingerprint, hand_scene, table_scene

    # Without a picture (no game, no view of that seat) the key is the empty string.
    scene = table_scene(snapshot, locale) if seat is None else hand_scene(snapshot, seat, locale)
    if scene is None:
        return ""
    return fingerprint("table" if seat is None else "hand", scene)


__all__ = ["Picture", "hand_picture", "picture_key", "table_picture"]
