"""Renderers: (snapshot, viewer, locale) in, a `Rendered` message out.

A renderer only reads the snapshot: it never decides a rule. The table message shows every
seat's public cards, the pile, whose turn and the last moves; a private view shows one
member's own cards and the controls for what they may do.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Any, NamedTuple, TypeVar

import discord
import orjson

from bot import custom_ids
from bot.components import (
    BUTTON_LABEL,
    OPTION_LABEL,
    Components,
    Payload,
    button_payload,
    custom_id_of,
    menu_payload,
    option_payload,
)
from bot.i18n import t, tn
from bot.pictures import Picture, hand_picture, table_picture
from bot.ratings import Change
from bot.words import (
    card_text,
    cards_text,
    clip,
    fit,
    level_word,
    names,
    note_text,
    pile_text,
    play_label,
    rating_line,
    rules_summary,
    some_cards_text,
)
from engine.cards import Card
from engine.views import PlayerView, SeatView
from tables.controls import controls
from tables.outcome import Snapshot
from tables.service import COMPUTER_LEVELS, available_levels

Style = discord.ButtonStyle
# Discord's limits: 25 options a select, 5 buttons a row, 5 rows a message.
MAX_OPTIONS = 25
ROW_BUTTONS = 5
MAX_ROWS = 5
# Hand cards everyone saw picked up, shown per seat (the highest ones): six seats still fit
# in one embed field of 1024 characters.
KNOWN_SHOWN = 6
LOG_SHOWN_CLOSED = 3


@dataclass(frozen=True)
class Selection:
    """What a player picked in their menus but has not confirmed yet."""

    play: int | None = None
    swap_hand: int | None = None
    swap_face_up: int | None = None


NO_SELECTION = Selection()


@dataclass(frozen=True)
class Rendered:
    """A message to send or edit: its embeds, its components and its pictures.

    `file_keys` fingerprint what the pictures show (not their bytes), so an edit uploads
    them again only when what they show changed; a picture is drawn only to be uploaded.
    """

    embed_payloads: tuple[Payload, ...]
    view: Components
    pictures: tuple[Picture, ...] = ()

    @property
    def file_keys(self) -> tuple[str, ...]:
        """Say what the pictures show."""
        # Read several times per message written (the upload, the edit, what is shown): a
        # message without pictures says so without a generator, and cheaper than through
        # a cached_property's lock.
        return tuple(picture.key for picture in self.pictures) if self.pictures else ()

    async def prepare(self, shown: tuple[str, ...] | None = None) -> None:
        """Draw the pictures an upload needs, off the event loop."""
        if self.pictures and self.file_keys != shown:
            await asyncio.to_thread(lambda: [picture.data for picture in self.pictures])

    def fingerprint(self) -> str:
        """Fingerprint the message's content, to skip writes that change nothing."""
        # Made once per message and kept in its dict by hand: the presenter compares and
        # keeps a message's fingerprint often, and a cached_property takes a lock on its
        # first read (Python 3.11), once for each of the ~2.3 messages drawn per move.
        found: str | None = self.__dict__.get("_fingerprint")
        if found is None:
            content = [self.embed_payloads, self.view.to_components(), self.file_keys]
            data = orjson.dumps(content, option=orjson.OPT_SORT_KEYS, default=str)
            found = self.__dict__["_fingerprint"] = hashlib.blake2b(
                data, digest_size=16
            ).hexdigest()
        return found

    @cached_property
    def embeds(self) -> tuple[discord.Embed, ...]:
        """Make the embeds as discord.py's objects, for the few messages discord.py sends."""
        return tuple(discord.Embed.from_dict(payload) for payload in self.embed_payloads)

    def send_kwargs(self) -> dict[str, Any]:
        """Say the message as discord.py's `send`/`send_message` keywords."""
        kwargs: dict[str, Any] = {"embeds": list(self.embeds), "view": self.view.as_view()}
        if self.pictures:
            kwargs["files"] = [picture.file() for picture in self.pictures]
        return kwargs

    def edit_kwargs(self, shown: tuple[str, ...] | None = None) -> dict[str, Any]:
        """Say the message as `bot.rest` edit keywords; pictures go up again if they changed."""
        kwargs: dict[str, Any] = {"embeds": self.embed_payloads, "view": self.view}
        if self.file_keys != shown:
            kwargs["attachments"] = [picture.file() for picture in self.pictures]
        return kwargs

    def message_edit_kwargs(self, shown: tuple[str, ...] | None = None) -> dict[str, Any]:
        """Say the message as discord.py's `Message.edit` keywords."""
        return {**self.edit_kwargs(shown), "embeds": list(self.embeds), "view": self.view.as_view()}


