"""Pictures decode as small JPEGs, show no hidden card, key what they show, and speak in t()."""

from __future__ import annotations

import dataclasses
import gc
import io
import weakref
from collections.abc import Sequence
from typing import Any

import discord
import pytest
from PIL import Image, ImageDraw, ImageFont, JpegImagePlugin

from bot import i18n
from bot.bench_pictures import big_hand, classic_three, schwechat_eight
from bot.pictures import Picture, fonts, hand_picture, picture_key, table_picture
from bot.pictures import cards as sprites
from bot.pictures import scenes as scenes_module
from bot.pictures.draw import draw_table, encode, table_layout
from bot.pictures.fonts import clipped, font, printable
from bot.pictures.scenes import LOOSE, table_scene
from engine.actions import Play
from engine.cards import Card, parse_cards
from engine.game import Game
from engine.pile import PowerTable
from engine.position import build_game
from engine.rules import RuleSet, make_rules
from tables.model import Seat, Table
from tables.outcome import Snapshot, snapshot

EN = "en"
# Small enough to upload quickly: what Discord shows needs no more (the 74-seat table, the
# largest there is, is about 0.7 MB).
MAX_BYTES = 1_000_000
# A table of up to eight seats, what most games look like.
COMMON_BYTES = 150_000


def decoded(picture: Picture | None) -> Image.Image:
    """Open a picture's JPEG (and insist there is one)."""
    assert picture is not None
    image = Image.open(io.BytesIO(picture.data))
    assert image.format == "JPEG"
    assert len(picture.data) < MAX_BYTES
    return image


def seated(game: Game, names: Sequence[str] = ("Ana", "Ben", "Cleo"), preset: str = "x") -> Table:
    """Seat members at a table playing `game`."""
    seats = [Seat(100 + index, name) for index, name in enumerate(names)]
    table = Table("abc", 1, 2, 100, preset, game.rules, 7, 90, 3, seats)
    table.game = game
    return table


def position(hidden: int, rules: RuleSet | None = None, pile: str = "5S 6H") -> Snapshot:
    """Build a 3-player game in play; `hidden` picks the cards nobody at the table sees."""
    # Seat 0's hand, every face-up card, the pile and every count are the same for each
    # `hidden`; the other hands, the face-down cards and the stock's order differ.
    others = [("4D 9S", "2D"), ("KH 5C", "JD")][hidden]
    down = [("2C 3C 4C", "2H 3H 4H", "2S 3S 4S"), ("AC KC QC", "AH KH QH", "AS KS QS")][hidden]
    stock = parse_cards(["7D", "8D", "9D", "10D"])
    game = build_game(
        rules or make_rules("classic"),
        hands=[parse_cards(["3H", "7C", "QS"])] + [parse_cards(h.split()) for h in others],
        face_down=[parse_cards(cards.split()) for cards in down],
        face_up=[[[card] for card in parse_cards(["8S", "9H", "JS"])]] * 3,
        stock=stock if hidden == 0 else stock[::-1],
        pile=parse_cards(pile.split()),
        turn=0,
    )
    return snapshot(seated(game))


# ---------------------------------------------------------------------- pictures


def test_the_benchmarked_tables_decode_as_pngs_of_the_expected_sizes() -> None:
    three = decoded(table_picture(classic_three(), EN))
    eight = decoded(table_picture(schwechat_eight(), EN))
    assert 700 <= three.width <= 1100 and 300 <= three.height <= 700
    assert 900 <= eight.width <= 1100 and 500 <= eight.height <= 800
    # Wider than high: Discord shows an embed's picture at most about 400 by 300.
    assert three.width / three.height >= 4 / 3 and eight.width / eight.height >= 4 / 3


