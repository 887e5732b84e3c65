"""Play in a terminal through a running sandbox: `python -m sandbox.play NAME [--url URL]`.

It acts as one member over the control API, exactly as a client would: it shows the
channel's table message and the member's private view (their DM, or their latest
ephemeral view), numbers what they can do, and turns what they type into interactions.
A play is two calls, made for them: choose the cards in the menu, then click Play.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import re
import sys
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import aiohttp

DEFAULT_URL = "http://127.0.0.1:8765"
JSON = dict[str, Any]
Say = Callable[[str], None]
Ask = Callable[[str], Awaitable[str | None]]

BUTTON, STRING_SELECT, LINK_STYLE = 2, 3, 5
FOOTER = re.compile(r"table (\S+) · view (\d+)")
TABLE_TITLE = re.compile(r"^Shithead table (\S+)$")
CARD_IN_LABEL = re.compile(r"(?:10|[2-9JQKA])[♣♦♥♠]|🃏")
CARD_TYPED = re.compile(r"^(10|[2-9tjqka])([cdhs♣♦♥♠])$", re.IGNORECASE)
SUITS = {"c": "♣", "d": "♦", "h": "♥", "s": "♠"}
JOKER_WORDS = {"joker", "jk", "🃏"}
MENTION = re.compile(r"<@!?(\d+)>")
COMMAND = "shithead"

# Buttons of the table message, and the /shithead subcommand doing the same.
TABLE_VERBS = {"join": "join", "leave": "leave", "start": "start", "hand": "hand"}
# Buttons of the private view.
PRIVATE_VERBS = ("ready", "pickup", "stock", "flip", "swap", "play")
# Words that are /shithead subcommands and nothing else.
SLASH_VERBS = ("create", "table", "rules", "end")
QUIT_WORDS = ("quit", "exit", "q")

# After an action: poll, wait for a change, then for a quiet moment.
POLL_SECONDS = 0.1
CHANGE_SECONDS = 1.0
QUIET_SECONDS = 0.3
SETTLE_SECONDS = 3.0
READY_SECONDS = 5.0

HELP = """\
Type one of:
  7                   do what line 7 of the list says (`1 3 5`: three options of one menu)
  7h, 10s, qd, joker  play that card, or pick it in a menu (`5h 5d`: both at once)
  create [preset]     open a table in the channel (/shithead create)
  join | leave | start | hand | table | rules | end | rematch
  addbot [basic|expert]
  ready | pickup | stock | flip [n] | play
  swap [3h 8c]        swap a hand card with a face-up card before Ready
  /shithead SUB [option=value ...]   any slash command
  (an empty line)     wait for the next change
  look                show everything again now
  quit"""


class Unreachable(Exception):
    """The sandbox is not there, or something else answers at its address."""


class Refused(Exception):
    """The control API refused a call (4xx): what a real client could not have done."""


class Control:
    """The control API of one sandbox, over HTTP."""

    def __init__(self, url: str, session: aiohttp.ClientSession) -> None:
        self.url = url.rstrip("/")
        self.session = session

    async def call(
        self,
        method: str,
        path: str,
        body: JSON | None = None,
        query: dict[str, str | int] | None = None,
    ) -> Any:
        """Make one control call and return its JSON answer."""
        url = f"{self.url}/_sandbox{path}"
        try:
            async with self.session.request(method, url, json=body, params=query) as response:
                answer = await response.json(content_type=None)
        except aiohttp.ClientConnectionError:
            raise Unreachable(f"No sandbox at {self.url}: start it with `make run`.") from None
        except TimeoutError:
            raise Unreachable(f"The sandbox at {self.url} did not answer in time.") from None
        except (ValueError, aiohttp.ClientResponseError):
            raise Unreachable(
                f"{self.url} does not answer like a sandbox: start one with `make run`."
            ) from None
        if response.status >= 400:
            error = answer.get("error") if isinstance(answer, dict) else None
            raise Refused(str(error or f"HTTP {response.status}"))
        return answer

    async def state(self) -> JSON:
        """Return the world: guilds, users, the bot's connection."""
        state: JSON = await self.call("GET", "/state")
        return state

    async def create_user(self, name: str, *, dms_open: bool = True) -> JSON:
        """Create a member of the default guild."""
        user: JSON = await self.call("POST", "/users", {"name": name, "dms_open": dms_open})
        return user

    async def messages(self, channel: str, as_user: str, limit: int = 200) -> list[JSON]:
        """Return what a member sees in a channel, oldest first."""
        path = f"/channels/{quote(channel, safe='')}/messages"
        messages: list[JSON] = await self.call("GET", path, query={"as": as_user, "limit": limit})
        return messages

    async def message(self, message_id: str, as_user: str) -> JSON:
        """Return one message as a member sees it."""
        message: JSON = await self.call("GET", f"/messages/{message_id}", query={"as": as_user})
        return message

    async def dms(self, user: str, limit: int = 10) -> list[JSON]:
        """Return the bot's DMs to a member, oldest first."""
        dms: list[JSON] = await self.call(
            "GET", f"/users/{quote(user, safe='')}/dms", query={"limit": limit}
        )
        return dms

    async def interact(self, request: JSON) -> JSON:
        """Dispatch an interaction and return the bot's first answer."""
        answer: JSON = await self.call("POST", "/interactions", request)
        return answer


