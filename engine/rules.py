"""House rules as data: every option, every preset, and validation that names the option."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from engine.cards import CardError, parse_rank, rank_name

Effect = Literal["reset", "glass", "lower", "lower_equal", "burn", "reverse", "skip"]
EFFECTS: tuple[str, ...] = ("reset", "glass", "lower", "lower_equal", "burn", "reverse", "skip")


class RulesError(ValueError):
    """A rule set or a table cannot be played; the message names the option and what is allowed."""


class Power(BaseModel):
    """What a special rank does."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    play: Literal["anywhere", "fits"]
    effects: tuple[Effect, ...] = ()
    blocks: tuple[str, ...] = ()
    glass_empty: Literal["any", "own"] = "any"

    @field_validator("blocks")
    @classmethod
    def _known_ranks(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        try:
            return tuple(rank_name(parse_rank(rank)) for rank in value)
        except CardError as exc:
            raise ValueError(str(exc)) from None

    @model_validator(mode="after")
    def _consistent(self) -> Power:
        if "lower" in self.effects and "lower_equal" in self.effects:
            raise ValueError("a power has 'lower' or 'lower_equal', not both")
        if len(set(self.effects)) != len(self.effects):
            raise ValueError("an effect is listed twice")
        return self


def _power(play: Literal["anywhere", "fits"], *effects: Effect, **extra: Any) -> Power:
    return Power(play=play, effects=effects, **extra)


CLASSIC_POWERS: dict[str, Power] = {
    "2": _power("anywhere", "reset"),
    "10": _power("anywhere", "burn"),
    "JK": _power("anywhere", "reverse", "glass"),
}


class RuleSet(BaseModel):
    """One table's rules; the names are the public vocabulary of house-rules.md."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    decks: int = Field(default=1, ge=1, le=4)
    jokers: int = Field(default=0, ge=0, le=4)
    table_cards: int = Field(default=3, ge=1, le=5)
    hand_size: int = Field(default=3, ge=1, le=6)
    deal: Literal["classic", "choose"] = "classic"
    swap: bool = True
    start_pile: bool = False
    first_player: Literal["lowest", "lowest_by_suit", "random", "loser"] = "lowest"
    powers: dict[str, Power] = Field(default_factory=lambda: dict(CLASSIC_POWERS))
    four_of_a_kind: Literal["pile", "play", "off"] = "pile"
    burn_turn: Literal["same", "next"] = "same"
    voluntary_pickup: bool = True
    pickup_turn: Literal["next", "same", "previous"] = "next"
    face_up_pickup: Literal["add_one", "keep"] = "add_one"
    play_from_stock: bool = False
    runs: bool = False
    stacking: bool = False
    mode: Literal["loser", "winner"] = "loser"

    @field_validator("powers", mode="before")
    @classmethod
    def _rank_keys(cls, value: object) -> object:
        if not isinstance(value, Mapping):
            return value
        normalised: dict[str, object] = {}
        for key, power in value.items():
            try:
                name = rank_name(parse_rank(str(key)))
            except CardError as exc:
                raise ValueError(str(exc)) from None
            if power is not None:
                normalised[name] = power
        return normalised

    @property
    def cards_in_play(self) -> int:
        """Count every card shuffled into the stock at the deal."""
        return self.decks * (52 + self.jokers)

    @property
    def cards_per_player(self) -> int:
        """Count the cards each player is dealt (face-down, face-up and hand)."""
        return 2 * self.table_cards + self.hand_size

    @property
    def max_players(self) -> int:
        """Seat as many players as the cards allow (the start pile needs one card too)."""
        return (self.cards_in_play - int(self.start_pile)) // self.cards_per_player

    @property
    def min_players(self) -> int:
        return 2

    def check_players(self, players: int) -> None:
        """Refuse a table the cards cannot deal."""
        if not self.min_players <= players <= self.max_players:
            raise RulesError(
                f"players: these rules seat {self.min_players} to {self.max_players} players "
                f"({self.cards_in_play} cards, {self.cards_per_player} dealt to each), "
                f"not {players}"
            )


PRESETS: dict[str, dict[str, Any]] = {
    "classic": {},
    "dutch": dict(
        jokers=2,
        first_player="lowest_by_suit",
        voluntary_pickup=False,
        pickup_turn="same",
        face_up_pickup="keep",
        powers={
            "2": _power("anywhere", "reset"),
            "7": _power("fits", "lower"),
            "8": _power("anywhere", "glass"),
            "JK": _power("anywhere", "glass"),
            "10": _power("fits", "burn"),
        },
    ),
    "schwechat": dict(
        decks=2,
        jokers=3,
        deal="choose",
        start_pile=True,
        first_player="loser",
        burn_turn="next",
        pickup_turn="same",
        face_up_pickup="keep",
        powers={
            "3": _power("anywhere", "glass"),
            "7": _power("anywhere", "lower", blocks=("7",)),
            "10": _power("anywhere", "burn"),
            "JK": _power("anywhere", "reverse", "reset"),
            "8": _power("fits", "skip", "reset"),
        },
    ),
    "karma": dict(stacking=True, pickup_turn="previous"),
    "gultnieks": dict(
        powers={
            **CLASSIC_POWERS,
            "7": _power("fits", "lower_equal"),
            "8": _power("anywhere", "reverse", "glass"),
        }
    ),
    "guarducci": dict(
        jokers=2,
        runs=True,
        pickup_turn="previous",
        powers={
            **CLASSIC_POWERS,
            "7": _power("anywhere", "glass", glass_empty="own"),
            "8": _power("fits", "lower_equal", blocks=("10",)),
            "JK": _power("anywhere", "skip", "glass"),
        },
    ),
    "smeghead": dict(decks=2, table_cards=4, hand_size=4),
    "west-kent": dict(table_cards=5, hand_size=5),
    "finnish": dict(table_cards=4),
    "ten-two-slide": dict(hand_size=4),
    "egilsson": dict(
        play_from_stock=True,
        powers={**CLASSIC_POWERS, "5": _power("anywhere", "lower")},
    ),
    "choose-deal": dict(deal="choose"),
}
PRESET_ALIASES: dict[str, str] = {"scheisskopf": "schwechat"}
OPTION_NAMES: tuple[str, ...] = tuple(RuleSet.model_fields)


def preset_names() -> list[str]:
    """Name every preset, aliases excluded."""
    return list(PRESETS)


def canonical_preset(name: str) -> str:
    """Resolve an alias; refuse an unknown preset with the list of presets."""
    key = name.strip().lower()
    key = PRESET_ALIASES.get(key, key)
    if key not in PRESETS:
        raise RulesError(f"preset: unknown preset {name!r}; choose one of {', '.join(PRESETS)}")
    return key


def _describe(exc: ValidationError) -> str:
    parts = []
    for error in exc.errors():
        where = ".".join(str(part) for part in error["loc"]) or "rules"
        if error["type"] == "extra_forbidden":
            parts.append(f"{where}: unknown option; options are {', '.join(OPTION_NAMES)}")
        else:
            parts.append(f"{where}: {error['msg']} (got {error.get('input')!r})")
    return "; ".join(parts)


def make_rules(preset: str = "classic", overrides: Mapping[str, Any] | None = None) -> RuleSet:
    """Build a preset's rules with options changed (`powers` replaces only the ranks named)."""
    base = dict(PRESETS[canonical_preset(preset)])
    changes = dict(overrides or {})
    if "powers" in changes:
        new_powers = changes.pop("powers")
        if not isinstance(new_powers, Mapping):
            raise RulesError("powers: give a mapping of rank to power (or null to remove one)")
        powers: dict[str, Any] = dict(base.get("powers", CLASSIC_POWERS))
        for key, power in new_powers.items():
            try:
                name = rank_name(parse_rank(str(key)))
            except CardError as exc:
                raise RulesError(f"powers: {exc}") from None
            if power is None:
                powers.pop(name, None)
            else:
                powers[name] = power
        base["powers"] = powers
    base.update(changes)
    try:
        return _SHARED.get(RuleSet(**base))[0]
    except ValidationError as exc:
        raise RulesError(_describe(exc)) from None


def rules_from_json(data: Mapping[str, Any]) -> RuleSet:
    """Read a complete stored rule set."""
    try:
        return _SHARED.get(RuleSet.model_validate(dict(data)))[0]
    except ValidationError as exc:
        raise RulesError(_describe(exc)) from None


def rules_to_json(rules: RuleSet) -> dict[str, Any]:
    """Write a rule set as plain JSON data (shared by equal rule sets: read-only)."""
    return _SHARED.get(rules)[1]


# Equal rule sets are one object with one JSON, found by their JSON text: every running
# table keeps its rules and writes their JSON at each move, and most tables play one of a
# few presets (500 tables kept 500 equal copies, about 1.3 MB). A few hundred are kept:
# guilds may make many.
SHARED_KEPT = 256


class _Shared:
    """The rule sets kept, by JSON text, and by identity (a kept one needs no text made)."""

    def __init__(self) -> None:
        self.by_text: dict[str, tuple[RuleSet, dict[str, Any]]] = {}
        # Only kept rule sets are here, so an id stands for one object while it is.
        self.by_id: dict[int, tuple[RuleSet, dict[str, Any]]] = {}

    def __len__(self) -> int:
        return len(self.by_text)

    def get(self, rules: RuleSet) -> tuple[RuleSet, dict[str, Any]]:
        """Give the rule set equal to `rules` kept before and its JSON, else keep these."""
        kept = self.by_id.get(id(rules))
        if kept is not None:
            return kept
        key = rules.model_dump_json()
        kept = self.by_text.get(key)
        if kept is None:
            if len(self.by_text) >= SHARED_KEPT:
                gone, _ = self.by_text.pop(next(iter(self.by_text)))
                del self.by_id[id(gone)]
            kept = self.by_text[key] = (rules, rules.model_dump(mode="json"))
            self.by_id[id(rules)] = kept
        return kept


_SHARED = _Shared()


def matching_preset(rules: RuleSet) -> str | None:
    """Name the preset these rules are exactly, if any."""
    for name in PRESETS:
        if make_rules(name) == rules:
            return name
    return None
