"""Whole games in the browser playground, in Debian's Chromium driven by Playwright.

Each test runs the sandbox and the real bot (paced as in the e2e tests) in the test's
process; the browser only clicks and types in the page, which only uses the control API.
A screenshot of every screen goes to the test's tmp dir and must not be blank.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest
from PIL import Image, ImageStat
from playwright.async_api import Browser, Locator, Page, async_playwright
from playwright.async_api import TimeoutError as BrowserTimeout

from bot.client import ShitheadBot
from bot.words import card_text
from sandbox.api import AUTOCOMPLETE
from sandbox.server import Sandbox
from tables.model import Table
from tests.bot.test_play_e2e import bot, hidden_cards, leaks, sandbox, table_of

__all__ = ["bot", "sandbox"]

CHROMIUM = Path("/usr/bin/chromium")
if not CHROMIUM.exists():
    pytest.skip(
        f"no Chromium at {CHROMIUM}: install Debian's package `chromium` "
        "(apt-get install chromium) to run the browser tests",
        allow_module_level=True,
    )
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
WAIT = 10_000  # ms: a view the bot is drawing shows well within this
MAX_TRIES = 1500  # looks at the table before a game is taken to be stuck


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    async with async_playwright() as driver:
        chromium = await driver.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=ARGS
        )
        try:
            yield chromium
        finally:
            await chromium.close()


class Screens:
    """Screenshots of every screen, kept in the tmp dir, each checked not to be blank."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.taken: list[Path] = []

    async def take(self, page: Page, name: str) -> Path:
        path = self.folder / f"{len(self.taken):02d}-{name}.png"
        await page.screenshot(path=path)
        with Image.open(path) as image:
            spread = ImageStat.Stat(image.convert("L")).extrema[0]
            colours = image.convert("RGB").getcolors(maxcolors=1 << 16)
        assert spread[1] - spread[0] > 100, f"{path.name} is blank"
        assert colours is None or len(colours) > 50, f"{path.name} shows almost nothing"
        self.taken.append(path)
        return path


@pytest.fixture
def screens(tmp_path: Path) -> Screens:
    folder = tmp_path / "screens"
    folder.mkdir()
    return Screens(folder)


class Tabs:
    """Browser tabs on the playground, each in a context of its own; their script errors."""

    def __init__(self, browser: Browser, sandbox: Sandbox) -> None:
        self.browser = browser
        self.sandbox = sandbox
        self.errors: list[str] = []

    async def open(self) -> Page:
        context = await self.browser.new_context(viewport={"width": 1280, "height": 900})
        page = await context.new_page()
        page.on("pageerror", lambda error: self.errors.append(str(error)))
        await page.goto(self.sandbox.url)
        return page


@pytest.fixture
def tabs(browser: Browser, sandbox: Sandbox) -> Tabs:
    return Tabs(browser, sandbox)


async def join_as(
    page: Page, name: str, *, dms_open: bool = True, moderator: bool = False, locale: str = "en-US"
) -> None:
    """Fill in the new-member dialog (it opens by itself when the tab acts as no one)."""
    dialog = page.locator("#member-dialog")
    try:
        # A new tab opens the dialog by itself once its script has loaded the members.
        await dialog.wait_for(state="visible", timeout=3000)
    except BrowserTimeout:
        await page.click("#new-member")
    await page.fill("#member-name", name)
    await page.select_option("#member-locale", locale)
    if not dms_open:
        await page.uncheck("#member-dms")
    if moderator:
        await page.check("#member-mod")
    await page.click("#member-create")
    await dialog.wait_for(state="hidden")
    await page.locator("#member").filter(has_text=name).wait_for(state="attached")


async def open_view(page: Page, channel: str) -> None:
    """Open a channel (`general`) or the DMs with the bot (`@dm`) in the sidebar."""
    await page.click(f'#sidebar li[data-channel="{channel}"]')
    await page.locator(f'#sidebar li.active[data-channel="{channel}"]').wait_for()


async def run_command(page: Page, text: str) -> None:
    """Type a slash command as a person does, then send it with Enter."""
    await page.click("#box")
    await page.keyboard.type(text, delay=5)
    await page.keyboard.press("Enter")
    await page.wait_for_function("document.querySelector('#box').value === ''")