# Discord's limits for an embed.
FIELD_LIMIT = 1024
DESCRIPTION_LIMIT = 4096


# The embeds' colours, as Discord's JSON says them.
TABLE_COLOUR = discord.Colour.dark_green().value
PRIVATE_COLOUR = discord.Colour.blurple().value


def embed_payload(
    title: str,
    colour: int,
    description: str | None,
    fields: list[Payload],
    *,
    footer: str | None = None,
    image: str | None = None,
) -> Payload:
    """Say an embed as Discord's JSON, key for key as `discord.Embed.to_dict` says it."""
    # Drawn straight as the payload the writes send: a `discord.Embed` is built slot by slot
    # and walked slot by slot again to become this, for every message drawn.
    payload: Payload = {}
    if footer is not None:
        payload["footer"] = {"text": footer}
    if image is not None:
        payload["image"] = {"url": image}
    if fields:
        payload["fields"] = fields
    payload["flags"] = 0
    payload["color"] = colour
    payload["type"] = "rich"
    if description:
        payload["description"] = description
    payload["title"] = title
    return payload


def add(fields: list[Payload], name: str, value: str, locale: str, *, inline: bool = False) -> None:
    """Add a field, its lines cut to Discord's limit with "… and N more"."""
    # Most values fit as they are: `fit` would give them back whole (a dash for nothing).
    if not value or len(value) > FIELD_LIMIT:
        value = fit(value.split("\n"), FIELD_LIMIT, locale)
    fields.append({"inline": inline, "name": name, "value": value})


# ---------------------------------------------------------------------- the public part


T = TypeVar("T")

# What every viewer of a table sees alike in one language (seat names, the last moves, the
# pile) is drawn once per snapshot and language, and shared by the table message and every
# private view; each part when first read (a private view shows no moves).


def _drawn_once(
    snapshot: Snapshot, key: tuple[str, str], kind: type[T], draw: Callable[[], T]
) -> T:
    """Give what `draw` makes of a snapshot, drawn the first time it is asked for."""
    found = snapshot.drawn.get(key)
    if isinstance(found, kind):
        return found
    drawn = snapshot.drawn[key] = draw()
    return drawn


def public_names(snapshot: Snapshot, locale: str) -> tuple[str, ...]:
    """Name a snapshot's seats, once per language."""
    return _drawn_once(snapshot, ("names", locale), tuple, lambda: tuple(names(snapshot, locale)))


def public_log(snapshot: Snapshot, locale: str) -> tuple[str, ...]:
    """Write a snapshot's last moves, once per language."""
    return _drawn_once(
        snapshot,
        ("log", locale),
        tuple,
        lambda: tuple(note_text(note, snapshot, locale) for note in snapshot.log),
    )


def public_pile(snapshot: Snapshot, locale: str) -> str:
    """Describe a snapshot's pile, once per language."""
    view = snapshot.public
    return _drawn_once(
        snapshot, ("pile", locale), str, lambda: "" if view is None else pile_text(view, locale)
    )


# ---------------------------------------------------------------------- the table message


def render_table(
    snapshot: Snapshot, locale: str, game: str = "Shithead", ratings: Sequence[Change] = ()
) -> Rendered:
    """Draw the table message: seats, pile, turn, counts, the last moves, the result.

    `ratings` are the game's rating changes, seat by seat, once it is over and rated.
    """
    picture = table_picture(snapshot, locale) if snapshot.pictures else None
    if picture is None:
        embed = table_embed(snapshot, locale, game, ratings)
        return Rendered((embed,), table_components(snapshot, locale))
    # The text stays: for screen readers and for people who turn images off.
    embed = table_embed(snapshot, locale, game, ratings, image=picture.url)
    return Rendered((embed,), table_components(snapshot, locale), (picture,))


