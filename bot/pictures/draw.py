"""Draw a scene: the table on felt (pile, what may follow, counts, a tile per seat), or a hand.

Sizes are for Discord: a message shows an embed's picture at most about 400 pixels wide and
300 high, and the full picture when clicked, so pictures are drawn about twice that size.
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass

from PIL import Image, ImageDraw

from bot.pictures import cards as sprites
from bot.pictures.cards import RGB, height, lay_card, lay_stack
from bot.pictures.fonts import Font, clipped, font
from bot.pictures.scenes import PILE_SHOWN, HandScene, SeatScene, Stack, TableScene
from engine.cards import SUITS, Card

FELT: RGB = (20, 90, 58)
TILE: RGB = (30, 114, 74)
TILE_OUT: RGB = (24, 74, 52)
TURN: RGB = (255, 204, 40)
TEXT: RGB = (248, 248, 242)
TEXT_SOFT: RGB = (196, 222, 206)
RULE_BG: RGB = (255, 238, 170)
RULE_INK: RGB = (50, 36, 0)
BLOCKED_BG: RGB = (190, 40, 45)
COUNT_BG: RGB = (25, 25, 30)
SLOT: RGB = (44, 130, 88)
MARKS: dict[str, tuple[RGB, RGB]] = {
    "place": ((255, 214, 90), (50, 36, 0)),
    "out": ((150, 160, 155), (20, 20, 20)),
    "loser": ((120, 66, 30), (255, 255, 255)),
    "left": ((90, 95, 100), (255, 255, 255)),
    "ready": ((60, 170, 80), (255, 255, 255)),
}

MARGIN = 16
GAP = 12
# The table picture: the pile's cards, their fan step, the seats' tiles.
PILE_CARD = 96
FAN_STEP = 34
STATUS_HEIGHT = 38
BAND_TOP = MARGIN + STATUS_HEIGHT
GRID_TOP = BAND_TOP + height(PILE_CARD) + 48
TILE_WIDTH = 236
# A tile's table cards: their size bounds, the gap between them, the room they leave.
TILE_CARD_MIN = 40
TILE_CARD_MAX = 54
TILE_GAP = 5
TILE_EXTRA = 33
TILE_CARDS_TOP = 78
# Face-up cards lie on the face-down ones, this much lower.
FACE_UP_DROP = 18
TABLE_MIN_WIDTH = 760
# The hand picture: loose cards in rows of `ROW_CARDS`, or groups of one rank in cells.
HAND_WIDTH = 800
HAND_TOP = MARGIN + 44
HAND_CARD = 88
ROW_CARDS = 12
GROUP_CARD = 70
GROUP_CELL = 94
TABLE_CARD = 70


def columns(seats: int) -> int:
    """Say how many tiles a row of seats holds: one row up to 4, two up to 8, then more."""
    if seats <= 4:
        return max(seats, 1)
    if seats <= 8:
        return math.ceil(seats / 2)
    return min(8, math.ceil(math.sqrt(seats * 1.6)))


def pill(
    draw: ImageDraw.ImageDraw,
    xy: tuple[float, float],
    text: str,
    face: Font,
    colours: tuple[RGB, RGB],
    *,
    right: bool = False,
) -> float:
    """Draw `text` on a rounded badge at `xy` (its left, or right, middle); return its width."""
    background, ink = colours
    pad = face.size * 0.45
    width = face.getlength(text) + 2 * pad
    half = face.size * 0.72
    x, y = xy
    left = x - width if right else x
    draw.rounded_rectangle((left, y - half, left + width, y + half), half, fill=background)
    draw.text((left + pad, y), text, font=face, fill=ink, anchor="lm")
    return width


def count_badge(
    draw: ImageDraw.ImageDraw, card_xy: tuple[int, int], width: int, text: str, size: int
) -> None:
    """Put a stack's count on its card's bottom right corner."""
    x, y = card_xy
    corner = (x + width + size * 0.3, y + height(width) - size * 0.2)
    pill(draw, corner, text, font(size), (COUNT_BG, TEXT), right=True)


def _lay(
    canvas: Image.Image,
    draw: ImageDraw.ImageDraw,
    stack: Stack,
    width: int,
    xy: tuple[int, int],
    badge: int,
) -> None:
    """Lay a stack, with its count on it when it holds more than one card."""
    lay_stack(canvas, stack.cards, width, xy)
    if stack.words:
        count_badge(draw, xy, width, stack.words, badge)


# JPEG at this quality, with full-resolution colour (no chroma subsampling, so red pips and
# text keep sharp edges), stays within the golden pictures' tolerance of the drawing
# (tests/bot/test_pictures_golden.py) and skips the quantizing and deflating that made the
# palette PNG it replaced slow, for larger files (`python -m bot.bench_pictures`: times, sizes).
JPEG_QUALITY = 90


def encode(image: Image.Image) -> bytes:
    """Write a picture as a JPEG: quick to make, sharp enough for cards and text."""
    buffer = io.BytesIO()
    image.save(buffer, "JPEG", quality=JPEG_QUALITY, subsampling=0)
    return buffer.getvalue()


# ---------------------------------------------------------------------- the table


@dataclass(frozen=True)
class TableLayout:
    """Where the table picture puts things: its size, the seats' grid and tiles."""

    width: int
    height: int
    cols: int
    tile_width: int
    tile_height: int
    card: int

    @property
    def grid_left(self) -> int:
        """Return the x of the first column of tiles (the grid is centred)."""
        grid = self.cols * self.tile_width + (self.cols - 1) * GAP
        return (self.width - grid) // 2

    def tile(self, index: int) -> tuple[int, int]:
        """Return the top left corner of a seat's tile."""
        row, col = divmod(index, self.cols)
        x = self.grid_left + col * (self.tile_width + GAP)
        return x, GRID_TOP + row * (self.tile_height + GAP)