def button(scope: Page | Locator, verb: str) -> Locator:
    """The enabled button whose custom_id has this verb (sh:<table>:<version>:<verb>...)."""
    return scope.locator(f'button[data-custom-id*=":{verb}"]:not([disabled])')


async def lobby_of(page: Page) -> tuple[Locator, str]:
    """The table message in the open channel (found by its Join button) and its table's id."""
    join = page.locator('button[data-custom-id$=":0:join"]').last
    await join.wait_for(timeout=WAIT)
    message = page.locator(".message", has=join)
    lobby = page_message(page, await message.get_attribute("data-message-id"))
    custom_id = await join.get_attribute("data-custom-id") or ""
    return lobby, custom_id.split(":")[1]


def view_mark(table: Table, seat: int) -> re.Pattern[str]:
    """A private view's footer at the seat's current version, in any language."""
    return re.compile(rf"^\w+ {table.id} · \w+ {table.seats[seat].version}$")


def private_view(page: Page, table: Table, seat: int) -> Locator:
    """The message showing the seat's current view version (its footer says which)."""
    footer = page.locator(".embed-footer", has_text=view_mark(table, seat))
    return page.locator(".message", has=footer).last


async def act(page: Page, view: Locator, screens: Screens | None = None) -> None:
    """Make the simplest move the view offers, by clicking: Ready, lowest play, flip, pick up.

    With `screens`, the first open menu of plays is photographed.
    """
    for verb in ("ready", "flip"):
        if await button(view, verb).count():
            await button(view, verb).first.click()
            return
    menu = view.locator('.select[data-custom-id*=":sel"]')
    if await menu.count():
        message_id = await view.get_attribute("data-message-id")
        await menu.locator(".select-box").click()
        if screens is not None and not any("choosing" in p.name for p in screens.taken):
            await screens.take(page, "choosing-a-play")
        await menu.locator(".select-option").first.click()
        updated = page_message(page, message_id)
        await button(updated, "play").first.click(timeout=WAIT)
        return
    for verb in ("stock", "pickup"):
        if await button(view, verb).count():
            await button(view, verb).first.click()
            return
    raise AssertionError(f"no move offered: {await view.inner_text()}")


def page_message(page: Page, message_id: str | None) -> Locator:
    return page.locator(f'.message[data-message-id="{message_id}"]')


async def play_in_pages(
    bot: ShitheadBot,
    table_id: str,
    players: dict[int, Page],
    *,
    after_move: Callable[[], Awaitable[None]] | None = None,
    screens: Screens | None = None,
    moves: int | None = None,
) -> Table:
    """Play the humans' seats by clicking in their pages until the game is over (or `moves`)."""
    table = table_of(bot, table_id)
    made = 0
    for _ in range(MAX_TRIES):
        if made == moves:
            return table
        game = table.game
        assert game is not None
        if table.phase == "over":
            return table
        waiting = [s for s in game.to_act() if s in players]
        if not waiting:
            await asyncio.sleep(0.02)
            continue
        seat = waiting[0]
        page = players[seat]
        view = private_view(page, table, seat)
        try:
            await view.wait_for(timeout=WAIT)
        except BrowserTimeout:
            continue  # the view moved on while we waited: look again
        if game.over or seat not in game.to_act():
            continue
        try:
            await act(page, view, screens)
        except BrowserTimeout:
            continue
        made += 1
        if after_move is not None:
            await after_move()
    raise AssertionError("the game did not end")


def hand_text(table: Table, seat: int) -> str:
    game = table.game
    assert game is not None
    return " ".join(card_text(c) for c in game.hands[seat])


