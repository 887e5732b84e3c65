"""The table components, one typed DynamicItem per kind.

Each kind's `from_custom_id` parses the table, the view version and its arguments straight
into the core's intent, so a click on any message (even one sent before a restart) reaches
the bot; the callback hands the intent to `bot.answers`. A malformed or forged custom_id
parses into no intent and is answered "That move isn't available any more".
"""

from __future__ import annotations

import re
from typing import Any, Protocol, cast

import discord

from bot import custom_ids
from bot.words import clip
from tables.intents import (
    AddComputer,
    ChooseFaceUp,
    FlipCard,
    GameIntent,
    Join,
    Leave,
    LobbyIntent,
    MarkReady,
    PickUpPile,
    PlayCards,
    SetHints,
    StackCards,
    Start,
    SwapCards,
    TurnStock,
)
from tables.service import COMPUTER_LEVELS

Style = discord.ButtonStyle
ARG = custom_ids.ARG
LOBBY_VERBS = ("join", "leave", "start", "addbot", "hints")
TABLE_VERBS = ("hand", "rematch")
MOVE_VERBS = ("play", "swap", "pickup", "flip", "stock", "ready")
SWAP_MENU_VERBS = ("swh", "swf")


class Answering(Protocol):
    """The bot: it answers every click through its `answers`."""

    @property
    def answers(self) -> Any:
        """Return the click answerer (`bot.answers.Answers`)."""


def answers_of(interaction: discord.Interaction) -> Any:
    """Return the answerer of the bot that got the interaction."""
    # A plain attribute read: an isinstance check against a Protocol walks its attributes
    # on every click.
    return cast(Answering, interaction.client).answers


def lobby_intent(verb: str, values: tuple[int, ...]) -> LobbyIntent | None:
    """Read a lobby button's intent: Add computer player names its level by index.

    The hints button names the setting it asks for (1 on, 0 off), so a second click on an
    old lobby message asks for the same again rather than undoing the first.
    """
    if verb == "addbot":
        index = values[0] if len(values) == 1 else 0
        return AddComputer(COMPUTER_LEVELS[index]) if index < len(COMPUTER_LEVELS) else None
    if verb == "hints":
        return SetHints(values == (1,)) if values in ((0,), (1,)) else None
    simple: dict[str, LobbyIntent] = {"join": Join(), "leave": Leave(), "start": Start()}
    return simple.get(verb) if not values else None


def move_intent(verb: str, values: tuple[int, ...]) -> GameIntent | None:
    """Read a move button's intent from its verb and indexes, or None if malformed."""
    if verb == "play" and len(values) == 1:
        return PlayCards(values[0])
    if verb == "swap" and len(values) == 2:
        return SwapCards(values[0], values[1])
    if verb == "pickup" and len(values) == 1:
        return PickUpPile(values[0])
    if verb == "flip" and len(values) == 1:
        return FlipCard(values[0])
    if verb == "stock" and not values:
        return TurnStock()
    if verb == "ready" and not values:
        return MarkReady()
    return None


def _values(arg: str | None) -> tuple[int, ...] | None:
    try:
        return custom_ids.numbers(arg)
    except ValueError:
        return None


_INDEX = re.compile(r"[0-9]{1,3}")
# Discord's limits for labels and placeholders.
BUTTON_LABEL = 80
OPTION_LABEL = 100
PLACEHOLDER = 150


def picked(interaction: discord.Interaction) -> tuple[int, ...] | None:
    """Read a menu's chosen values as indexes: ASCII digits only, else None (nothing offered)."""
    data: Any = interaction.data or {}
    raw = data.get("values") if isinstance(data, dict) else None
    if not isinstance(raw, list) or len(raw) > 25:
        return None
    if not all(isinstance(v, str) and _INDEX.fullmatch(v) for v in raw):
        return None
    return tuple(int(v) for v in raw)


Payload = dict[str, Any]