def test_no_picture_before_a_game_nor_for_a_seat_without_a_view() -> None:
    lobby = Table("abc", 1, 2, 100, "classic", make_rules(), 7, 90, 3, [Seat(100, "Ana")])
    assert table_picture(snapshot(lobby), EN) is None
    assert hand_picture(snapshot(lobby), 0, EN) is None
    assert picture_key(snapshot(lobby), None, EN) == ""
    game = Game.deal(make_rules(), 3, seed=1)
    table = seated(game)
    table.seats[1].computer = "basic"
    table.seats[2].removed = True
    shown = snapshot(table)
    assert hand_picture(shown, 0, EN) is not None
    assert hand_picture(shown, 1, EN) is None and hand_picture(shown, 2, EN) is None
    assert picture_key(shown, 1, EN) == ""


def test_the_largest_table_and_the_largest_hands_render_within_limits() -> None:
    rules = make_rules("classic", {"decks": 4, "jokers": 4, "table_cards": 1, "hand_size": 1})
    seats = rules.max_players
    assert seats == 74
    game = Game.deal(rules, seats, seed=9)
    game.phase, game.turn = "play", 0
    names = [f"Player {number}" for number in range(1, seats + 1)]
    largest = decoded(table_picture(snapshot(seated(game, names)), EN))
    assert largest.width <= 2100 and largest.height <= 2400
    two_hundred = big_hand(200, 4)
    assert len(two_hundred.private[0].hand) == 200
    hand = decoded(hand_picture(two_hundred, 0, EN))
    assert hand.width == 800 and hand.height <= 600
    forty = decoded(hand_picture(big_hand(40, 2), 0, EN))
    assert forty.height <= 600


def test_a_big_hand_is_grouped_by_rank_with_counts_and_every_card_counted() -> None:
    scene = scenes_module.hand_scene(big_hand(200, 4), 0, EN)
    assert scene is not None and scene.cards == ()
    assert sum(len(group.cards) for group in scene.groups) == 200
    assert all(len({card.rank for card in group.cards}) == 1 for group in scene.groups)
    assert scene.groups[0].words == f"×{len(scene.groups[0].cards)}"
    small = scenes_module.hand_scene(big_hand(LOOSE, 2), 0, EN)
    assert small is not None and len(small.cards) == LOOSE and small.groups == ()


def test_a_glass_card_lets_the_card_below_show_through() -> None:
    # Dutch rules: the 8 is glass. Only the glass flag differs between the two scenes.
    scene = table_scene(position(0, make_rules("dutch"), pile="9S 8D"), EN)
    assert scene is not None and scene.glass == (False, True)
    plain = dataclasses.replace(scene, glass=(False, False))
    glass_image, plain_image = draw_table(scene), draw_table(plain)
    assert glass_image.tobytes() != plain_image.tobytes()
    layout = table_layout(scene)
    seats = (0, layout.tile(0)[1], layout.width, layout.height)
    assert glass_image.crop(seats).tobytes() == plain_image.crop(seats).tobytes()
    # The rules decide which cards are glass: the classic 8 is not.
    classic = table_scene(position(0, make_rules("classic"), pile="9S 8D"), EN)
    assert classic is not None and classic.glass == (False, False)


# ---------------------------------------------------------------------- hidden cards


def test_what_nobody_may_see_changes_no_picture_byte() -> None:
    first, second = position(0), position(1)
    assert first.private[1].hand != second.private[1].hand
    assert first.public is not None and second.public is not None
    assert table_picture(first, EN) == table_picture(second, EN)
    assert _data(table_picture(first, EN)) == _data(table_picture(second, EN))
    # Seat 0 sees the same of their own in both: the same hand picture, to the byte.
    assert _data(hand_picture(first, 0, EN)) == _data(hand_picture(second, 0, EN))
    # Seat 1's own hand differs, and so does their picture.
    assert picture_key(first, 1, EN) != picture_key(second, 1, EN)
    assert _data(hand_picture(first, 1, EN)) != _data(hand_picture(second, 1, EN))


def _data(picture: Picture | None) -> bytes:
    """Draw a picture (and insist there is one)."""
    assert picture is not None
    return picture.data


