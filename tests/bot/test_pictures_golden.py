"""Golden images: fixed positions drawn as stored reference PNGs, within a small tolerance.

Each case builds a position card by card (`engine.position.build_game`, no shuffling, no
strategy), draws its picture through the same path the bot uses (`table_picture` /
`hand_picture`, JPEG included) and compares it with `tests/bot/golden/<name>.png`, a
lossless palette PNG of the reference drawing.

The comparison is perceptual, not byte for byte, so that another FreeType or Pillow build
(anti-aliasing of text, JPEG encoder) does not fail it, while a visible change does:

* the sizes must be equal;
* the mean absolute difference over the RGB channels must be at most `MEAN_LIMIT` (2.0, of
  255);
* at most `FAR_SHARE` (0.05%) of the pixels may differ by more than `FAR_DELTA` (64) in any
  one channel.

The far-pixel share is what catches content: on the 764x438 classic table, another top
card (9C to KH) moves 0.84% of the pixels by more than 64, the same rank in another suit
(9C to 9S) 0.09%, another stock count 0.06%; a looser 1% would let all of these through.
A one-letter change of a name (about 0.02%) can slip under it: the picture keys
(`tests/bot/test_pictures.py`) cover what is shown, these tests how it looks.

Regenerate the references after an intended change of the drawing with

    UPDATE_GOLDEN=1 .venv/bin/pytest tests/bot/test_pictures_golden.py

and look at them before committing (see `tests/bot/golden/README.md`).
"""

from __future__ import annotations

import dataclasses
import io
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
from PIL import Image, ImageChops

from bot.pictures import Picture, hand_picture, table_picture
from bot.pictures import draw as draw_module
from bot.pictures.draw import draw_table, encode
from bot.pictures.scenes import TableScene, table_scene
from engine.cards import Card, parse_cards
from engine.game import Game
from engine.position import build_game
from engine.rules import make_rules
from tables.model import Seat, Table
from tables.outcome import Snapshot, snapshot

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("UPDATE_GOLDEN", "") not in ("", "0")
EN = "en"

# The tolerance (documented in golden/README.md too).
MEAN_LIMIT = 2.0
FAR_DELTA = 64
FAR_SHARE = 0.0005
# A committed reference stays small.
MAX_REFERENCE_BYTES = 60_000


# ---------------------------------------------------------------------- comparing


@dataclass(frozen=True)
class Difference:
    """How far a picture is from its reference."""

    same_size: bool
    mean: float
    far_share: float

    @property
    def close(self) -> bool:
        """Say whether the picture is within the tolerance."""
        return self.same_size and self.mean <= MEAN_LIMIT and self.far_share <= FAR_SHARE

    def __str__(self) -> str:
        if not self.same_size:
            return "the sizes differ"
        return (
            f"mean |difference| {self.mean:.3f} (limit {MEAN_LIMIT}), "
            f"{self.far_share:.2%} of pixels off by more than {FAR_DELTA} (limit {FAR_SHARE:.2%})"
        )


def compare(image: Image.Image, reference: Image.Image) -> Difference:
    """Measure the difference of two pictures over RGB."""
    first, second = image.convert("RGB"), reference.convert("RGB")
    if first.size != second.size:
        return Difference(False, float("inf"), 1.0)
    difference = ImageChops.difference(first, second)
    channels = difference.split()
    pixels = first.width * first.height
    mean = sum(
        sum(value * count for value, count in enumerate(channel.histogram()))
        for channel in channels
    ) / (3 * pixels)
    largest = ImageChops.lighter(ImageChops.lighter(channels[0], channels[1]), channels[2])
    far = sum(largest.histogram()[FAR_DELTA + 1 :])
    return Difference(True, mean, far / pixels)


def decoded(data: bytes) -> Image.Image:
    """Open a picture (the bot's JPEG, or a reference PNG)."""
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


def check_golden(name: str, data: bytes) -> None:
    """Compare a drawn picture with its reference, or (UPDATE_GOLDEN=1) write the reference."""
    path = GOLDEN / f"{name}.png"
    if UPDATE:
        GOLDEN.mkdir(parents=True, exist_ok=True)
        reference = decoded(data).quantize(colors=128, dither=Image.Dither.NONE)
        reference.save(path, "PNG", optimize=True)
        assert path.stat().st_size < MAX_REFERENCE_BYTES
        return
    if not path.exists():
        pytest.fail(
            f"no reference picture {path}: create it with "
            "`UPDATE_GOLDEN=1 .venv/bin/pytest tests/bot/test_pictures_golden.py` "
            "and look at it before committing"
        )
    difference = compare(decoded(data), decoded(path.read_bytes()))
    assert difference.close, (
        f"{name} differs from {path}: {difference}. If the change is intended, regenerate "
        "with `UPDATE_GOLDEN=1 .venv/bin/pytest tests/bot/test_pictures_golden.py`"
    )