async def test_a_member_plays_two_computer_players_to_the_end(
    bot: ShitheadBot, sandbox: Sandbox, tabs: Tabs, screens: Screens
) -> None:
    bot.tables.seeds = lambda: 7  # a short game (about 60 moves) with today's basic player
    page = await tabs.open()
    await page.locator("#member-dialog").wait_for()
    await screens.take(page, "new-member")
    await join_as(page, "ana")
    await page.click("#box")
    await page.keyboard.type("/shithead cr", delay=5)
    await page.locator(".suggestion", has_text="/shithead create").wait_for()
    await screens.take(page, "command-autocomplete")
    await page.keyboard.press("Enter")  # takes the suggestion
    assert await page.input_value("#box") == "/shithead create "
    await page.keyboard.press("Enter")  # sends it
    lobby, table_id = await lobby_of(page)
    await screens.take(page, "table-created")
    for _ in range(2):
        before = len(table_of(bot, table_id).seats)
        await button(lobby, "addbot:0").click()
        await page.wait_for_function(
            f"document.querySelector('.message .embed-field-value').innerText"
            f".split('\\n').length === {before + 1}"
        )
    await button(lobby, "start").click()
    await open_view(page, "@dm")
    table = table_of(bot, table_id)
    await private_view(page, table, 0).wait_for(timeout=WAIT)
    await screens.take(page, "dm-dealt")
    assert await page.locator(".message .embed-image img").count() >= 1

    table = await play_in_pages(bot, table_id, {0: page}, screens=screens)

    assert table.phase == "over"
    await game_over_shown(page)
    await screens.take(page, "game-over")
    assert tabs.errors == []


async def game_over_shown(page: Page) -> None:
    """Open the channel and wait until the table message shows the result."""
    await open_view(page, "general")
    await page.locator(".embed-field-name", has_text="Result").wait_for(timeout=WAIT)


MOVES = 30  # moves the two members make in their pages, every one checked for leaks


class PageWatch:
    """Check what each member's page shows against the cards hidden from their seat.

    A private view is checked when it shows its seat's current version (then the hidden
    cards are those of this moment); no page may show another seat's hand as a field.
    """

    def __init__(self, table: Table, pages: dict[int, Page]) -> None:
        self.table = table
        self.pages = pages
        self.checked = 0

    async def check(self) -> None:
        for seat, page in self.pages.items():
            with contextlib.suppress(BrowserTimeout):
                await private_view(page, self.table, seat).wait_for(timeout=2000)
            shown: list[list[str]] = await page.locator(".message").evaluate_all(
                "ms => ms.map(m => [m.querySelector('.embed-footer')?.innerText ?? '',"
                " m.innerText, ...[...m.querySelectorAll('.embed-field-value')]"
                ".map(f => f.innerText)])"
            )
            hidden = hidden_cards(self.table, seat)
            current = view_mark(self.table, seat)
            others = {hand_text(self.table, s) for s in self.pages if s != seat} - {""}
            for footer, text, *values in shown:
                assert not others & set(values), f"seat {seat}'s page shows {others & set(values)}"
                if current.match(footer):
                    leaked = leaks({"text": text.replace("\n", " ")}, hidden)
                    assert not leaked, f"seat {seat}'s page ({footer}) shows {leaked}"
                    self.checked += 1


async def test_two_members_in_two_browsers_play_each_other_and_see_only_their_own_hand(
    bot: ShitheadBot, sandbox: Sandbox, tabs: Tabs, screens: Screens
) -> None:
    ana, ben = await tabs.open(), await tabs.open()
    await join_as(ana, "ana")
    await join_as(ben, "ben", locale="de")
    await run_command(ana, "/shithead create")
    lobby, table_id = await lobby_of(ana)
    ben_lobby, _ = await lobby_of(ben)
    await button(ben_lobby, "join").click()
    await lobby.locator(".embed-field-value", has_text="2. ben").wait_for()
    await screens.take(ben, "ben-joined")
    await button(lobby, "start").click()
    for page in (ana, ben):
        await open_view(page, "@dm")
    table = table_of(bot, table_id)
    watch = PageWatch(table, {0: ana, 1: ben})
    await private_view(ben, table, 1).wait_for(timeout=WAIT)
    await screens.take(ben, "ben-dm-in-german")
    assert await ben.locator(".embed-field-name", has_text="Hand").count() == 1
    # Ben's page is in German: his buttons and fields say so.
    assert await ben.locator("button", has_text="Bereit").count() == 1

    # Setup and the first rounds: plays, pickups, both views redrawn after every move.
    await play_in_pages(bot, table_id, {0: ana, 1: ben}, after_move=watch.check, moves=MOVES)

    assert watch.checked >= MOVES
    for page, name in ((ana, "ana"), (ben, "ben")):
        await screens.take(page, f"{name}-playing")
    assert tabs.errors == []


