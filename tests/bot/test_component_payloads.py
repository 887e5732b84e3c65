"""Components drawn as payload dicts are exactly what the DynamicItems' discord.ui items say."""

from __future__ import annotations

import discord
import pytest

from bot.components import (
    ChooseMenu,
    Components,
    HintButton,
    LobbyButton,
    MoveButton,
    PlayMenu,
    StackMenu,
    SwapMenu,
    TableButton,
    button_payload,
    custom_id_of,
    menu_payload,
    option_payload,
)
from bot.rest import message_body

Style = discord.ButtonStyle
LONG = "Pick up " * 30


@pytest.mark.parametrize("label", ["Play", LONG, ""])
@pytest.mark.parametrize("disabled", [False, True])
def test_a_move_button_payload_is_the_move_buttons_own(label: str, disabled: bool) -> None:
    item = MoveButton("abc", 7, "play", "2", label=label, style=Style.success, disabled=disabled)
    payload = button_payload(
        custom_id_of("abc", 7, "play", "2"), label, Style.success, disabled=disabled
    )
    assert payload == item.item.to_component_dict()


def test_lobby_table_and_hint_button_payloads_are_their_items_own() -> None:
    lobby = LobbyButton("abc", "addbot", "1", label="Add", style=Style.secondary)
    assert (
        button_payload(custom_id_of("abc", 0, "addbot", "1"), "Add")
        == lobby.item.to_component_dict()
    )
    hand = TableButton("abc", "hand", label="My hand", style=Style.primary)
    expected = hand.item.to_component_dict()
    assert button_payload(custom_id_of("abc", 0, "hand"), "My hand", Style.primary) == expected
    hint = HintButton("abc", 4, label="Hint")
    assert button_payload(custom_id_of("abc", 4, "hint"), "Hint") == hint.item.to_component_dict()


def _options() -> tuple[list[discord.SelectOption], list[dict[str, object]]]:
    labels = [("10♠ 10♥", False), (LONG, True), ("Q♦", False)]
    objects = [
        discord.SelectOption(label=label, value=str(i), default=chosen)
        for i, (label, chosen) in enumerate(labels)
    ]
    dicts = [
        option_payload(label, str(i), default=chosen) for i, (label, chosen) in enumerate(labels)
    ]
    return objects, dicts


def test_menu_payloads_are_the_menus_own() -> None:
    objects, dicts = _options()
    play = PlayMenu("abc", 3, 1, LONG, objects, row=0)
    assert (
        menu_payload(custom_id_of("abc", 3, "sel", "1"), LONG, dicts)
        == play.item.to_component_dict()
    )
    objects, dicts = _options()
    swap = SwapMenu("abc", 3, "swf", 2, "Face-up card", objects)
    expected = swap.item.to_component_dict()
    assert menu_payload(custom_id_of("abc", 3, "swf", "2"), "Face-up card", dicts) == expected
    objects, dicts = _options()
    choose = ChooseMenu("abc", 3, "Choose 2", objects, count=2)
    payload = menu_payload(custom_id_of("abc", 3, "choose"), "Choose 2", dicts, count=2)
    assert payload == choose.item.to_component_dict()
    # A menu without options gets the stand-in option Discord requires; no placeholder, none.
    stack = StackMenu("abc", 3, "", [])
    assert menu_payload(custom_id_of("abc", 3, "stack"), "", []) == stack.item.to_component_dict()


def test_components_lay_their_rows_as_a_view_of_the_items_would() -> None:
    view = discord.ui.View(timeout=None)
    objects, dicts = _options()
    view.add_item(PlayMenu("abc", 3, 0, "Choose", objects, row=0))
    buttons = [
        MoveButton("abc", 3, "flip", str(i), label=f"Turn {i}", row=1 + i // 5) for i in range(7)
    ]
    for each in buttons:
        view.add_item(each)
    flips = [button_payload(custom_id_of("abc", 3, "flip", str(i)), f"Turn {i}") for i in range(7)]
    rows = [
        [menu_payload(custom_id_of("abc", 3, "sel", "0"), "Choose", dicts)],
        flips[:5],
        flips[5:],
    ]
    assert Components(rows).to_components() == view.to_components()
    # No rows, no components; an empty row is left out.
    assert Components().to_components() == [] == discord.ui.View().to_components()
    assert Components([[], flips[:1]]).to_components() == [{"type": 1, "components": flips[:1]}]


def test_components_are_not_kept_as_a_view_to_dispatch() -> None:
    # Clicks reach the DynamicItems by custom_id; discord.py must not keep these per message.
    components = Components([[button_payload(custom_id_of("abc", 0, "hand"), "My hand")]])
    view = components.as_view()
    assert not view.is_dispatchable()
    assert view.to_components() == components.to_components()


def test_components_are_drawn_without_making_a_view(monkeypatch: pytest.MonkeyPatch) -> None:
    # A view costs an id from os.urandom, a future and a walk of its children: our writes
    # through bot.rest read the payload alone, so a redraw makes none.
    def no_view(*args: object, **kwargs: object) -> None:
        raise AssertionError("a discord.ui.View was made")

    monkeypatch.setattr(discord.ui.View, "__init__", no_view)
    rows = [[button_payload(custom_id_of("abc", 0, "hand"), "My hand")]]
    data, files = message_body(view=Components(rows))
    assert data["components"] == [{"type": 1, "components": rows[0]}] and files == []