def custom_id_of(table_id: str, version: int, verb: str, arg: str | None = None) -> str:
    """Write a component's custom_id, as its DynamicItem's template reads it back."""
    return custom_ids.encode(table_id, version, verb, arg)


def button_payload(
    custom_id: str, label: str, style: Style = Style.secondary, *, disabled: bool = False
) -> Payload:
    """Say a button as Discord's payload, exactly as `discord.ui.Button` would."""
    payload: Payload = {"type": 2, "style": style.value, "disabled": disabled}
    if label:
        payload["label"] = clip(label, BUTTON_LABEL)
    payload["custom_id"] = custom_id
    return payload


def option_payload(label: str, value: str, *, default: bool = False) -> Payload:
    """Say a menu option as Discord's payload, exactly as `discord.SelectOption` would."""
    return {"label": clip(label, OPTION_LABEL), "value": value, "default": default}


def menu_payload(
    custom_id: str, placeholder: str, options: list[Payload], *, count: int = 1
) -> Payload:
    """Say a select menu as Discord's payload, exactly as `discord.ui.Select` would."""
    payload: Payload = {
        "type": 3,
        "custom_id": custom_id,
        "min_values": count,
        "max_values": count,
        "disabled": False,
        "required": True,
    }
    if placeholder:
        payload["placeholder"] = clip(placeholder, PLACEHOLDER)
    # Discord refuses a menu without options.
    payload["options"] = options or [option_payload("-", "0")]
    return payload


class Components:
    """A message's components drawn straight as Discord's payload, rows of buttons and menus.

    Building `discord.ui` items to turn them into this payload on every redraw cost more
    than the rest of the message, and so did a `discord.ui.View` itself (an id from
    `os.urandom`, a future, its children walked): our writes through `bot.rest` read only
    the payload, and a view is made for the few messages discord.py sends (`as_view`). A
    click still reaches its DynamicItem by its custom_id.
    """

    __slots__ = ("payload",)

    def __init__(self, rows: list[list[Payload]] | None = None) -> None:
        self.payload = [{"type": 1, "components": row} for row in rows or () if row]

    def to_components(self) -> list[Payload]:
        """Return the rows as Discord's payload."""
        return self.payload

    def as_view(self) -> discord.ui.View:
        """Make the view discord.py's own sends and edits take."""
        return _PayloadView(self.payload)


class _PayloadView(discord.ui.View):
    """A `discord.ui.View` that is a ready payload (nothing for discord.py to dispatch)."""

    def __init__(self, payload: list[Payload]) -> None:
        super().__init__(timeout=None)
        self.payload = payload

    def to_components(self) -> list[Payload]:
        """Return the rows as Discord's payload."""
        return self.payload


def button(
    custom_id: str, label: str, style: Style, *, row: int | None, disabled: bool
) -> discord.ui.Button[Any]:
    """Make a plain button with a custom_id."""
    return discord.ui.Button(
        label=clip(label, BUTTON_LABEL),
        custom_id=custom_id,
        style=style,
        row=row,
        disabled=disabled,
    )


class Clicked(discord.ui.Item[Any]):
    """The component a click came from, as the click names it: its custom_id and type.

    A click is answered from its custom_id alone: the `discord.ui.Button` or `Select` it
    came from, built only to be wrapped by its DynamicItem, cost more than the rest of it.
    """

    def __init__(self, custom_id: str, kind: int) -> None:
        super().__init__()  # type: ignore[no-untyped-call]  # discord.py leaves it unannotated
        self.custom_id = custom_id
        self.kind = kind

    @property
    def type(self) -> discord.ComponentType:
        """Say what kind of component was clicked."""
        return discord.enums.try_enum(discord.ComponentType, self.kind)

    def is_dispatchable(self) -> bool:
        """Say that a click on it is dispatched (it has a custom_id)."""
        return True


