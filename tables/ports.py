"""What the core needs from outside: somewhere to keep tables, someone to tell of outcomes."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Protocol

import orjson

from tables.model import Table
from tables.outcome import Outcome


def state_text(table: Table) -> str:
    """Write a table's state as the store keeps it: its JSON, compact."""
    return orjson.dumps(table.to_json()).decode()


def table_from_text(text: str) -> Table:
    """Read a table from the store's text (a `ValueError` when it cannot be read)."""
    return Table.from_json(orjson.loads(text))


@dataclass(frozen=True)
class StoredState:
    """A running table as stored: its id and its JSON text, read once when first asked."""

    table_id: str
    text: str

    @cached_property
    def table(self) -> Table:
        """Read the table (a `ValueError` when it cannot be read); later asks get the same."""
        return table_from_text(self.text)


class TableStore(Protocol):
    """Where tables are kept between actions and recorded at the end.

    A write either happens whole or raises; the core then puts the table back as stored.
    """

    async def save(self, table: Table, text: str) -> None:
        """Write a running table's state (`text` is `state_text(table)`)."""

    async def end(self, table: Table, text: str) -> None:
        """Keep an ended table's final state a while; record its game if it has a result."""

    async def load(self) -> list[StoredState]:
        """Read every running table that is not marked unreadable."""

    async def load_ended(self) -> list[StoredState]:
        """Read the tables that ended lately (a day), to show their end and offer a rematch."""

    async def mark_unreadable(self, table_id: str, reason: str) -> None:
        """Set a table that cannot be read aside, with the reason, so start-up skips it."""


class OutcomeSink(Protocol):
    """The shell: told of every outcome, so it can redraw and notify (never calls back)."""

    def published(self, outcome: Outcome) -> None:
        """Take an outcome (soon drawn, coalesced with later ones)."""
