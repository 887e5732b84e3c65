"""One custom_id scheme for every table component: `sh:<table>:<version>:<verb>[:<arg>]`.

The version is the seat's view version when the component was drawn (0 on the table
message), so a click on an old message is recognised as stale. No custom_id ever names a
card: face-down cards go by position, plays and setup choices by index into the player's
own lists for that version (`tables.controls`).
"""

from __future__ import annotations

import re
from functools import lru_cache

PREFIX = "sh"
MAX_LENGTH = 100
_TABLE = r"(?P<table>[a-z0-9]{1,12})"
_VERSION = r"(?P<version>\d{1,9})"
# A version is written in 1 to 9 digits.
_VERSIONS = 10**9
# What an argument may be: dot-separated indexes.
ARG = r"[0-9.]{1,60}"


def template(verbs: tuple[str, ...], arg: str | None = None) -> str:
    """Write the DynamicItem template for components of these verbs (and argument shape)."""
    alternatives = "|".join(re.escape(verb) for verb in verbs)
    text = rf"{PREFIX}:{_TABLE}:{_VERSION}:(?P<verb>{alternatives})"
    if arg is not None:
        text += rf"(?::(?P<arg>{arg}))?"
    return text


def encode(table_id: str, version: int, verb: str, arg: str | None = None) -> str:
    """Write a custom_id of the scheme."""
    text = prefix(table_id, version) + verb
    if arg is not None:
        text += f":{arg}"
    # The parts checked one by one, as the template reads each back (the verb is read as
    # itself); an argument recurs on every redraw, so its check is kept.
    if (arg is not None and not _valid_arg(arg)) or len(text) > MAX_LENGTH:
        raise ValueError(f"not a valid custom_id: {text!r}")
    return text


def prefix(table_id: str, version: int) -> str:
    """Write what a table's components of one version begin with: `sh:<table>:<version>:`."""
    # Checked as the template reads them back; a table's id recurs on every redraw, so its
    # check is kept.
    if type(version) is not int or not 0 <= version < _VERSIONS or not _valid_table(table_id):
        raise ValueError(f"not a valid custom_id start: {table_id!r}, {version!r}")
    return f"{PREFIX}:{table_id}:{version}:"


@lru_cache(maxsize=4096)
def _valid_table(table_id: str) -> bool:
    """Say whether a table's id is one a custom_id may name."""
    return re.fullmatch(_TABLE, table_id) is not None


@lru_cache(maxsize=4096)
def _valid_arg(arg: str) -> bool:
    """Say whether an argument is one a custom_id may carry."""
    return re.fullmatch(ARG, arg) is not None


def table_of(custom_id: str) -> str | None:
    """Say which table a custom_id of the scheme names (None for another component)."""
    found = re.match(rf"{PREFIX}:{_TABLE}:", custom_id)
    return found["table"] if found else None


def numbers(arg: str | None) -> tuple[int, ...]:
    """Read an argument of dot-separated indexes (empty when there is none)."""
    if not arg:
        return ()
    # Most arguments are one index (a play, a pick-up, a menu's part): read without a split.
    if "." not in arg:
        return (int(arg),)
    return tuple(int(part) for part in arg.split(".") if part)
