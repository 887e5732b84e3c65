"""Every action a seat may take now, in a stable order: what the views offer and bots choose."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations, groupby
from operator import itemgetter
from typing import TYPE_CHECKING

from engine.actions import Action, Choose, Flip, PickUp, Play, PlayStock, Ready, Stack, Swap
from engine.cards import Card, sort_key

if TYPE_CHECKING:
    from engine.game import Game

_RANK = itemgetter(0)  # a Card's rank, fast


def legal_actions(game: Game, seat: int) -> list[Action]:
    """List every action `seat` may take now (one card choice per play)."""
    if game.phase != "play":
        return _legal_setup(game, seat) if game.phase == "setup" else []
    if game.turn != seat:
        return []
    rules = game.rules
    actions: list[Action] = []
    zone = game.zone_of(seat)
    playable = game.table.playable(game.pile)
    can_play = False
    if zone == "hand" or (zone == "face_up" and _face_up_singles(game, seat)):
        cards = sorted(game.hands[seat] if zone == "hand" else game.face_up_cards(seat))
        for rank, same in groupby(cards, _RANK):  # cards sort by rank, then suit
            if rank in playable:
                can_play = True
                group = tuple(same)
                for count in range(1, len(group) + 1):
                    actions.append(Play(seat, group[:count]))
        if rules.runs and can_play:
            actions.extend(Play(seat, run) for run in _runs(game, cards))
    elif zone == "face_up":
        for stacked in _stack_plays(game, seat):
            if stacked[0].rank in playable:
                can_play = True
                actions.append(Play(seat, stacked))
    elif zone == "face_down":
        actions.extend(Flip(seat, index) for index in range(len(game.face_down[seat])))
    if rules.play_from_stock and game.stock:
        actions.append(PlayStock(seat))
    if zone != "face_down" and game.pile and (rules.voluntary_pickup or not can_play):
        if zone == "face_up" and rules.face_up_pickup == "add_one":
            # One pick-up per distinct face-up card that may go on the pile first: any card
            # of a Karma stack, which alone goes on the pile.
            seen: set[Card] = set()
            for stack in game.face_up[seat]:
                for card in stack:
                    if card not in seen:
                        seen.add(card)
                        actions.append(PickUp(seat, card))
        else:
            actions.append(PickUp(seat))
    return actions


def _face_up_singles(game: Game, seat: int) -> bool:
    """Say whether every face-up stack of `seat` is a single card."""
    return all(len(stack) == 1 for stack in game.face_up[seat])


def _stack_plays(game: Game, seat: int) -> list[tuple[Card, ...]]:
    """List every distinct union of whole face-up stacks of one rank."""
    by_rank: dict[int, list[list[Card]]] = {}
    for stack in game.face_up[seat]:
        by_rank.setdefault(stack[0].rank, []).append(stack)
    plays: list[tuple[Card, ...]] = []
    for _rank, stacks in sorted(by_rank.items()):
        seen: set[tuple[Card, ...]] = set()
        for size in range(1, len(stacks) + 1):
            for picked in combinations(stacks, size):
                cards = tuple(sorted((c for s in picked for c in s), key=sort_key))
                if cards not in seen:
                    seen.add(cards)
                    plays.append(cards)
    return plays


def _runs(game: Game, cards: Sequence[Card]) -> list[tuple[Card, ...]]:
    """List every legal run of two or more cards among `cards`; a burn ends a run."""
    table = game.table
    runs: list[tuple[Card, ...]] = []
    by_suit: dict[str, set[int]] = {}
    for card in cards:
        if card.suit is not None:
            by_suit.setdefault(card.suit, set()).add(card.rank)
    for suit in sorted(by_suit):
        ranks = by_suit[suit]
        for start in sorted(ranks):
            pile = list(game.pile)
            run: list[Card] = []
            rank = start
            while rank in ranks:
                card = Card(rank, suit)  # type: ignore[arg-type]
                if not table.playable_on(pile, rank):
                    break
                run.append(card)
                pile.append(card)
                if len(run) >= 2:
                    runs.append(tuple(run))
                if table.burn[rank]:
                    break
                rank += 1
    return runs


def _legal_setup(game: Game, seat: int) -> list[Action]:
    """List the setup actions of a seat not yet ready: choose or swap, stack, then ready."""
    if game.ready[seat]:
        return []
    actions: list[Action] = []
    rules = game.rules
    hand = sorted(game.hands[seat], key=sort_key)
    if rules.deal == "choose":
        pool = sorted(hand + game.face_up_cards(seat), key=sort_key)
        if _face_up_singles(game, seat):
            seen: set[tuple[Card, ...]] = set()
            for picked in combinations(pool, rules.table_cards):
                if picked not in seen:
                    seen.add(picked)
                    actions.append(Choose(seat, picked))
    elif rules.swap:
        singles = sorted({s[0] for s in game.face_up[seat] if len(s) == 1}, key=sort_key)
        for hand_card in sorted(set(hand), key=sort_key):
            for face_up_card in singles:
                if hand_card != face_up_card:
                    actions.append(Swap(seat, hand_card, face_up_card))
    if rules.stacking and game.chosen[seat]:
        stack_ranks = {s[0].rank for s in game.face_up[seat]}
        by_rank: dict[int, list[Card]] = {}
        for card in hand:
            if card.rank in stack_ranks:
                by_rank.setdefault(card.rank, []).append(card)
        for _rank, group in sorted(by_rank.items()):
            for count in range(1, len(group) + 1):
                actions.append(Stack(seat, tuple(group[:count])))
    if game.chosen[seat]:
        actions.append(Ready(seat))
    return actions