@dataclass(frozen=True)
class Action:
    """One thing the member can do: click a button, or pick an option of a menu."""

    place: str  # "table" or "private"
    message_id: str
    custom_id: str
    label: str
    value: str | None = None
    menu: str = ""
    count: int = 1
    chosen: bool = False

    @property
    def verb(self) -> str:
        """Return the verb of the custom_id (`sh:<table>:<version>:<verb>[:<arg>]`)."""
        parts = self.custom_id.split(":")
        return parts[3] if len(parts) > 3 and parts[0] == "sh" else self.custom_id

    @property
    def cards(self) -> list[str]:
        """Return the cards written in the label, e.g. ["5♦", "5♥"] for "2 × 5 (5♦ 5♥)"."""
        return CARD_IN_LABEL.findall(self.label)


def actions_of(message: JSON | None, place: str) -> list[Action]:
    """List a message's enabled buttons and the options of its enabled select menus."""
    if message is None:
        return []
    found: list[Action] = []
    for row in message.get("components") or []:
        for item in row.get("components") or []:
            custom_id = item.get("custom_id")
            if item.get("disabled") or not custom_id:
                continue
            if item.get("type") == BUTTON and item.get("style") != LINK_STYLE:
                label = item.get("label") or custom_id
                found.append(Action(place, message["id"], custom_id, label))
            elif item.get("type") == STRING_SELECT:
                found += [
                    Action(
                        place,
                        message["id"],
                        custom_id,
                        option["label"],
                        value=option["value"],
                        menu=item.get("placeholder") or "",
                        count=int(item.get("min_values", 1)),
                        chosen=bool(option.get("default")),
                    )
                    for option in item.get("options") or []
                ]
    return found


def typed_cards(words: Sequence[str]) -> list[str] | None:
    """Read cards as the bot writes them (7♥, 10♠, 🃏) from `7h 10s joker`; None if not cards."""
    cards: list[str] = []
    for word in words:
        if word.lower() in JOKER_WORDS:
            cards.append("🃏")
            continue
        match = CARD_TYPED.match(word)
        if match is None:
            return None
        rank, suit = match[1].upper(), match[2].lower()
        cards.append(("10" if rank == "T" else rank) + SUITS.get(suit, suit))
    return cards or None


def plain(text: str, names: dict[str, str]) -> str:
    """Write Discord markdown as plain text: mentions by name, no bold."""
    text = MENTION.sub(lambda m: "@" + names.get(m[1], m[1]), text)
    return text.replace("**", "").replace("__", "")


def message_lines(message: JSON, names: dict[str, str]) -> list[str]:
    """Write a message's content and embeds (title, description, fields) as lines."""
    lines: list[str] = []
    if message.get("content"):
        lines.append(plain(message["content"], names))
    for embed in message.get("embeds") or []:
        if embed.get("title"):
            lines.append(f"== {plain(embed['title'], names)} ==")
        if embed.get("description"):
            lines.append(plain(embed["description"], names))
        for each in embed.get("fields") or []:
            name, value = plain(each["name"], names), plain(each["value"], names)
            if "\n" in value:
                lines.append(f"{name}:")
                lines += [f"  {line}" for line in value.splitlines()]
            else:
                lines.append(f"{name}: {value}")
    return lines