# ---------------------------------------------------------------------- positions


def cards(text: str) -> list[Card]:
    """Read cards written with spaces between them."""
    return parse_cards(text.split())


def singles(text: str) -> list[list[Card]]:
    """Face-up cards, one per stack."""
    return [[card] for card in cards(text)]


def seated(game: Game, names: Sequence[str], preset: str) -> Snapshot:
    """Seat members named `names` at a table playing `game` and snapshot it."""
    seats = [Seat(100 + index, name) for index, name in enumerate(names)]
    table = Table("gold", 1, 2, 100, preset, game.rules, 7, 90, 3, seats)
    table.game = game
    return snapshot(table)


def classic_three() -> Snapshot:
    """Classic, 3 players in mid-game: Ben to play on a 9, cards burned, stock left."""
    game = build_game(
        make_rules("classic"),
        hands=[cards("3H 7C QS KD"), cards("4D 9S JH"), cards("2D 6C")],
        face_down=[cards("2C 3C 4C"), cards("2H 3D 4H"), cards("2S 3S")],
        face_up=[singles("8S 9H JS"), singles("8D AH"), singles("QH QD 5D")],
        stock=cards("7D 8H 10D 10S 5H 6H 7H KC"),
        pile=cards("4S 5S 6S 7S 9C"),
        burned=cards("10H 10C AS AC KS"),
        turn=1,
    )
    return seated(game, ("Ana", "Ben", "Cleo"), "classic")


def joker_pile() -> Snapshot:
    """Classic with two jokers a deck: jokers on the pile, Cleo to play."""
    game = build_game(
        make_rules("classic", {"jokers": 2}),
        hands=[cards("3H 7C"), cards("4D 9S JH QC"), cards("2D 6C KH")],
        face_down=[cards("2C 3C 4C")] * 3,
        face_up=[singles("8S 9H JS")] * 3,
        stock=cards("7D 8H"),
        pile=cards("5S 6H JK 8C JK"),
        turn=2,
    )
    return seated(game, ("Ana", "Ben", "Cleo"), "classic")


def glass_pile() -> Snapshot:
    """Dutch rules: a glass 8 and a glass joker over a 9, so the 9 shows through."""
    game = build_game(
        make_rules("dutch"),
        hands=[cards("3H 7C QS"), cards("4D 9D"), cards("2D")],
        face_down=[cards("2C 3C 4C"), cards("2H 3H 4H"), cards("2S 3S 4S")],
        face_up=[singles("5C 6C JS"), singles("5H 6H JH"), singles("5D 6D JD")],
        stock=cards("7D 10D KD"),
        pile=cards("4D 9S 8D JK"),
        turn=0,
    )
    return seated(game, ("Ana", "Ben", "Cleo"), "dutch")


EIGHT_NAMES = (
    "Ana",
    "Jürgen Großmann-Übermeister",
    "Łukasz",
    "Søren",
    "Zoë",
    "Ben",
    "María José",
    "Chris",
)


def schwechat_eight() -> Snapshot:
    """Schwechat (two decks), 8 seats: one seat out first, play going on at seat 3."""
    hands = [
        cards("3H 7C QS"),
        cards("4D 9S JH KC AD"),
        cards("2D 6C"),
        cards("5H 5C 8S 10C"),
        cards("KD QH"),
        cards("6D 9H JC"),
        cards("AS 4S 7H QD"),
        cards(""),
    ]
    face_up = [
        singles("2H 9C JS"),
        singles("8D AH"),
        [cards("QC QC"), [Card(6, "H")]],
        singles("KH 4C 10D"),
        singles("3S 7D"),
        singles("JD"),
        [],
        [],
    ]
    face_down = [
        cards("2C 3C 4C"),
        cards("2H 3D 4H"),
        cards("2S 3S 5S"),
        cards("6S 8C 9D"),
        cards("7S 10S"),
        cards("JH QS KS"),
        cards("AC 5D"),
        [],
    ]
    game = build_game(
        make_rules("schwechat"),
        hands=hands,
        face_up=face_up,
        face_down=face_down,
        stock=cards("7D 8H 10D 10S 5H 6H 7H KC 9S JK"),
        pile=cards("4S 5S 6S 3D 9C JK"),
        burned=cards("10H 10C 10H 10C AS AC KS QH"),
        finished=[7],
        turn=3,
    )
    return seated(game, EIGHT_NAMES, "schwechat")


