"""The components: lobby buttons, the table's buttons and a player's private controls.

Every component is a `Control`, a DynamicItem matching the custom_id scheme, so clicks on
any message (even one sent before a restart) reach the bot's handler.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import discord

from bot import custom_ids
from bot.controls import MAX_OPTIONS, MAX_PLAY_MENUS, controls
from bot.custom_ids import ComponentId
from bot.i18n import t
from bot.render import card_text, play_label
from bot.tables import COMPUTER_LEVELS, Table, available_levels
from engine.views import PlayerView

Style = discord.ButtonStyle


@runtime_checkable
class ControlHandler(Protocol):
    """The client that handles every component click."""

    async def handle_control(self, interaction: discord.Interaction, cid: ComponentId) -> None:
        """Answer a click on a component of the scheme."""


class Control(discord.ui.DynamicItem[discord.ui.Item[Any]], template=custom_ids.TEMPLATE):
    """Any button or select of the scheme; the client's handler does the work."""

    def __init__(self, item: discord.ui.Item[Any]) -> None:
        super().__init__(item)

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> Control:
        return cls(item)

    async def callback(self, interaction: discord.Interaction) -> None:
        client = interaction.client
        cid = custom_ids.parse(self.custom_id)
        if isinstance(client, ControlHandler) and cid is not None:
            await client.handle_control(interaction, cid)


@dataclass(frozen=True)
class Selection:
    """What a player picked in their menus but has not confirmed yet."""

    play: int | None = None
    swap_hand: int | None = None
    swap_face_up: int | None = None


def _id(table: Table, version: int, verb: str, arg: str | None = None) -> str:
    return ComponentId(table.id, version, verb, arg).encode()


def _button(
    custom_id: str, label: str, style: Style = Style.secondary, *, row: int, disabled: bool = False
) -> Control:
    return Control(
        discord.ui.Button(label=label, custom_id=custom_id, style=style, row=row, disabled=disabled)
    )


def _confirm(
    table: Table, version: int, verb: str, arg: str | None, label: str, style: Style, *, row: int
) -> Control:
    """A button that carries the menus' pending choice; greyed out until there is one."""
    return _button(_id(table, version, verb, arg), label, style, row=row, disabled=arg is None)


def _select(
    custom_id: str,
    placeholder: str,
    options: list[discord.SelectOption],
    *,
    row: int,
    count: int = 1,
) -> Control:
    return Control(
        discord.ui.Select(
            custom_id=custom_id,
            placeholder=placeholder,
            options=options,
            min_values=count,
            max_values=count,
            row=row,
        )
    )


def computer_label(level: str) -> str:
    """Name the button that seats a computer player of a level."""
    labels = {
        "basic": t("Add computer player (basic)"),
        "expert": t("Add computer player (expert)"),
    }
    return labels.get(level) or t("Add computer player ({level})", level=level)


def lobby_view(table: Table) -> discord.ui.View:
    """Join, Leave and Start; below, one Add computer player button per level the engine has."""
    view = discord.ui.View(timeout=None)
    view.add_item(_button(_id(table, 0, "join"), t("Join"), Style.success, row=0))
    view.add_item(_button(_id(table, 0, "leave"), t("Leave"), row=0))
    view.add_item(_button(_id(table, 0, "start"), t("Start"), Style.primary, row=0))
    for level in available_levels():
        arg = str(COMPUTER_LEVELS.index(level))
        view.add_item(_button(_id(table, 0, "addbot", arg), computer_label(level), row=1))
    return view


def table_view(table: Table) -> discord.ui.View:
    """The table message's buttons for its phase: My hand while playing, Rematch at the end."""
    if table.phase == "lobby":
        return lobby_view(table)
    view = discord.ui.View(timeout=None)
    if table.phase in ("setup", "play"):
        view.add_item(_button(_id(table, 0, "hand"), t("My hand"), Style.primary, row=0))
    elif table.phase == "over":
        view.add_item(_button(_id(table, 0, "rematch"), t("Rematch"), Style.success, row=0))
    return view