def test_the_key_changes_exactly_when_what_is_shown_changes() -> None:
    game = build_game(
        make_rules("classic"),
        hands=[parse_cards(["7C", "QS"]), parse_cards(["KD", "4H"]), parse_cards(["2D"])],
        face_down=[parse_cards(["2C"])] * 3,
        face_up=[[[Card(8, "S")]]] * 3,
        stock=parse_cards(["9D"]),
        pile=parse_cards(["5S"]),
        turn=1,
    )
    table = seated(game)
    before = snapshot(table)
    keys = {seat: picture_key(before, seat, EN) for seat in (None, 0, 1, 2)}
    assert keys[None] == _key(table_picture(before, EN))
    assert keys[0] == _key(hand_picture(before, 0, EN))
    assert len(set(keys.values())) == 4
    # Nothing changed: the same keys.
    again = snapshot(table)
    assert {seat: picture_key(again, seat, EN) for seat in keys} == keys
    # Ben plays the king: the table and Ben's hand change (Ben draws the 9 from the stock),
    # Ana's and Cleo's hand pictures do not.
    game.apply(Play(1, (Card(13, "D"),)))
    after = snapshot(table)
    assert picture_key(after, None, EN) != keys[None]
    assert picture_key(after, 1, EN) != keys[1]
    assert picture_key(after, 0, EN) == keys[0]
    assert picture_key(after, 2, EN) == keys[2]


def _key(picture: Picture | None) -> str:
    """Return a picture's key (and insist there is one)."""
    assert picture is not None
    return picture.key


def test_the_key_is_known_without_drawing(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_: object) -> bytes:
        raise AssertionError("drawn")

    monkeypatch.setattr("bot.pictures.draw.encode", refuse)
    shown = classic_three()
    picture = table_picture(shown, EN)
    assert picture is not None and picture.key == picture_key(shown, None, EN)
    with pytest.raises(AssertionError, match="drawn"):
        _ = picture.data


def test_a_picture_is_drawn_once_and_makes_a_discord_file() -> None:
    picture = hand_picture(classic_three(), 0, EN)
    assert picture is not None and picture.filename == "hand.jpg"
    assert picture.data is picture.data
    file = picture.file()
    assert isinstance(file, discord.File) and file.filename == "hand.jpg"
    assert file.fp.read() == picture.data
    assert picture.url == "attachment://hand.jpg"


# ---------------------------------------------------------------------- words