def wrap_clicked(dynamic: discord.ui.DynamicItem[Any], clicked: discord.ui.Item[Any]) -> None:
    """Wrap the component a click came from, as `DynamicItem.__init__` would."""
    # discord.py 2.7.1's `DynamicItem.__init__` runs `Item.__init__`, keeps the item, then
    # checks that it is dispatchable and matches its custom_id against the template again.
    # A clicked component has a custom_id, and the template matched it already: that match
    # chose the class whose `from_custom_id` passes `clicked` (`bot.dispatch`, discord.py's
    # `dispatch_dynamic_items`), so the checks are left out here, once per click.
    super(discord.ui.DynamicItem, dynamic).__init__()  # type: ignore[no-untyped-call]
    dynamic.item = clicked


def _button(item: discord.ui.Item[Any] | None) -> discord.ui.Item[Any] | None:
    """Take the clicked button as it came, to parse a click without building another."""
    return item if isinstance(item, discord.ui.Button | Clicked) else None


def _menu(item: discord.ui.Item[Any] | None) -> discord.ui.Item[Any] | None:
    """Take the clicked menu as it came, to parse a click without building another."""
    return item if isinstance(item, discord.ui.Select | Clicked) else None


class LobbyButton(
    discord.ui.DynamicItem[discord.ui.Item[Any]],
    template=custom_ids.template(LOBBY_VERBS, ARG),
):
    """Join, Leave, Start and Add computer player on the lobby's table message."""

    def __init__(
        self,
        table_id: str,
        verb: str,
        arg: str | None = None,
        *,
        label: str = "",
        style: Style = Style.secondary,
        row: int | None = None,
        clicked: discord.ui.Item[Any] | None = None,
    ) -> None:
        if clicked is None:
            custom_id = custom_id_of(table_id, 0, verb, arg)
            super().__init__(button(custom_id, label, style, row=row, disabled=False))
        else:
            wrap_clicked(self, clicked)
        values = _values(arg)
        self.table_id = table_id
        self.intent = None if values is None else lobby_intent(verb, values)

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> LobbyButton:
        """Parse the button's custom_id into its intent."""
        return cls(match["table"], match["verb"], match["arg"], clicked=_button(item))

    async def callback(self, interaction: discord.Interaction) -> None:
        """Carry out the lobby request and redraw the table message."""
        await answers_of(interaction).lobby(interaction, self.table_id, self.intent)


class TableButton(
    discord.ui.DynamicItem[discord.ui.Item[Any]],
    template=custom_ids.template(TABLE_VERBS),
):
    """My hand while playing (the clicker's private view), Rematch once the game is over."""

    def __init__(
        self,
        table_id: str,
        verb: str,
        *,
        label: str = "",
        style: Style = Style.primary,
        row: int | None = None,
        clicked: discord.ui.Item[Any] | None = None,
    ) -> None:
        if clicked is None:
            custom_id = custom_id_of(table_id, 0, verb)
            super().__init__(button(custom_id, label, style, row=row, disabled=False))
        else:
            wrap_clicked(self, clicked)
        self.table_id, self.verb = table_id, verb

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> TableButton:
        """Parse the button's custom_id."""
        return cls(match["table"], match["verb"], clicked=_button(item))

    async def interaction_check(self, interaction: discord.Interaction) -> bool:
        """Answer a member who does not play here at once, without asking the core."""
        if self.verb != "hand":
            return True
        return bool(await answers_of(interaction).check_player(interaction, self.table_id))

    async def callback(self, interaction: discord.Interaction) -> None:
        """Show the clicker their private view, or open the rematch."""
        if self.verb == "hand":
            await answers_of(interaction).hand(interaction, self.table_id)
        else:
            await answers_of(interaction).rematch(interaction, self.table_id)


