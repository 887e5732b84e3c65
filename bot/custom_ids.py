"""One custom_id scheme for every component: `sh:<table>:<version>:<verb>[:<arg>]`.

The version is the table's state counter when the component was drawn, so a click on an
old message is recognised as stale. No custom_id ever names a card: face-down cards go by
position, plays and setup choices by index into the player's own list for that version.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

PREFIX = "sh"
# The part of a custom_id after the prefix, as a DynamicItem template.
TEMPLATE = (
    rf"{PREFIX}:(?P<table>[a-z0-9]{{1,12}}):(?P<version>\d{{1,9}}):"
    r"(?P<verb>[a-z_]{1,16})(?::(?P<arg>[0-9.]{1,60}))?"
)
_PATTERN = re.compile(TEMPLATE)
MAX_LENGTH = 100


@dataclass(frozen=True, slots=True)
class ComponentId:
    """What a component's custom_id says: which table, when, what to do."""

    table: str
    version: int
    verb: str
    arg: str | None = None

    def encode(self) -> str:
        """Write the custom_id."""
        text = f"{PREFIX}:{self.table}:{self.version}:{self.verb}"
        if self.arg is not None:
            text += f":{self.arg}"
        if len(text) > MAX_LENGTH or _PATTERN.fullmatch(text) is None:
            raise ValueError(f"not a valid custom_id: {text!r}")
        return text

    @property
    def numbers(self) -> tuple[int, ...]:
        """Read the argument as dot-separated indexes (empty when there is none)."""
        if not self.arg:
            return ()
        return tuple(int(part) for part in self.arg.split(".") if part)


def parse(custom_id: str) -> ComponentId | None:
    """Read a custom_id of this scheme, or None."""
    match = _PATTERN.fullmatch(custom_id)
    if match is None:
        return None
    return ComponentId(match["table"], int(match["version"]), match["verb"], match["arg"])
