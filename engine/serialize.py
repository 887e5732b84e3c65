"""JSON round-trip of a game in progress: rules, state and random state."""

from __future__ import annotations

import base64
import struct
from typing import Any

from engine.actions import (
    Action,
    Choose,
    Flip,
    PickUp,
    Play,
    PlayStock,
    Ready,
    Resign,
    Stack,
    Swap,
)
from engine.cards import Card, card_text, format_cards, parse_card, parse_cards
from engine.game import Game
from engine.position import build_game
from engine.rules import RuleSet, rules_from_json, rules_to_json

FORMAT = 1


def game_to_json(game: Game, *, with_rules: bool = True) -> dict[str, Any]:
    """Write everything needed to resume `game` exactly (its rules left out if told to).

    A game whose rules are left out is read back with rules given (`game_from_json`).
    """
    # Every move saves the whole game: each list of cards is written with one `map` over
    # the shared texts, not through a call per list (about twenty a save).
    text = card_text
    data = {
        "format": FORMAT,
        "players": game.players,
        "dealer": game.dealer,
        "seed": game.seed,
        "previous_loser": game.previous_loser,
        "rng": rng_to_json(game),
        "phase": game.phase,
        "turn": game.turn,
        "direction": game.direction,
        "hands": [list(map(text, hand)) for hand in game.hands],
        "known": [list(map(text, cards)) for cards in game.known],
        "face_up": [[list(map(text, stack)) for stack in stacks] for stacks in game.face_up],
        "face_down": [list(map(text, cards)) for cards in game.face_down],
        "stock": list(map(text, game.stock)),
        "pile": list(map(text, game.pile)),
        "burned": list(map(text, game.burned)),
        "finished": list(game.finished),
        "out": list(game.out),
        "loser": game.loser,
        "winner": game.winner,
        "end_reason": game.end_reason,
        "ready": list(game.ready),
        "chosen": list(game.chosen),
        "last_on_pile": game.last_on_pile,
        "idle": game.idle,
        "moves": game.moves,
    }
    if with_rules:
        data["rules"] = rules_to_json(game.rules)
    return data


def game_from_json(data: dict[str, Any], rules: RuleSet | None = None) -> Game:
    """Rebuild a game written by `game_to_json`; `rules` are its rules if it does not name any."""
    if data.get("format") != FORMAT:
        raise ValueError(f"unknown game format {data.get('format')!r}")
    if len(data["hands"]) != data["players"]:
        raise ValueError("a saved game has one hand per player")
    # Games saved before hands had known cards load with none known.
    known = data.get("known")
    if "rules" in data:
        rules = rules_from_json(data["rules"])
    elif rules is None:
        raise ValueError("a saved game without its rules is read with them")
    # Only `mode: winner` has a winner; games saved before that was so may name the first
    # player out as the winner of a `mode: loser` game.
    winner = data["winner"] if rules.mode == "winner" else None
    rng = data["rng"]
    game = build_game(
        rules,
        hands=[parse_cards(hand) for hand in data["hands"]],
        known=None if known is None else [parse_cards(cards) for cards in known],
        face_up=[[parse_cards(stack) for stack in stacks] for stacks in data["face_up"]],
        face_down=[parse_cards(cards) for cards in data["face_down"]],
        stock=parse_cards(data["stock"]),
        pile=parse_cards(data["pile"]),
        burned=parse_cards(data["burned"]),
        finished=data["finished"],
        out=data["out"],
        phase=data["phase"],
        turn=data["turn"],
        direction=data["direction"],
        ready=data["ready"],
        chosen=data["chosen"],
        last_on_pile=data["last_on_pile"],
        loser=data["loser"],
        winner=winner,
        end_reason=data["end_reason"],
        idle=data["idle"],
        moves=data["moves"],
        dealer=data["dealer"],
        seed=data["seed"],
        previous_loser=data["previous_loser"],
        rng_state=None if isinstance(rng, dict) else rng_from_json(rng),
        check_players=True,
    )
    if isinstance(rng, dict):
        game.redraw([(str(call), int(size)) for call, size in rng["draws"]])
    return game


