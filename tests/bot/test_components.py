"""Each component kind parses its custom_id straight into an intent, or into none."""

from __future__ import annotations

import re
from typing import Any

import discord
import pytest

from bot import custom_ids
from bot.components import (
    DYNAMIC_ITEMS,
    ChooseMenu,
    Clicked,
    LobbyButton,
    MoveButton,
    PlayMenu,
    StackMenu,
    SwapMenu,
    TableButton,
)
from tables.intents import (
    AddComputer,
    FlipCard,
    Join,
    MarkReady,
    PickUpPile,
    PlayCards,
    Start,
    SwapCards,
    TurnStock,
)


def kind_of(custom_id: str) -> type[Any] | None:
    """Say which component kind claims a custom_id (at most one may)."""
    kinds = [
        kind
        for kind in DYNAMIC_ITEMS
        if re.fullmatch(kind.__discord_ui_compiled_template__, custom_id)
    ]
    assert len(kinds) <= 1, kinds
    return kinds[0] if kinds else None


async def parsed(custom_id: str) -> Any:
    kind = kind_of(custom_id)
    assert kind is not None, custom_id
    match = re.fullmatch(kind.__discord_ui_compiled_template__, custom_id)
    assert match is not None
    return await kind.from_custom_id(None, None, match)


@pytest.mark.parametrize(
    ("custom_id", "kind"),
    [
        ("sh:ab12:0:join", LobbyButton),
        ("sh:ab12:0:addbot:1", LobbyButton),
        ("sh:ab12:0:hand", TableButton),
        ("sh:ab12:0:rematch", TableButton),
        ("sh:ab12:7:play:3", MoveButton),
        ("sh:ab12:7:sel:1", PlayMenu),
        ("sh:ab12:7:swh:2", SwapMenu),
        ("sh:ab12:7:swf", SwapMenu),
        ("sh:ab12:7:choose", ChooseMenu),
        ("sh:ab12:7:stack", StackMenu),
    ],
)
def test_every_custom_id_belongs_to_one_kind(custom_id: str, kind: type[Any]) -> None:
    assert kind_of(custom_id) is kind


@pytest.mark.parametrize(
    "custom_id",
    ["sh:AB12:0:join", "sh:ab12:x:play:1", "sh:ab12:0:dance", "lb:all:shithead:0:next", "sh:ab12"],
)
def test_foreign_custom_ids_belong_to_no_kind(custom_id: str) -> None:
    assert kind_of(custom_id) is None


@pytest.mark.parametrize(
    ("custom_id", "intent"),
    [
        ("sh:ab12:7:play:3", PlayCards(3)),
        ("sh:ab12:7:swap:1.2", SwapCards(1, 2)),
        ("sh:ab12:7:pickup:0", PickUpPile(0)),
        ("sh:ab12:7:flip:2", FlipCard(2)),
        ("sh:ab12:7:stock", TurnStock()),
        ("sh:ab12:7:ready", MarkReady()),
        # Forged or malformed: the wrong number of indexes, or stray dots, name no move.
        ("sh:ab12:7:play", None),
        ("sh:ab12:7:play:1.2", None),
        ("sh:ab12:7:swap:1", None),
        ("sh:ab12:7:ready:4", None),
        ("sh:ab12:7:play:...", None),
    ],
)
async def test_a_move_button_parses_into_its_intent(custom_id: str, intent: Any) -> None:
    button = await parsed(custom_id)
    assert button.intent == intent
    assert button.version == 7 and button.table_id == "ab12"


@pytest.mark.parametrize(
    ("custom_id", "intent"),
    [
        ("sh:ab12:0:join", Join()),
        ("sh:ab12:0:start", Start()),
        ("sh:ab12:0:addbot:1", AddComputer("expert")),
        ("sh:ab12:0:addbot", AddComputer("basic")),
        ("sh:ab12:0:addbot:9", None),
        ("sh:ab12:0:join:3", None),
    ],
)
async def test_a_lobby_button_parses_into_its_intent(custom_id: str, intent: Any) -> None:
    assert (await parsed(custom_id)).intent == intent