def test_words_come_from_the_catalog_of_the_readers_locale(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    shown = classic_three()
    english_table, english_hand = table_picture(shown, EN), hand_picture(shown, 0, EN)
    assert english_table is not None and english_hand is not None
    # A language without translations yet says it in English: the same picture.
    monkeypatch.setitem(i18n.CATALOGS, "xx", {})
    monkeypatch.setitem(i18n.PLURALS, "xx", {})
    assert picture_key(shown, None, "xx") == english_table.key
    monkeypatch.setitem(i18n.CATALOGS, "de", {"stock": "Stapel", "Face-up": "Offen"})
    monkeypatch.setitem(
        i18n.PLURALS,
        "de",
        {"Your hand: {count} card": ("Deine Hand: {count} Karte", "Deine Hand: {count} Karten")},
    )
    german_table, german_hand = table_picture(shown, "de"), hand_picture(shown, 0, "de")
    assert german_table is not None and german_hand is not None
    assert german_table.key != english_table.key and german_hand.key != english_hand.key
    assert german_table.data != english_table.data
    assert german_hand.data != english_hand.data
    scene = table_scene(shown, "de")
    assert scene is not None and scene.stock_words == "Stapel"
    hand = scenes_module.hand_scene(shown, 0, "de")
    assert hand is not None and hand.title.startswith("Deine Hand: ")


def test_every_word_is_asked_for_in_the_readers_locale(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[str] = []
    real_t, real_tn = i18n.t, i18n.tn

    def t(message: str, /, locale: str, **values: object) -> str:
        asked.append(locale)
        return real_t(message, locale, **values)

    def tn(singular: str, plural: str, count: int, /, locale: str, **values: object) -> str:
        asked.append(locale)
        return real_tn(singular, plural, count, locale, **values)

    monkeypatch.setattr(scenes_module, "t", t)
    monkeypatch.setattr(scenes_module, "tn", tn)
    shown = schwechat_eight()
    assert table_picture(shown, "pl") is not None
    assert hand_picture(shown, 0, "pl") is not None
    assert len(asked) > 10 and set(asked) == {"pl"}


def test_the_constraint_badge_says_what_may_follow() -> None:
    def badge(preset: str, pile: str) -> tuple[str, str]:
        scene = table_scene(position(0, make_rules(preset), pile=pile), EN)
        assert scene is not None
        return scene.rule, scene.blocked

    assert badge("classic", "5S 9H") == ("≥ 9", "")
    assert badge("classic", "5S 2H") == ("anything", "")
    assert badge("schwechat", "9H 7S") == ("< 7", "no 7")
    assert badge("gultnieks", "9H 7S") == ("≤ 7", "")


# ---------------------------------------------------------------------- names and fonts


def test_names_are_drawn_as_written_cut_to_their_room_and_without_missing_glyphs() -> None:
    assert printable("Zoë 🦊 *bold*") == "Zoë *bold*"
    assert printable("Jürgen Łukasz Søren") == "Jürgen Łukasz Søren"
    assert printable("🦊🦊") == ""
    face = font(22)
    cut = clipped("Maximilian Alexander von Großmann-Übermeister", face, 150)
    assert cut.endswith("…") and face.getlength(cut) <= 150
    assert clipped("Ana", face, 150) == "Ana"
    game = Game.deal(make_rules(), 3, seed=1)
    table = seated(game, ["🦊", "**Ben**", "x" * 300])
    scene = table_scene(snapshot(table), EN)
    assert scene is not None
    assert [seat.name for seat in scene.seats] == ["Seat 1", "**Ben**", "x" * 48]
    decoded(table_picture(snapshot(table), EN))


def test_the_shipped_font_draws_the_text(monkeypatch: pytest.MonkeyPatch) -> None:
    assert font(20).getname() == ("DejaVu Sans Condensed", "Bold")
    # Installed without it, the pictures still draw, with Pillow's own (ASCII) font.
    monkeypatch.setattr(fonts, "_font_bytes", lambda: None)
    font.cache_clear()
    fonts.drawable.cache_clear()
    fonts._missing.cache_clear()
    try:
        assert font(20).getname() == ("Aileron", "Regular")
        assert printable("Jürgen") == "Jrgen"
        decoded(table_picture(classic_three(), EN))
    finally:
        font.cache_clear()
        fonts.drawable.cache_clear()
        fonts._missing.cache_clear()
        sprites_cleared()


def sprites_cleared() -> None:
    """Forget the card faces drawn so far (their ranks are drawn with the font)."""
    sprites.face.cache_clear()


def test_a_jpeg_keeps_full_colour_resolution_and_stays_small() -> None:
    scene = table_scene(schwechat_eight(), EN)
    assert scene is not None
    drawn = draw_table(scene)
    image = Image.open(io.BytesIO(data := encode(drawn)))
    # 4:4:4: every pixel keeps its own colour, so red pips and text are not smeared.
    assert image.mode == "RGB" and JpegImagePlugin.get_sampling(image) == 0
    assert image.size == drawn.size
    assert len(data) < COMMON_BYTES


def test_a_text_is_rasterized_once_and_drawn_as_pillow_draws_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rasterized: list[str | bytes] = []
    plain = ImageFont.FreeTypeFont.getmask2

    def counted(self: ImageFont.FreeTypeFont, text: str | bytes, *args: Any, **kwargs: Any) -> Any:
        rasterized.append(text)
        return plain(self, text, *args, **kwargs)

    monkeypatch.setattr(ImageFont.FreeTypeFont, "getmask2", counted)
    text = "Jürgen Großmann-Übermeister (12 cards, seen once)"
    felt, ink = (20, 90, 50), (250, 250, 250)

    def draw(face: ImageFont.FreeTypeFont) -> bytes:
        image = Image.new("RGB", (480, 40), felt)
        ImageDraw.Draw(image).text((4.5, 20), text, font=face, fill=ink, anchor="lm")
        return image.tobytes()

    drawn = [draw(font(23)) for _ in range(3)]
    assert rasterized.count(text) == 1
    # The same text in the same font, straight from Pillow, every time.
    pillow = ImageFont.truetype(io.BytesIO(fonts._font_bytes() or b""), 23)
    assert drawn == [draw(pillow)] * 3


def test_the_kept_text_bitmaps_stay_within_their_limit() -> None:
    masks = fonts._Masks(limit=1000)
    for index in range(50):
        masks.put(("text", index), (Image.new("L", (10, 10)).im, (0, 0)))
    assert masks.size <= 1000
    assert masks.get(("text", 49)) is not None and masks.get(("text", 0)) is None


def test_a_text_is_measured_once_and_as_wide_as_pillow_says(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    measured: list[str | bytes] = []
    plain = ImageFont.FreeTypeFont.getlength

    def counted(self: ImageFont.FreeTypeFont, text: str | bytes, *args: Any, **kwargs: Any) -> Any:
        measured.append(text)
        return plain(self, text, *args, **kwargs)

    monkeypatch.setattr(ImageFont.FreeTypeFont, "getlength", counted)
    text = "Łukasz Søren-Zoë, measured once"
    widths = [font(21).getlength(text) for _ in range(3)]
    assert measured.count(text) == 1
    pillow = ImageFont.truetype(io.BytesIO(fonts._font_bytes() or b""), 21)
    assert widths == [plain(pillow, text)] * 3
    # Cutting a name to its room measures it through the same widths.
    assert clipped(text, font(21), 60).endswith("…")
    assert clipped(text, font(21), 60) == clipped(text, font(21), 60)


def test_the_table_scene_builds_no_power_table_of_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    three = classic_three()
    first = table_scene(three, "en")
    built: list[RuleSet] = []
    build = PowerTable.__init__

    def counted(self: PowerTable, rules: RuleSet) -> None:
        built.append(rules)
        build(self, rules)

    monkeypatch.setattr(PowerTable, "__init__", counted)
    assert table_scene(three, "en") == table_scene(three, "en") == first
    assert built == []  # the rules' shared table, built once for every table of those rules


@pytest.mark.parametrize("width", [16, 40, 54, 70, 96])
def test_a_card_on_its_shadow_is_laid_as_the_shadow_then_the_card_would_be(width: int) -> None:
    cards: list[tuple[Card | None, bool, bool]] = [
        (Card(10, "H"), False, True),
        (Card(2, "S"), True, True),  # glass: the shadow shows through the whole card
        (Card(14, "C"), False, False),
        (None, False, True),
    ]
    for card, glass, whole in cards:
        # A background of felt and another card, so every blend of the edges is checked.
        canvas = Image.new("RGB", (width * 3, width * 3), (20, 90, 58))
        sprites.place(canvas, sprites.face(Card(13, "D"), width), (width // 3, width // 4))
        before = canvas.copy()
        offset = max(1, width // 24)
        sprites.place(before, sprites.shadow(width), (width // 2 + offset, width // 2 + offset))
        body = sprites.back(width) if card is None else sprites.face(card, width, glass, whole)
        sprites.place(before, body, (width // 2, width // 2))
        sprites.lay_card(canvas, card, width, (width // 2, width // 2), glass, whole)
        assert canvas.tobytes() == before.tobytes()


def test_a_sent_pictures_bytes_go_as_soon_as_its_file_is_closed() -> None:
    picture = Picture("table.jpg", "k", lambda: b"\xff\xd8" + bytes(50_000))
    gc.disable()  # nothing for the collector to find: the bytes must go by their count alone
    try:
        file = picture.file()
        fp = file.fp
        assert fp.read() == picture.data  # what an upload reads
        gone = weakref.ref(fp)
        file.close()  # as discord.py and bot.rest do once it is sent
        assert not fp.closed  # the stub is dropped, not called
        del file, fp
        assert gone() is None
    finally:
        gc.enable()
    # Only `close` is treated so: other attributes are kept as on any object.
    other = picture.file().fp
    other.name = "x"  # type: ignore[attr-defined]
    assert other.name == "x"  # type: ignore[attr-defined]
