"""Rule sets: presets, overrides and refusals that name the option."""

from __future__ import annotations

from typing import Any

import pytest

import engine.rules
from engine.rules import (
    PRESETS,
    RulesError,
    make_rules,
    matching_preset,
    rules_from_json,
    rules_to_json,
)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_preset_builds_and_round_trips(preset: str) -> None:
    rules = make_rules(preset)
    assert rules_from_json(rules_to_json(rules)) == rules
    assert matching_preset(rules) == preset


def test_alias_and_player_limits() -> None:
    assert make_rules("scheisskopf") == make_rules("schwechat")
    assert (make_rules("classic").min_players, make_rules("classic").max_players) == (2, 5)
    assert make_rules("classic", {"jokers": 2}).max_players == 6
    assert make_rules("smeghead").max_players > 6
    assert make_rules("west-kent").max_players == 3


@pytest.mark.parametrize(
    ("overrides", "named", "allowed"),
    [
        ({"decks": 9}, "decks", "less than or equal to 4"),
        ({"deal": "fast"}, "deal", "'classic' or 'choose'"),
        ({"colour": True}, "colour", "options are decks"),
        ({"powers": {"11": {"play": "anywhere"}}}, "powers", "not a rank"),
        ({"powers": {"7": {"play": "sometimes"}}}, "powers.7.play", "'anywhere' or 'fits'"),
    ],
)
def test_bad_options_are_refused_by_name(
    overrides: dict[str, object], named: str, allowed: str
) -> None:
    with pytest.raises(RulesError) as info:
        make_rules("classic", overrides)
    assert named in str(info.value) and allowed in str(info.value)


def test_unknown_preset_lists_the_presets() -> None:
    with pytest.raises(RulesError, match="classic, dutch"):
        make_rules("poker")


def test_power_override_replaces_only_named_ranks() -> None:
    rules = make_rules(
        "classic", {"powers": {"7": {"play": "fits", "effects": ["lower"]}, "2": None}}
    )
    assert set(rules.powers) == {"7", "10", "JK"}


def test_equal_rule_sets_are_one_object_with_one_json() -> None:
    made = make_rules("classic", {"jokers": 2})
    read = rules_from_json(rules_to_json(make_rules("classic", {"jokers": 2})))
    assert read is made and rules_to_json(read) is rules_to_json(made)
    other = make_rules("classic", {"jokers": 3})
    assert other is not made and rules_to_json(other)["jokers"] == 3
    # A rule set made otherwise is written with the one made alike before it.
    assert rules_to_json(made.model_copy()) is rules_to_json(made)


def test_rule_sets_kept_alike_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engine.rules, "SHARED_KEPT", 2)
    monkeypatch.setattr(engine.rules, "_SHARED", engine.rules._Shared())
    first = make_rules("classic", {"jokers": 1})
    make_rules("classic", {"jokers": 2})
    make_rules("classic", {"jokers": 3})
    assert len(engine.rules._SHARED) == 2
    # The oldest fell out: an equal set made now is a new object, equal to the first.
    again = make_rules("classic", {"jokers": 1})
    assert again is not first and again == first
    # What fell out is no longer found by identity either: its JSON is the new one's.
    assert rules_to_json(first) is rules_to_json(again)
    assert len(engine.rules._SHARED.by_id) == len(engine.rules._SHARED) == 2


def test_a_kept_rule_set_s_json_is_found_without_writing_it_as_text(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    made = make_rules("classic", {"jokers": 2})
    texts: list[object] = []
    dump_json = type(made).model_dump_json

    def counted(rules: Any, **kwargs: Any) -> str:
        texts.append(rules)
        return dump_json(rules, **kwargs)

    monkeypatch.setattr(type(made), "model_dump_json", counted)
    # Every move writes its table's rules: the kept object is looked up as itself.
    assert rules_to_json(made)["jokers"] == 2 and texts == []
    # An equal copy made otherwise is found by its text, and given the kept one's JSON.
    copy = made.model_copy()
    assert rules_to_json(copy) is rules_to_json(made) and texts == [copy]
