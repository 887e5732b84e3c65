"""A server's house rules and table settings, and parsing what moderators type into them."""

from __future__ import annotations

import re
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

import annotated_types
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from bot.i18n import DEFAULT_LOCALE, t
from engine.cards import CardError, parse_rank, rank_name
from engine.rules import (
    EFFECTS,
    OPTION_NAMES,
    Power,
    RulesError,
    RuleSet,
    canonical_preset,
    make_rules,
    preset_names,
)

TURN_SECONDS_RANGE = (15, 3600)
IDLE_TURNS_RANGE = (1, 20)
REMIND_SECONDS_RANGE = (5, 3600)
TABLE_SETTINGS: tuple[str, ...] = (
    "language",
    "pictures",
    "turn_seconds",
    "remind_seconds",
    "idle_turns",
    "host_may_pick_preset",
)
SETTING_NAMES: tuple[str, ...] = OPTION_NAMES + TABLE_SETTINGS
RANKS: tuple[str, ...] = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "JK")
_NUMBER = re.compile(r"[0-9]{1,6}")
_TRUE = ("true", "yes", "on", "1")
_FALSE = ("false", "no", "off", "0")
_ROUND_NUMBERS = (15, 30, 45, 60, 90, 120, 180, 300, 600, 1200, 1800, 3600)


class GuildSettings(BaseModel):
    """One server's preset, its option overrides and its table settings."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    preset: str = "classic"
    overrides: dict[str, Any] = Field(default_factory=dict)
    # The language of the server's table messages; `auto`: the server's language in Discord.
    language: Literal["auto", "en", "de", "da", "pl", "nl"] = "auto"
    # Pictures of the table and the hands, beside the text (which is always there).
    pictures: bool = True
    turn_seconds: int = Field(default=90, ge=TURN_SECONDS_RANGE[0], le=TURN_SECONDS_RANGE[1])
    # A player to act is reminded in the channel after this long (never, if not below the
    # turn time); the reminder is deleted when the turn passes.
    remind_seconds: int = Field(default=30, ge=REMIND_SECONDS_RANGE[0], le=REMIND_SECONDS_RANGE[1])
    idle_turns: int = Field(default=3, ge=IDLE_TURNS_RANGE[0], le=IDLE_TURNS_RANGE[1])
    host_may_pick_preset: bool = True

    def rules(self, preset: str | None = None) -> RuleSet:
        """Give the server's rules, or the named preset with the server's overrides."""
        return make_rules(preset or self.preset, self.overrides)


class SettingError(ValueError):
    """A moderator's change is refused; `words(locale)` names what is allowed."""

    def __init__(self, words: Callable[[str], str]) -> None:
        super().__init__(words(DEFAULT_LOCALE))
        self.words = words


@dataclass(frozen=True)
class Kind:
    """What values a setting takes: a bounded integer, a yes/no, a choice or the powers map."""

    type: Literal["int", "bool", "choice", "powers"]
    low: int = 0
    high: int = 0
    choices: tuple[str, ...] = ()


def kind_of(name: str) -> Kind:
    """Read a setting's kind from the rule set or settings model."""
    model: type[BaseModel] = GuildSettings if name in TABLE_SETTINGS else RuleSet
    if name not in SETTING_NAMES:
        raise SettingError(
            lambda locale: t(
                "Unknown option {name!r}. Options are: {names}.",
                locale,
                name=name,
                names=", ".join(SETTING_NAMES),
            )
        )
    field = model.model_fields[name]
    annotation = field.annotation
    if annotation is bool:
        return Kind("bool")
    if annotation is int:
        low = next(m.ge for m in field.metadata if isinstance(m, annotated_types.Ge))
        high = next(m.le for m in field.metadata if isinstance(m, annotated_types.Le))
        return Kind("int", low=int(low), high=int(high))  # type: ignore[call-overload]
    if typing.get_origin(annotation) is Literal:
        return Kind("choice", choices=tuple(str(arg) for arg in typing.get_args(annotation)))
    if name == "powers":
        return Kind("powers")
    raise AssertionError(f"no parser for option {name} ({annotation!r})")  # pragma: no cover