async def test_a_member_with_closed_dms_plays_by_ephemeral_messages(
    bot: ShitheadBot, sandbox: Sandbox, tabs: Tabs, screens: Screens
) -> None:
    bot.tables.seeds = lambda: 7
    dan, ana = await tabs.open(), await tabs.open()
    await join_as(dan, "dan", dms_open=False, moderator=True)
    await join_as(ana, "ana")
    await dan.click("#new-member")
    await dan.fill("#member-name", "ana")
    await dan.click("#member-create")
    await dan.locator("#member-error", has_text="taken").wait_for()  # refused, nothing made
    await dan.click("#member-cancel")
    assert [u["name"] for u in sandbox.driver.state()["users"]][-2:] == ["dan", "ana"]
    # A moderator's /houserules preset: the names offered are the bot's autocomplete answers.
    await dan.click("#box")
    await dan.keyboard.type("/houserules pre", delay=5)
    await dan.keyboard.press("Enter")  # the command
    await dan.keyboard.type("na", delay=5)
    await dan.keyboard.press("Enter")  # its option
    await dan.keyboard.type("clas", delay=5)
    offered = dan.locator(".suggestion .name", has_text=re.compile("^classic$"))
    await offered.wait_for()
    asked = [i for i in sandbox.world.interactions.values() if i.type == AUTOCOMPLETE]
    assert asked and asked[-1].data["options"][0]["options"][0]["value"] == "clas"
    await screens.take(dan, "bot-autocomplete")
    await dan.keyboard.press("Enter")  # takes "classic"
    assert await dan.input_value("#box") == "/houserules preset name:classic "
    await dan.keyboard.press("Enter")  # sends: the bot answers in the channel
    await ana.locator(".message", has_text="changed the house rules").wait_for(timeout=WAIT)
    # An answer only Dan sees, marked so, that he can dismiss.
    await run_command(dan, "/shithead rules")
    answer = dan.locator(".message.ephemeral")
    await answer.last.wait_for(timeout=WAIT)
    assert "Only you can see this" in await answer.last.inner_text()
    assert await ana.locator(".message.ephemeral").count() == 0
    await dan.locator(".message.ephemeral .ephemeral-note a").last.click()  # dismiss
    await answer.first.wait_for(state="detached")

    await run_command(dan, "/shithead create")
    lobby, table_id = await lobby_of(dan)
    await button(lobby, "addbot:0").click()
    await lobby.locator(".embed-field-value", has_text="2. Computer").wait_for()
    await button(lobby, "start").click()
    await dan.locator(".message", has_text="can't send you direct messages").wait_for()
    await button(lobby, "hand").click()
    table = table_of(bot, table_id)
    mine = private_view(dan, table, 0)
    await mine.wait_for(timeout=WAIT)
    assert "Only you can see this" in await mine.inner_text()
    await screens.take(dan, "ephemeral-hand")
    # Ana, in the same channel, sees the table and the notice, never Dan's cards.
    await ana.locator(".message", has_text="can't send you direct messages").wait_for()
    assert await ana.locator(".message.ephemeral").count() == 0
    await screens.take(ana, "ana-sees-no-ephemeral")

    async def only_dan_sees_his_cards() -> None:
        views = dan.locator(".message", has=dan.locator(".embed-footer", has_text=table.id))
        assert await views.count() == await views.and_(dan.locator(".ephemeral")).count() > 0
        assert await ana.locator(".message.ephemeral").count() == 0

    await play_in_pages(bot, table_id, {0: dan}, after_move=only_dan_sees_his_cards, moves=MOVES)

    assert sandbox.driver.dms("dan") == []
    await screens.take(dan, "dan-playing")
    assert tabs.errors == []


