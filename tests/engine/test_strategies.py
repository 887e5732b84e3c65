"""Computer players: legal in every preset, deterministic by seed, blind to hidden cards."""

from __future__ import annotations

import random
import threading
from collections import Counter

import pytest

from engine.actions import Action, Choose, PickUp, Play, Ready
from engine.cards import Card, make_deck, parse_cards
from engine.game import Game
from engine.pile import PowerTable
from engine.position import build_game
from engine.resample import Resampler
from engine.rules import make_rules, preset_names
from engine.strategies import StrategyError, get_strategy, strategy_names
from engine.strategies import pimc as pimc_module
from engine.strategies.basic import situation_of_view
from engine.strategies.ismcts import IsmctsStrategy, Node
from engine.strategies.pimc import PimcStrategy
from engine.views import PlayerView, SeatView, TableView, player_view

FAST = ["random", "basic"]


def _play(
    preset: str, names: list[str], seed: int, max_moves: int = 400, **overrides: object
) -> tuple[Game, list[Action]]:
    """Play a seeded game up to `max_moves`, checking every choice is legal."""
    rules = make_rules(preset, overrides or None)
    game = Game.deal(rules, len(names), seed=seed)
    players = [get_strategy(name, seed * 100 + seat) for seat, name in enumerate(names)]
    chosen: list[Action] = []
    while not game.over and game.moves < max_moves:
        seat = game.to_act()[0]
        view = player_view(game, seat)
        action = players[seat].choose(view)
        assert action in view.legal
        game.apply(action)
        chosen.append(action)
    return game, chosen


@pytest.mark.parametrize("preset", preset_names())
@pytest.mark.parametrize("name", FAST)
def test_fast_strategies_play_legally_in_every_preset(preset: str, name: str) -> None:
    game, _ = _play(preset, [name, "basic", "random"], seed=7)
    assert game.phase in ("play", "over")


@pytest.mark.parametrize(
    "overrides",
    [
        {"mode": "winner"},
        {"play_from_stock": True, "face_up_pickup": "keep"},
        {"runs": True, "stacking": True, "pickup_turn": "previous"},
        {"deal": "choose", "stacking": True, "jokers": 2},
        {"swap": False, "start_pile": True, "burn_turn": "next", "four_of_a_kind": "play"},
        {"voluntary_pickup": False, "pickup_turn": "same", "first_player": "random"},
    ],
)
def test_basic_handles_options(overrides: dict[str, object]) -> None:
    game, _ = _play("classic", ["basic", "basic", "random"], seed=3, max_moves=2000, **overrides)
    assert game.over


def test_basic_games_finish_between_basic_players() -> None:
    for seed in range(3):
        game, _ = _play("classic", ["basic"] * 4, seed=seed, max_moves=3000)
        assert game.over


@pytest.mark.parametrize("name", FAST)
def test_same_seed_same_choices(name: str) -> None:
    _, first = _play("classic", [name, name, name], seed=11)
    _, again = _play("classic", [name, name, name], seed=11)
    assert first == again


def test_registry_names_and_errors() -> None:
    assert {"random", "basic", "pimc", "expert"} <= set(strategy_names())
    assert get_strategy(" Basic ", 1).name == "basic"
    with pytest.raises(StrategyError):
        get_strategy("grandmaster")