def forty_five() -> Snapshot:
    """Classic with two decks: the first seat holds 45 cards, shown grouped by rank."""
    deck = [card for card in cards("2C 3D 4H 5S 6C 7D 8H 9S 10C JD QH KS AC") for _ in (0, 1)]
    deck += cards("2D 3H 4S 5C 6D 7H 8S 9C 10D JH QS KC AD 2H 3S 4C 5D 6H 7S")
    assert len(deck) == 45
    game = build_game(
        make_rules("classic", {"decks": 2}),
        hands=[sorted(deck), cards("4D 9D"), cards("2S")],
        face_down=[cards("2C 3C 4C"), cards("2H 3H 4H"), cards("2S 3S 4S")],
        face_up=[singles("8D 9H JS"), singles("5H 6H JH"), singles("5D 6D JD")],
        stock=cards("7D 10D KD"),
        pile=cards("4D 9S"),
        turn=0,
    )
    return seated(game, ("Ana", "Ben", "Cleo"), "classic")


def _some(picture: Picture | None) -> bytes:
    """Draw a picture (and insist there is one)."""
    assert picture is not None
    return picture.data


CASES: dict[str, Callable[[], bytes]] = {
    "table_classic_3": lambda: _some(table_picture(classic_three(), EN)),
    "table_jokers": lambda: _some(table_picture(joker_pile(), EN)),
    "table_glass_dutch": lambda: _some(table_picture(glass_pile(), EN)),
    "table_schwechat_8": lambda: _some(table_picture(schwechat_eight(), EN)),
    "hand_45": lambda: _some(hand_picture(forty_five(), 0, EN)),
}


# ---------------------------------------------------------------------- the tests


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_picture_matches_its_reference(name: str) -> None:
    check_golden(name, CASES[name]())


def test_a_missing_reference_fails_saying_how_to_create_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(f"{__name__}.GOLDEN", tmp_path)
    monkeypatch.setattr(f"{__name__}.UPDATE", False)
    with pytest.raises(pytest.fail.Exception, match="UPDATE_GOLDEN=1"):
        check_golden("nothing_here", b"")


def _reference(name: str) -> Image.Image:
    """Open a stored reference (skipping while the references are being rewritten)."""
    path = GOLDEN / f"{name}.png"
    if UPDATE or not path.exists():
        pytest.skip("needs the stored references")
    return decoded(path.read_bytes())


ALTERATIONS: dict[str, Callable[[TableScene], TableScene]] = {
    # A king of hearts on top instead of the 9 of clubs.
    "another top card": lambda scene: dataclasses.replace(
        scene, pile=(*scene.pile[:-1], Card(13, "H"))
    ),
    # The 9 of spades instead of the 9 of clubs: same rank and colour, another suit.
    "another suit on top": lambda scene: dataclasses.replace(
        scene, pile=(*scene.pile[:-1], Card(9, "S"))
    ),
    "another stock count": lambda scene: dataclasses.replace(scene, stock=scene.stock - 1),
}


@pytest.mark.parametrize("alteration", sorted(ALTERATIONS))
def test_an_altered_scene_is_reported_as_a_difference(alteration: str) -> None:
    reference = _reference("table_classic_3")
    scene = table_scene(classic_three(), EN)
    assert scene is not None
    # Drawn unaltered, the scene matches its reference: only the alteration differs.
    assert compare(decoded(encode(draw_table(scene))), reference).close
    altered = ALTERATIONS[alteration](scene)
    difference = compare(decoded(encode(draw_table(altered))), reference)
    assert not difference.close, str(difference)


def test_another_felt_colour_is_reported_as_a_difference(monkeypatch: pytest.MonkeyPatch) -> None:
    reference = _reference("table_classic_3")
    monkeypatch.setattr(draw_module, "FELT", (40, 60, 110))
    difference = compare(decoded(_some(table_picture(classic_three(), EN))), reference)
    assert not difference.close, str(difference)


def test_the_tolerance_forgives_a_few_stray_pixels_but_not_a_size_change() -> None:
    reference = _reference("table_classic_3").convert("RGB")
    speckled = reference.copy()
    for x in range(0, 40, 2):
        speckled.putpixel((x, 5), (255, 0, 255))
    assert compare(speckled, reference).close
    cropped = reference.crop((0, 0, reference.width - 1, reference.height))
    assert not compare(cropped, reference).close