class MoveButton(
    discord.ui.DynamicItem[discord.ui.Item[Any]],
    template=custom_ids.template(MOVE_VERBS, ARG),
):
    """A move on a private view: Play, Swap, Pick up, Turn a card, Turn stock card, Ready."""

    def __init__(
        self,
        table_id: str,
        version: int,
        verb: str,
        arg: str | None = None,
        *,
        label: str = "",
        style: Style = Style.secondary,
        row: int | None = None,
        disabled: bool = False,
        clicked: discord.ui.Item[Any] | None = None,
    ) -> None:
        if clicked is None:
            custom_id = custom_id_of(table_id, version, verb, arg)
            super().__init__(button(custom_id, label, style, row=row, disabled=disabled))
        else:
            wrap_clicked(self, clicked)
        values = _values(arg)
        self.table_id = table_id
        self.version = version
        self.intent = None if values is None else move_intent(verb, values)

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> MoveButton:
        """Parse the button's custom_id into its intent."""
        version = int(match["version"])
        return cls(match["table"], version, match["verb"], match["arg"], clicked=_button(item))

    async def callback(self, interaction: discord.Interaction) -> None:
        """Make the move and answer with the new private view."""
        await answers_of(interaction).move(interaction, self.table_id, self.version, self.intent)


class HintButton(
    discord.ui.DynamicItem[discord.ui.Item[Any]],
    template=custom_ids.template(("hint",)),
):
    """Hint on a private view: the move the expert would make, said only to the player."""

    def __init__(
        self,
        table_id: str,
        version: int,
        *,
        label: str = "",
        row: int | None = None,
        clicked: discord.ui.Item[Any] | None = None,
    ) -> None:
        if clicked is None:
            custom_id = custom_id_of(table_id, version, "hint")
            super().__init__(button(custom_id, label, Style.secondary, row=row, disabled=False))
        else:
            wrap_clicked(self, clicked)
        self.table_id = table_id
        self.version = version

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> HintButton:
        """Parse the button's custom_id."""
        return cls(match["table"], int(match["version"]), clicked=_button(item))

    async def callback(self, interaction: discord.Interaction) -> None:
        """Answer the player with a hint only they see."""
        await answers_of(interaction).hint(interaction, self.table_id, self.version)


def select(
    custom_id: str,
    placeholder: str,
    options: list[discord.SelectOption],
    *,
    row: int | None,
    count: int = 1,
) -> discord.ui.Select[Any]:
    """Make a select menu with a custom_id, its labels within Discord's lengths."""
    for option in options:
        option.label = clip(option.label, OPTION_LABEL)
    return discord.ui.Select(
        custom_id=custom_id,
        placeholder=clip(placeholder, PLACEHOLDER),
        options=options or [discord.SelectOption(label="-", value="0")],
        min_values=count,
        max_values=count,
        row=row,
    )


class _Menu(discord.ui.DynamicItem[discord.ui.Item[Any]], template=r"sh:menu:never"):
    """A select menu of the scheme: the picked options arrive with the click.

    A clicked menu wraps what came with the click; its custom_id is written only for a menu
    made to be sent (a click's was read already, by the template that chose the class).
    """


class PlayMenu(_Menu, template=custom_ids.template(("sel",), ARG)):
    """Choose what to play (one of up to three menus); the Play button confirms."""

    def __init__(
        self,
        table_id: str,
        version: int,
        part: int,
        placeholder: str = "",
        options: list[discord.SelectOption] | None = None,
        *,
        row: int | None = None,
        clicked: discord.ui.Item[Any] | None = None,
    ) -> None:
        if clicked is None:
            custom_id = custom_id_of(table_id, version, "sel", str(part))
            super().__init__(select(custom_id, placeholder, options or [], row=row))
        else:
            wrap_clicked(self, clicked)
        self.table_id, self.version = table_id, version

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> PlayMenu:
        """Parse the menu's custom_id."""
        values = _values(match["arg"]) or (0,)
        return cls(match["table"], int(match["version"]), values[0], clicked=_menu(item))

    async def callback(self, interaction: discord.Interaction) -> None:
        """Remember the chosen play and redraw the view with Play enabled."""
        chosen = picked(interaction)
        await answers_of(interaction).select(
            interaction, self.table_id, self.version, play=chosen[0] if chosen else None
        )