def view_mark(message: JSON) -> tuple[str, int] | None:
    """Return (table id, view version) from a private view's footer."""
    for embed in message.get("embeds") or []:
        found = FOOTER.search((embed.get("footer") or {}).get("text", ""))
        if found:
            return found[1], int(found[2])
    return None


def table_id_of(message: JSON) -> str | None:
    """Return the table id a table message is about."""
    for action in actions_of(message, "table"):
        parts = action.custom_id.split(":")
        if len(parts) > 3 and parts[0] == "sh":
            return parts[1]
    for embed in message.get("embeds") or []:
        found = TABLE_TITLE.match(embed.get("title") or "")
        if found:
            return found[1]
    return None


@dataclass
class Screen:
    """What the member sees now: the table message, their private view, new notices."""

    table: JSON | None
    private: JSON | None
    notices: list[JSON]
    names: dict[str, str]
    actions: list[Action] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.actions = actions_of(self.private, "private") + actions_of(self.table, "table")

    @property
    def key(self) -> str:
        """Return what changes when anything shown changes."""
        return "\n".join([*self.lines(), *(n["id"] for n in self.notices)])

    def lines(self) -> list[str]:
        """Write the table, the private view and the numbered actions."""
        lines: list[str] = []
        if self.table is None:
            lines.append("No table in this channel yet: type `create` to open one.")
        else:
            lines += message_lines(self.table, self.names)
        lines.append("")
        if self.private is None:
            lines.append("You have no cards yet.")
        else:
            lines += message_lines(self.private, self.names)
        if self.actions:
            lines += ["", "What you can do:"]
            menu = None
            for number, action in enumerate(self.actions, 1):
                if action.value is not None and action.menu != menu:
                    how = f", pick {action.count} at once" if action.count > 1 else ""
                    lines.append(f"  {action.menu or 'Menu'}{how}:")
                menu = action.menu if action.value is not None else None
                indent = "    " if action.value is not None else "  "
                chosen = " (chosen)" if action.chosen else ""
                lines.append(f"{indent}{number:>2}. {plain(action.label, self.names)}{chosen}")
        return lines

    def text(self, shown_notices: set[str]) -> str:
        """Write the screen, with the notices not shown before."""
        fresh = [n for n in self.notices if n["id"] not in shown_notices]
        lines = [f"[{plain(n['content'], self.names)}]" for n in fresh]
        return "\n".join([*lines, *([""] if lines else []), *self.lines()])