async def test_a_preset_from_the_options_choices_and_a_menu_of_several_values(
    bot: ShitheadBot, sandbox: Sandbox, tabs: Tabs, screens: Screens
) -> None:
    ana = await tabs.open()
    await join_as(ana, "ana")
    await ana.click("#box")
    await ana.keyboard.type("/shithead create pre", delay=5)
    await ana.keyboard.press("Enter")  # the option's name
    await ana.keyboard.type("choose", delay=5)
    offered = ana.locator(".suggestion .name", has_text=re.compile("^choose-deal$"))
    await offered.wait_for()
    await screens.take(ana, "preset-choices")
    await offered.click()
    assert await ana.input_value("#box") == "/shithead create preset:choose-deal "
    await ana.keyboard.press("Enter")
    lobby, table_id = await lobby_of(ana)
    assert "players choose their face-up cards" in await lobby.inner_text()
    await button(lobby, "addbot:0").click()
    await lobby.locator(".embed-field-value", has_text="2. Computer").wait_for()
    await button(lobby, "start").click()
    await open_view(ana, "@dm")
    table = table_of(bot, table_id)
    view = private_view(ana, table, 0)
    await view.wait_for(timeout=WAIT)
    menu = view.locator('.select[data-custom-id*=":choose"]')
    await menu.locator(".select-box").click()
    await ana.locator(".select-hint", has_text="Choose 3").wait_for()
    options = menu.locator(".select-option")
    labels = await options.locator(".label").all_inner_texts()
    assert len(labels) == 6
    for index in (0, 2, 5, 4):  # a fourth is more than the menu takes: it stays unticked
        await options.nth(index).click()
    assert await menu.locator(".select-option.chosen").count() == 3
    await screens.take(ana, "choosing-three")
    await ana.click("#title")  # closing the menu sends the three
    picked = " ".join(labels[i] for i in (0, 2, 5))
    face_up = ana.locator(".embed-field-name", has_text="Face-up").locator("xpath=..")
    await face_up.locator(".embed-field-value", has_text=picked).wait_for(timeout=WAIT)
    game = table.game
    assert game is not None
    assert [card_text(stack[0]) for stack in game.face_up[0]] == picked.split()
    assert tabs.errors == []


async def test_the_page_renders_discord_markdown_and_components(
    sandbox: Sandbox, tabs: Tabs
) -> None:
    page = await tabs.open()
    await join_as(page, "ana")
    ana = next(u for u in sandbox.driver.state()["users"] if u["name"] == "ana")
    rendered = {
        "**bold** *it* _it_ __under__ ~~gone~~": (
            "<strong>bold</strong> <em>it</em> <em>it</em> <u>under</u> <s>gone</s>"
        ),
        "`**not bold**` <b>": "<code>**not bold**</code> &lt;b&gt;",
        f"<@{ana['id']}>, it's your turn": '<span class="mention">@ana</span>, it&#39;s your turn',
        "> quoted\nnext": "<blockquote>quoted</blockquote>next",
        "-# small print": '<span class="subtext">small print</span>',
    }
    for text, html in rendered.items():
        assert await page.evaluate("text => markdown(text)", text) == html
    # An embed's colour bar, fields side by side, a disabled and a styled button.
    embed = await page.evaluate(
        """() => renderEmbed({attachments: [], attachment_urls: []}, {
            color: 0x57f287, title: "T", fields: [
                {name: "a", value: "1", inline: true}, {name: "b", value: "2", inline: true},
                {name: "c", value: "3", inline: false}]}).outerHTML"""
    )
    assert 'style="border-left-color: rgb(87, 242, 135);"' in embed
    assert 'grid-template-columns: repeat(2, 1fr);"' in embed
    assert 'grid-template-columns: repeat(1, 1fr);"' in embed
    buttons = await page.evaluate(
        """() => renderComponents({id: "1", components: [{type: 1, components: [
            {type: 2, style: 4, label: "Go", custom_id: "a", disabled: true},
            {type: 2, style: 3, label: "Ok", custom_id: "b"}]}]}).innerHTML"""
    )
    assert (
        '<button class="button danger" type="button" data-custom-id="a" disabled="">Go</button>'
        in buttons
    )
    assert '<button class="button success" type="button" data-custom-id="b">Ok</button>' in buttons
    # What the bot cannot take is answered in the page and sent nowhere.
    for typed, said in (
        ("hello", "reads no messages: type / to see its commands"),
        ("/nope", "There is no command /nope: type / to see them."),
    ):
        await page.fill("#box", typed)
        await page.press("#box", "Enter")
        await page.locator("#composer-error", has_text=said).wait_for()
        assert await page.input_value("#box") == typed
    assert sandbox.world.interactions == {}
    assert tabs.errors == []