class SwapMenu(_Menu, template=custom_ids.template(SWAP_MENU_VERBS, ARG)):
    """One of the two swap menus; each carries the other's pending choice in its custom_id."""

    def __init__(
        self,
        table_id: str,
        version: int,
        verb: str,
        other: int | None,
        placeholder: str = "",
        options: list[discord.SelectOption] | None = None,
        *,
        row: int | None = None,
        clicked: discord.ui.Item[Any] | None = None,
    ) -> None:
        if clicked is None:
            custom_id = custom_id_of(table_id, version, verb, None if other is None else str(other))
            super().__init__(select(custom_id, placeholder, options or [], row=row))
        else:
            wrap_clicked(self, clicked)
        self.table_id, self.version, self.verb, self.other = table_id, version, verb, other

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> SwapMenu:
        """Parse the menu's custom_id."""
        values = _values(match["arg"])
        other = values[0] if values else None
        version = int(match["version"])
        return cls(match["table"], version, match["verb"], other, clicked=_menu(item))

    async def callback(self, interaction: discord.Interaction) -> None:
        """Remember this side's choice (and the other's) and redraw the view."""
        chosen = picked(interaction)
        mine = chosen[0] if chosen else None
        hand, face_up = (mine, self.other) if self.verb == "swh" else (self.other, mine)
        await answers_of(interaction).select(
            interaction, self.table_id, self.version, swap_hand=hand, swap_face_up=face_up
        )


class ChooseMenu(_Menu, template=custom_ids.template(("choose",))):
    """Setup with the choose deal: pick the face-up cards, all at once."""

    def __init__(
        self,
        table_id: str,
        version: int,
        placeholder: str = "",
        options: list[discord.SelectOption] | None = None,
        *,
        count: int = 1,
        row: int | None = None,
        clicked: discord.ui.Item[Any] | None = None,
    ) -> None:
        if clicked is None:
            custom_id = custom_id_of(table_id, version, "choose")
            super().__init__(select(custom_id, placeholder, options or [], row=row, count=count))
        else:
            wrap_clicked(self, clicked)
        self.table_id, self.version = table_id, version

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> ChooseMenu:
        """Parse the menu's custom_id."""
        return cls(match["table"], int(match["version"]), clicked=_menu(item))

    async def callback(self, interaction: discord.Interaction) -> None:
        """Put the chosen cards face up."""
        chosen = picked(interaction)
        intent = None if chosen is None else ChooseFaceUp(chosen)
        await answers_of(interaction).move(interaction, self.table_id, self.version, intent)


class StackMenu(_Menu, template=custom_ids.template(("stack",))):
    """Setup with stacking: put equal hand cards on a face-up card."""

    def __init__(
        self,
        table_id: str,
        version: int,
        placeholder: str = "",
        options: list[discord.SelectOption] | None = None,
        *,
        row: int | None = None,
        clicked: discord.ui.Item[Any] | None = None,
    ) -> None:
        if clicked is None:
            custom_id = custom_id_of(table_id, version, "stack")
            super().__init__(select(custom_id, placeholder, options or [], row=row))
        else:
            wrap_clicked(self, clicked)
        self.table_id, self.version = table_id, version

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> StackMenu:
        """Parse the menu's custom_id."""
        return cls(match["table"], int(match["version"]), clicked=_menu(item))

    async def callback(self, interaction: discord.Interaction) -> None:
        """Stack the chosen cards."""
        chosen = picked(interaction)
        intent = None if not chosen or len(chosen) != 1 else StackCards(chosen[0])
        await answers_of(interaction).move(interaction, self.table_id, self.version, intent)


# Most clicked first: a click's custom_id is matched against each kind's template in turn
# (`bot.dispatch`), and the templates are disjoint (`tests/bot/test_components.py`). In a
# game a move and a menu choice come about once each per turn, the others seldom.
DYNAMIC_ITEMS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (
    MoveButton,
    PlayMenu,
    SwapMenu,
    HintButton,
    TableButton,
    LobbyButton,
    ChooseMenu,
    StackMenu,
)
