"""Card faces, backs and suit symbols, drawn as shapes and kept once drawn.

Shapes are drawn four times larger and scaled down, so their edges are smooth; the ranks are
drawn at their own size, so the font's hinting keeps them sharp. A card is `width` wide and
`height(width)` high (the 5:7 of a playing card).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache

from PIL import Image, ImageChops, ImageDraw

from bot.pictures.fonts import font
from engine.cards import JOKER, Card, Suit, rank_name

RGBA = tuple[int, int, int, int]
RGB = tuple[int, int, int]

SCALE = 4
RED: RGB = (200, 30, 40)
BLACK: RGB = (25, 25, 30)
JOKER_INK: RGB = (110, 40, 160)
GOLD: RGB = (240, 180, 30)
PAPER: RGB = (255, 255, 255)
OUTLINE: RGB = (30, 30, 35)
BACK: RGB = (30, 60, 140)
BACK_LINES: RGB = (70, 105, 190)
ASH: RGB = (95, 95, 100)
ASH_LINES: RGB = (130, 130, 135)
GLASS_BODY: RGBA = (215, 240, 255, 95)
GLASS_EDGE: RGB = (60, 120, 160)
SHADOW: RGBA = (0, 0, 0, 80)

# Suit outlines in a unit square: (ellipses as boxes, polygons as points).
Box = tuple[float, float, float, float]
Points = tuple[tuple[float, float], ...]
_SHAPES: dict[str, tuple[tuple[Box, ...], tuple[Points, ...]]] = {
    "D": ((), (((0.5, 0.0), (0.9, 0.5), (0.5, 1.0), (0.1, 0.5)),)),
    "H": (
        ((0.02, 0.06, 0.52, 0.56), (0.48, 0.06, 0.98, 0.56)),
        (((0.05, 0.42), (0.5, 0.97), (0.95, 0.42), (0.5, 0.3)),),
    ),
    "S": (
        ((0.04, 0.36, 0.52, 0.82), (0.48, 0.36, 0.96, 0.82)),
        (
            ((0.5, 0.02), (0.07, 0.58), (0.93, 0.58)),
            ((0.5, 0.6), (0.3, 1.0), (0.7, 1.0)),
        ),
    ),
    "C": (
        ((0.27, 0.02, 0.73, 0.48), (0.02, 0.34, 0.48, 0.8), (0.52, 0.34, 0.98, 0.8)),
        (((0.5, 0.3), (0.35, 0.62), (0.65, 0.62)), ((0.5, 0.5), (0.3, 1.0), (0.7, 1.0))),
    ),
}


def height(width: int) -> int:
    """Return the height of a card `width` wide."""
    return round(width * 1.4)


def ink(card: Card) -> RGB:
    """Return the colour a card's rank and suit are printed in."""
    if card.rank == JOKER:
        return JOKER_INK
    return RED if card.suit in ("H", "D") else BLACK


def _star(cx: float, cy: float, radius: float) -> list[tuple[float, float]]:
    """Return the points of a five-pointed star centred on (cx, cy)."""
    points = []
    for index in range(10):
        angle = math.pi / 2 + index * math.pi / 5
        r = radius if index % 2 == 0 else radius * 0.45
        points.append((cx + r * math.cos(angle), cy - r * math.sin(angle)))
    return points


def _draw_suit(draw: ImageDraw.ImageDraw, suit: Suit | None, box: Box, colour: RGB | RGBA) -> None:
    """Draw a suit (or the joker's star when `suit` is None) into `box`."""
    left, top, right, bottom = box
    size_x, size_y = right - left, bottom - top
    if suit is None:
        cx, cy, radius = left + size_x / 2, top + size_y / 2, min(size_x, size_y) / 2
        draw.polygon(
            _star(cx, cy, radius), fill=GOLD, outline=JOKER_INK, width=max(1, round(radius / 8))
        )
        return
    ellipses, polygons = _SHAPES[suit]
    for x0, y0, x1, y1 in ellipses:
        draw.ellipse(
            (left + x0 * size_x, top + y0 * size_y, left + x1 * size_x, top + y1 * size_y),
            fill=colour,
        )
    for points in polygons:
        draw.polygon([(left + x * size_x, top + y * size_y) for x, y in points], fill=colour)


@lru_cache(maxsize=256)
def suit(suit: Suit | None, size: int, colour: RGB) -> Image.Image:
    """Draw a suit symbol `size` pixels square (None: the joker's star)."""
    big = Image.new("RGBA", (size * SCALE, size * SCALE), (0, 0, 0, 0))
    _draw_suit(ImageDraw.Draw(big), suit, (0, 0, size * SCALE, size * SCALE), colour)
    return big.resize((size, size), Image.Resampling.BOX)


