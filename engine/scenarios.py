"""Rule-scenario runner: `python -m engine.scenarios PATH [PATH ...]`.

Runs JSON rule scenarios (see `docs/rule-scenarios.md`), prints one line per
failing scenario and ends with `N passed, N failed`; exits 0 only when none failed.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.cards import Card, CardError, parse_card
from engine.errors import ErrorCode, IllegalAction
from engine.events import Revealed
from engine.game import Game
from engine.position import build_game
from engine.rules import RulesError, RuleSet, make_rules
from engine.serialize import ACTION_KEYS, ActionFormatError, action_from_json, game_to_json


class ScenarioError(Exception):
    """A scenario file is malformed."""


@dataclass(frozen=True)
class Scenario:
    """One scenario and where it came from."""

    path: Path
    index: int
    data: dict[str, Any]

    @property
    def label(self) -> str:
        name = self.data.get("name", f"#{self.index}")
        return f"{self.path}: {name}"


def load_scenarios(paths: Sequence[str | Path]) -> list[Scenario]:
    """Read scenarios from files and folders (recursively `*.json`)."""
    scenarios: list[Scenario] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            files = sorted(path.rglob("*.json"))
        elif path.is_file():
            files = [path]
        else:
            raise ScenarioError(f"{path}: no such file or folder")
        for file in files:
            try:
                data = json.loads(file.read_text(encoding="utf-8"))
            except (OSError, json.JSONDecodeError) as exc:
                raise ScenarioError(f"{file}: not valid JSON ({exc})") from None
            items = data if isinstance(data, list) else [data]
            for index, item in enumerate(items):
                if not isinstance(item, dict):
                    raise ScenarioError(f"{file}: scenario {index} is not an object")
                scenarios.append(Scenario(file, index, item))
    return scenarios


def rules_of(spec: object) -> RuleSet:
    """Read a scenario's `rules`: a preset name or `{"preset", "set"}`."""
    if spec is None:
        return make_rules("classic")
    if isinstance(spec, str):
        return make_rules(spec)
    if isinstance(spec, dict):
        return make_rules(str(spec.get("preset", "classic")), spec.get("set") or {})
    raise RulesError(f"rules: give a preset name or an object, not {spec!r}")


def _card(text: object) -> Card:
    """Read a card strictly: rank then suit, upper case, no spaces (`10H`, `QS`, `JK`)."""
    if not isinstance(text, str):
        raise CardError(f"a card is written as text like '10H' or 'JK', not {text!r}")
    return parse_card(text, strict=True)


def _cards(values: object, what: str) -> list[Card]:
    if not isinstance(values, list):
        raise ScenarioError(f"{what}: expected a list of cards")
    return [_card(value) for value in values]


def game_from_state(rules: RuleSet, state: dict[str, Any], phase: str = "play") -> Game:
    """Set up an exact position from a scenario `state`."""
    hands = state.get("hands")
    if not isinstance(hands, list) or not hands:
        raise ScenarioError("state: 'hands' lists one hand per player")
    players = len(hands)
    face_up = state.get("face_up") or [[] for _ in range(players)]
    face_down = state.get("face_down") or [[] for _ in range(players)]
    if not len(face_up) == len(face_down) == players:
        raise ScenarioError("state: hands, face_up and face_down need one entry per player")
    setup = state.get("phase", phase) == "setup"
    return build_game(
        rules,
        hands=[_cards(hand, "hands") for hand in hands],
        face_up=[
            [
                _cards(entry, "face_up") if isinstance(entry, list) else [_card(entry)]
                for entry in stacks
            ]
            for stacks in face_up
        ],
        face_down=[_cards(cards, "face_down") for cards in face_down],
        stock=_cards(state.get("deck", []), "deck"),
        pile=_cards(state.get("pile", []), "pile"),
        burned=_cards(state.get("burned", []), "burned"),
        finished=list(state.get("finished", [])),
        phase="setup" if setup else "play",
        turn=None if setup else int(state.get("turn", 0)),
        direction=int(state.get("direction", 1)),
        dealer=state.get("dealer"),
        seed=int(state.get("seed", 0)),
    )


def game_of(scenario: dict[str, Any]) -> Game:
    """Build the scenario's table: an exact `state` or a seeded `deal`."""
    rules = rules_of(scenario.get("rules"))
    if "state" in scenario:
        return game_from_state(rules, scenario["state"], scenario.get("phase", "play"))
    deal = scenario.get("deal")
    if not isinstance(deal, dict):
        raise ScenarioError("a scenario gives either 'state' or 'deal'")
    return Game.deal(
        rules, int(deal["players"]), seed=int(deal.get("seed", 0)), dealer=deal.get("dealer")
    )


def _norm(card: object) -> str:
    return str(_card(card))


def _multiset(cards: object) -> list[str]:
    if not isinstance(cards, list):
        raise ScenarioError(f"expected a list of cards, got {cards!r}")
    return sorted(_norm(card) for card in cards)


