"""Refusals: a stable code for programs, a plain message for people."""

from __future__ import annotations

from enum import StrEnum


class ErrorCode(StrEnum):
    """Why an action was refused, in the order of precedence the spec gives."""

    INVALID = "invalid"
    WRONG_PHASE = "wrong_phase"
    NOT_YOUR_TURN = "not_your_turn"
    NOT_HELD = "not_held"
    MIXED_RANKS = "mixed_ranks"
    CANNOT_BEAT = "cannot_beat"
    PICKUP_NOT_ALLOWED = "pickup_not_allowed"


class IllegalAction(Exception):
    """`apply` refused an action and changed nothing."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