def table_embed(
    snapshot: Snapshot,
    locale: str,
    game: str = "Shithead",
    ratings: Sequence[Change] = (),
    *,
    image: str | None = None,
) -> Payload:
    """Draw the table message's embed; `game` is what the server calls the game."""
    title = t("{game} table {id}", locale, game=game, id=snapshot.id)
    fields: list[Payload] = []
    seat_names, log = public_names(snapshot, locale), public_log(snapshot, locale)
    if snapshot.phase == "lobby":
        seats = "\n".join(f"{i + 1}. {name}" for i, name in enumerate(seat_names))
        add(fields, t("Seats", locale), seats or "—", locale, inline=False)
        summary = rules_summary(snapshot.rules, snapshot.preset, locale)
        add(fields, t("Rules", locale), summary, locale, inline=False)
        waiting = t("Waiting for players. The host starts the game.", locale)
        return embed_payload(title, TABLE_COLOUR, waiting, fields, image=image)
    view = snapshot.public
    if snapshot.phase == "closed" or view is None:
        if log:
            last = "\n".join(log[-LOG_SHOWN_CLOSED:])
            add(fields, t("Last moves", locale), last, locale, inline=False)
        closed = t("This table is closed.", locale)
        return embed_payload(title, TABLE_COLOUR, closed, fields, image=image)
    lines = []
    for seat in view.seats:
        marker = "▶ " if view.turn == seat.seat else "• "
        lines.append(marker + seat_line(snapshot, seat, locale))
    add(fields, t("Seats", locale), "\n".join(lines), locale, inline=False)
    description: str | None = None
    if snapshot.phase == "setup":
        description = t(
            "Setup: look at your private view, arrange your cards and press Ready.", locale
        )
    elif snapshot.phase == "play" and view.turn is not None:
        direction = t("clockwise", locale) if view.direction == 1 else t("anticlockwise", locale)
        description = t(
            "{name} to play · direction {direction}",
            locale,
            name=seat_names[view.turn],
            direction=direction,
        )
    add(fields, t("Pile", locale), public_pile(snapshot, locale), locale, inline=False)
    counts = t(
        "stock {stock} · burned {burned}", locale, stock=view.stock_count, burned=len(view.burned)
    )
    add(fields, t("Cards", locale), counts, locale, inline=False)
    if snapshot.phase == "over":
        order = [seat_names[seat] for seat in view.finished]
        result = "\n".join(f"{i + 1}. {name}" for i, name in enumerate(order))
        if view.loser is not None:
            result += "\n" + t("💩 Shithead: {name}", locale, name=seat_names[view.loser])
        add(fields, t("Result", locale), result or "—", locale, inline=False)
        if ratings:
            changes = [
                rating_line(seat_names[seat], change, locale) for seat, change in enumerate(ratings)
            ]
            add(fields, t("Ratings", locale), "\n".join(changes), locale, inline=False)
    if log:
        add(fields, t("Last moves", locale), "\n".join(log), locale, inline=False)
    return embed_payload(title, TABLE_COLOUR, description, fields, image=image)


def seat_line(snapshot: Snapshot, view: SeatView, locale: str) -> str:
    """One seat as everyone sees it: face-up cards, counts, hand cards all have seen."""
    seat = view.seat
    up = cards_text([card for stack in view.face_up for card in stack])
    text = t(
        "{name} — hand {hand} · face-up {up} · face-down {down}",
        locale,
        name=public_names(snapshot, locale)[seat],
        hand=view.hand_count,
        up=up,
        down=view.face_down_count,
    )
    if view.known:
        shown = some_cards_text(view.known, KNOWN_SHOWN, locale)
        text += t(" · seen in hand {cards}", locale, cards=shown)
    if snapshot.phase == "setup":
        text += " ✅" if view.ready else " ⏳"
    if view.place is not None:
        text += t(" · out, place {place}", locale, place=view.place)
    if snapshot.seats[seat].removed:
        text += t(" · left", locale)
    return text