def _stacks(entries: object) -> list[list[str]]:
    if not isinstance(entries, list):
        raise ScenarioError(f"expected a list of face-up cards, got {entries!r}")
    return sorted(
        _multiset(entry) if isinstance(entry, list) else [_norm(entry)] for entry in entries
    )


def _actual(game: Game, key: str, revealed: str | None) -> object:
    if key == "turn":
        return game.turn
    if key == "direction":
        return game.direction
    if key == "pile":
        return [str(card) for card in game.pile]
    if key == "pile_top":
        return str(game.pile[-1]) if game.pile else None
    if key == "pile_count":
        return len(game.pile)
    if key == "deck_count":
        return len(game.stock)
    if key == "burned_count":
        return len(game.burned)
    if key == "hand_counts":
        return [len(hand) for hand in game.hands]
    if key == "face_down_counts":
        return [len(cards) for cards in game.face_down]
    if key == "finished":
        return list(game.finished)
    if key == "loser":
        return game.loser
    if key == "over":
        return game.over
    if key == "phase":
        return game.phase
    if key == "revealed":
        return revealed
    if key == "winner":
        return game.winner
    raise ScenarioError(f"unknown expectation {key!r}")


def _check(game: Game, expect: dict[str, Any], revealed: str | None) -> list[str]:
    """Compare the expected keys with the game; say each difference."""
    problems: list[str] = []
    for key, wanted in expect.items():
        if key in ("hands", "face_up"):
            if not isinstance(wanted, dict):
                raise ScenarioError(f"{key}: expected an object of seat index to cards")
            for seat_text, cards in wanted.items():
                seat = int(seat_text)
                if not 0 <= seat < game.players:
                    raise ScenarioError(f"{key}: no seat {seat}")
                if key == "hands":
                    got_hand = sorted(str(card) for card in game.hands[seat])
                    want_hand = _multiset(cards)
                    if got_hand != want_hand:
                        problems.append(f"hands[{seat}] expected {want_hand}, got {got_hand}")
                else:
                    got_up = sorted(sorted(str(c) for c in s) for s in game.face_up[seat])
                    want_up = _stacks(cards)
                    if got_up != want_up:
                        problems.append(f"face_up[{seat}] expected {want_up}, got {got_up}")
            continue
        actual = _actual(game, key, revealed)
        if key in ("pile", "pile_top", "revealed") and wanted is not None:
            wanted = [_norm(c) for c in wanted] if key == "pile" else _norm(wanted)
        if actual != wanted:
            problems.append(f"{key} expected {wanted!r}, got {actual!r}")
    return problems


def run_scenario(data: dict[str, Any]) -> list[str]:
    """Run one scenario; return its failures (empty when it passes)."""
    try:
        game = game_of(data)
    except (RulesError, ScenarioError, CardError, ValueError, KeyError, TypeError) as exc:
        return [f"setup: malformed scenario: {exc}"]
    steps = data.get("steps", [])
    if not isinstance(steps, list):
        return ["setup: 'steps' is a list"]
    for number, step in enumerate(steps, start=1):
        try:
            problems = _run_step(game, step)
        except (ScenarioError, CardError, ValueError, KeyError, TypeError) as exc:
            problems = [f"malformed step: {exc}"]
        if problems:
            return [f"step {number}: {problem}" for problem in problems]
    return []


def _run_step(game: Game, step: dict[str, Any]) -> list[str]:
    revealed: str | None = None
    refusal: IllegalAction | None = None
    if any(key in step for key in ACTION_KEYS):
        before = game_to_json(game)
        try:
            action = action_from_json(step, strict=True)
            events = game.apply(action)
        except ActionFormatError as exc:
            refusal = IllegalAction(ErrorCode.INVALID, str(exc))
        except IllegalAction as exc:
            refusal = exc
        else:
            revealed = next((str(e.card) for e in events if isinstance(e, Revealed)), None)
        if refusal is not None and game_to_json(game) != before:
            return [f"refused with {refusal.code} but the game changed"]
    if "error" in step:
        if refusal is None:
            return [f"expected error {step['error']!r}, but the action was accepted"]
        if refusal.code != step["error"]:
            return [
                f"expected error {step['error']!r}, got {refusal.code.value!r} ({refusal.message})"
            ]
    elif refusal is not None:
        return [f"refused with {refusal.code.value!r}: {refusal.message}"]
    expect = step.get("expect", {})
    if not isinstance(expect, dict):
        raise ScenarioError("'expect' is an object")
    return _check(game, expect, revealed)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the scenarios at the given paths and report."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        print("usage: python -m engine.scenarios PATH [PATH ...]", file=sys.stderr)
        return 2
    try:
        scenarios = load_scenarios(args)
    except ScenarioError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    passed = failed = 0
    for scenario in scenarios:
        problems = run_scenario(scenario.data)
        if problems:
            failed += 1
            for problem in problems:
                print(f"FAIL {scenario.label}: {problem}")
        else:
            passed += 1
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