def _hand_built_view() -> PlayerView:
    """A view written by hand: there is no game behind it at all."""
    rules = make_rules("classic")
    pile = tuple(parse_cards(["5H", "9C"]))
    up = ((Card(14, "S"),), (Card(10, "D"),), (Card(2, "C"),))
    their_up = ((Card(13, "H"),), (Card(4, "S"),), (Card(6, "D"),))
    seats = (
        SeatView(0, 3, (), up, 3, out=False, place=None, ready=True),
        # Seat 1 picked up a pile once: two of its three hand cards are known to all.
        SeatView(
            1, 3, (Card(8, "C"), Card(11, "S")), their_up, 3, out=False, place=None, ready=True
        ),
    )
    hand = tuple(parse_cards(["3D", "9H", "QS"]))
    table = TableView(
        rules=rules,
        phase="play",
        turn=0,
        direction=1,
        pile=pile,
        constraint=PowerTable(rules).constraint(pile),
        stock_count=32,  # 52 cards less the 13 this view shows, the 6 face down, 1 in hand
        burned=(),
        seats=seats,
        finished=(),
        loser=None,
        winner=None,
        end_reason=None,
        last_on_pile=1,
        dealer=1,
    )
    legal = (Play(0, (Card(9, "H"),)), Play(0, (Card(12, "S"),)))
    return PlayerView(seat=0, table=table, hand=hand, legal=(*legal, PickUp(0)), chosen=True)


@pytest.mark.parametrize("name", ["random", "basic", "pimc", "expert"])
def test_strategy_needs_only_a_view(name: str) -> None:
    view = _hand_built_view()
    action = get_strategy(name, 5).choose(view)
    assert action in view.legal
    if name == "basic":
        assert action == Play(0, (Card(9, "H"),))


def test_resampling_deals_known_cards_to_the_hand_that_holds_them() -> None:
    view = _hand_built_view()
    resampler = Resampler(view)
    assert resampler.consistent
    for seed in range(5):
        game = resampler.sample(random.Random(seed))
        assert {Card(8, "C"), Card(11, "S")} <= set(game.hands[1])
        assert len(game.hands[1]) == 3
        cards = [*game.stock, *game.pile]
        for seat in range(2):
            cards += [*game.hands[seat], *game.face_down[seat], *game.face_up_cards(seat)]
        assert Counter(cards) == Counter(make_deck(1, 0))


def _swap_hidden(game: Game, seat: int, seed: int) -> Game:
    """The same game with everything `seat` cannot see reshuffled."""
    hidden = list(game.stock)
    for other in range(game.players):
        hidden += game.face_down[other]
        if other != seat:
            unknown = list(game.hands[other])
            for card in game.known[other]:
                unknown.remove(card)
            hidden += unknown
    random.Random(seed).shuffle(hidden)
    hands: list[list[Card]] = []
    face_down: list[list[Card]] = []
    for other in range(game.players):
        if other == seat:
            hands.append(list(game.hands[other]))
        else:
            unseen = len(game.hands[other]) - len(game.known[other])
            hands.append(list(game.known[other]) + [hidden.pop() for _ in range(unseen)])
        face_down.append([hidden.pop() for _ in game.face_down[other]])
    clone = build_game(
        game.rules,
        hands=hands,
        known=game.known,
        face_up=game.face_up,
        face_down=face_down,
        stock=hidden,
        pile=game.pile,
        burned=game.burned,
        finished=game.finished,
        out=game.out,
        phase=game.phase,
        turn=game.turn,
        direction=game.direction,
        ready=game.ready,
        chosen=game.chosen,
        last_on_pile=game.last_on_pile,
        dealer=game.dealer,
        seed=game.seed,
    )
    assert player_view(clone, seat) == player_view(game, seat)
    return clone


@pytest.mark.parametrize("name", ["random", "basic", "pimc", "expert"])
def test_choice_ignores_hidden_cards(name: str) -> None:
    game, _ = _play("classic", ["basic", "basic", "basic"], seed=5, max_moves=12)
    seat = game.to_act()[0]
    real = get_strategy(name, 9).choose(player_view(game, seat))
    for shuffle in range(2):
        other = _swap_hidden(game, seat, shuffle)
        assert get_strategy(name, 9).choose(player_view(other, seat)) == real