def computer_label(level: str, locale: str) -> str:
    """Name the button that seats a computer player of a level."""
    return t("Add computer player ({level})", locale, level=level_word(level, locale))


def table_components(snapshot: Snapshot, locale: str) -> Components:
    """The table message's buttons: the lobby's, My hand while playing, Rematch at the end."""
    table_id = snapshot.id

    def lobby(
        verb: str, label: str, style: Style = Style.secondary, arg: str | None = None
    ) -> Payload:
        return button_payload(custom_id_of(table_id, 0, verb, arg), label, style)

    if snapshot.phase == "lobby":
        first = [
            lobby("join", t("Join", locale), Style.success),
            lobby("leave", t("Leave", locale)),
            lobby("start", t("Start", locale), Style.primary),
        ]
        second = [
            lobby("addbot", computer_label(level, locale), arg=str(COMPUTER_LEVELS.index(level)))
            for level in available_levels()
        ]
        return Components([first, [*second, hints_toggle(snapshot, locale)]])
    if snapshot.phase in ("setup", "play"):
        hand = custom_id_of(table_id, 0, "hand")
        return Components([[button_payload(hand, t("My hand", locale), Style.primary)]])
    if snapshot.phase == "over":
        rematch = custom_id_of(table_id, 0, "rematch")
        return Components([[button_payload(rematch, t("Rematch", locale), Style.success)]])
    return Components()


def hints_toggle(snapshot: Snapshot, locale: str) -> Payload:
    """The host's lobby switch for hints: it shows the setting and asks for the other one."""
    if snapshot.hints:
        label, arg, style = t("Hints: on", locale), "0", Style.success
    else:
        label, arg, style = t("Hints: off", locale), "1", Style.secondary
    return button_payload(custom_id_of(snapshot.id, 0, "hints", arg), label, style)


# ---------------------------------------------------------------------- private views


class PrivateWords(NamedTuple):
    """The words every private view says alike, in one language."""

    hand: str
    face_up: str
    face_down: str
    pile: str
    turn: str
    your_turn: str
    choose_play: str
    more_plays: str
    play: str
    swap: str
    pick_up: str
    stock: str
    ready: str
    hint: str


# Translated once per language: every private view drawn (~2 a move) says them all again.
# A pure cache by language, as the catalogs are read once at import.
@lru_cache(maxsize=16)
def private_words(locale: str) -> PrivateWords:
    """Translate the words every private view says into a language."""
    # The buttons' labels within Discord's length for them, once.
    return PrivateWords(
        hand=t("Hand", locale),
        face_up=t("Face-up", locale),
        face_down=t("Face-down", locale),
        pile=t("Pile", locale),
        turn=t("Turn", locale),
        your_turn=t("**Your turn.**", locale),
        choose_play=t("Choose what to play", locale),
        more_plays=t("More plays", locale),
        play=clip(t("Play", locale), BUTTON_LABEL),
        swap=clip(t("Swap", locale), BUTTON_LABEL),
        pick_up=clip(t("Pick up the pile", locale), BUTTON_LABEL),
        stock=clip(t("Turn stock card", locale), BUTTON_LABEL),
        ready=clip(t("Ready", locale), BUTTON_LABEL),
        hint=clip(t("Hint", locale), BUTTON_LABEL),
    )


def render_private(
    snapshot: Snapshot, seat: int, locale: str, where: str, selection: Selection | None = None
) -> Rendered:
    """Draw a member's private view: their cards, the pile, whose turn, their controls."""
    player = snapshot.private.get(seat)
    picture = hand_picture(snapshot, seat, locale) if snapshot.pictures else None
    if picture is None:
        embed = private_embed(snapshot, seat, player, locale, where)
        pictures: tuple[Picture, ...] = ()
    else:
        embed = private_embed(snapshot, seat, player, locale, where, image=picture.url)
        pictures = (picture,)
    return Rendered((embed,), private_view_components(snapshot, seat, locale, selection), pictures)


