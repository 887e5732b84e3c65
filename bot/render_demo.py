"""Draw a table picture and a hand picture of fixed positions, e.g. for the README.

    python -m bot.render_demo OUT_DIR

Writes `table.jpg` (a classic 3-player game in mid-game) and `hand.jpg` (a 12-card hand)
into OUT_DIR, creating it, and prints their paths. The positions are set card by card with
`engine.position.build_game`: no shuffling, no strategy, so every run draws the same.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from bot.pictures import Picture, hand_picture, table_picture
from engine.cards import Card, parse_cards
from engine.game import Game
from engine.position import build_game
from engine.rules import make_rules
from tables.model import Seat, Table
from tables.outcome import Snapshot, snapshot

LOCALE = "en"
NAMES = ("Ana", "Ben", "Cleo")


def seated(game: Game, names: Sequence[str], preset: str) -> Snapshot:
    """Seat members named `names` at a table playing `game` and snapshot it."""
    seats = [Seat(100 + index, name) for index, name in enumerate(names)]
    table = Table("demo", 1, 2, 100, preset, game.rules, 7, 90, 3, seats)
    table.game = game
    return snapshot(table)


def _cards(text: str) -> list[Card]:
    """Read cards written with spaces between them."""
    return parse_cards(text.split())


def classic_table() -> Snapshot:
    """Build a classic 3-player game in mid-game: Ben to play on a 9, some face-up taken."""
    game = build_game(
        make_rules("classic"),
        hands=[_cards("3H 7C QS KD"), _cards("4D 9S JH"), _cards("2D 6C")],
        face_down=[_cards("2C 3C 4C"), _cards("2H 3D 4H"), _cards("2S 3S")],
        face_up=[
            [[card] for card in _cards("8S 9H JS")],
            [[card] for card in _cards("8D AH")],
            [[card] for card in _cards("QH QD 5D")],
        ],
        stock=_cards("7D 8H 10D 10S 5H 6H 7H KC"),
        pile=_cards("4S 5S 6S 7S 9C"),
        burned=_cards("10H 10C AS AC KS"),
        turn=1,
    )
    return seated(game, NAMES, "classic")


def twelve_card_hand() -> Snapshot:
    """Build a classic 3-player game whose first seat holds 12 cards."""
    game = build_game(
        make_rules("classic"),
        hands=[
            _cards("2C 3D 5H 6S 7C 8D 9H 10S JC QD KH AS"),
            _cards("4D 9S JH"),
            _cards("2D 6C"),
        ],
        face_down=[_cards("2H 3C 4C"), _cards("2S 3H 4H"), _cards("3S 4S 5C")],
        face_up=[
            [[card] for card in _cards("8S 9C JS")],
            [[card] for card in _cards("8C AH AD")],
            [[card] for card in _cards("QH QC 5D")],
        ],
        stock=_cards("7D 8H 10D"),
        pile=_cards("4S 5S"),
        turn=0,
    )
    return seated(game, NAMES, "classic")


def _some(picture: Picture | None) -> Picture:
    """Insist on a picture (both positions have a game)."""
    assert picture is not None
    return picture


def main(argv: list[str] | None = None) -> list[Path]:
    """Write the two pictures into the folder named on the command line; print their paths."""
    parser = argparse.ArgumentParser(prog="python -m bot.render_demo")
    parser.add_argument("out_dir", type=Path, help="folder to write table.jpg and hand.jpg into")
    args = parser.parse_args(argv)
    out: Path = args.out_dir
    out.mkdir(parents=True, exist_ok=True)
    pictures = [
        _some(table_picture(classic_table(), LOCALE)),
        _some(hand_picture(twelve_card_hand(), 0, LOCALE)),
    ]
    paths = []
    for picture in pictures:
        path = out / picture.filename
        path.write_bytes(picture.data)
        print(path)
        paths.append(path)
    return paths


if __name__ == "__main__":
    main()