def table_layout(scene: TableScene) -> TableLayout:
    """Lay the table out: tiles as wide as the seats' table cards need, in a grid."""
    slots = max(scene.slots, 1)
    # Table cards as large as the tile holds, within readable bounds; wider tiles for 5.
    inner = TILE_WIDTH - TILE_EXTRA - (slots - 1) * TILE_GAP
    card = min(TILE_CARD_MAX, max(TILE_CARD_MIN, inner // slots))
    tile_width = max(TILE_WIDTH, TILE_EXTRA + slots * card + (slots - 1) * TILE_GAP)
    tile_height = TILE_CARDS_TOP + FACE_UP_DROP + height(card) + 14
    seats = len(scene.seats)
    cols = columns(seats)
    rows = math.ceil(seats / cols)
    width = max(TABLE_MIN_WIDTH, 2 * MARGIN + cols * tile_width + (cols - 1) * GAP)
    total = GRID_TOP + rows * tile_height + (rows - 1) * GAP + MARGIN
    return TableLayout(width, total, cols, tile_width, tile_height, card)


def draw_table(scene: TableScene) -> Image.Image:
    """Draw the table: the status line, the pile and its rule and counts, every seat."""
    layout = table_layout(scene)
    canvas = Image.new("RGB", (layout.width, layout.height), FELT)
    draw = ImageDraw.Draw(canvas)
    status = clipped(scene.status, font(24), layout.width - 2 * MARGIN)
    draw.text((MARGIN, MARGIN + 14), status, font=font(24), fill=TEXT, anchor="lm")
    _draw_pile(canvas, draw, scene, layout.width)
    for index, seat in enumerate(scene.seats):
        _draw_seat(canvas, draw, seat, layout, layout.tile(index))
    return canvas


def _draw_pile(
    canvas: Image.Image, draw: ImageDraw.ImageDraw, scene: TableScene, width: int
) -> None:
    """Draw the pile fanned out, the badge of what may follow, the stock and burned counts."""
    depth = 9
    fan = PILE_CARD + (PILE_SHOWN - 1) * FAN_STEP + depth
    band = fan + 28 + 300
    x0 = (width - band) // 2 + depth
    y0 = BAND_TOP + depth
    card_height = height(PILE_CARD)
    if not scene.pile:
        draw.rounded_rectangle(
            (x0, y0, x0 + PILE_CARD, y0 + card_height), 10, outline=SLOT, width=3
        )
    for step in range(scene.edges, 0, -1):
        sprites.place(canvas, sprites.blank(PILE_CARD), (x0 - 3 * step, y0 - 3 * step))
    for index, (card, glass) in enumerate(zip(scene.pile, scene.glass, strict=True)):
        # A card's bottom right corner lies under the next two, unless both are glass.
        whole = all(scene.glass[index + 1 : index + 3])
        lay_card(canvas, card, PILE_CARD, (x0 + index * FAN_STEP, y0), glass, whole)
    words_y = y0 + card_height + 20
    draw.text((x0 - depth, words_y), scene.pile_words, font=font(19), fill=TEXT_SOFT, anchor="lm")
    right = x0 - depth + fan + 28
    middle = y0 + 26
    rule = pill(draw, (right, middle), scene.rule, font(38), (RULE_BG, RULE_INK))
    if scene.blocked:
        pill(draw, (right + rule + 10, middle), scene.blocked, font(24), (BLOCKED_BG, TEXT))
    icons = y0 + card_height - 52
    _count(canvas, draw, (right, icons), sprites.back(36), scene.stock, scene.stock_words)
    burned = sprites.burned(36)
    _count(canvas, draw, (right + 150, icons), burned, scene.burned, scene.burned_words)


def _count(
    canvas: Image.Image,
    draw: ImageDraw.ImageDraw,
    xy: tuple[int, int],
    icon: Image.Image,
    count: int,
    words: str,
) -> None:
    """Draw a small card (a back for the stock, a grey one for burned) with a count."""
    x, y = xy
    sprites.place(canvas, sprites.shadow(icon.width), (x + 2, y + 2))
    sprites.place(canvas, icon, (x, y))
    draw.text((x + 46, y + 16), str(count), font=font(30), fill=TEXT, anchor="lm")
    draw.text((x + 46, y + 42), words, font=font(17), fill=TEXT_SOFT, anchor="lm")


def _draw_seat(
    canvas: Image.Image,
    draw: ImageDraw.ImageDraw,
    seat: SeatScene,
    layout: TableLayout,
    xy: tuple[int, int],
) -> None:
    """Draw one seat's tile: marker, name, marks, hand size, face-down and face-up cards."""
    x, y = xy
    gone = any(mark.kind in ("place", "out", "loser", "left") for mark in seat.marks)
    draw.rounded_rectangle(
        (x, y, x + layout.tile_width, y + layout.tile_height),
        12,
        fill=TILE_OUT if gone else TILE,
        outline=TURN if seat.to_act else None,
        width=4,
    )
    name_y = y + 22
    right: float = x + layout.tile_width - 10
    for mark in reversed(seat.marks):
        right -= pill(draw, (right, name_y), mark.words, font(16), MARKS[mark.kind], right=True)
        right -= 6
    left = x + 12
    if seat.to_act:
        draw.polygon([(left, name_y - 9), (left + 14, name_y), (left, name_y + 9)], fill=TURN)
        left += 20
    name = clipped(seat.name, font(22), right - left - 4)
    draw.text((left, name_y), name, font=font(22), fill=TEXT_SOFT if gone else TEXT, anchor="lm")
    hand_y = y + 54
    words_x = x + 12
    if seat.hand:
        # A small fan of backs, one to three by the hand's size.
        for index in range(min(seat.hand, 3)):
            sprites.place(canvas, sprites.back(16), (x + 12 + index * 6, hand_y - 11 - index))
        words_x = x + 46
    draw.text((words_x, hand_y), seat.hand_words, font=font(18), fill=TEXT_SOFT, anchor="lm")
    cards_y = y + TILE_CARDS_TOP
    card = layout.card
    for slot in range(max(len(seat.face_up), seat.face_down)):
        slot_x = x + 12 + slot * (card + TILE_GAP)
        if slot < seat.face_down:
            lay_card(canvas, None, card, (slot_x, cards_y))
        if slot < len(seat.face_up):
            _lay(canvas, draw, seat.face_up[slot], card, (slot_x + 3, cards_y + FACE_UP_DROP), 14)


# ---------------------------------------------------------------------- a hand


def _hand_rows(cards: int) -> int:
    """Say how many rows loose cards take."""
    return max(1, math.ceil(cards / ROW_CARDS))


def _group_columns() -> int:
    """Say how many groups of one rank a row holds."""
    return (HAND_WIDTH - 2 * MARGIN) // GROUP_CELL


def _group_height() -> int:
    """Return the height of a row of groups: the stack and its suits' counts."""
    return height(GROUP_CARD) + 56


def _table_cards_top(scene: HandScene) -> int:
    """Return where the face-up and face-down cards start, below the hand."""
    if scene.groups:
        body = math.ceil(len(scene.groups) / _group_columns()) * _group_height()
    elif scene.cards:
        body = _hand_rows(len(scene.cards)) * (height(HAND_CARD) + 10)
    else:
        body = 40
    return HAND_TOP + body + 14


def hand_size(scene: HandScene) -> tuple[int, int]:
    """Return the hand picture's width and height for its number of cards."""
    return HAND_WIDTH, _table_cards_top(scene) + 30 + height(TABLE_CARD) + MARGIN


def draw_hand(scene: HandScene) -> Image.Image:
    """Draw a hand: its cards (grouped by rank when many), then face-up and face-down cards."""
    size = hand_size(scene)
    canvas = Image.new("RGB", size, FELT)
    draw = ImageDraw.Draw(canvas)
    title = clipped(scene.title, font(26), HAND_WIDTH - 2 * MARGIN)
    draw.text((MARGIN, MARGIN + 16), title, font=font(26), fill=TEXT, anchor="lm")
    if scene.groups:
        _grouped(canvas, draw, scene.groups)
    elif scene.cards:
        _loose(canvas, scene.cards)
    else:
        words = scene.empty_words
        draw.text((MARGIN, HAND_TOP + 16), words, font=font(20), fill=TEXT_SOFT, anchor="lm")
    below = _table_cards_top(scene)
    draw.line((MARGIN, below - 6, HAND_WIDTH - MARGIN, below - 6), fill=SLOT, width=2)
    label_y = below + 12
    draw.text((MARGIN, label_y), scene.face_up_words, font=font(19), fill=TEXT_SOFT, anchor="lm")
    cards_y = below + 30
    slot = TABLE_CARD + 12
    for index, each in enumerate(scene.face_up):
        _lay(canvas, draw, each, TABLE_CARD, (MARGIN + index * slot + 4, cards_y), 18)
    down_x = MARGIN + max(len(scene.face_up), 1) * slot + 40
    words = scene.face_down_words
    draw.text((down_x, label_y), words, font=font(19), fill=TEXT_SOFT, anchor="lm")
    for index in range(scene.face_down):
        lay_card(canvas, None, TABLE_CARD, (down_x + index * 36, cards_y))
    if scene.face_down:
        count_x = down_x + (scene.face_down - 1) * 36 + TABLE_CARD + 14
        middle = cards_y + height(TABLE_CARD) // 2
        draw.text((count_x, middle), str(scene.face_down), font=font(30), fill=TEXT, anchor="lm")
    return canvas


def _loose(canvas: Image.Image, cards: tuple[Card, ...]) -> None:
    """Lay cards in rows, overlapping so each card's corner shows."""
    rows = _hand_rows(len(cards))
    per_row = math.ceil(len(cards) / rows)
    room = HAND_WIDTH - 2 * MARGIN - HAND_CARD
    step = min(HAND_CARD + 10, room // max(per_row - 1, 1))
    for index, card in enumerate(cards):
        row, col = divmod(index, per_row)
        at = (MARGIN + col * step, HAND_TOP + row * (height(HAND_CARD) + 10))
        # The next card in the row covers this one's bottom right corner.
        covered = step < HAND_CARD and col < per_row - 1 and index < len(cards) - 1
        lay_card(canvas, card, HAND_CARD, at, whole=not covered)


def _grouped(canvas: Image.Image, draw: ImageDraw.ImageDraw, groups: tuple[Stack, ...]) -> None:
    """Lay one stack per rank with its count, and under it how many of each suit."""
    cols = _group_columns()
    cell = (HAND_WIDTH - 2 * MARGIN) // cols
    for index, group in enumerate(groups):
        row, col = divmod(index, cols)
        x = MARGIN + col * cell + (cell - GROUP_CARD) // 2 - 4
        y = HAND_TOP + 6 + row * _group_height()
        lay_stack(canvas, group.cards, GROUP_CARD, (x, y))
        if group.words:
            count_badge(draw, (x + 4, y), GROUP_CARD, group.words, 17)
        _suit_counts(canvas, draw, group.cards, (x + 2, y + height(GROUP_CARD) + 8))


def _suit_counts(
    canvas: Image.Image, draw: ImageDraw.ImageDraw, group: tuple[Card, ...], xy: tuple[int, int]
) -> None:
    """Say how many of each suit a group holds, two suits a line, on white."""
    counts = [(suit, sum(1 for card in group if card.suit == suit)) for suit in SUITS]
    shown = [(suit, count) for suit, count in counts if count]
    if not shown:
        return
    x, y = xy
    lines = math.ceil(len(shown) / 2)
    draw.rounded_rectangle((x, y, x + GROUP_CARD, y + lines * 17 + 4), 5, fill=sprites.PAPER)
    face = font(14)
    for index, (suit, count) in enumerate(shown):
        line, column = divmod(index, 2)
        left = x + 4 + column * (GROUP_CARD // 2)
        middle = y + 11 + line * 17
        colour = sprites.ink(Card(2, suit))
        sprites.place(canvas, sprites.suit(suit, 12, colour), (left, middle - 6))
        draw.text((left + 14, middle), str(count), font=face, fill=colour, anchor="lm")