def private_view(
    table: Table, player: PlayerView, selection: Selection | None = None
) -> discord.ui.View:
    """A player's controls now: legal plays, pick-ups, blind cards, setup choices, Ready."""
    chosen = selection or Selection()
    version = table.seats[player.seat].version
    c = controls(player)
    view = discord.ui.View(timeout=None)
    row = 0
    for start in range(0, min(len(c.plays), MAX_OPTIONS * MAX_PLAY_MENUS), MAX_OPTIONS):
        options = [
            discord.SelectOption(
                label=play_label(play.cards), value=str(index), default=index == chosen.play
            )
            for index, play in enumerate(c.plays[start : start + MAX_OPTIONS], start)
        ]
        part = start // MAX_OPTIONS
        placeholder = t("Choose what to play") if part == 0 else t("More plays")
        view.add_item(_select(_id(table, version, "sel", str(part)), placeholder, options, row=row))
        row += 1
    if c.swap_hand and c.swap_face_up:
        view.add_item(_swap_menu(table, version, c.swap_hand, chosen, hand=True, row=row))
        view.add_item(_swap_menu(table, version, c.swap_face_up, chosen, hand=False, row=row + 1))
        row += 2
    if c.choose_pool:
        options = [
            discord.SelectOption(label=card_text(card), value=str(index))
            for index, card in enumerate(c.choose_pool)
        ]
        placeholder = t("Choose your {count} face-up cards", count=c.choose_count)
        view.add_item(
            _select(
                _id(table, version, "choose"), placeholder, options, row=row, count=c.choose_count
            )
        )
        row += 1
    if c.stacks:
        options = [
            discord.SelectOption(
                label=t("Stack {cards}", cards=play_label(stack.cards)), value=str(index)
            )
            for index, stack in enumerate(c.stacks[:MAX_OPTIONS])
        ]
        view.add_item(
            _select(_id(table, version, "stack"), t("Stack equal cards"), options, row=row)
        )
        row += 1
    buttons: list[Control] = []
    if c.plays:
        play = None if chosen.play is None else str(chosen.play)
        buttons.append(_confirm(table, version, "play", play, t("Play"), Style.success, row=row))
    if c.swap_hand and c.swap_face_up:
        both = chosen.swap_hand is not None and chosen.swap_face_up is not None
        swap = f"{chosen.swap_hand}.{chosen.swap_face_up}" if both else None
        buttons.append(_confirm(table, version, "swap", swap, t("Swap"), Style.primary, row=row))
    for index, pickup in enumerate(c.pickups):
        label = (
            t("Pick up (put {card} on the pile)", card=card_text(pickup.add))
            if pickup.add is not None
            else t("Pick up the pile")
        )
        buttons.append(
            _button(_id(table, version, "pickup", str(index)), label, Style.danger, row=row)
        )
    if c.stock is not None:
        buttons.append(_button(_id(table, version, "stock"), t("Turn stock card"), row=row))
    if c.ready is not None:
        buttons.append(_button(_id(table, version, "ready"), t("Ready"), Style.success, row=row))
    for index, flip in enumerate(c.flips):
        buttons.append(
            _button(
                _id(table, version, "flip", str(index)),
                t("Turn face-down card {n}", n=flip.index + 1),
                Style.primary,
                row=row,
            )
        )
    for number, button in enumerate(buttons):
        button.item.row = row + number // 5
        view.add_item(button)
    return view


def _swap_menu(
    table: Table, version: int, cards: tuple[Any, ...], chosen: Selection, *, hand: bool, row: int
) -> Control:
    """One of the two swap menus; each carries the other's choice in its custom_id."""
    if hand:
        verb, mine, other = "swh", chosen.swap_hand, chosen.swap_face_up
        placeholder = t("Hand card to put face up")
    else:
        verb, mine, other = "swf", chosen.swap_face_up, chosen.swap_hand
        placeholder = t("Face-up card to take into your hand")
    options = [
        discord.SelectOption(label=card_text(card), value=str(index), default=index == mine)
        for index, card in enumerate(cards[:MAX_OPTIONS])
    ]
    arg = None if other is None else str(other)
    return _select(_id(table, version, verb, arg), placeholder, options, row=row)