class Player:
    """One member at the terminal: look, act, wait for changes."""

    def __init__(
        self,
        control: Control,
        name: str,
        *,
        channel: str = "general",
        say: Say = print,
        wait_seconds: float = 60.0,
    ) -> None:
        self.control = control
        self.name = name
        self.channel = channel
        self.say = say
        self.wait_seconds = wait_seconds
        self.names: dict[str, str] = {}
        self.shown_notices: set[str] = set()
        self.screen: Screen | None = None
        self.table_message_id: str | None = None

    @property
    def prompt(self) -> str:
        """Return the input prompt."""
        return f"{self.name}> "

    async def start(self, *, dms_open: bool = True) -> None:
        """Create the member if missing, wait a moment for the bot, show the table."""
        state = await self.control.state()
        if not any(user["name"] == self.name for user in state["users"]):
            await self.control.create_user(self.name, dms_open=dms_open)
            dms = "open" if dms_open else "closed"
            self.say(f"Created member {self.name} (DMs {dms}).")
        for _ in range(int(READY_SECONDS / POLL_SECONDS)):
            if state["bot"]["ready"]:
                break
            await asyncio.sleep(POLL_SECONDS)
            state = await self.control.state()
        else:
            self.say(f"No bot is connected to {self.control.url}: start it with `make run`.")
        self.show(await self.look())

    async def look(self) -> Screen:
        """Read the table message, the private view and new notices."""
        state = await self.control.state()
        self.names = {u["id"]: u["name"] for u in [*state["users"], state["bot"]]}
        channel = await self.control.messages(self.channel, self.name)
        dms = await self.control.dms(self.name)
        tables = [
            m
            for m in channel
            if m["author"]["bot"] and not m["ephemeral"] and table_id_of(m) is not None
        ]
        table = tables[-1] if tables else await self._remembered_table()
        self.table_message_id = table["id"] if table is not None else None
        table_id = table_id_of(table) if table is not None else None
        views = [
            (mark[1], index, m)
            for index, m in enumerate([*channel, *dms])
            if (mark := view_mark(m)) is not None and table_id in (None, mark[0])
        ]
        private = max(views, key=lambda view: view[:2])[2] if views else None
        notices = [
            m
            for m in [*channel[-10:], *dms[-5:]]
            if m["content"] and not m["embeds"] and m is not table and m["author"]["bot"]
        ]
        return Screen(table, private, notices, self.names)

    async def _remembered_table(self) -> JSON | None:
        """Fetch the last table message shown, when newer messages hide it from the list."""
        if self.table_message_id is None:
            return None
        try:
            return await self.control.message(self.table_message_id, self.name)
        except Refused:  # deleted: the bot posts it again
            return None

    def show(self, screen: Screen) -> None:
        """Print the screen and remember which notices were shown."""
        self.screen = screen
        self.say(screen.text(self.shown_notices))
        self.shown_notices |= {n["id"] for n in screen.notices}

    async def handle(self, line: str) -> bool:
        """Do what one typed line says; False means quit."""
        words = line.split()
        if not words:
            await self.wait_for_change()
            return True
        head = words[0].lower()
        if head in QUIT_WORDS:
            return False
        try:
            await self._dispatch(head, words)
        except Refused as refused:
            self.say(f"Refused: {refused}.")
        return True

    async def _dispatch(self, head: str, words: list[str]) -> None:
        """Tell a number, a card, a verb and a slash command apart, and do it."""
        if head in ("help", "?"):
            self.say(HELP)
            return
        if head in ("look", "refresh"):
            self.show(await self.look())
            return
        if all(word.isdigit() for word in words):
            await self._numbers([int(word) for word in words])
            return
        if head.startswith("/"):
            await self._slash(words)
            return
        screen = await self.look()
        if (cards := typed_cards(words)) is not None:
            await self._cards(screen, cards)
        elif head in TABLE_VERBS or head == "rematch":
            await self._table_verb(screen, head)
        elif head == "addbot":
            await self._addbot(screen, words[1:])
        elif head in PRIVATE_VERBS:
            await self._private_verb(screen, head, words[1:])
        elif head in SLASH_VERBS:
            options = {"preset": words[1]} if head == "create" and len(words) > 1 else {}
            await self._command(f"{COMMAND} {head}", options)
        else:
            self.say(f"I don't know `{words[0]}`: type `help` to see what works.")

    # what the member typed

    async def _slash(self, words: list[str]) -> None:
        """Run `/command sub option=value ...`."""
        path = [words[0].removeprefix("/")]
        options: JSON = {}
        for word in words[1:]:
            key, equals, value = word.partition("=")
            if equals:
                options[key] = value
            else:
                path.append(word)
        await self._command(" ".join(path), options)

    async def _numbers(self, numbers: list[int]) -> None:
        """Do the actions numbered as last shown, if the bot still offers them."""
        shown = self.screen.actions if self.screen is not None else []
        if not all(1 <= number <= len(shown) for number in numbers):
            self.say(f"Choose a number from 1 to {len(shown)}." if shown else "Nothing to do.")
            return
        chosen = [shown[number - 1] for number in numbers]
        now = await self.look()
        if not all(action in now.actions for action in chosen):
            self.say("Your view changed meanwhile; here it is now. Choose again.")
            self.show(now)
            return
        await self._do(chosen)

    async def _cards(self, screen: Screen, cards: list[str]) -> None:
        """Do the one option that shows exactly these cards (or one each, in one menu)."""
        options = [a for a in screen.actions if a.value is not None]
        exact = [a for a in options if sorted(a.cards) == sorted(cards)]
        if len(exact) > 1:
            exact = [a for a in exact if a.verb == "sel"] or exact
        if len(exact) == 1:
            await self._do(exact)
            return
        # Several cards, each an option of one menu that takes that many (face-up choice).
        menus = {a.custom_id for a in options if a.count == len(cards) > 1}
        for menu in menus:
            picked = [
                next((a for a in options if a.custom_id == menu and a.cards == [card]), None)
                for card in cards
            ]
            if all(picked):
                await self._do([a for a in picked if a is not None])
                return
        shown = " ".join(cards)
        if exact:
            self.say(f"More than one option shows {shown}: type its number.")
        else:
            self.say(f"Nothing you can do now shows {shown}.")

    async def _table_verb(self, screen: Screen, verb: str) -> None:
        """Click the table message's button, or run the slash command doing the same."""
        button = next((a for a in screen.actions if a.place == "table" and a.verb == verb), None)
        if button is not None:
            await self._do([button])
        elif verb in TABLE_VERBS:
            await self._command(f"{COMMAND} {TABLE_VERBS[verb]}", {})
        else:
            self.say(f"There is no {verb.capitalize()} button now.")

    async def _addbot(self, screen: Screen, words: list[str]) -> None:
        """Seat a computer player of a level (the first button's when none is said)."""
        level = words[0].lower() if words else ""
        buttons = [a for a in screen.actions if a.place == "table" and a.verb == "addbot"]
        button = next((a for a in buttons if level in a.label.lower()), None)
        if button is not None:
            await self._do([button])
        else:
            await self._command(f"{COMMAND} addbot", {"difficulty": level} if level else {})

    async def _private_verb(self, screen: Screen, verb: str, words: list[str]) -> None:
        """Click the private view's button with this verb (the n-th, if several)."""
        cards = typed_cards(words) if verb == "swap" and words else None
        if cards is not None:
            await self._swap(screen, cards)
            return
        buttons = [a for a in screen.actions if a.place == "private" and a.verb == verb]
        which = int(words[0]) if words and words[0].isdigit() else 1
        if not buttons:
            self.say(f"You can't {verb} now.")
        elif not 1 <= which <= len(buttons):
            self.say(f"There are {len(buttons)} ways to {verb}: say which, from 1.")
        else:
            await self._do([buttons[which - 1]])

    async def _swap(self, screen: Screen, cards: list[str]) -> None:
        """Swap a hand card with a face-up one: both menus, then the Swap button."""
        menus = ("swh", "swf")
        picks = [
            next((a for a in screen.actions if a.verb in menus and a.cards == [c]), None)
            for c in cards
        ]
        if len(cards) != 2 or None in picks or {a.verb for a in picks if a} != set(menus):
            self.say("Say a hand card and a face-up card to swap, e.g. `swap 3h 8c`.")
            return
        for verb in menus:
            pick = next(a for a in picks if a is not None and a.verb == verb)
            # Each choice rewrites the other menu's custom_id: find it again.
            current = await self.look()
            again = next(
                (a for a in current.actions if a.verb == verb and a.label == pick.label), None
            )
            if again is None or not self._answer(await self._select([again])):
                return
        current = await self.look()
        button = next((a for a in current.actions if a.verb == "swap"), None)
        if button is None:
            self.say("The Swap button did not come up: try the menus one by one.")
            return
        await self._settled(self._answer(await self._click(button)))

    # acting

    async def _command(self, name: str, options: JSON) -> None:
        """Run a slash command in the channel."""
        request = {
            "type": "command",
            "user": self.name,
            "channel": self.channel,
            "name": name,
            "options": options,
        }
        await self._settled(self._answer(await self.control.interact(request)))

    async def _do(self, actions: list[Action]) -> None:
        """Click a button, or choose options of one menu (and Play, for a play)."""
        first = actions[0]
        if first.value is None:
            if len(actions) > 1:
                self.say("Do one thing at a time: type one number.")
                return
            answer = await self._click(first)
            await self._settled(self._answer(answer))
            return
        if any(a.custom_id != first.custom_id or a.value is None for a in actions):
            self.say("Pick several options of one menu only.")
            return
        if len(actions) != first.count:
            self.say(f"{first.menu or 'This menu'}: pick {first.count} at once.")
            return
        answer = await self._select(actions)
        if first.verb == "sel" and self._answer(answer):
            # Choosing a play only arms the Play button: click it too.
            play = next(
                (a for a in actions_of(answer["response"], first.place) if a.verb == "play"), None
            )
            if play is None:
                self.say("The Play button did not come up: choose again.")
            else:
                answer = await self._click(play)
        await self._settled(self._answer(answer))

    async def _select(self, actions: list[Action]) -> JSON:
        """Choose options of one select menu."""
        request = {
            "type": "select",
            "user": self.name,
            "message": actions[0].message_id,
            "custom_id": actions[0].custom_id,
            "values": [a.value for a in actions],
        }
        return await self.control.interact(request)

    async def _click(self, action: Action) -> JSON:
        """Click a button."""
        request = {
            "type": "button",
            "user": self.name,
            "message": action.message_id,
            "custom_id": action.custom_id,
        }
        return await self.control.interact(request)

    def _answer(self, answer: JSON) -> bool:
        """Say what the bot answered, when it said something; True if it answered."""
        if answer["status"] == "timeout":
            self.say("The bot did not answer within Discord's 3 seconds.")
            return False
        if answer["status"] == "failed":
            self.say(f"The bot's answer was refused: {answer['error']['message']}.")
            return False
        response = answer.get("response") or {}
        if response.get("content") and not response.get("embeds"):
            self.say(f"[{plain(response['content'], self.names)}]")
            self.shown_notices.add(response["id"])
        return True

    async def _settled(self, answered: bool) -> None:
        """Wait for the bot's follow-up edits to come in, then show the screen."""
        before = self.screen.key if self.screen is not None else ""
        loop = asyncio.get_running_loop()
        start = loop.time()
        screen = await self.look()
        last, quiet_since = screen.key, start
        changed = last != before
        while loop.time() - start < SETTLE_SECONDS:
            if changed and loop.time() - quiet_since >= QUIET_SECONDS:
                break
            if not changed and (not answered or loop.time() - start >= CHANGE_SECONDS):
                break
            await asyncio.sleep(POLL_SECONDS)
            screen = await self.look()
            if screen.key != last:
                last, quiet_since = screen.key, loop.time()
                changed = changed or last != before
        self.show(screen)

    async def wait_for_change(self) -> bool:
        """Wait until something shown changes (at most `wait_seconds`); True if it did."""
        before = self.screen.key if self.screen is not None else ""
        self.say(f"Waiting for a change (up to {self.wait_seconds:g} s)...")
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.wait_seconds
        while loop.time() < deadline:
            screen = await self.look()
            if screen.key != before:
                await self._settled(True)
                return True
            await asyncio.sleep(POLL_SECONDS * 2.5)
        self.say("Nothing changed.")
        return False