def test_setup_choices_put_strong_cards_face_up() -> None:
    rules = make_rules("choose-deal")
    game = Game.deal(rules, 3, seed=1)
    strategy = get_strategy("basic", 0)
    first = strategy.choose(player_view(game, 0))
    assert isinstance(first, Choose)
    game.apply(first)
    assert isinstance(strategy.choose(player_view(game, 0)), Ready)
    face_up = sorted(card.rank for card in first.cards)
    hand = sorted(card.rank for card in game.hands[0])
    weight = {2: 20, 10: 30}
    assert min(weight.get(r, r) for r in face_up) >= max(weight.get(r, r) for r in hand)


def test_one_instance_from_several_threads() -> None:
    game, _ = _play("classic", ["basic", "basic", "basic"], seed=2, max_moves=20)
    seat = game.to_act()[0]
    view = player_view(game, seat)
    strategy = get_strategy("basic", 3)
    results: list[object] = []

    def worker() -> None:
        for _ in range(50):
            results.append(strategy.choose(view))

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 200
    assert all(action in view.legal for action in results)


def test_no_legal_action_is_an_error() -> None:
    game = Game.deal(make_rules("classic"), 3, seed=1)
    for seat in range(3):
        game.apply(Ready(seat))
    idle = next(seat for seat in range(3) if seat != game.turn)
    with pytest.raises(StrategyError):
        get_strategy("basic").choose(player_view(game, idle))


@pytest.mark.parametrize("preset", preset_names())
@pytest.mark.parametrize("name", ["pimc", "expert"])
def test_searchers_play_legally_in_every_preset(preset: str, name: str) -> None:
    rules = make_rules(preset)
    game = Game.deal(rules, 3, seed=13)
    searcher = (
        PimcStrategy(4, iterations=2, depth=6)
        if name == "pimc"
        else IsmctsStrategy(4, iterations=12, depth=6)
    )
    basic = get_strategy("basic", 4)
    while not game.over and game.moves < 40:
        seat = game.to_act()[0]
        view = player_view(game, seat)
        action = (searcher if seat == 0 else basic).choose(view)
        assert action in view.legal
        game.apply(action)


def test_pimc_is_deterministic_with_an_iteration_budget() -> None:
    game, _ = _play("classic", ["basic", "basic", "basic"], seed=8, max_moves=15)
    view = player_view(game, game.to_act()[0])
    first = [PimcStrategy(6, iterations=3).choose(view) for _ in range(2)]
    assert first[0] == first[1]


def test_the_step_budget_ends_the_pimc_search(monkeypatch: pytest.MonkeyPatch) -> None:
    game, _ = _play("classic", ["basic", "basic", "basic"], seed=8, max_moves=15)
    view = player_view(game, game.to_act()[0])
    options = len(pimc_module.candidates(situation_of_view(view), pimc_module.MAX_CANDIDATES))
    assert options > 1
    rollouts: list[int] = []
    real = pimc_module.rollout

    def counted(game: Game, seat: int, rng: random.Random, depth: int) -> float:
        rollouts.append(seat)
        return real(game, seat, rng, depth)

    monkeypatch.setattr(pimc_module, "rollout", counted)
    choices = [PimcStrategy(6, iterations=1000, max_steps=300).choose(view) for _ in range(2)]
    assert choices[0] == choices[1]
    # Whole iterations only, each trying every candidate, and far fewer than 1000 of them.
    assert len(rollouts) % options == 0 and options <= len(rollouts) < 2 * 300
    rollouts.clear()
    PimcStrategy(6, iterations=5, max_steps=None).choose(view)
    assert len(rollouts) == 5 * options


def _searched_view() -> PlayerView:
    """A play-phase view with several candidate moves, after a seeded game's first moves."""
    game, _ = _play("classic", ["basic", "basic", "basic"], seed=8, max_moves=15)
    view = player_view(game, game.to_act()[0])
    assert len(pimc_module.candidates(situation_of_view(view), 4)) > 1
    return view


def _walk(node: Node) -> list[Node]:
    """Every node of a tree, the root first."""
    nodes = [node]
    for child in node.children.values():
        nodes.extend(_walk(child))
    return nodes


