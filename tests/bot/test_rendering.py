"""Renderers fit Discord's limits, never carry a hidden card, and say things in words."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import discord
import orjson
import pytest

from bot import rendering
from bot.components import DYNAMIC_ITEMS
from bot.rendering import (
    KNOWN_SHOWN,
    Selection,
    render_private,
    render_table,
    table_components,
    table_embed,
)
from bot.rest import message_body
from bot.words import card_text, constraint_text, note_text, pile_text, rules_summary
from engine.actions import PickUp
from engine.cards import Card, parse_cards, sort_key
from engine.events import Burned, PickedUp, Played
from engine.game import Game
from engine.pile import Constraint
from engine.position import build_game
from engine.rules import make_rules
from tables.model import Seat, Table
from tables.notes import notes_of
from tables.outcome import snapshot

EN = "en"
WHERE = "Table abc in #general on Sandbox"


def matches_a_component_kind(custom_id: str) -> bool:
    return any(
        re.fullmatch(kind.__discord_ui_compiled_template__, custom_id) for kind in DYNAMIC_ITEMS
    )


def big_hand_table() -> Table:
    rules = make_rules("classic", {"decks": 4, "runs": True})
    game = Game.deal(rules, 2, seed=5)
    game.phase, game.turn = "play", 0
    game.hands[0].extend(game.stock[:37])
    del game.stock[:37]
    table = Table("abc", 1, 2, 3, "classic", rules, 5, 90, 3, [Seat(3, "Ana"), Seat(4, "Ben")])
    table.game = game
    return table


def table_embed_of(table: Table) -> discord.Embed:
    """Draw a table's embed, as discord.py reads it."""
    return discord.Embed.from_dict(table_embed(snapshot(table), EN))


def test_a_forty_card_hand_fits_the_limits_and_hides_face_down_cards() -> None:
    table = big_hand_table()
    assert table.game is not None and len(table.game.hands[0]) == 40
    shown = render_private(snapshot(table), 0, EN, WHERE, Selection(play=3))
    rows = shown.view.to_components()
    assert len(rows) <= 5
    for row in rows:
        assert len(row["components"]) <= 5
        for item in row["components"]:
            assert len(item.get("options", [])) <= 25
            assert matches_a_component_kind(item["custom_id"]), item["custom_id"]
    text = json.dumps([rows, [e.to_dict() for e in shown.embeds]], ensure_ascii=False)
    hidden = {card_text(c) for c in table.game.face_down[0] + table.game.hands[1]}
    hidden -= {card_text(c) for c in table.game.hands[0]}
    assert not [card for card in hidden if card in text]
    play = [i for row in rows for i in row["components"] if ":play" in i["custom_id"]]
    assert play[0]["custom_id"] == "sh:abc:0:play:3" and not play[0].get("disabled")


def test_words_for_the_pile_and_the_moves() -> None:
    assert constraint_text(Constraint("lower_equal", 7, frozenset()), EN) == "7 or lower"
    assert constraint_text(Constraint("any", 0, frozenset()), EN) == "anything"
    table = big_hand_table()
    notes = notes_of([Played(0, (Card(10, "H"),), "hand"), Burned(0, 4, "power")])
    lines = [note_text(note, snapshot(table), EN) for note in notes]
    assert lines == ["Ana played 10♥", "Ana burned the pile with 10♥"]


def test_computer_seats_are_named_in_words_by_their_number() -> None:
    seats = [Seat(3, "Ana"), Seat(0, "", computer="basic"), Seat(0, "", computer="expert")]
    table = Table("abc", 1, 2, 3, "classic", make_rules(), 5, 90, 3, seats)
    seats_field = next(f for f in table_embed_of(table).fields if f.name == "Seats")
    assert seats_field.value == "1. Ana\n2. Computer 1 (basic)\n3. Computer 2 (expert)"