def _body(width: int, fill: RGB | RGBA, edge: RGB) -> tuple[Image.Image, ImageDraw.ImageDraw]:
    """Start a card `SCALE` times too large: a rounded body with its outline."""
    w, h = width * SCALE, height(width) * SCALE
    big = Image.new("RGBA", (w, h), (0, 0, 0, 0))
    draw = ImageDraw.Draw(big)
    radius = max(2, width // 9) * SCALE
    line = max(1, round(width / 40)) * SCALE
    draw.rounded_rectangle((0, 0, w - 1, h - 1), radius, fill=fill, outline=edge, width=line)
    return big, draw


def _corner_layout(width: int, rank: int) -> tuple[int, int, int]:
    """Return the rank's font size, the corner's suit size and the corner's margin."""
    small = width < 56
    size = round(width * (0.42 if small else 0.3))
    if rank == 10 or rank == JOKER:
        # Two characters: narrower, so they stay inside the corner.
        size = round(size * 0.85)
    return size, max(6, round(width * (0.24 if small else 0.18))), max(2, round(width * 0.07))


@lru_cache(maxsize=512)
def face(card: Card, width: int, glass: bool = False, whole: bool = True) -> Image.Image:
    """Draw a card's face: rank and suit in the corners, a large suit in the middle."""
    # A glass card's body lets what lies below show through; its print stays solid. A card
    # not seen `whole` (another covers its right side) has no corner at the bottom right.
    h = height(width)
    colour = ink(card)
    body: RGB | RGBA = GLASS_BODY if glass else PAPER
    big, draw = _body(width, body, GLASS_EDGE if glass else OUTLINE)
    if glass:
        # A sheen across the glass, from the top right down to the left.
        w, hh = width * SCALE, h * SCALE
        draw.polygon(
            [(w * 0.55, 0), (w * 0.85, 0), (w * 0.15, hh), (0, hh), (0, hh * 0.85)],
            fill=(255, 255, 255, 70),
        )
    text_size, corner_suit, margin = _corner_layout(width, card.rank)
    label = rank_name(card.rank)
    face_font = font(text_size)
    left, _, right, bottom = face_font.getbbox(label)
    below = margin + bottom + max(1, width // 30)
    text_width = right - left
    # The corner's suit sits under the rank, centred on it.
    suit_x = margin + left + (text_width - corner_suit) / 2
    s = SCALE
    _draw_suit(
        draw,
        card.suit,
        (suit_x * s, below * s, (suit_x + corner_suit) * s, (below + corner_suit) * s),
        colour,
    )
    corner_below = whole and width >= 56
    if corner_below:
        # The same corner, upside down, at the bottom right.
        _draw_suit(
            draw,
            card.suit,
            (
                (width - suit_x - corner_suit) * s,
                (h - below - corner_suit) * s,
                (width - suit_x) * s,
                (h - below) * s,
            ),
            colour,
        )
    if width >= 56:
        centre = width * 0.5
        cx, cy = width / 2, h / 2
    else:
        # Small cards: the corner takes the top left, the large suit the bottom right.
        centre = width * 0.52
        cx, cy = width * 0.6, h * 0.66
    _draw_suit(
        draw,
        card.suit,
        (
            (cx - centre / 2) * s,
            (cy - centre / 2) * s,
            (cx + centre / 2) * s,
            (cy + centre / 2) * s,
        ),
        colour,
    )
    image = big.resize((width, h), Image.Resampling.BOX)
    draw = ImageDraw.Draw(image)
    draw.text((margin, margin), label, font=face_font, fill=colour)
    if corner_below:
        corner = Image.new("RGBA", (math.ceil(right) + 2, math.ceil(bottom) + 2), (0, 0, 0, 0))
        ImageDraw.Draw(corner).text((0, 0), label, font=face_font, fill=colour)
        corner = corner.rotate(180)
        image.alpha_composite(corner, (width - margin - corner.width, h - margin - corner.height))
    return image


@lru_cache(maxsize=32)
def blank(width: int) -> Image.Image:
    """Draw a card's edge seen below others: white, outlined, nothing printed."""
    big, _ = _body(width, PAPER, OUTLINE)
    return big.resize((width, height(width)), Image.Resampling.BOX)


def back(width: int) -> Image.Image:
    """Draw a card's back: a blue lattice inside a white frame."""
    return _back(width, BACK, BACK_LINES)


def burned(width: int) -> Image.Image:
    """Draw a burned card: a back gone grey."""
    return _back(width, ASH, ASH_LINES)


@lru_cache(maxsize=32)
def _back(width: int, colour: RGB, lines_colour: RGB) -> Image.Image:
    """Draw a back: a lattice of `lines_colour` on `colour` inside a white frame."""
    h = height(width)
    big, draw = _body(width, PAPER, OUTLINE)
    s = SCALE
    inset = max(2, round(width * 0.09)) * s
    w, hh = width * s, h * s
    radius = max(1, width // 14) * s
    draw.rounded_rectangle((inset, inset, w - inset, hh - inset), radius, fill=colour)
    step = max(3, width // 6) * s
    line = max(1, width // 30) * s
    lattice = Image.new("RGBA", (w, hh), (0, 0, 0, 0))
    lines = ImageDraw.Draw(lattice)
    for offset in range(-hh, w + hh, step):
        lines.line((offset, 0, offset + hh, hh), fill=lines_colour, width=line)
        lines.line((offset + hh, 0, offset, hh), fill=lines_colour, width=line)
    mask = Image.new("L", (w, hh), 0)
    ImageDraw.Draw(mask).rounded_rectangle(
        (inset + line, inset + line, w - inset - line, hh - inset - line), radius, fill=255
    )
    big.paste(lattice, (0, 0), Image.composite(lattice, Image.new("RGBA", (w, hh)), mask))
    return big.resize((width, h), Image.Resampling.BOX)


@lru_cache(maxsize=32)
def shadow(width: int) -> Image.Image:
    """Draw the soft shadow a card casts on the felt."""
    h = height(width)
    image = Image.new("RGBA", (width, h), (0, 0, 0, 0))
    radius = max(2, width // 9)
    ImageDraw.Draw(image).rounded_rectangle((0, 0, width - 1, h - 1), radius, fill=SHADOW)
    return image


def place(canvas: Image.Image, sprite: Image.Image, xy: tuple[int, int]) -> None:
    """Lay a sprite on the canvas, its transparent parts letting the canvas show."""
    canvas.paste(sprite, xy, sprite)


def lay_card(
    canvas: Image.Image,
    card: Card | None,
    width: int,
    xy: tuple[int, int],
    glass: bool = False,
    whole: bool = True,
) -> None:
    """Lay one card (None: face down) with its shadow; `whole` as for `face`."""
    x, y = xy
    sprite, under = shadowed(card, width, glass, whole)
    if under is not None:
        (left, top), colour, mask = under
        canvas.paste(colour, (x + left, y + top), mask)
    place(canvas, sprite, xy)


# What the shadow shows through where the card is partly transparent: its corner, the
# shadow's colour there, and how much shows.
Under = tuple[tuple[int, int], Image.Image, Image.Image]


@lru_cache(maxsize=512)
def shadowed(
    card: Card | None, width: int, glass: bool = False, whole: bool = True
) -> tuple[Image.Image, Under | None]:
    """Pre-draw a card on its shadow as one sprite, pixel for pixel as the two laid in turn.

    Laying the shadow, then the card on it, blends each pixel twice; one sprite does it once
    where the card hides the shadow or leaves it whole. Only where the card is partly
    transparent (antialiased corners, glass) is the shadow laid first (`Under`), as before.
    """
    body = back(width) if card is None else face(card, width, glass, whole)
    offset = max(1, width // 24)
    size = (width + offset, body.height + offset)
    card_layer = Image.new("RGBA", size, (0, 0, 0, 0))
    card_layer.paste(body, (0, 0))
    shadow_layer = Image.new("RGBA", size, (0, 0, 0, 0))
    shadow_layer.paste(shadow(width), (offset, offset))
    card_alpha, shadow_alpha = card_layer.getchannel("A"), shadow_layer.getchannel("A")
    shows = card_alpha.point(lambda a: 255 if a else 0)
    sprite = Image.composite(card_layer, shadow_layer, shows)
    sprite.putalpha(Image.composite(card_alpha, shadow_alpha, shows))
    partly = card_alpha.point(lambda a: 255 if 0 < a < 255 else 0)
    through = ImageChops.multiply(shadow_alpha, partly)
    box = through.getbbox()
    if box is None:
        return sprite, None
    colour = shadow_layer.convert("RGB").crop(box)
    return sprite, ((box[0], box[1]), colour, through.crop(box))


def lay_stack(canvas: Image.Image, cards: Sequence[Card], width: int, xy: tuple[int, int]) -> None:
    """Lay a stack of face-up cards: the edges of up to two below, the top card on them."""
    x, y = xy
    step = max(2, width // 16)
    below = min(len(cards) - 1, 2)
    offset = max(1, width // 24)
    for index in range(below):
        at = (x + index * step, y - (below - index) * step // 2)
        place(canvas, shadow(width), (at[0] + offset, at[1] + offset))
        place(canvas, blank(width), at)
    lay_card(canvas, cards[-1], width, (x + below * step, y))