def rng_to_json(game: Game) -> dict[str, Any] | list[Any]:
    """Write a game's random state as the draws made since its seed, when they are known.

    Else as its `Random.getstate()`, the 625 words as one base64 text (a third of a list).
    """
    if game.draws is not None:
        return {"draws": [[call, size] for call, size in game.draws]}
    version, internal, gauss = game.rng.getstate()
    packed = struct.pack(f"<{len(internal)}I", *internal)
    return [version, base64.b64encode(packed).decode("ascii"), gauss]


def rng_from_json(data: list[Any]) -> tuple[Any, ...]:
    """Read a state written by `rng_to_json` as words, or by older games as a list of them."""
    version, internal, gauss = data
    if isinstance(internal, str):
        packed = base64.b64decode(internal, validate=True)
        internal = struct.unpack(f"<{len(packed) // 4}I", packed)
    return (version, tuple(internal), gauss)


def _card(card: Card | None) -> str | None:
    return None if card is None else str(card)


def action_to_json(action: Action) -> dict[str, Any]:
    """Write an action in the scenario vocabulary (`play`, `flip`, `pickup`...)."""
    out: dict[str, Any] = {"player": action.player}
    if isinstance(action, Play):
        out["play"] = format_cards(action.cards)
    elif isinstance(action, Flip):
        out["flip"] = action.index
    elif isinstance(action, PickUp):
        out["pickup"] = True
        if action.add is not None:
            out["add"] = _card(action.add)
    elif isinstance(action, PlayStock):
        out["stock"] = True
    elif isinstance(action, Swap):
        out["swap"] = [str(action.hand_card), str(action.face_up_card)]
    elif isinstance(action, Choose):
        out["choose"] = format_cards(action.cards)
    elif isinstance(action, Stack):
        out["stack"] = format_cards(action.cards)
    elif isinstance(action, Ready):
        out["ready"] = True
    elif isinstance(action, Resign):
        out["resign"] = True
    return out


class ActionFormatError(ValueError):
    """An action in JSON is malformed."""


ACTION_KEYS = ("play", "flip", "pickup", "stock", "swap", "choose", "ready", "stack", "resign")


def action_from_json(data: dict[str, Any], *, strict: bool = False) -> Action:
    """Read an action in the scenario vocabulary; raise `ActionFormatError` when malformed.

    `strict` reads cards as rule scenarios write them (`parse_card(..., strict=True)`).
    """
    player = data.get("player")
    if not isinstance(player, int) or isinstance(player, bool):
        raise ActionFormatError("an action names its player by index")
    present = [key for key in ACTION_KEYS if key in data]
    if len(present) != 1:
        raise ActionFormatError(f"an action has exactly one of {', '.join(ACTION_KEYS)}")
    key = present[0]
    value = data[key]
    try:
        if key == "play":
            return Play(player, tuple(_card_list(value, strict)))
        if key == "flip":
            if not isinstance(value, int) or isinstance(value, bool):
                raise ActionFormatError("flip takes a face-down position")
            return Flip(player, value)
        if key == "pickup":
            if value is not True:
                raise ActionFormatError("pickup is true")
            add = data.get("add")
            return PickUp(player, None if add is None else parse_card(add, strict=strict))
        if key == "stock":
            if value is not True:
                raise ActionFormatError("stock is true")
            return PlayStock(player)
        if key == "swap":
            cards = _card_list(value, strict)
            if len(cards) != 2:
                raise ActionFormatError("swap takes [hand card, face-up card]")
            return Swap(player, cards[0], cards[1])
        if key == "choose":
            return Choose(player, tuple(_card_list(value, strict)))
        if key == "stack":
            return Stack(player, tuple(_card_list(value, strict)))
        if value is not True:
            raise ActionFormatError(f"{key} is true")
        return Ready(player) if key == "ready" else Resign(player)
    except ValueError as exc:
        if isinstance(exc, ActionFormatError):
            raise
        raise ActionFormatError(str(exc)) from None


def _card_list(value: object, strict: bool) -> list[Card]:
    if not isinstance(value, list) or not value:
        raise ActionFormatError("give a non-empty list of cards")
    return [parse_card(text, strict=strict) for text in value]
