"""A game of Shithead: the deal, setup, play, pick-ups, going out and the end."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from itertools import combinations, pairwise
from typing import Any, Literal

from engine import legal
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
from engine.cards import ALL_RANKS, JOKER, Card, make_deck, sort_key
from engine.errors import ErrorCode, IllegalAction
from engine.events import (
    Burned,
    Chose,
    Drew,
    EndReason,
    Event,
    GameOver,
    MarkedReady,
    PickedUp,
    Played,
    PlayStarted,
    Resigned,
    Revealed,
    Reversed,
    Skipped,
    Stacked,
    Swapped,
    TurnPassed,
    WentOut,
    Zone,
)
from engine.pile import four_of_a_kind_on_top, power_table
from engine.rules import RuleSet
from engine.seats import next_active, standings

Phase = Literal["setup", "play", "over"]

# A game ends in a stalemate after this many play-phase actions in a row in which no card
# is burned, drawn, taken from the table (face-up or face-down) and no player goes out;
# the limit grows with the number of players still in.
STALEMATE_BASE = 200
STALEMATE_PER_PLAYER = 40

# Suit order that breaks ties for `first_player: lowest_by_suit` (Dutch page: clubs first).
_SUIT_PRIORITY = {"C": 0, "S": 1, "H": 2, "D": 3}

INVALID = ErrorCode.INVALID
WRONG_PHASE = ErrorCode.WRONG_PHASE
NOT_YOUR_TURN = ErrorCode.NOT_YOUR_TURN
NOT_HELD = ErrorCode.NOT_HELD
MIXED_RANKS = ErrorCode.MIXED_RANKS
CANNOT_BEAT = ErrorCode.CANNOT_BEAT
PICKUP_NOT_ALLOWED = ErrorCode.PICKUP_NOT_ALLOWED


def _take(source: Sequence[Card], cards: Iterable[Card]) -> list[Card] | None:
    """Return `source` without `cards` (as a multiset), or None if it lacks one."""
    rest = list(source)
    for card in cards:
        try:
            rest.remove(card)
        except ValueError:
            return None
    return rest


def _minus(source: Sequence[Card], cards: Iterable[Card]) -> list[Card]:
    """Return `source` without those of `cards` it holds (as a multiset)."""
    rest = list(source)
    for card in cards:
        if card in rest:
            rest.remove(card)
    return rest


def _is_run_shape(cards: Sequence[Card]) -> bool:
    """Two or more cards of one suit, ascending by one rank each, no jokers."""
    if len(cards) < 2:
        return False
    suit = cards[0].suit
    if suit is None:
        return False
    for below, above in pairwise(cards):
        if above.suit != suit or above.rank != below.rank + 1 or above.rank == JOKER:
            return False
    return True


class Game:
    """The whole state of one game; `apply` is the only way it changes."""

    def __init__(
        self,
        rules: RuleSet,
        players: int,
        *,
        dealer: int | None = None,
        seed: int = 0,
        previous_loser: int | None = None,
        check_players: bool = True,
    ) -> None:
        """Seat an empty table; `deal` puts the cards on it (positions may skip the check)."""
        if check_players:
            rules.check_players(players)
        elif players < 2:
            raise ValueError("a game needs at least two players")
        self.rules = rules
        self.table = power_table(rules)
        self.players = players
        self.dealer = players - 1 if dealer is None else dealer
        if not 0 <= self.dealer < players:
            raise ValueError(f"dealer must be a seat from 0 to {players - 1}")
        self.seed = seed
        # The stream, made from `seed` and `draws` when a draw needs it and not kept while
        # they can make it again (its 625 words are 2.5 KB a table; a game draws once or
        # twice, at the deal and for a random first player).
        self._rng: random.Random | None = None
        # What has been drawn from `rng` since it was seeded (a call and its size, in order):
        # its state again in a few bytes, not its 625 words. None once its state was set
        # from elsewhere, which only the state itself can give again.
        self.draws: list[tuple[str, int]] | None = []
        self.previous_loser = previous_loser
        self.phase: Phase = "setup"
        self.turn: int | None = None
        self.direction = 1
        self.hands: list[list[Card]] = [[] for _ in range(players)]
        # Cards in each hand that every player has seen go in (picked up, swapped off the table).
        self.known: list[list[Card]] = [[] for _ in range(players)]
        self.face_up: list[list[list[Card]]] = [[] for _ in range(players)]
        self.face_down: list[list[Card]] = [[] for _ in range(players)]
        self.stock: list[Card] = []
        self.pile: list[Card] = []
        self.burned: list[Card] = []
        self.finished: list[int] = []
        self.out = [False] * players
        self.loser: int | None = None
        self.winner: int | None = None
        self.end_reason: EndReason | None = None
        self.ready = [False] * players
        self.chosen = [rules.deal == "classic"] * players
        self.last_on_pile: int | None = None
        self.idle = 0
        self.moves = 0

    # ------------------------------------------------------------------ construction

    @classmethod
    def deal(
        cls,
        rules: RuleSet,
        players: int,
        *,
        seed: int,
        dealer: int | None = None,
        previous_loser: int | None = None,
    ) -> Game:
        """Shuffle with `seed` and deal; the game starts in the setup phase."""
        game = cls(rules, players, dealer=dealer, seed=seed, previous_loser=previous_loser)
        deck = make_deck(rules.decks, rules.jokers)
        game._shuffle(deck)
        game.stock = deck
        order = game.seat_order()
        for _ in range(rules.table_cards):
            for seat in order:
                game.face_down[seat].append(game.stock.pop(0))
        if rules.deal == "classic":
            for _ in range(rules.table_cards):
                for seat in order:
                    game.face_up[seat].append([game.stock.pop(0)])
            hand_cards = rules.hand_size
        else:
            hand_cards = rules.hand_size + rules.table_cards
        for _ in range(hand_cards):
            for seat in order:
                game.hands[seat].append(game.stock.pop(0))
        if rules.start_pile and game.stock:
            game.pile.append(game.stock.pop(0))
        return game

    @property
    def rng(self) -> random.Random:
        """Give the game's stream as its draws left it (kept until the next draw)."""
        if self._rng is None:
            self._rng = random.Random(self.seed)
            for call, size in self.draws or ():
                if call == "shuffle":
                    self._rng.shuffle(list(range(size)))  # its draws depend on the count only
                else:
                    self._rng.randrange(size)
        return self._rng

    def _shuffle(self, cards: list[Card]) -> None:
        """Shuffle with the game's stream, noting the draw."""
        self.rng.shuffle(cards)
        self._drew(("shuffle", len(cards)))

    def _randrange(self, size: int) -> int:
        """Draw a number below `size` from the game's stream, noting the draw."""
        drawn = self.rng.randrange(size)
        self._drew(("randrange", size))
        return drawn

    def _drew(self, draw: tuple[str, int]) -> None:
        """Note a draw; the stream goes while the draws can make it again."""
        if self.draws is not None:
            self.draws.append(draw)
            self._rng = None

    def redraw(self, draws: Sequence[tuple[str, int]]) -> None:
        """Take the draws made since the seed: the stream is then as they left it."""
        for call, _ in draws:
            if call not in ("shuffle", "randrange"):
                raise ValueError(f"unknown draw {call!r}")
        self._rng = None
        self.draws = list(draws)

    def seat_order(self) -> list[int]:
        """Seats from the dealer's left, ascending, the dealer last."""
        return [(self.dealer + 1 + step) % self.players for step in range(self.players)]

    # ------------------------------------------------------------------ queries

    @property
    def over(self) -> bool:
        return self.phase == "over"

    def active_players(self) -> list[int]:
        """Seats still holding cards, in seat order."""
        return [seat for seat in range(self.players) if not self.out[seat]]

    def zone_of(self, seat: int) -> Zone | None:
        """Where `seat` plays from now: hand, then face-up, then face-down."""
        if self.hands[seat]:
            return "hand"
        if self.face_up[seat]:
            return "face_up"
        if self.face_down[seat]:
            return "face_down"
        return None

    def face_up_cards(self, seat: int) -> list[Card]:
        """Every face-up card of `seat`, stacks flattened."""
        return [card for stack in self.face_up[seat] for card in stack]

    def cards_held(self, seat: int) -> int:
        """Count a seat's cards in hand, face-up and face-down."""
        return len(self.hands[seat]) + len(self.face_up_cards(seat)) + len(self.face_down[seat])

    def stalemate_limit(self) -> int:
        """Actions without progress after which the game is a stalemate."""
        return STALEMATE_BASE + STALEMATE_PER_PLAYER * self.out.count(False)

    # ------------------------------------------------------------------ apply

    def apply(self, action: Action) -> list[Event]:
        """Carry out `action` and say what happened, or raise `IllegalAction` and change nothing."""
        if not isinstance(action.player, int) or not 0 <= action.player < self.players:
            raise IllegalAction(INVALID, f"there is no player {action.player!r} at this table")
        handler = _HANDLERS.get(type(action))
        if handler is None:
            raise IllegalAction(INVALID, f"unknown action {action!r}")
        events = handler(self, action)
        self.moves += 1
        return events

    # -- shared checks

    def _check_play_turn(self, seat: int) -> None:
        if self.phase != "play":
            where = "the game is over" if self.over else "setup is not finished"
            raise IllegalAction(WRONG_PHASE, f"that is a move for play, and {where}")
        if self.out[seat] or self.turn != seat:
            raise IllegalAction(NOT_YOUR_TURN, "it is not your turn")

    def _check_setup(self, seat: int) -> None:
        if self.phase != "setup":
            raise IllegalAction(WRONG_PHASE, "setup is over")
        if self.ready[seat]:
            raise IllegalAction(INVALID, "you are already ready")

    # -- play

    def _play(self, action: Play) -> list[Event]:
        seat = action.player
        cards = list(action.cards)
        if not cards:
            raise IllegalAction(INVALID, "a play needs at least one card")
        self._check_play_turn(seat)
        zone = self.zone_of(seat)
        if zone == "hand":
            rest = _take(self.hands[seat], cards)
            if rest is None:
                raise IllegalAction(NOT_HELD, "you don't hold those cards in your hand")
            stacks_left: list[list[Card]] | None = None
        elif zone == "face_up":
            stacks_left = self._take_stacks(seat, cards)
            rest = None
        else:
            raise IllegalAction(NOT_HELD, "you play a face-down card by turning it over")
        is_run = False
        if len(cards) > 1 and any(card.rank != cards[0].rank for card in cards):
            if not (self.rules.runs and _is_run_shape(cards)):
                raise IllegalAction(MIXED_RANKS, "cards played together must have one rank")
            is_run = True
        if is_run:
            self._check_run(cards)
        elif not self.table.playable_on(self.pile, cards[0].rank):
            raise IllegalAction(CANNOT_BEAT, "that card can't go on the pile")
        if rest is not None:
            self.hands[seat] = rest
            self._forget(seat, cards)
        elif stacks_left is not None:
            self.face_up[seat] = stacks_left
            self.idle = -1  # a card left the table: progress
        events: list[Event] = []
        self._put_on_pile(seat, cards, zone, events)
        return events

    def _forget(self, seat: int, cards: Iterable[Card]) -> None:
        """Drop cards that left `seat`'s hand from what everyone knows is in it."""
        if self.known[seat]:
            self.known[seat] = _minus(self.known[seat], cards)

    def _take_stacks(self, seat: int, cards: list[Card]) -> list[list[Card]]:
        """Remove whole face-up stacks that make up `cards` exactly, or refuse."""
        stacks = self.face_up[seat]
        if _take(self.face_up_cards(seat), cards) is None:
            raise IllegalAction(NOT_HELD, "those cards are not among your face-up cards")
        if all(len(stack) == 1 for stack in stacks):
            chosen = list(cards)
            left: list[list[Card]] = []
            for stack in stacks:
                if stack[0] in chosen:
                    chosen.remove(stack[0])
                else:
                    left.append(stack)
            return left
        indexes = range(len(stacks))
        wanted = sorted(cards, key=sort_key)
        for size in range(1, len(stacks) + 1):
            for picked in combinations(indexes, size):
                together = sorted((c for i in picked for c in stacks[i]), key=sort_key)
                if together == wanted:
                    return [stacks[i] for i in indexes if i not in picked]
        raise IllegalAction(NOT_HELD, "a face-up stack is played whole")

    def _check_run(self, cards: Sequence[Card]) -> None:
        """Each card of a run must be legal on the one before; a burn ends it."""
        pile = list(self.pile)
        for position, card in enumerate(cards):
            if not self.table.playable_on(pile, card.rank):
                raise IllegalAction(CANNOT_BEAT, f"{card} can't go on the pile in that run")
            if self.table.burn[card.rank] and position != len(cards) - 1:
                raise IllegalAction(CANNOT_BEAT, "a run ends with the card that burns the pile")
            pile.append(card)

    def _put_on_pile(self, seat: int, cards: list[Card], zone: Zone, events: list[Event]) -> None:
        """Play `cards` already taken from `zone`, then burn, reverse, refill, go out, pass."""
        table = self.table
        events.append(Played(seat, tuple(cards), zone))
        self.pile.extend(cards)
        self.last_on_pile = seat
        first = cards[0].rank
        if len(cards) == 1 or all(card.rank == first for card in cards):
            burn, reverse = table.burn[first], table.reverse[first]
            skips = len(cards) if table.skip[first] else 0
        else:  # a run: each card's power counts
            burn = any(table.burn[card.rank] for card in cards)
            reverse = any(table.reverse[card.rank] for card in cards)
            skips = sum(1 for card in cards if table.skip[card.rank])
        burned = burn or self._four_of_a_kind(cards)
        if burned:
            events.append(Burned(seat, len(self.pile), "power" if burn else "four_of_a_kind"))
            self.burned.extend(self.pile)
            self.pile.clear()
            self.last_on_pile = None
            self.idle = -1
        if reverse and self.out.count(False) > 2:
            # With two players left (the player counts: they are still in while playing) a
            # reversing card changes nothing, not even the stored direction (004, the joker).
            self.direction = -self.direction
            events.append(Reversed(self.direction))
        self._refill(seat, events)
        went_out = self._check_out(seat, events)
        if self.over:
            return
        if burned and self.rules.burn_turn == "same":
            # A burn: the same player leads again, unless they just went out.
            nxt = next_active(self.out, seat, self.direction) if went_out else seat
            self._pass_turn(nxt, events)
        else:
            self._pass_turn(self._advance(seat, skips, events), events)
        self._after_action(events)

    def _four_of_a_kind(self, cards: Sequence[Card]) -> bool:
        mode = self.rules.four_of_a_kind
        if mode == "pile":
            return four_of_a_kind_on_top(self.pile) >= 4
        if mode == "play":
            return len(cards) >= 4 and all(card.rank == cards[0].rank for card in cards)
        return False

    def _refill(self, seat: int, events: list[Event]) -> None:
        """Draw up to the hand size while the stock lasts."""
        hand = self.hands[seat]
        drawn = 0
        while len(hand) < self.rules.hand_size and self.stock:
            hand.append(self.stock.pop(0))
            drawn += 1
        if drawn:
            events.append(Drew(seat, drawn))
            self.idle = -1

    def _check_out(self, seat: int, events: list[Event]) -> bool:
        """A player with no cards anywhere goes out; the last one left is the Shithead."""
        if self.hands[seat] or self.face_up[seat] or self.face_down[seat]:
            return False
        self.out[seat] = True
        self.finished.append(seat)
        self.idle = -1
        events.append(WentOut(seat, len(self.finished)))
        if self.rules.mode == "winner":
            self.winner = seat
            self._end("out", events)
        elif self.out.count(False) == 1:
            self.loser = self.out.index(False)
            self._end("out", events)
        return True

    def _end(self, reason: EndReason, events: list[Event]) -> None:
        self.phase = "over"
        self.turn = None
        self.end_reason = reason
        # Only `mode: winner` has a winner; in `mode: loser` the first out "hat ... nicht
        # gewonnen, sondern lediglich nicht verloren" (004): a loser and places, no winner.
        events.append(GameOver(self.loser, self.winner, tuple(self.finished), reason))

    def _advance(self, seat: int, skips: int, events: list[Event]) -> int:
        """Move the turn on from `seat`, missing one active player per skipping card."""
        if skips:
            others = self.out.count(False) - (0 if self.out[seat] else 1)
            skips = min(skips, others)
        position = next_active(self.out, seat, self.direction)
        skipped = []
        for _ in range(skips):
            skipped.append(position)
            position = next_active(self.out, position, self.direction)
        if skipped:
            events.append(Skipped(tuple(skipped)))
        return position

    def _pass_turn(self, seat: int, events: list[Event]) -> None:
        self.turn = seat
        events.append(TurnPassed(seat))

    def _after_action(self, events: list[Event]) -> None:
        """Count actions without progress and end a game that can no longer end by itself."""
        self.idle += 1
        if self.idle >= STALEMATE_BASE and self.idle >= self.stalemate_limit():
            self._end_stalemate(events)

    def _end_stalemate(self, events: list[Event]) -> None:
        """Most cards loses; the rest finish by fewest cards."""
        ranked = standings(self)[len(self.finished) :]
        if self.rules.mode == "winner":
            self.winner = ranked[0]
            self.finished.append(ranked[0])
        else:
            self.finished.extend(ranked[:-1])
            self.loser = ranked[-1]
        self._close_seats()
        self._end("stalemate", events)

    def _close_seats(self) -> None:
        self.out = [True] * self.players

    def _resign(self, action: Resign) -> list[Event]:
        """The leaver is the Shithead and the game ends; the others finish by fewest cards."""
        seat = action.player
        if self.over:
            raise IllegalAction(WRONG_PHASE, "the game is over")
        if self.out[seat]:
            raise IllegalAction(INVALID, "you are already out of the game")
        events: list[Event] = [Resigned(seat)]
        self.loser = seat
        ranked = standings(self)[len(self.finished) : -1]
        self.finished.extend(ranked)
        if self.rules.mode == "winner":
            self.winner = ranked[0]
        self._close_seats()
        self._end("resigned", events)
        return events

    # -- pick-ups, blind cards, the stock

    def has_legal_play(self, seat: int) -> bool:
        """Say whether `seat` can play cards from the zone it plays from now."""
        zone = self.zone_of(seat)
        if zone == "hand":
            cards: Iterable[Card] = self.hands[seat]
        elif zone == "face_up":
            cards = self.face_up_cards(seat)
        else:
            return False
        playable = self.table.playable(self.pile)
        return any(card.rank in playable for card in cards)

    def _pick_up(self, action: PickUp) -> list[Event]:
        seat = action.player
        add = action.add
        add_one = self.rules.face_up_pickup == "add_one"
        # Refusals in the spec's order: invalid, wrong_phase, not_your_turn, not_held, then
        # pickup_not_allowed. What the rules never allow is invalid whoever asks.
        if add is not None:
            if not isinstance(add, Card):
                raise IllegalAction(INVALID, "the card to add is not a card")
            if not add_one:
                raise IllegalAction(INVALID, "these rules put no face-up card on the pile")
        zone = self.zone_of(seat) if self.phase == "play" else None
        if zone == "face_up" and add_one and add is None:
            raise IllegalAction(INVALID, "name the face-up card you put on the pile first")
        self._check_play_turn(seat)
        stacks = self.face_up[seat]
        index = -1
        if add is not None:
            if zone != "face_up":
                raise IllegalAction(NOT_HELD, "you add a face-up card only when you play from them")
            index = next((i for i, stack in enumerate(stacks) if add in stack), -1)
            if index < 0:
                raise IllegalAction(NOT_HELD, f"{add} is not among your face-up cards")
        if zone == "face_down":
            raise IllegalAction(PICKUP_NOT_ALLOWED, "with only face-down cards you turn one over")
        if not self.pile:
            raise IllegalAction(PICKUP_NOT_ALLOWED, "there is no pile to pick up")
        if not self.rules.voluntary_pickup and self.has_legal_play(seat):
            raise IllegalAction(PICKUP_NOT_ALLOWED, "you can play, so you may not pick up")
        events: list[Event] = []
        added: tuple[Card, ...] = ()
        if add is not None:
            # One card goes on the pile, not its whole Karma stack: a stack is *played* as a
            # group, adding is not playing; the rest of the stack stays face up.
            rest = list(stacks[index])
            rest.remove(add)
            self.face_up[seat] = stacks[:index] + ([rest] if rest else []) + stacks[index + 1 :]
            self.pile.append(add)
            self.idle = -1
            added = (add,)
        self._take_pile(seat, added, events)
        return events

    def _take_pile(self, seat: int, added: tuple[Card, ...], events: list[Event]) -> None:
        """Move the pile into the hand; `pickup_turn` says who plays next."""
        count = len(self.pile)
        self.hands[seat].extend(self.pile)
        self.known[seat].extend(self.pile)
        self.pile.clear()
        previous = self.last_on_pile
        self.last_on_pile = None
        events.append(PickedUp(seat, count, added))
        mode = self.rules.pickup_turn
        if mode == "same":
            nxt = seat
        elif mode == "previous":
            out = self.out
            if previous is None:
                # Nobody put a card on this pile (the start card turned at the deal): the
                # player before in the order of play, "nicht der nächste Spieler" (Karma).
                nxt = next_active(out, seat, -self.direction)
            elif out[previous]:
                nxt = next_active(out, previous, self.direction)
            else:  # back to who played last
                nxt = previous
        else:
            nxt = next_active(self.out, seat, self.direction)
        self._pass_turn(nxt, events)
        self._after_action(events)

    def _flip(self, action: Flip) -> list[Event]:
        seat = action.player
        if not isinstance(action.index, int) or isinstance(action.index, bool):
            raise IllegalAction(INVALID, "name a face-down card by its position")
        self._check_play_turn(seat)
        if self.zone_of(seat) != "face_down":
            raise IllegalAction(NOT_HELD, "face-down cards come last, after hand and face-up")
        if not 0 <= action.index < len(self.face_down[seat]):
            raise IllegalAction(NOT_HELD, f"you have no face-down card {action.index + 1}")
        card = self.face_down[seat].pop(action.index)
        self.idle = -1
        events: list[Event] = [Revealed(seat, card, "face_down")]
        self._play_blind(seat, card, "face_down", events)
        return events

    def _play_stock(self, action: PlayStock) -> list[Event]:
        seat = action.player
        if not self.rules.play_from_stock:
            raise IllegalAction(INVALID, "these rules don't allow playing from the stock")
        if self.phase == "play" and not self.stock:
            raise IllegalAction(INVALID, "the stock is empty")
        self._check_play_turn(seat)
        card = self.stock.pop(0)
        self.idle = -1
        events: list[Event] = [Revealed(seat, card, "stock")]
        self._play_blind(seat, card, "stock", events)
        return events

    def _play_blind(self, seat: int, card: Card, zone: Zone, events: list[Event]) -> None:
        """A turned card is played if it can be; otherwise the pile is picked up with it."""
        if self.table.playable_on(self.pile, card.rank):
            self._put_on_pile(seat, [card], zone, events)
        else:
            self.pile.append(card)
            self._take_pile(seat, (card,), events)

    # -- setup

    def _swap(self, action: Swap) -> list[Event]:
        seat = action.player
        if not isinstance(action.hand_card, Card) or not isinstance(action.face_up_card, Card):
            raise IllegalAction(INVALID, "a swap names a hand card and a face-up card")
        if self.rules.deal == "choose":
            raise IllegalAction(INVALID, "with the choose deal you choose face-up cards instead")
        if not self.rules.swap:
            raise IllegalAction(INVALID, "these rules don't allow swapping")
        self._check_setup(seat)
        hand = _take(self.hands[seat], [action.hand_card])
        if hand is None:
            raise IllegalAction(NOT_HELD, f"{action.hand_card} is not in your hand")
        stacks = self.face_up[seat]
        index = next((i for i, s in enumerate(stacks) if action.face_up_card in s), None)
        if index is None:
            raise IllegalAction(NOT_HELD, f"{action.face_up_card} is not among your face-up cards")
        if len(stacks[index]) > 1:
            raise IllegalAction(INVALID, "a stacked face-up card can't be swapped")
        stacks[index] = [action.hand_card]
        hand.append(action.face_up_card)
        self.hands[seat] = hand
        self._forget(seat, [action.hand_card])
        self.known[seat].append(action.face_up_card)
        return [Swapped(seat, action.hand_card, action.face_up_card)]

    def _choose(self, action: Choose) -> list[Event]:
        seat = action.player
        cards = list(action.cards)
        if not all(isinstance(card, Card) for card in cards):
            raise IllegalAction(INVALID, "choose names cards")
        if self.rules.deal != "choose":
            raise IllegalAction(INVALID, "with the classic deal the face-up cards are dealt")
        if len(cards) != self.rules.table_cards:
            raise IllegalAction(INVALID, f"choose exactly {self.rules.table_cards} cards")
        self._check_setup(seat)
        if any(len(stack) > 1 for stack in self.face_up[seat]):
            raise IllegalAction(INVALID, "you have stacked cards; your face-up cards are set")
        shown = self.face_up_cards(seat)
        rest = _take(self.hands[seat] + shown, cards)
        if rest is None:
            raise IllegalAction(NOT_HELD, "you can only choose cards from your hand")
        self.hands[seat] = rest
        self.face_up[seat] = [[card] for card in cards]
        self.chosen[seat] = True
        # Face-up cards taken back into the hand were seen; newly chosen ones leave it.
        self._forget(seat, cards)
        self.known[seat].extend(_minus(shown, cards))
        return [Chose(seat, tuple(cards))]

    def _stack(self, action: Stack) -> list[Event]:
        seat = action.player
        cards = list(action.cards)
        if not cards or not all(isinstance(card, Card) for card in cards):
            raise IllegalAction(INVALID, "stack names one or more hand cards")
        if not self.rules.stacking:
            raise IllegalAction(INVALID, "these rules don't allow stacking")
        self._check_setup(seat)
        if not self.chosen[seat]:
            raise IllegalAction(INVALID, "choose your face-up cards first")
        if any(card.rank != cards[0].rank for card in cards):
            raise IllegalAction(MIXED_RANKS, "a stack holds cards of one rank")
        rest = _take(self.hands[seat], cards)
        if rest is None:
            raise IllegalAction(NOT_HELD, "those cards are not in your hand")
        target = next((s for s in self.face_up[seat] if s[0].rank == cards[0].rank), None)
        if target is None:
            raise IllegalAction(INVALID, "you have no face-up card of that rank to stack on")
        target.extend(cards)
        self.hands[seat] = rest
        self._forget(seat, cards)
        events: list[Event] = [Stacked(seat, tuple(cards))]
        self._refill(seat, events)
        return events

    def _ready(self, action: Ready) -> list[Event]:
        seat = action.player
        self._check_setup(seat)
        if not self.chosen[seat]:
            raise IllegalAction(
                INVALID, f"choose your {self.rules.table_cards} face-up cards first"
            )
        self.ready[seat] = True
        events: list[Event] = [MarkedReady(seat)]
        if all(self.ready):
            self._start_play(events)
        return events

    def _start_play(self, events: list[Event]) -> None:
        first, reason = self._first_player()
        self.phase = "play"
        self.turn = first
        self.idle = 0
        events.append(PlayStarted(first, reason))

    def _first_player(self) -> tuple[int, str]:
        """Find who leads, by `first_player`."""
        how = self.rules.first_player
        order = self.seat_order()
        loser = self.previous_loser
        if how == "loser" and loser is not None and 0 <= loser < self.players:
            return loser, "loser"
        if how in ("random", "loser"):
            return self._randrange(self.players), "random"
        powered = self.table.powered
        plain = [rank for rank in ALL_RANKS if not powered[rank]]
        if how == "lowest_by_suit":
            best: tuple[int, int] | None = None
            leader = order[0]
            for seat in order:
                for card in self.hands[seat] + self.face_up_cards(seat):
                    if powered[card.rank]:
                        continue
                    key = (card.rank, _SUIT_PRIORITY.get(card.suit or "", 4))
                    if best is None or key < best:
                        best, leader = key, seat
            return leader, "lowest_by_suit"
        for rank in plain:
            for seat in order:
                if any(card.rank == rank for card in self.face_up_cards(seat)):
                    return seat, "lowest"
            for seat in order:
                if any(card.rank == rank for card in self.hands[seat]):
                    return seat, "lowest"
        return order[0], "lowest"

    # ------------------------------------------------------------------ legal actions

    # `game.legal_actions(seat)`: every action `seat` may take now, in a stable order. The
    # function is the method itself, with no wrapper call: it runs once a move.
    legal_actions = legal.legal_actions

    def to_act(self) -> list[int]:
        """Seats that may act now: everyone not ready in setup, else the player to act."""
        if self.phase == "setup":
            return [seat for seat in range(self.players) if not self.ready[seat]]
        if self.phase == "play" and self.turn is not None:
            return [self.turn]
        return []


_HANDLERS: dict[type, Callable[[Game, Any], list[Event]]] = {
    Play: Game._play,
    PickUp: Game._pick_up,
    Flip: Game._flip,
    PlayStock: Game._play_stock,
    Swap: Game._swap,
    Choose: Game._choose,
    Stack: Game._stack,
    Ready: Game._ready,
    Resign: Game._resign,
}