def test_a_redraws_custom_ids_are_checked_without_a_pattern_per_id(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    custom_ids._valid_table.cache_clear()
    custom_ids._valid_arg.cache_clear()
    matched: list[str] = []
    fullmatch = re.fullmatch

    def counted(pattern: str, text: str) -> re.Match[str] | None:
        matched.append(text)
        return fullmatch(pattern, text)

    monkeypatch.setattr(re, "fullmatch", counted)
    ids = [custom_ids.encode("ab12", version, "pickup", "0") for version in range(5)]
    assert ids[4] == "sh:ab12:4:pickup:0"
    assert sorted(matched) == ["0", "ab12"]
    with pytest.raises(ValueError):
        custom_ids.encode("ab12", 3, "pickup", "1H")


@pytest.mark.parametrize(
    ("table_id", "version", "arg"),
    [
        ("AB12", 3, None),
        ("a" * 13, 3, None),
        ("", 3, None),
        ("ab:12", 3, None),
        ("ab12", -1, None),
        ("ab12", 10**9, None),
        ("ab12", True, None),
        ("ab12", 3, ""),
        ("ab12", 3, "1:2"),
        ("ab12", 3, "1" * 61),
    ],
)
def test_a_custom_id_its_template_would_not_read_back_is_refused(
    table_id: str, version: int, arg: str | None
) -> None:
    with pytest.raises(ValueError):
        custom_ids.encode(table_id, version, "play", arg)
    # A view's components begin with one prefix, refused for the same table and version.
    if arg is None:
        with pytest.raises(ValueError):
            custom_ids.prefix(table_id, version)


@pytest.mark.parametrize(
    ("table_id", "version", "arg"),
    [("a", 0, None), ("z" * 12, 10**9 - 1, "1.2"), ("ab12", 7, "." * 60)],
)
def test_every_custom_id_encoded_reads_back_through_its_template(
    table_id: str, version: int, arg: str | None
) -> None:
    found = re.fullmatch(
        custom_ids.template(("play",), custom_ids.ARG),
        custom_ids.encode(table_id, version, "play", arg),
    )
    assert found is not None
    assert (found["table"], int(found["version"]), found["arg"]) == (table_id, version, arg)


def test_custom_ids_are_encoded_within_discords_limit_and_never_name_a_card() -> None:
    assert custom_ids.encode("ab12", 3, "swap", "1.2") == "sh:ab12:3:swap:1.2"
    assert custom_ids.prefix("ab12", 3) + "swap:1.2" == "sh:ab12:3:swap:1.2"
    with pytest.raises(ValueError):
        custom_ids.encode("ab12", 3, "play", "10H")
    with pytest.raises(ValueError):
        custom_ids.encode("ab12", 3, "choose", ".".join(["1"] * 40))


class FakeInteraction:
    def __init__(self, values: object) -> None:
        self.data = {"values": values}


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        (["0"], (0,)),
        (["3", "12"], (3, 12)),
        (["²"], None),
        (["٣"], None),
        (["9" * 90], None),
        (["-1"], None),
        ("0", None),
        ([0], None),
    ],
)
def test_menu_values_are_read_strictly(values: object, expected: tuple[int, ...] | None) -> None:
    from bot.components import picked

    assert picked(FakeInteraction(values)) == expected  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "custom_id",
    ["sh:ab12:0:join", "sh:ab12:0:hand", "sh:ab12:7:play:3", "sh:ab12:7:hint"],
)
async def test_a_clicked_button_is_parsed_around_the_button_that_came_with_it(
    custom_id: str,
) -> None:
    kind = kind_of(custom_id)
    match = re.fullmatch(kind.__discord_ui_compiled_template__, custom_id) if kind else None
    assert kind is not None and match is not None
    clicked: discord.ui.Button[Any] = discord.ui.Button(custom_id=custom_id)
    assert (await kind.from_custom_id(None, clicked, match)).item is clicked


@pytest.mark.parametrize(
    "custom_id", ["sh:ab12:7:sel:1", "sh:ab12:7:swh:2", "sh:ab12:7:choose", "sh:ab12:7:stack"]
)
async def test_a_chosen_menu_is_parsed_around_the_menu_that_came_with_it(custom_id: str) -> None:
    kind = kind_of(custom_id)
    match = re.fullmatch(kind.__discord_ui_compiled_template__, custom_id) if kind else None
    assert kind is not None and match is not None
    clicked: discord.ui.Select[Any] = discord.ui.Select(custom_id=custom_id)
    assert (await kind.from_custom_id(None, clicked, match)).item is clicked


@pytest.mark.parametrize(
    ("custom_id", "kind"),
    [("sh:ab12:7:play:3", 2), ("sh:ab12:0:addbot:1", 2), ("sh:ab12:7:swh:2", 3)],
)
async def test_a_click_is_parsed_around_what_it_names(custom_id: str, kind: int) -> None:
    found = kind_of(custom_id)
    match = re.fullmatch(found.__discord_ui_compiled_template__, custom_id) if found else None
    assert found is not None and match is not None
    clicked = Clicked(custom_id, kind)
    item = await found.from_custom_id(None, clicked, match)
    # The item is the one a click on a drawn component makes, around what the click named.
    assert item.item is clicked and item.custom_id == custom_id
    assert item.type == discord.ComponentType(kind)
    drawn = await parsed(custom_id)
    assert vars(drawn).keys() == vars(item).keys()
    assert [getattr(item, name) for name in vars(item) if name != "item"] == [
        getattr(drawn, name) for name in vars(drawn) if name != "item"
    ]


@pytest.mark.parametrize(
    ("arg", "values"),
    [(None, ()), ("", ()), ("7", (7,)), ("007", (7,)), ("1.2", (1, 2)), ("1..2.", (1, 2))],
)
def test_an_argument_reads_as_its_indexes(arg: str | None, values: tuple[int, ...]) -> None:
    assert custom_ids.numbers(arg) == values


@pytest.mark.parametrize(
    ("custom_id", "kind"),
    [
        ("sh:ab12:0:join", 2),
        ("sh:ab12:0:hand", 2),
        ("sh:ab12:7:play:3", 2),
        ("sh:ab12:7:hint", 2),
        ("sh:ab12:7:sel:1", 3),
        ("sh:ab12:7:swf:2", 3),
        ("sh:ab12:7:choose", 3),
        ("sh:ab12:7:stack", 3),
    ],
)
async def test_a_click_wraps_the_component_it_came_from_as_discord_py_would(
    custom_id: str, kind: int
) -> None:
    factory = kind_of(custom_id)
    assert factory is not None
    match = re.fullmatch(factory.__discord_ui_compiled_template__, custom_id)
    clicked = Clicked(custom_id, kind)
    item = await factory.from_custom_id(None, clicked, match)
    # What `DynamicItem.__init__` would have made of it (discord.py 2.7.1): the item kept, in
    # no view and no row yet, its custom_id and type the click's, dispatched by custom_id.
    assert item.item is clicked
    assert (item.view, item.row, item._rendered_row) == (None, None, None)
    assert (item.custom_id, item.type.value) == (custom_id, kind)
    assert item.is_dispatchable() and item.template.match(item.custom_id)