@pytest.mark.parametrize("model_opponents", [True, False])
def test_ismcts_grows_one_tree_with_availability_counts(model_opponents: bool) -> None:
    view = _searched_view()
    expert = IsmctsStrategy(6, iterations=150, max_steps=None, model_opponents=model_opponents)
    root = expert.search(Resampler(view), random.Random(1))
    # Every iteration passes through exactly one of the root's moves, all legal here.
    assert root.visits == 150 == sum(child.visits for child in root.children.values())
    assert set(root.children) <= set(view.legal)
    nodes = _walk(root)
    assert max(len(node.children) for node in nodes[1:]) > 0  # it searched past its own move
    for node in nodes:
        for child in node.children.values():
            # A move is counted available each time its parent was reached and it was legal.
            assert 1 <= child.visits <= child.available <= max(node.visits, 1)
            assert 0.0 <= child.reward <= child.visits
    # A node scores the move for the player who made it: the root's moves are the viewer's.
    assert {child.mover for child in root.children.values()} == {view.seat}
    movers = {node.mover for node in nodes}
    if model_opponents:
        # The opponents play as the basic player: only the viewer's own moves are nodes.
        assert movers == {view.seat}
    else:
        # The opponents' replies are searched in the tree too, under their own seats.
        assert movers - {view.seat}


def test_the_expert_models_its_opponents_by_default() -> None:
    assert IsmctsStrategy(1).model_opponents
    expert = get_strategy("expert", 1)
    assert isinstance(expert, IsmctsStrategy) and expert.model_opponents


@pytest.mark.parametrize("model_opponents", [True, False])
def test_ismcts_is_reproducible_and_its_budgets_bound_it(model_opponents: bool) -> None:
    view = _searched_view()
    first = [
        IsmctsStrategy(6, iterations=40, model_opponents=model_opponents).choose(view)
        for _ in range(2)
    ]
    assert first[0] == first[1]
    rng = random.Random(3)
    capped = IsmctsStrategy(
        6, iterations=1000, max_steps=300, model_opponents=model_opponents
    ).search(Resampler(view), rng)
    # The move budget stops it after the iteration that reaches 300 moves, long before 1000.
    assert 1 < capped.visits < 300


def test_a_modelled_opponent_changes_the_experts_move() -> None:
    # No stock: seat 0 holds 16 cards, all seen going into its hand (a 2, an ace, a king among
    # them), seat 1 is down to its table cards (10 and K face up); seat 2 holds 3 4 4 7 K on an
    # 8 and may play the king or pick up. Searched against the basic player's replies the
    # expert plays its king; searching the opponents' replies as their best moves, it picks up.
    game = Game.deal(make_rules("classic"), 3, seed=3)
    basic = get_strategy("basic", 3)
    while game.moves < 54:
        game.apply(basic.choose(player_view(game, game.to_act()[0])))
    view = player_view(game, 2)
    assert set(view.legal) == {Play(2, (Card(13, "H"),)), PickUp(2)}
    assert view.table.seats[1].hand_count == 0 and view.table.stock_count == 0
    assert len(view.table.seats[0].known) == view.table.seats[0].hand_count == 16
    king = Play(2, (Card(13, "H"),))
    assert {IsmctsStrategy(seed).choose(view) for seed in (1, 2, 3)} == {king}
    unmodelled = {IsmctsStrategy(seed, model_opponents=False).choose(view) for seed in (1, 2, 3)}
    assert unmodelled == {PickUp(2)}


def test_ismcts_plays_the_move_it_visited_most() -> None:
    view = _searched_view()
    expert = IsmctsStrategy(11, iterations=80)
    root = expert.search(Resampler(view), expert.decision_rng(random.Random(5)))
    most = max(root.children.values(), key=lambda child: child.visits)
    chosen = IsmctsStrategy(11, iterations=80).choose(view, random.Random(5))
    assert root.children[chosen].visits == most.visits