def test_the_lobby_offers_only_the_computer_levels_the_engine_has(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    table = Table("abc", 1, 2, 3, "classic", make_rules(), 5, 90, 3, [Seat(3, "Ana")])
    labels = {
        item["custom_id"]: item["label"]
        for row in table_components(snapshot(table), EN).to_components()
        for item in row["components"]
    }
    assert labels["sh:abc:0:addbot:0"] == "Add computer player (basic)"
    assert labels["sh:abc:0:addbot:1"] == "Add computer player (expert)"
    monkeypatch.setattr(rendering, "available_levels", lambda: ["basic"])
    only = [
        i["custom_id"]
        for row in table_components(snapshot(table), EN).to_components()
        for i in row["components"]
    ]
    lobby = ["sh:abc:0:join", "sh:abc:0:leave", "sh:abc:0:start", "sh:abc:0:addbot:0"]
    assert only == [*lobby, "sh:abc:0:hints:1"]


def test_play_and_swap_stay_greyed_out_until_the_menus_name_a_choice() -> None:
    rules = make_rules("classic")
    table = Table("abc", 1, 2, 3, "classic", rules, 5, 90, 3, [Seat(3, "Ana"), Seat(4, "Ben")])
    table.game = Game.deal(rules, 2, seed=5)

    def swap_button(selection: Selection) -> dict[str, object]:
        rows = render_private(snapshot(table), 0, EN, WHERE, selection).view.to_components()
        return next(
            item
            for row in rows
            for item in row["components"]
            if item["custom_id"].startswith("sh:abc:0:swap")
        )

    assert swap_button(Selection()) == swap_button(Selection(swap_hand=1))
    assert swap_button(Selection())["disabled"]
    chosen = swap_button(Selection(swap_hand=1, swap_face_up=2))
    assert chosen["custom_id"] == "sh:abc:0:swap:1.2" and not chosen.get("disabled")
    idle = big_hand_table()
    rows = render_private(snapshot(idle), 0, EN, WHERE).view.to_components()
    play = [i for row in rows for i in row["components"] if ":play" in i["custom_id"]]
    assert play[0]["custom_id"] == "sh:abc:0:play" and play[0]["disabled"]


def test_the_rules_summary_names_powers_in_words() -> None:
    summary = rules_summary(make_rules("dutch"), "dutch", EN)
    assert "burns" in summary and "next lower" in summary and "is see-through" in summary
    assert "lower_equal" not in summary and "glass" not in summary


def test_the_table_shows_cards_seen_going_into_a_hand_and_stays_within_a_field() -> None:
    table = big_hand_table()
    game = table.game
    assert game is not None
    game.pile = list(game.stock[:20])
    del game.stock[:20]
    game.turn = 1
    game.apply(PickUp(1))
    embed = table_embed_of(table)
    seats = next(field for field in embed.fields if field.name == "Seats")
    ben = next(line for line in str(seats.value).splitlines() if "Ben" in line)
    shown = sorted(game.known[1], key=sort_key)[-KNOWN_SHOWN:]
    assert "seen in hand " + " ".join(card_text(card) for card in shown) in ben
    assert "and 14 more" in ben
    ana = next(line for line in str(seats.value).splitlines() if "Ana" in line)
    assert "seen in hand" not in ana


def test_six_long_names_with_known_cards_fit_one_field() -> None:
    rules = make_rules("classic", {"decks": 3})
    game = Game.deal(rules, 6, seed=2)
    game.phase, game.turn = "play", 0
    for seat in range(6):
        taken = game.stock[:16]
        del game.stock[:16]
        game.hands[seat] += taken
        game.known[seat] += taken
    seats = [Seat(10 + n, f"{'W' * 30}{n}") for n in range(6)]
    table = Table("abc", 1, 2, 3, "classic", rules, 5, 90, 3, seats)
    table.game = game
    field = next(f for f in table_embed_of(table).fields if f.name == "Seats")
    assert str(field.value).count("seen in hand") == 6
    assert len(str(field.value)) <= 1024


def test_a_fingerprint_changes_with_the_picture_inputs_and_not_otherwise() -> None:
    table = big_hand_table()
    first = render_table(snapshot(table), EN)
    again = render_table(snapshot(table), EN)
    assert first.fingerprint() == again.fingerprint()
    assert first.pictures and first.file_keys == again.file_keys
    without = rendering.Rendered(first.embed_payloads, first.view)
    assert without.fingerprint() != first.fingerprint()
    # An edit uploads the picture again only when what it shows changed.
    assert "attachments" not in again.edit_kwargs(first.file_keys)
    assert table.game is not None
    table.game.apply(table.game.legal_actions(0)[0])
    moved = render_table(snapshot(table), EN)
    assert moved.fingerprint() != first.fingerprint()
    assert moved.file_keys != first.file_keys
    assert [f.filename for f in moved.edit_kwargs(first.file_keys)["attachments"]] == ["table.jpg"]


def test_a_message_is_fingerprinted_once_however_often_it_is_compared(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rendered = render_table(snapshot(big_hand_table()), EN)
    dumped: list[object] = []
    dumps = orjson.dumps

    def counted_dumps(*args: Any, **kwargs: Any) -> bytes:
        dumped.append(args)
        return dumps(*args, **kwargs)

    monkeypatch.setattr(orjson, "dumps", counted_dumps)
    assert rendered.fingerprint() == rendered.fingerprint() == rendered.fingerprint()
    assert len(dumped) == 1


def test_an_embed_is_drawn_key_for_key_as_discord_py_would_send_it() -> None:
    table = big_hand_table()
    playing = snapshot(table)
    table.pictures = False
    table.closed = True
    closed = snapshot(table)
    drawn = [render_table(playing, EN), render_private(playing, 0, EN, WHERE)]
    drawn += [render_table(closed, EN), render_private(closed, 1, EN, "")]
    for rendered in drawn:
        # discord.py's own sends read the same embeds: its JSON of them is the drawn JSON.
        sent = [embed.to_dict() for embed in rendered.embeds]
        assert json.dumps(sent) == json.dumps(list(rendered.embed_payloads))
        # The write sends the embeds as drawn.
        body, _ = message_body(**rendered.edit_kwargs(rendered.file_keys))
        assert body["embeds"] == list(rendered.embed_payloads)


def counted(calls: list[object], function: Callable[..., Any]) -> Callable[..., Any]:
    """Wrap a function to note each call's arguments."""

    def wrapper(*args: Any) -> Any:
        calls.append(args)
        return function(*args)

    return wrapper


def test_the_table_message_and_the_private_views_draw_the_public_part_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    table = big_hand_table()
    assert table.game is not None
    table.log = notes_of(table.game.apply(table.game.legal_actions(0)[0]))
    shown = snapshot(table)
    assert shown.log and shown.public is not None
    piles: list[object] = []
    notes: list[object] = []
    monkeypatch.setattr(rendering, "pile_text", counted(piles, pile_text))
    monkeypatch.setattr(rendering, "note_text", counted(notes, note_text))
    table_message = render_table(shown, EN)
    views = [render_private(shown, seat, EN, WHERE) for seat in (0, 1, 0)]
    assert len(piles) == 1 and len(notes) == len(shown.log)
    assert all(pile_text(shown.public, EN) in str(v.embeds[0].to_dict()) for v in views)
    assert note_text(shown.log[-1], shown, EN) in str(table_message.embeds[0].to_dict())
    # Another language is drawn on its own.
    render_private(shown, 1, "de", WHERE)
    assert len(piles) == 2


def test_a_name_is_escaped_once_however_many_messages_show_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    table = big_hand_table()
    table.seats[1].name = "Ben *the* escaped once"
    escaped: list[object] = []
    monkeypatch.setattr(
        discord.utils, "escape_markdown", counted(escaped, discord.utils.escape_markdown)
    )
    for _ in range(3):
        render_table(snapshot(table), EN)
    assert escaped.count(("Ben *the* escaped once",)) == 1


def test_pictures_can_be_turned_off_and_the_text_stays() -> None:
    table = big_hand_table()
    table.pictures = False
    shown = render_table(snapshot(table), EN)
    assert shown.pictures == () and shown.embeds[0].image.url is None
    assert any(field.name == "Seats" for field in shown.embeds[0].fields)
    hand = render_private(snapshot(table), 0, EN, WHERE)
    assert hand.pictures == () and "Hand" in [field.name for field in hand.embeds[0].fields]


def test_names_are_shown_as_plain_text_never_as_links_or_mentions() -> None:
    hostile = ["[nitro](https://evil.example)", "**x**", "||x||", "@everyone"]
    seats = [Seat(10 + n, name) for n, name in enumerate(hostile)]
    table = Table("abc", 1, 2, 3, "classic", make_rules(), 5, 90, 3, seats)
    value = str(next(f for f in table_embed_of(table).fields if f.name == "Seats").value)
    # The opening bracket is escaped, so Discord shows the text instead of a masked link.
    assert re.search(r"(?<!\\)\[nitro\]\(", value) is None and "\\[nitro]" in value
    assert "**x**" not in value and "||x||" not in value
    assert "@everyone" not in value and "@\u200beveryone" in value


def test_every_field_stays_within_discords_limits_however_big_the_table() -> None:
    rules = make_rules("classic", {"decks": 4, "jokers": 4})
    seats = [Seat(100 + n, "N" * 32) for n in range(34)]
    table = Table("abc", 1, 2, 3, "classic", rules, 5, 90, 3, seats)
    lobby = table_embed_of(table)
    assert all(len(str(field.value)) <= 1024 for field in lobby.fields)
    assert str(lobby.fields[0].value).endswith("more")
    assert len(lobby) <= 6000


def test_a_power_on_every_rank_still_fits_and_jokers_only_when_there_are_some() -> None:
    powers = {
        name: {"play": "anywhere", "effects": ["reset", "glass", "reverse", "skip"]}
        for name in ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "JK")
    }
    rules = make_rules("classic", {"powers": powers})
    table = Table("abc", 1, 2, 3, "classic", rules, 5, 90, 3, [Seat(3, "Ana")])
    embed = table_embed_of(table)
    summary = str(next(f for f in embed.fields if f.name == "Rules").value)
    assert len(summary) <= 1024 and "joker:" not in summary and "no jokers" in summary
    with_jokers = rules_summary(make_rules("classic", {"jokers": 2}), "classic", EN)
    assert "joker:" in with_jokers and "2 jokers a deck" in with_jokers
    assert "1 deck," in rules_summary(make_rules("classic"), "classic", EN)


def test_counted_words_agree_with_their_number() -> None:
    table = big_hand_table()
    shown = snapshot(table)
    one = note_text(notes_of([PickedUp(0, 1)])[0], shown, EN)
    many = note_text(notes_of([PickedUp(0, 5)])[0], shown, EN)
    assert one == "Ana picked up the pile (1 card)" and many == "Ana picked up the pile (5 cards)"


@pytest.mark.parametrize("language", ["en", "de", "da", "pl", "nl"])
def test_every_screen_fits_discords_limits_in_every_language(language: str) -> None:
    from engine.position import build_game

    rules = make_rules("schwechat")
    names = [f"{'Ü' * 28}{n:04d}" for n in range(8)]
    game = Game.deal(rules, 8, seed=11)
    shown_games = [game]
    # A mid-game position too: a long hand, a pile, someone out.
    mid = build_game(
        rules,
        hands=[list(game.stock[:40]), *game.hands[1:]],
        face_up=[[list(s) for s in stacks] for stacks in game.face_up],
        face_down=game.face_down,
        pile=game.stock[40:44],
        turn=0,
    )
    shown_games.append(mid)
    for each in shown_games:
        table = Table(
            "abc",
            1,
            2,
            3,
            "schwechat",
            rules,
            5,
            90,
            3,
            [Seat(10 + n, name) for n, name in enumerate(names)],
        )
        table.game = each
        shown = snapshot(table)
        screens = [render_table(shown, language)]
        screens += [render_private(shown, seat, language, WHERE * 3) for seat in range(8)]
        for rendered in screens:
            for embed in rendered.embeds:
                assert len(embed) <= 6000
                assert len(embed.title or "") <= 256
                assert len(embed.description or "") <= 4096
                assert len(embed.fields) <= 25
                for field in embed.fields:
                    assert len(str(field.name)) <= 256 and len(str(field.value)) <= 1024
            rows = rendered.view.to_components()
            assert len(rows) <= 5
            for row in rows:
                assert len(row["components"]) <= 5
                for item in row["components"]:
                    assert len(item.get("label") or "") <= 80
                    assert len(item.get("placeholder") or "") <= 150
                    assert len(item.get("options", [])) <= 25
                    assert all(len(o["label"]) <= 100 for o in item.get("options", []))


def test_a_private_view_writes_no_moves_and_the_table_message_writes_them_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    table = big_hand_table()
    assert table.game is not None
    table.log = notes_of(table.game.apply(table.game.legal_actions(0)[0]))
    shown = snapshot(table)
    notes: list[object] = []
    monkeypatch.setattr(rendering, "note_text", counted(notes, note_text))
    render_private(shown, 0, EN, WHERE)
    render_private(shown, 1, EN, WHERE)
    assert notes == []
    render_table(shown, EN)
    render_table(shown, EN)
    assert len(notes) == len(shown.log) > 0


def cards(text: str) -> list[Card]:
    return parse_cards(text.split())


def one_play_table(hand: str) -> Table:
    """A table whose first member holds `hand` on a pile of a 5, their turn."""
    rules = make_rules("classic")
    game = build_game(
        rules,
        hands=[cards(hand), cards("3C 4C 6C")],
        face_up=[[[card] for card in cards("9D JD QD")]] * 2,
        face_down=[cards("2S 3S 4S"), cards("5S 6S 7S")],
        pile=cards("5H"),
        turn=0,
    )
    table = Table("abc", 1, 2, 3, "classic", rules, 5, 90, 3, [Seat(3, "Ana"), Seat(4, "Ben")])
    table.game = game
    return table


def play_controls(table: Table, selection: Selection | None = None) -> tuple[Any, Any]:
    """Find the drawn play menu and Play button of the first member's view."""
    rows = render_private(snapshot(table), 0, EN, WHERE, selection).view.to_components()
    items = [item for row in rows for item in row["components"]]
    menu = next(item for item in items if ":sel:" in item["custom_id"])
    play = next(item for item in items if ":play" in item["custom_id"])
    return menu, play


def test_a_sole_play_is_chosen_already_so_play_confirms_it_in_one_click() -> None:
    menu, play = play_controls(one_play_table("4D 6D KD"))
    # On a 5, only the king and the six may go (one card each): two plays, none chosen.
    assert [option["label"] for option in menu["options"]] == ["6 (6♦)", "king (K♦)"]
    assert not any(option.get("default") for option in menu["options"])
    assert play["custom_id"] == "sh:abc:0:play" and play["disabled"]
    menu, play = play_controls(one_play_table("4D 4H 8D"))
    # One play (the eight): it is chosen, and Play plays it.
    assert [(option["label"], option.get("default")) for option in menu["options"]] == [
        ("8 (8♦)", True)
    ]
    assert play["custom_id"] == "sh:abc:0:play:0" and not play.get("disabled")
    # A member's own choice is what the view shows and plays, as ever.
    menu, play = play_controls(one_play_table("4D 6D KD"), Selection(play=1))
    assert [option.get("default", False) for option in menu["options"]] == [False, True]
    assert play["custom_id"] == "sh:abc:0:play:1"