def private_view_components(
    snapshot: Snapshot, seat: int, locale: str, selection: Selection | None = None
) -> Components:
    """Draw a private view's components alone, as `render_private` draws them."""
    player = snapshot.private.get(seat)
    if player is None or not snapshot.open:
        return Components()
    return private_components(snapshot, player, locale, selection)


def private_embed(
    snapshot: Snapshot,
    seat: int,
    view: PlayerView | None,
    locale: str,
    where: str,
    *,
    image: str | None = None,
) -> Payload:
    """Draw a member's own cards, the pile and whose turn; nothing hidden from them."""
    version = snapshot.seats[seat].version
    title = private_title(snapshot.id, locale)
    footer = t("table {id} · view {version}", locale, id=snapshot.id, version=version)
    fields: list[Payload] = []
    words = private_words(locale)
    public = snapshot.public
    if public is None:
        add(fields, words.turn, t("This table is closed.", locale), locale)
    else:
        mine = public.seats[seat]
        hand = cards_text(view.hand) if view is not None else "—"
        add(fields, words.hand, hand, locale, inline=False)
        face_up = " ".join(map(cards_text, mine.face_up)) or "—"
        add(fields, words.face_up, face_up, locale, inline=True)
        # A count, the pile and whose turn are a line each, never empty nor near a field's
        # 1024 characters: added as they are, without `add`'s check.
        fields += (
            {"inline": True, "name": words.face_down, "value": str(mine.face_down_count)},
            {"inline": False, "name": words.pile, "value": public_pile(snapshot, locale)},
            {"inline": False, "name": words.turn, "value": _status(snapshot, seat, locale)},
        )
    return embed_payload(title, PRIVATE_COLOUR, where, fields, footer=footer, image=image)


# A table's private views are titled alike in a language, version after version (a pure
# cache by table id and language; ids of finished tables fall out).
@lru_cache(maxsize=1024)
def private_title(table_id: str, locale: str) -> str:
    """Title a table's private views in a language."""
    return t("Your cards at table {id}", locale, id=table_id)


def _status(snapshot: Snapshot, seat: int, locale: str) -> str:
    public = snapshot.public
    assert public is not None
    if snapshot.phase == "setup":
        if public.seats[seat].ready:
            return t("You are ready; waiting for the others.", locale)
        return t("Setup: swap or choose your face-up cards, then press Ready.", locale)
    if snapshot.phase in ("over", "closed"):
        status = t("The game is over.", locale)
        if public.loser is not None:
            name = public_names(snapshot, locale)[public.loser]
            status += " " + t("💩 Shithead: {name}", locale, name=name)
        return status
    if public.turn == seat:
        return private_words(locale).your_turn
    return t("{name} is playing.", locale, name=public_names(snapshot, locale)[public.turn or 0])


