"""Games a player cannot tell from the real one: the hidden cards dealt again at random."""

from __future__ import annotations

import random
from collections import Counter

from engine.cards import Card, make_deck
from engine.game import Game
from engine.position import build_game
from engine.views import PlayerView


class Resampler:
    """Deal the cards a view does not show, consistently with every count it does show."""

    # Hidden are the other players' hands, every face-down card and the stock. A hand keeps the
    # cards every player saw go into it (`SeatView.known`); the viewer's own hand is kept whole.

    def __init__(self, view: PlayerView) -> None:
        """Work out which cards are unseen and whether the view's counts can hold them."""
        table = view.table
        rules = table.rules
        self.view = view
        unseen = Counter(make_deck(rules.decks, rules.jokers))
        seen: list[Card] = [*view.hand, *table.pile, *table.burned]
        for seat in table.seats:
            for stack in seat.face_up:
                seen.extend(stack)
            if seat.seat != view.seat:
                seen.extend(seat.known)  # cards everyone saw go into that hand stay there
        unseen.subtract(seen)
        self.unseen: tuple[Card, ...] = tuple(sorted(unseen.elements()))
        needed = table.stock_count
        for seat in table.seats:
            needed += seat.face_down_count
            if seat.seat != view.seat:
                needed += seat.hand_count - len(seat.known)
        # False when the view shows cards the deck lacks, or counts it cannot fill exactly.
        self.consistent = needed == len(self.unseen) and all(v >= 0 for v in unseen.values())

    def sample(self, rng: random.Random) -> Game:
        """Build one game the view cannot tell apart from the real one, drawing from `rng`."""
        if not self.consistent:
            raise ValueError("the view's counts don't match the unseen cards; nothing to deal")
        view = self.view
        table = view.table
        cards = list(self.unseen)
        rng.shuffle(cards)
        seed = rng.getrandbits(32)
        hands: list[list[Card]] = []
        face_down: list[list[Card]] = []
        for seat in table.seats:
            if seat.seat == view.seat:
                hands.append(list(view.hand))
            else:
                unseen_count = seat.hand_count - len(seat.known)
                hands.append([*seat.known, *(cards.pop() for _ in range(unseen_count))])
            face_down.append([cards.pop() for _ in range(seat.face_down_count)])
        return build_game(
            table.rules,
            hands=hands,
            known=[seat.known for seat in table.seats],
            face_up=[seat.face_up for seat in table.seats],
            face_down=face_down,
            stock=cards,
            pile=table.pile,
            burned=table.burned,
            finished=table.finished,
            out=[seat.out or seat.seat in table.finished for seat in table.seats],
            phase=table.phase,
            turn=table.turn,
            direction=table.direction,
            ready=[seat.ready for seat in table.seats],
            last_on_pile=table.last_on_pile,
            loser=table.loser,
            winner=table.winner,
            end_reason=table.end_reason,
            dealer=table.dealer,
            seed=seed,
        )


def resample(view: PlayerView, rng: random.Random) -> Game:
    """Deal the cards `view` does not show at random; raise ValueError if its counts can't be."""
    return Resampler(view).sample(rng)
