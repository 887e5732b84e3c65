"""Properties over seeded random games, every preset and player count."""

from __future__ import annotations

import dataclasses
import itertools
import random
from collections import Counter
from collections.abc import Iterator
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.actions import Action, Flip, PickUp, Play, PlayStock, Ready
from engine.cards import Card, make_deck
from engine.errors import ErrorCode, IllegalAction
from engine.events import Revealed
from engine.game import Game
from engine.position import build_game
from engine.rules import PRESETS, make_rules
from engine.scenarios import game_from_state
from engine.serialize import game_from_json, game_to_json
from engine.views import player_view, table_view

PRESET_NAMES = sorted(PRESETS)
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def tables(draw: st.DrawFn) -> tuple[str, int, int]:
    preset = draw(st.sampled_from(PRESET_NAMES))
    rules = make_rules(preset)
    players = draw(st.integers(2, min(rules.max_players, 6)))
    seed = draw(st.integers(0, 2**32 - 1))
    return preset, players, seed


def all_cards(game: Game) -> Counter[Card]:
    cards: Counter[Card] = Counter(game.stock + game.pile + game.burned)
    for seat in range(game.players):
        cards.update(game.hands[seat])
        cards.update(game.face_up_cards(seat))
        cards.update(game.face_down[seat])
    return cards


def steps(game: Game, rng: random.Random) -> Iterator[tuple[int, list[Action]]]:
    """Play random legal actions to the end, yielding the actor and its options first."""
    while not game.over:
        seats = game.to_act()
        assert seats, "someone must be able to act"
        seat = rng.choice(seats)
        legal = game.legal_actions(seat)
        yield seat, legal
        game.apply(rng.choice(legal))


def copy(game: Game) -> Game:
    return game_from_json(game_to_json(game))


def parts_of(game: Game) -> dict[str, Any]:
    """Every part of `game`, as `build_game` takes them."""
    return {
        "hands": game.hands,
        "known": game.known,
        "face_up": game.face_up,
        "face_down": game.face_down,
        "stock": game.stock,
        "pile": game.pile,
        "burned": game.burned,
        "finished": game.finished,
        "out": game.out,
        "phase": game.phase,
        "turn": game.turn,
        "direction": game.direction,
        "ready": game.ready,
        "chosen": game.chosen,
        "last_on_pile": game.last_on_pile,
        "loser": game.loser,
        "winner": game.winner,
        "end_reason": game.end_reason,
        "idle": game.idle,
        "moves": game.moves,
        "dealer": game.dealer,
        "seed": game.seed,
        "previous_loser": game.previous_loser,
        "rng_state": game.rng.getstate(),
    }


def accepted(game: Game, action: Action) -> bool:
    trial = copy(game)
    try:
        trial.apply(action)
    except IllegalAction:
        return False
    return True


def play_key(action: Action) -> object:
    """Plays of the same cards up to suits within one rank are the same choice."""
    if not isinstance(action, Play) or not action.cards:
        return action
    if all(c.rank == action.cards[0].rank for c in action.cards):
        return ("play", action.player, action.cards[0].rank, len(action.cards))
    return ("run", action.player, action.cards)


@SETTINGS
@given(tables())
def test_cards_are_conserved_and_someone_can_always_act(table: tuple[str, int, int]) -> None:
    preset, players, seed = table
    rules = make_rules(preset)
    game = Game.deal(rules, players, seed=seed)
    deck = Counter(make_deck(rules.decks, rules.jokers))
    for _seat, legal in steps(game, random.Random(seed)):
        assert legal, "the player to act always has a legal action"
        assert all_cards(game) == deck
    assert all_cards(game) == deck
    assert game.over and game.turn is None
    if rules.mode == "loser":
        assert game.loser is not None
        assert sorted([*game.finished, game.loser]) == list(range(players))


@settings(SETTINGS, max_examples=25)
@given(tables())
def test_apply_accepts_exactly_the_legal_actions(table: tuple[str, int, int]) -> None:
    preset, players, seed = table
    game = Game.deal(make_rules(preset), players, seed=seed)
    rng = random.Random(seed ^ 0x5EED)
    for number, (seat, legal) in enumerate(steps(game, random.Random(seed))):
        if number % 11:
            continue
        for action in rng.sample(legal, min(3, len(legal))):
            assert accepted(game, action), action
        if game.phase != "play":
            continue
        legal_keys = {play_key(action) for action in legal}
        others = [s for s in range(players) if s != seat]
        candidates: list[Action] = [Play(rng.choice(others), tuple(game.hands[seat][:1]))]
        hand = game.hands[seat]
        for _ in range(4):
            if hand:
                candidates.append(Play(seat, tuple(rng.sample(hand, rng.randint(1, len(hand))))))
        candidates += [PickUp(seat), Flip(seat, 0), Flip(seat, 99), PlayStock(seat), Ready(seat)]
        for action in candidates:
            assert accepted(game, action) == (play_key(action) in legal_keys), action