def private_components(
    snapshot: Snapshot, player: PlayerView, locale: str, selection: Selection | None
) -> Components:
    """A player's controls now: legal plays, pick-ups, blind cards, setup choices, Ready."""
    chosen = selection or NO_SELECTION
    words = private_words(locale)
    # Every component of the view begins alike: its start is written and checked once. The
    # verbs are the templates' and each argument is indexes written here, so what follows
    # keeps a custom_id within the scheme and far from its 100 characters.
    ids = custom_ids.prefix(snapshot.id, snapshot.seats[player.seat].version)
    # Grouped once per snapshot: a menu choice is answered from the snapshot its view was
    # drawn from, each choice draws the components again, and a click resolves through them.
    own = snapshot.private.get(player.seat) is player
    c = snapshot.choices(player.seat) if own else None
    if c is None:
        c = controls(player)
    # A sole play is chosen already: the member confirms it with Play, one click, not two.
    play = chosen.play if chosen.play is not None or len(c.plays) != 1 else 0
    rows: list[list[Payload]] = []
    for start in range(0, len(c.plays), MAX_OPTIONS):
        options = [
            option_payload(play_option(each.cards, locale), str(index), default=index == play)
            for index, each in enumerate(c.plays[start : start + MAX_OPTIONS], start)
        ]
        part = start // MAX_OPTIONS
        placeholder = words.choose_play if part == 0 else words.more_plays
        rows.append([menu_payload(f"{ids}sel:{part}", placeholder, options)])
    if c.swap_hand and c.swap_face_up:
        rows.append([_swap_menu(ids, c.swap_hand, chosen, locale, True)])
        rows.append([_swap_menu(ids, c.swap_face_up, chosen, locale, False)])
    if c.choose_pool:
        options = [
            option_payload(card_text(card), str(index)) for index, card in enumerate(c.choose_pool)
        ]
        placeholder = tn(
            "Choose your face-up card", "Choose your {count} face-up cards", c.choose_count, locale
        )
        rows.append([menu_payload(f"{ids}choose", placeholder, options, count=c.choose_count)])
    if c.stacks:
        options = [
            option_payload(
                t("Stack {cards}", locale, cards=play_label(stack.cards, locale)), str(index)
            )
            for index, stack in enumerate(c.stacks[:MAX_OPTIONS])
        ]
        rows.append([menu_payload(f"{ids}stack", t("Stack equal cards", locale), options)])
    buttons: list[Payload] = []

    def move(custom_id: str, label: str, style: Style, disabled: bool = False) -> None:
        buttons.append(button_payload(custom_id, label, style, disabled=disabled))

    if c.plays:
        # Play and Swap carry the menus' pending choice; greyed out until there is one.
        if play is None:
            move(f"{ids}play", words.play, Style.success, True)
        else:
            move(f"{ids}play:{play}", words.play, Style.success)
    if c.swap_hand and c.swap_face_up:
        if chosen.swap_hand is None or chosen.swap_face_up is None:
            move(f"{ids}swap", words.swap, Style.primary, True)
        else:
            move(f"{ids}swap:{chosen.swap_hand}.{chosen.swap_face_up}", words.swap, Style.primary)
    for index, pickup in enumerate(c.pickups):
        label = (
            clip(
                t("Pick up (put {card} on the pile)", locale, card=card_text(pickup.add)),
                BUTTON_LABEL,
            )
            if pickup.add is not None
            else words.pick_up
        )
        move(f"{ids}pickup:{index}", label, Style.danger)
    if c.stock is not None:
        move(f"{ids}stock", words.stock, Style.secondary)
    if c.ready is not None:
        move(f"{ids}ready", words.ready, Style.success)
    for index, flip in enumerate(c.flips):
        label = clip(t("Turn face-down card {n}", locale, n=flip.index + 1), BUTTON_LABEL)
        move(f"{ids}flip:{index}", label, Style.primary)
    # A hint is offered to the player to act in play, when the host allows it and it fits.
    offers_hint = snapshot.hints and snapshot.phase == "play" and snapshot.turn == player.seat
    if offers_hint and len(buttons) < (MAX_ROWS - len(rows)) * ROW_BUTTONS:
        move(f"{ids}hint", words.hint, Style.secondary)
    rows += [buttons[start : start + ROW_BUTTONS] for start in range(0, len(buttons), ROW_BUTTONS)]
    return Components(rows)


def _swap_menu(
    ids: str,
    cards: Sequence[Card],
    chosen: Selection,
    locale: str,
    hand: bool,
) -> Payload:
    """One of the two swap menus; each carries the other's choice in its custom_id."""
    if hand:
        verb, mine, other = "swh", chosen.swap_hand, chosen.swap_face_up
        placeholder = t("Hand card to put face up", locale)
    else:
        verb, mine, other = "swf", chosen.swap_face_up, chosen.swap_hand
        placeholder = t("Face-up card to take into your hand", locale)
    options = [
        option_payload(card_text(card), str(index), default=index == mine)
        for index, card in enumerate(cards[:MAX_OPTIONS])
    ]
    custom_id = f"{ids}{verb}" if other is None else f"{ids}{verb}:{other}"
    return menu_payload(custom_id, placeholder, options)


# A play is offered again on every redraw of its player's menus: its option's label is kept
# clipped, per language (a pure cache by cards and language, as `play_label`).
@lru_cache(maxsize=4096)
def play_option(cards: tuple[Card, ...], locale: str) -> str:
    """Label a play's menu option, within Discord's length for it."""
    return clip(play_label(cards, locale), OPTION_LABEL)
