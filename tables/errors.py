"""Refusals of the table core: a stable code and the parameters its words need."""

from __future__ import annotations

from typing import Any


class TableError(Exception):
    """A request refused; the shell puts `code` and `params` into the asker's words."""

    def __init__(self, code: str, **params: Any) -> None:
        super().__init__(code, params)
        self.code = code
        self.params = params

    def __repr__(self) -> str:
        return f"TableError({self.code!r}, **{self.params!r})"
