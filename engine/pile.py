"""What may be played on the pile: powers compiled per rank, and the pile's constraint."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from engine.cards import ALL_RANKS, Card, parse_rank
from engine.rules import Power, RuleSet

ConstraintKind = Literal["any", "at_least", "lower", "lower_equal"]


@dataclass(frozen=True, slots=True)
class Constraint:
    """What the next card must do: anything, equal or beat, or go under `value`."""

    kind: ConstraintKind
    value: int
    blocked: frozenset[int]


class PowerTable:
    """The rule set's powers as per-rank lookups, built once per set of powers (`power_table`)."""

    __slots__ = (
        "_any",
        "_by_constraint",
        "_by_top",
        "anywhere",
        "blocks",
        "burn",
        "glass",
        "glass_own",
        "lower",
        "lower_equal",
        "powered",
        "reset",
        "reverse",
        "skip",
    )

    def __init__(self, rules: RuleSet) -> None:
        size = max(ALL_RANKS) + 1
        self.anywhere = [False] * size
        self.glass = [False] * size
        self.glass_own = [False] * size
        self.reset = [False] * size
        self.lower = [False] * size
        self.lower_equal = [False] * size
        self.burn = [False] * size
        self.reverse = [False] * size
        self.skip = [False] * size
        self.blocks: list[frozenset[int]] = [frozenset()] * size
        self.powered = [False] * size
        for name, power in rules.powers.items():
            rank = parse_rank(name)
            effects = set(power.effects)
            self.powered[rank] = True
            self.anywhere[rank] = power.play == "anywhere"
            self.glass[rank] = "glass" in effects
            self.glass_own[rank] = power.glass_empty == "own"
            self.reset[rank] = "reset" in effects
            self.lower[rank] = "lower" in effects
            self.lower_equal[rank] = "lower_equal" in effects
            self.burn[rank] = "burn" in effects
            self.reverse[rank] = "reverse" in effects
            self.skip[rank] = "skip" in effects
            self.blocks[rank] = frozenset(parse_rank(blocked) for blocked in power.blocks)
        self._by_constraint: dict[Constraint, frozenset[int]] = {}
        self._any = self._playable_under(Constraint("any", 0, frozenset()))
        # A plain (not glass, no blocks) top card alone decides the constraint.
        self._by_top: list[frozenset[int] | None] = [
            None
            if self.glass[rank] or self.blocks[rank]
            else self._playable_under(self.constraint([Card(rank, None)]))
            for rank in range(size)
        ]

    def _playable_under(self, constraint: Constraint) -> frozenset[int]:
        """The ranks allowed under `constraint`, computed once per distinct constraint."""
        ranks = self._by_constraint.get(constraint)
        if ranks is None:
            ranks = frozenset(rank for rank in ALL_RANKS if self.allows(constraint, rank))
            self._by_constraint[constraint] = ranks
        return ranks

    def playable(self, pile: Sequence[Card]) -> frozenset[int]:
        """The ranks that may go on `pile` now."""
        if not pile:
            return self._any
        fast = self._by_top[pile[-1].rank]
        if fast is not None:
            return fast
        return self._playable_under(self.constraint(pile))

    def constraint(self, pile: Sequence[Card]) -> Constraint:
        """Walk down from the top: glass is transparent, the first other card decides."""
        glass = self.glass
        blocked: frozenset[int] = frozenset()
        index = len(pile) - 1
        while index >= 0:
            rank = pile[index].rank
            if self.blocks[rank]:
                blocked = blocked | self.blocks[rank]
            if not glass[rank]:
                break
            index -= 1
        if index < 0:
            # Only the bottom glass card of an otherwise empty pile uses `glass_empty`.
            if pile and self.glass_own[pile[0].rank]:
                return Constraint("at_least", pile[0].rank, blocked)
            return Constraint("any", 0, blocked)
        rank = pile[index].rank
        if self.reset[rank]:
            return Constraint("any", 0, blocked)
        if self.lower[rank]:
            return Constraint("lower", rank, blocked)
        if self.lower_equal[rank]:
            return Constraint("lower_equal", rank, blocked)
        return Constraint("at_least", rank, blocked)

    def allows(self, constraint: Constraint, rank: int) -> bool:
        """Say whether a card of `rank` may go on a pile under `constraint`."""
        if rank in constraint.blocked:
            return False
        if self.anywhere[rank]:
            return True
        kind = constraint.kind
        if kind == "any":
            return True
        if kind == "at_least":
            return rank >= constraint.value
        if kind == "lower":
            return rank < constraint.value
        return rank <= constraint.value

    def playable_on(self, pile: Sequence[Card], rank: int) -> bool:
        """Say whether a card of `rank` may go on `pile`."""
        return rank in self.playable(pile)


# The tables built lately, by powers: a table depends on its powers alone and only its cache
# of constraints changes after it is built, so every game under the same powers shares one
# (one a game was ~16 KB of frozensets, the largest part of the bot's memory per table).
_SHARED: dict[tuple[tuple[str, Power], ...], PowerTable] = {}
SHARED_TABLES = 64


def power_table(rules: RuleSet) -> PowerTable:
    """Return the shared `PowerTable` of the rules' powers, built at its first use."""
    key = tuple(sorted(rules.powers.items()))
    table = _SHARED.get(key)
    if table is None:
        if len(_SHARED) >= SHARED_TABLES:
            # The oldest goes first; a game that holds it keeps it.
            del _SHARED[next(iter(_SHARED))]
        table = _SHARED[key] = PowerTable(rules)
    return table


def four_of_a_kind_on_top(pile: Sequence[Card]) -> int:
    """Count the cards of the top card's rank on top of the pile with no other card between."""
    if not pile:
        return 0
    rank = pile[-1].rank
    count = 0
    for card in reversed(pile):
        if card.rank != rank:
            break
        count += 1
    return count