def allowed_values(name: str, locale: str) -> str:
    """Say in words what a setting accepts."""
    kind = kind_of(name)
    if kind.type == "int":
        return t("a whole number from {low} to {high}", locale, low=kind.low, high=kind.high)
    if kind.type == "bool":
        return t("true or false", locale)
    if kind.type == "choice":
        return t("one of {values}", locale, values=", ".join(kind.choices))
    return t(
        "a rank ({ranks}) then `none`, `default`, or `anywhere` or `fits` joined by `+` to "
        "effects ({effects}), optionally `blocks=` ranks and `glass_empty=own`; "
        "e.g. `7 fits+lower` or `7 anywhere+lower blocks=7`",
        locale,
        ranks=" ".join(RANKS),
        effects=", ".join(EFFECTS),
    )


def _refuse(name: str, text: str) -> SettingError:
    return SettingError(
        lambda locale: t(
            "{value!r} is not a value for {name}: give {allowed}.",
            locale,
            value=text,
            name=name,
            allowed=allowed_values(name, locale),
        )
    )


def parse_value(name: str, text: str) -> Any:
    """Turn what a moderator typed into the setting's typed value, or refuse it."""
    kind = kind_of(name)
    value = text.strip().lower()
    if kind.type == "bool":
        if value in _TRUE:
            return True
        if value in _FALSE:
            return False
        raise _refuse(name, text)
    if kind.type == "int":
        # ASCII digits only: Python's int() also reads "٣" and "３", which nobody types here.
        if not _NUMBER.fullmatch(value):
            raise _refuse(name, text)
        number = int(value)
        if not kind.low <= number <= kind.high:
            raise _refuse(name, text)
        return number
    if kind.type == "choice":
        if value not in kind.choices:
            raise _refuse(name, text)
        return value
    return parse_power(text)


def parse_power(text: str) -> tuple[str, dict[str, Any] | Literal["default"] | None]:
    """Read `RANK none|default|PLAY[+EFFECT...] [blocks=R,R] [glass_empty=own]`."""
    words = text.split()
    if len(words) < 2:
        raise _refuse("powers", text)
    try:
        rank = rank_name(parse_rank(words[0]))
    except CardError:
        raise _refuse("powers", text) from None
    head = words[1].lower()
    if head in ("none", "default"):
        if len(words) > 2:
            raise _refuse("powers", text)
        return rank, None if head == "none" else "default"
    play, *effects = head.split("+")
    power: dict[str, Any] = {"play": play, "effects": effects}
    for word in words[2:]:
        key, _, value = word.partition("=")
        if key == "blocks" and value:
            power["blocks"] = value.upper().split(",")
        elif key == "glass_empty" and value:
            power["glass_empty"] = value.lower()
        else:
            raise _refuse("powers", text)
    try:
        Power.model_validate(power)
    except ValidationError:
        raise _refuse("powers", text) from None
    return rank, power


def describe_power(power: Power | None) -> str:
    """Write a power the way `parse_power` reads it."""
    if power is None:
        return "none"
    text = "+".join((power.play, *power.effects))
    if power.blocks:
        text += " blocks=" + ",".join(power.blocks)
    if power.glass_empty != "any":
        text += f" glass_empty={power.glass_empty}"
    return text


def describe_powers(powers: Mapping[str, Power]) -> str:
    """List every powered rank in rank order."""
    ordered = sorted(powers, key=parse_rank)
    return ", ".join(f"{rank} {describe_power(powers[rank])}" for rank in ordered)


def _checked(settings: GuildSettings) -> GuildSettings:
    """Refuse settings whose rules the engine cannot build."""
    try:
        settings.rules()
    except RulesError as exc:
        problem = str(exc)
        raise SettingError(
            lambda locale: t("These rules do not work: {problem}.", locale, problem=problem)
        ) from None
    return settings


