"""Moderators' typed values become typed settings, or are refused naming what is allowed."""

from __future__ import annotations

import pytest

from bot.guild_settings import (
    SETTING_NAMES,
    GuildSettings,
    SettingError,
    current_value,
    parse_value,
    suggest_names,
    suggest_values,
    summary,
    with_preset,
    with_value,
    without,
)
from engine.rules import OPTION_NAMES, Power, make_rules


def test_every_house_rule_and_table_setting_is_covered() -> None:
    assert set(OPTION_NAMES) <= set(SETTING_NAMES)
    assert {"turn_seconds", "idle_turns", "host_may_pick_preset"} <= set(SETTING_NAMES)
    defaults = GuildSettings()
    assert (defaults.preset, defaults.turn_seconds, defaults.idle_turns) == ("classic", 90, 3)
    assert defaults.host_may_pick_preset
    assert defaults.rules() == make_rules("classic")


@pytest.mark.parametrize(
    ("name", "text", "value"),
    [
        ("decks", " 2 ", 2),
        ("swap", "No", False),
        ("start_pile", "on", True),
        ("deal", "Choose", "choose"),
        ("first_player", "lowest_by_suit", "lowest_by_suit"),
        ("turn_seconds", "45", 45),
        ("host_may_pick_preset", "false", False),
        ("powers", "7 fits+lower", ("7", {"play": "fits", "effects": ["lower"]})),
        ("powers", "q none", ("Q", None)),
        ("powers", "jk default", ("JK", "default")),
        (
            "powers",
            "3 anywhere+glass blocks=7,k glass_empty=own",
            (
                "3",
                {
                    "play": "anywhere",
                    "effects": ["glass"],
                    "blocks": ["7", "K"],
                    "glass_empty": "own",
                },
            ),
        ),
    ],
)
def test_values_are_parsed_to_their_type(name: str, text: str, value: object) -> None:
    assert parse_value(name, text) == value


@pytest.mark.parametrize(
    ("name", "text", "allowed"),
    [
        ("decks", "5", "a whole number from 1 to 4"),
        ("jokers", "two", "a whole number from 0 to 4"),
        ("swap", "maybe", "true or false"),
        ("deal", "shuffle", "one of classic, choose"),
        ("mode", "", "one of loser, winner"),
        ("turn_seconds", "5", "a whole number from 15 to 3600"),
        ("idle_turns", "0", "a whole number from 1 to 20"),
        ("decks", "²", "a whole number from 1 to 4"),
        ("decks", "٣", "a whole number from 1 to 4"),
        ("turn_seconds", "9" * 90, "a whole number from 15 to 3600"),
        ("remind_seconds", "2", "a whole number from 5 to 3600"),
        ("powers", "7 sideways", "a rank"),
        ("powers", "11 fits", "a rank"),
        ("powers", "7 fits+lower+lower_equal", "a rank"),
        ("powers", "7 none extra", "a rank"),
    ],
)
def test_bad_values_are_refused_with_the_allowed_values(name: str, text: str, allowed: str) -> None:
    with pytest.raises(SettingError) as refused:
        with_value(GuildSettings(), name, text)
    assert f"is not a value for {name}: give {allowed}" in str(refused.value)


def test_an_unknown_option_is_refused_with_the_option_names() -> None:
    with pytest.raises(SettingError, match=r"Unknown option 'deck'\. Options are: decks, jokers"):
        with_value(GuildSettings(), "deck", "2")


def test_an_unknown_preset_is_refused_with_the_presets() -> None:
    with pytest.raises(SettingError, match="Presets are: classic, dutch, schwechat"):
        with_preset(GuildSettings(), "poker")


def test_stored_overrides_the_engine_refuses_are_reported() -> None:
    with pytest.raises(SettingError, match="These rules do not work: decks: "):
        with_preset(GuildSettings(overrides={"decks": 9}), "dutch")


def test_options_change_the_rules_and_a_preset_value_is_no_override() -> None:
    settings = with_value(GuildSettings(), "decks", "2")
    settings = with_value(settings, "powers", "7 fits+lower")
    settings = with_value(settings, "turn_seconds", "30")
    assert settings.overrides == {
        "decks": 2,
        "powers": {"7": {"play": "fits", "effects": ["lower"]}},
    }
    assert settings.turn_seconds == 30
    rules = settings.rules()
    assert rules.decks == 2 and rules.powers["7"] == Power(play="fits", effects=("lower",))
    assert with_value(settings, "decks", "1").overrides == {"powers": settings.overrides["powers"]}
    assert with_value(settings, "powers", "7 none").overrides == {"decks": 2}
    assert with_value(settings, "powers", "7 default").overrides == {"decks": 2}


def test_a_preset_keeps_the_overrides_and_a_host_may_name_another() -> None:
    settings = with_preset(with_value(GuildSettings(), "decks", "2"), "Scheisskopf")
    assert settings.preset == "schwechat" and settings.overrides == {"decks": 2}
    assert settings.rules().start_pile
    assert settings.rules("dutch") == make_rules("dutch", {"decks": 2})


def test_reset_one_setting_or_everything() -> None:
    settings = with_value(
        with_value(GuildSettings(preset="dutch"), "decks", "2"), "idle_turns", "5"
    )
    assert without(settings, "decks") == GuildSettings(preset="dutch", idle_turns=5)
    assert without(settings, "idle_turns") == GuildSettings(preset="dutch", overrides={"decks": 2})
    assert without(settings) == GuildSettings()
    with pytest.raises(SettingError, match="Unknown option"):
        without(settings, "colour")


def test_the_summary_marks_what_differs() -> None:
    settings = with_value(
        with_value(GuildSettings(preset="dutch"), "runs", "yes"), "idle_turns", "1"
    )
    rows = {name: (value, changed) for name, value, changed in summary(settings)}
    assert list(rows) == list(SETTING_NAMES)
    assert rows["runs"] == ("true", True)
    assert rows["jokers"] == ("2", False)
    assert rows["idle_turns"] == ("1", True)
    assert rows["turn_seconds"] == ("90", False)
    assert rows["powers"][0].startswith("2 anywhere+reset, 7 fits+lower, 8 anywhere+glass")
    assert current_value(settings, "powers") == rows["powers"][0]


def test_suggestions_for_names_and_values() -> None:
    assert suggest_names("pick") == [
        "voluntary_pickup",
        "pickup_turn",
        "face_up_pickup",
        "host_may_pick_preset",
    ]
    settings = GuildSettings()
    assert suggest_values(settings, "first_player", "lowe") == ["lowest", "lowest_by_suit"]
    assert suggest_values(settings, "swap", "") == ["true", "false"]
    assert suggest_values(settings, "hand_size", "") == ["1", "2", "3", "4", "5", "6"]
    assert suggest_values(settings, "turn_seconds", "75")[0] == "75"
    assert suggest_values(settings, "powers", "1") == ["10 anywhere+burn"]
    assert suggest_values(settings, "nonsense", "") == []


def test_suggestions_for_a_number_ignore_what_is_not_ascii_digits() -> None:
    from bot.guild_settings import suggest_values

    assert suggest_values(GuildSettings(), "decks", "²") == []
    assert suggest_values(GuildSettings(), "turn_seconds", "٣") == []
    assert suggest_values(GuildSettings(), "turn_seconds", "75")[0] == "75"