async def converse(player: Player, ask: Ask, *, dms_open: bool = True) -> None:
    """Start the player, then handle each line `ask` gives until it gives None or quit."""
    await player.start(dms_open=dms_open)
    while (line := await ask(player.prompt)) is not None:
        if not await player.handle(line):
            break


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the command line and play until quit, end of input or Ctrl-C."""
    parser = argparse.ArgumentParser(
        prog="python -m sandbox.play",
        description="Play Shithead in a terminal through a running sandbox (`make run`).",
    )
    parser.add_argument("name", help="the member to play as (created if missing)")
    parser.add_argument("--url", default=DEFAULT_URL, help=f"the sandbox (default {DEFAULT_URL})")
    parser.add_argument("--channel", default="general", help="where the table is")
    parser.add_argument(
        "--closed-dms", action="store_true", help="create the member with DMs closed"
    )
    parser.add_argument("--wait", type=float, default=60.0, help="seconds an empty line waits")
    args = parser.parse_args(argv)
    with asyncio.Runner() as runner:
        session = runner.run(_session())
        control = Control(args.url, session)
        say = functools.partial(print, flush=True)
        player = Player(control, args.name, channel=args.channel, say=say, wait_seconds=args.wait)
        try:
            runner.run(player.start(dms_open=not args.closed_dms))
            print("Type `help` to see what works; an empty line waits for the next change.")
            while True:
                try:
                    line = input(player.prompt)
                except EOFError:
                    break
                try:
                    if not runner.run(player.handle(line)):
                        break
                except KeyboardInterrupt:
                    print("\nStopped.")
        except Unreachable as error:
            print(error, file=sys.stderr)
            return 1
        except KeyboardInterrupt:
            print()
        finally:
            with contextlib.suppress(Exception):
                runner.run(session.close())
    return 0


async def _session() -> aiohttp.ClientSession:
    """Open the HTTP session inside the runner's loop."""
    return aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=15))


if __name__ == "__main__":
    sys.exit(main())