def cards_in(value: object) -> set[Card]:
    """Every card anywhere inside a view."""
    if isinstance(value, Card):
        return {value}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        found: set[Card] = set()
        for field in dataclasses.fields(value):
            if field.name != "rules":
                found |= cards_in(getattr(value, field.name))
        return found
    if isinstance(value, tuple | list | frozenset | set):
        return set().union(*(cards_in(item) for item in value)) if value else set()
    return set()


def face_up_now(game: Game) -> set[Card]:
    """Return the cards lying face up on the table now."""
    public = set(game.pile) | set(game.burned)
    for seat in range(game.players):
        public |= set(game.face_up_cards(seat))
    return public


@SETTINGS
@given(tables())
def test_views_hold_no_hidden_card(table: tuple[str, int, int]) -> None:
    preset, players, seed = table
    rules = make_rules(preset)
    game = Game.deal(rules, players, seed=seed)
    single_deck = rules.decks == 1 and rules.jokers <= 1
    rng = random.Random(seed)
    ever_shown = face_up_now(game)  # every card that has lain face up or been turned over
    for number in itertools.count():
        if game.over:
            break
        seat = rng.choice(game.to_act())
        events = game.apply(rng.choice(game.legal_actions(seat)))
        public = face_up_now(game)
        ever_shown |= public | {event.card for event in events if isinstance(event, Revealed)}
        if number % 5:
            continue
        known = {seat: set(game.known[seat]) for seat in range(players)}
        for seat in range(players):
            assert known[seat] <= ever_shown & set(game.hands[seat])
            public |= known[seat]
        assert cards_in(table_view(game)) <= public
        for seat in range(players):
            seen = cards_in(player_view(game, seat))
            assert seen <= public | set(game.hands[seat])
            if single_deck:
                hidden = set(game.stock)
                for other in range(players):
                    hidden |= set(game.face_down[other])
                    if other != seat:
                        hidden |= set(game.hands[other]) - known[other]
                assert not seen & hidden


def test_picked_up_cards_are_known_until_played() -> None:
    state = {"hands": [["4C", "9D"], ["3S", "KH"]], "pile": ["8H", "JD"], "turn": 0}
    game = game_from_state(make_rules("classic"), state)
    game.apply(PickUp(0))
    assert sorted(map(str, table_view(game).seats[0].known)) == ["8H", "JD"]
    assert table_view(game).seats[1].known == ()
    game.turn = 0
    game.apply(Play(0, (Card(11, "D"),)))
    assert [str(card) for card in table_view(game).seats[0].known] == ["8H"]
    assert [str(card) for card in game_from_json(game_to_json(game)).known[0]] == ["8H"]


@SETTINGS
@given(tables(), st.integers(0, 400))
def test_json_and_rebuilt_copies_continue_identically(
    table: tuple[str, int, int], cut: int
) -> None:
    preset, players, seed = table
    game = Game.deal(make_rules(preset), players, seed=seed)
    rng = random.Random(seed)
    for number, _ in enumerate(steps(game, rng)):
        if number == cut:
            break
    restored = copy(game)
    rebuilt = build_game(game.rules, check_players=True, **parts_of(game))
    for twin in (restored, rebuilt):
        assert same_game(twin, game)
    state = rng.getstate()
    for twin in (game, restored, rebuilt):
        rng.setstate(state)
        for _ in steps(twin, rng):
            pass
    for twin in (restored, rebuilt):
        assert same_game(twin, game)


def same_game(one: Game, other: Game) -> bool:
    """Compare two games' JSON, their random streams by state (the JSON writes one as draws)."""
    first, second = game_to_json(one), game_to_json(other)
    del first["rng"], second["rng"]
    return first == second and one.rng.getstate() == other.rng.getstate()


def test_refusal_codes_have_stable_values() -> None:
    assert [code.value for code in ErrorCode] == [
        "invalid",
        "wrong_phase",
        "not_your_turn",
        "not_held",
        "mixed_ranks",
        "cannot_beat",
        "pickup_not_allowed",
    ]
