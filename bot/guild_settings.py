"""A server's house rules and table settings, and parsing what moderators type into them."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from engine.rules import RuleSet, make_rules

TURN_SECONDS_RANGE = (15, 3600)
IDLE_TURNS_RANGE = (1, 20)


class GuildSettings(BaseModel):
    """One server's preset, its option overrides and its table settings."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    preset: str = "classic"
    overrides: dict[str, Any] = Field(default_factory=dict)
    turn_seconds: int = Field(default=90, ge=TURN_SECONDS_RANGE[0], le=TURN_SECONDS_RANGE[1])
    idle_turns: int = Field(default=3, ge=IDLE_TURNS_RANGE[0], le=IDLE_TURNS_RANGE[1])
    host_may_pick_preset: bool = True

    def rules(self, preset: str | None = None) -> RuleSet:
        """Give the server's rules, or the named preset with the server's overrides."""
        return make_rules(preset or self.preset, self.overrides)