def with_preset(settings: GuildSettings, name: str) -> GuildSettings:
    """Switch the server to a preset, keeping its overrides."""
    try:
        preset = canonical_preset(name)
    except RulesError:
        raise SettingError(
            lambda locale: t(
                "Unknown preset {name!r}. Presets are: {presets}.",
                locale,
                name=name,
                presets=", ".join(preset_names()),
            )
        ) from None
    return _checked(settings.model_copy(update={"preset": preset}))


def with_value(settings: GuildSettings, name: str, text: str) -> GuildSettings:
    """Set one option or table setting from text; an option equal to the preset is dropped."""
    value = parse_value(name, text)
    if name in TABLE_SETTINGS:
        return settings.model_copy(update={name: value})
    overrides = dict(settings.overrides)
    base = make_rules(settings.preset)
    if name == "powers":
        rank, power = value
        powers = dict(overrides.get("powers", {}))
        preset_power = base.powers.get(rank)
        same_as_preset = (power is None and preset_power is None) or (
            isinstance(power, dict) and preset_power == Power.model_validate(power)
        )
        if power == "default" or same_as_preset:
            powers.pop(rank, None)
        else:
            powers[rank] = power
        if powers:
            overrides["powers"] = powers
        else:
            overrides.pop("powers", None)
    elif getattr(base, name) == value:
        overrides.pop(name, None)
    else:
        overrides[name] = value
    return _checked(settings.model_copy(update={"overrides": overrides}))


def without(settings: GuildSettings, name: str | None = None) -> GuildSettings:
    """Reset one setting to its default, or everything when no name is given."""
    if name is None:
        return GuildSettings()
    kind_of(name)  # refuses an unknown name
    if name in TABLE_SETTINGS:
        return settings.model_copy(update={name: GuildSettings.model_fields[name].default})
    overrides = {key: value for key, value in settings.overrides.items() if key != name}
    return _checked(settings.model_copy(update={"overrides": overrides}))


def current_value(settings: GuildSettings, name: str) -> str:
    """Write a setting's effective value as text a moderator could type back."""
    if name in TABLE_SETTINGS:
        value = getattr(settings, name)
    else:
        value = getattr(settings.rules(), name)
        if name == "powers":
            return describe_powers(value)
    return str(value).lower() if isinstance(value, bool) else str(value)


def suggest_values(settings: GuildSettings, name: str, typed: str) -> list[str]:
    """Offer values for a setting that start with (or, for powers, contain) what was typed."""
    try:
        kind = kind_of(name)
    except SettingError:
        return []
    typed = typed.strip().lower()
    if kind.type == "bool":
        options = ["true", "false"]
    elif kind.type == "choice":
        options = list(kind.choices)
    elif kind.type == "int":
        span = range(kind.low, kind.high + 1)
        options = [str(n) for n in (span if len(span) <= 25 else _ROUND_NUMBERS) if n in span]
        typed_number = _NUMBER.fullmatch(typed) and kind.low <= int(typed) <= kind.high
        if typed_number and typed not in options:
            options.insert(0, typed)
    else:
        powers = settings.rules().powers
        options = [f"{rank} {describe_power(powers.get(rank))}" for rank in RANKS]
        return [option for option in options if option.lower().startswith(typed)][:25]
    return [option for option in options if option.startswith(typed)][:25]


def suggest_names(typed: str) -> list[str]:
    """Offer setting names containing what was typed."""
    typed = typed.strip().lower()
    return [name for name in SETTING_NAMES if typed in name][:25]


def summary(settings: GuildSettings) -> list[tuple[str, str, bool]]:
    """List every setting as (name, value, changed from the preset or default)."""
    base = make_rules(settings.preset)
    rules = settings.rules()
    rows = [
        (name, current_value(settings, name), getattr(rules, name) != getattr(base, name))
        for name in OPTION_NAMES
    ]
    defaults = GuildSettings()
    rows += [
        (
            name,
            current_value(settings, name),
            getattr(settings, name) != getattr(defaults, name),
        )
        for name in TABLE_SETTINGS
    ]
    return rows
