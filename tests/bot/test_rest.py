"""Interaction writes sent by `bot.rest`: rate limits, retries, errors and files."""

from __future__ import annotations

import asyncio
import errno
import json
import tracemalloc
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import discord
import orjson
import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

from bot.http1 import Pool
from bot.pacing import Job, Pacer
from bot.presenter import _Editor
from bot.rest import USER_AGENT, Rest, message_body
from sandbox.api import BotApi
from sandbox.testing import running_sandbox

Reply = tuple[int, dict[str, Any] | None, dict[str, str]]
# A "status" that makes the fake Discord hang up instead of answering.
DROP = 0


@dataclass
class Discord:
    """A fake Discord: answers each call with the next scripted reply (then 204s)."""

    replies: list[Reply] = field(default_factory=list)
    calls: list[tuple[str, str, Any, list[tuple[str, bytes]]]] = field(default_factory=list)
    # Each call's request target as sent (absolute through a proxy), and who sent it from where.
    targets: list[str] = field(default_factory=list)
    agents: set[str] = field(default_factory=set)
    peers: set[Any] = field(default_factory=set)
    # When set, calls are answered only once it is; calls come in the meantime are counted.
    held: asyncio.Event | None = None
    arrived: int = 0

    async def handle(self, request: web.Request) -> web.Response:
        """Record the call, with its JSON and uploaded files, and answer it."""
        self.arrived += 1
        if self.held is not None:
            await self.held.wait()
        files: list[tuple[str, bytes]] = []
        body: Any = None
        if request.content_type.startswith("multipart/"):
            async for part in await request.multipart():
                assert isinstance(part, aiohttp.BodyPartReader)
                data = await part.read()
                if part.name == "payload_json":
                    body = json.loads(data)
                else:
                    files.append((f"{part.name}:{part.filename}", bytes(data)))
        else:
            assert request.content_type == "application/json"
            body = await request.json()
        self.calls.append((request.method, str(request.rel_url), body, files))
        self.targets.append(request.raw_path)
        self.agents.add(request.headers.get("User-Agent", ""))
        assert request.transport is not None
        self.peers.add(request.transport.get_extra_info("peername"))
        status, answer, headers = self.replies.pop(0) if self.replies else (204, None, {})
        if status == DROP:
            assert request.transport is not None
            request.transport.close()
        if answer is None:
            return web.Response(status=status, headers=headers)
        return web.json_response(answer, status=status, headers=headers)


@dataclass
class Clock:
    """A clock that only sleeping moves; the sleeps are recorded."""

    now: float = 100.0
    slept: list[float] = field(default_factory=list)
    frozen: bool = False

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(round(seconds, 3))
        if not self.frozen:
            self.now += seconds


@pytest.fixture
def discord_api() -> Discord:
    return Discord()


@pytest.fixture
async def session(
    discord_api: Discord, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[aiohttp.ClientSession]:
    app = web.Application()
    app.router.add_route("*", "/api/v10/{tail:.*}", discord_api.handle)
    server = TestServer(app)
    await server.start_server()
    monkeypatch.setattr(discord.http.Route, "BASE", str(server.make_url("/api/v10")))
    async with aiohttp.ClientSession() as session:
        yield session
    await server.close()


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def rest(clock: Clock) -> AsyncIterator[Rest]:
    rest = Rest(clock=clock, sleep=clock.sleep)
    yield rest
    await rest.close()


BUCKET = {"X-RateLimit-Bucket": "abc", "Via": "1.1 google"}


def limited(retry_after: float, *, is_global: bool = False) -> Reply:
    """Discord's 429 for a bucket (or the global limit)."""
    body = {"message": "You are being rate limited.", "retry_after": retry_after}
    return 429, {**body, "global": is_global}, {**BUCKET, "X-RateLimit-Remaining": "0"}


async def test_a_callback_posts_its_type_and_data(
    rest: Rest, session: aiohttp.ClientSession, discord_api: Discord
) -> None:
    data, files = message_body(embeds=[discord.Embed(title="Table")], view=None)
    await rest.callback(session, 11, "tok.en", 7, data, files)
    [(method, url, body, uploaded)] = discord_api.calls
    assert (method, url) == ("POST", "/api/v10/interactions/11/tok.en/callback")
    assert body["type"] == 7
    assert body["data"]["embeds"][0]["title"] == "Table"
    assert body["data"]["components"] == [] and uploaded == []


async def test_a_429_waits_its_retry_after_then_sends_again(
    rest: Rest, session: aiohttp.ClientSession, discord_api: Discord, clock: Clock
) -> None:
    discord_api.replies = [limited(1.5), (200, {"id": "1"}, {})]
    await rest.edit_original(session, 5, "tok", {"content": "hi"})
    assert clock.slept == [1.5]
    assert [call[1] for call in discord_api.calls] == [
        "/api/v10/webhooks/5/tok/messages/@original"
    ] * 2


@pytest.mark.parametrize(("is_global", "other_waits"), [(True, [2.0]), (False, [])])
async def test_a_global_429_holds_back_every_token_a_bucket_s_only_its_own(
    rest: Rest,
    session: aiohttp.ClientSession,
    discord_api: Discord,
    clock: Clock,
    is_global: bool,
    other_waits: list[float],
) -> None:
    clock.frozen = True  # both calls are made within the wait
    discord_api.replies = [limited(2.0, is_global=is_global)]
    await rest.edit_original(session, 5, "one", {"content": "a"})
    assert clock.slept == [2.0]
    await rest.edit_original(session, 5, "two", {"content": "b"})
    assert clock.slept == [2.0, *other_waits]


async def test_a_used_up_bucket_waits_its_reset_before_the_next_call(
    rest: Rest, session: aiohttp.ClientSession, discord_api: Discord, clock: Clock
) -> None:
    used_up = {**BUCKET, "X-RateLimit-Remaining": "0", "X-RateLimit-Reset-After": "2.5"}
    discord_api.replies = [
        (204, None, used_up),
        (204, None, {**BUCKET, "X-RateLimit-Remaining": "4"}),
    ]
    await rest.callback(session, 1, "tok", 6)
    assert clock.slept == []
    await rest.callback(session, 1, "tok", 6)
    assert clock.slept == [2.5]
    # Another token is another bucket: it does not wait; nor does the reopened bucket.
    await rest.callback(session, 2, "other", 6)
    await rest.callback(session, 1, "tok", 6)
    assert clock.slept == [2.5]


async def test_a_server_error_is_tried_again_with_backoff(
    rest: Rest, session: aiohttp.ClientSession, discord_api: Discord, clock: Clock
) -> None:
    discord_api.replies = [(502, None, {}), (503, None, {})]
    await rest.callback(session, 1, "tok", 6)
    assert clock.slept == [1, 3]
    assert len(discord_api.calls) == 3


async def test_a_server_that_keeps_failing_raises_a_server_error(
    rest: Rest, session: aiohttp.ClientSession, discord_api: Discord
) -> None:
    discord_api.replies = [(500, {"message": "oops", "code": 0}, {})] * 5
    with pytest.raises(discord.DiscordServerError):
        await rest.callback(session, 1, "tok", 6)
    assert len(discord_api.calls) == 5


@pytest.mark.parametrize(
    ("status", "code", "kind"),
    [
        (400, 40060, discord.HTTPException),
        (404, 10062, discord.NotFound),
        (404, 10008, discord.NotFound),
        (403, 50001, discord.Forbidden),
    ],
)
async def test_a_refusal_raises_discord_py_s_error_with_its_code(
    rest: Rest,
    session: aiohttp.ClientSession,
    discord_api: Discord,
    status: int,
    code: int,
    kind: type[discord.HTTPException],
) -> None:
    discord_api.replies = [(status, {"message": "refused", "code": code}, {})]
    with pytest.raises(kind) as raised:
        await rest.callback(session, 1, "tok", 7, {"components": []})
    assert raised.value.code == code and raised.value.status == status
    assert "refused" in raised.value.text
    assert len(discord_api.calls) == 1


async def test_a_429_outside_discord_s_api_is_not_waited_out(
    rest: Rest, session: aiohttp.ClientSession, discord_api: Discord, clock: Clock
) -> None:
    discord_api.replies = [(429, {"message": "banned", "retry_after": 60}, {})]
    with pytest.raises(discord.HTTPException) as raised:
        await rest.callback(session, 1, "tok", 6)
    assert raised.value.status == 429 and clock.slept == []


async def test_files_go_as_multipart_and_are_closed(
    rest: Rest, session: aiohttp.ClientSession, discord_api: Discord, tmp_path: Path
) -> None:
    (tmp_path / "table.png").write_bytes(b"\x89PNG...")
    picture = discord.File(tmp_path / "table.png")
    view = discord.ui.View()
    view.add_item(discord.ui.Button(label="Play", custom_id="sh:ab12:0:play"))
    data, files = message_body(embeds=[], view=view, attachments=[picture])
    discord_api.replies = [(503, None, {})]
    await Rest(sleep=Clock().sleep).edit_original(session, 5, "tok", data, files)
    # Sent twice (after a 503): the file went up whole both times, then was closed.
    for method, url, body, uploaded in discord_api.calls:
        assert (method, url) == (
            "PATCH",
            "/api/v10/webhooks/5/tok/messages/@original?with_components=true",
        )
        assert body["attachments"] == [{"id": 0, "filename": "table.png"}]
        assert body["components"][0]["components"][0]["custom_id"] == "sh:ab12:0:play"
        assert uploaded == [("files[0]:table.png", b"\x89PNG...")]
    assert len(discord_api.calls) == 2
    assert picture.fp.closed


async def test_calls_go_on_one_keep_alive_connection_of_their_own(
    rest: Rest, session: aiohttp.ClientSession, discord_api: Discord
) -> None:
    # Not on the bot's aiohttp session: it may even be closed.
    await session.close()
    for interaction in range(5):
        await rest.callback(session, interaction, "tok", 6)
    await rest.edit_original(session, 5, "tok", {"content": "hi"})
    assert len(discord_api.calls) == 6 and len(discord_api.peers) == 1
    assert discord_api.agents == {USER_AGENT}
    assert USER_AGENT.startswith("DiscordBot (https://github.com/Rapptz/discord.py ")


async def test_a_session_with_a_proxy_sends_through_it(
    rest: Rest, session: aiohttp.ClientSession, discord_api: Discord
) -> None:
    base = discord.http.Route.BASE
    async with aiohttp.ClientSession(proxy=base.removesuffix("/api/v10")) as proxied:
        await rest.callback(proxied, 1, "tok", 6)
    [target] = discord_api.targets
    assert target == base + "/interactions/1/tok/callback"
    assert rest.pool is None
    # A session without one goes on the bot's own connections, even after one with.
    await rest.callback(session, 2, "tok", 6)
    assert (
        rest.pool is not None and discord_api.targets[1] == "/api/v10/interactions/2/tok/callback"
    )


@pytest.mark.parametrize("code", [54, errno.ECONNRESET])
async def test_a_reset_connection_is_tried_again_with_backoff(
    code: int,
    rest: Rest,
    session: aiohttp.ClientSession,
    discord_api: Discord,
    clock: Clock,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sent = Pool.request
    resets = [aiohttp.ClientOSError(code, "Connection reset by peer")] * 2

    async def resetting(pool: Pool, *args: Any, **kwargs: Any) -> Any:
        if resets:
            raise resets.pop()
        return await sent(pool, *args, **kwargs)

    monkeypatch.setattr(Pool, "request", resetting)
    await rest.callback(session, 1, "tok", 6)
    assert clock.slept == [1, 3] and len(discord_api.calls) == 1


async def test_a_connection_dropped_without_an_answer_raises_aiohttp_s_error(
    rest: Rest, session: aiohttp.ClientSession, discord_api: Discord
) -> None:
    discord_api.replies = [(DROP, None, {})]
    # The presenter tries such writes again later (it catches `aiohttp.ClientError`).
    with pytest.raises(aiohttp.ClientError):
        await rest.callback(session, 1, "tok", 6)


async def test_writes_through_one_token_go_one_at_a_time_in_order_and_are_then_forgotten(
    rest: Rest, session: aiohttp.ClientSession, discord_api: Discord
) -> None:
    discord_api.held = asyncio.Event()
    writes = [
        asyncio.create_task(rest.edit_original(session, 5, "tok", {"content": str(n)}))
        for n in range(4)
    ]
    other = asyncio.create_task(rest.edit_original(session, 5, "other", {"content": "x"}))
    while discord_api.arrived < 2:
        await asyncio.sleep(0.01)  # the first write of each token reached Discord
    await asyncio.sleep(0.05)
    assert discord_api.arrived == 2  # the other writes through `tok` wait their turn
    writes[2].cancel()  # while it waits its turn: it is not sent
    discord_api.held.set()
    await asyncio.gather(*writes, other, return_exceptions=True)
    sent = [body["content"] for _, url, body, _ in discord_api.calls if "/tok/" in url]
    assert sent == ["0", "1", "3"]
    assert rest._lines == {}

    assert message_body() == ({"tts": False}, [])
    data, _ = message_body(content="x", attachments=[])
    assert data == {"tts": False, "content": "x", "attachments": []}
    with pytest.raises(TypeError):
        message_body(colour=1)  # type: ignore[call-arg]


async def test_a_token_that_is_not_url_safe_is_quoted_in_the_path(
    rest: Rest, session: aiohttp.ClientSession, discord_api: Discord
) -> None:
    await rest.callback(session, 1, "a/b c", 6)
    assert discord_api.calls[0][1] == "/api/v10/interactions/1/a%2Fb%20c/callback"


async def test_the_sandbox_answers_bot_rest_as_discord_does() -> None:
    async with running_sandbox(interaction_deadline=60.0) as sandbox:
        world = sandbox.world
        user = await sandbox.driver.create_user("ana")
        channel = next(iter(world.channels.values()))
        message = BotApi(world).create_message(channel.id, {"content": "a view"}, [])
        click = world.new_interaction(
            type=3,
            user_id=int(user["id"]),
            channel=channel,
            data={"custom_id": "sh:ab12:0:play", "component_type": 2},
            message_id=int(message["id"]),
        )
        rest = Rest()
        async with aiohttp.ClientSession() as session:
            data, files = message_body(content="answered", view=None)
            await rest.callback(session, click.id, click.token, 7, data, files)
            assert world.messages[int(message["id"])].content == "answered"
            edited, _ = message_body(content="redrawn")
            await rest.edit_original(session, world.application_id, click.token, edited)
            assert world.messages[int(message["id"])].content == "redrawn"
            with pytest.raises(discord.HTTPException) as again:
                await rest.callback(session, click.id, click.token, 7, data)
            assert again.value.code == 40060
            with pytest.raises(discord.NotFound) as unknown:
                await rest.callback(session, click.id + 1, click.token, 7, data)
            assert unknown.value.code == 10062


async def test_edits_waiting_for_a_connection_hold_their_bytes_not_their_payload(
    rest: Rest,
    session: aiohttp.ClientSession,
    discord_api: Discord,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("bot.edits.rest", rest)
    discord_api.held = asyncio.Event()
    rest.pool = Pool(user_agent=USER_AGENT, limit=1)
    embed = discord.Embed(title="Table ab12", description="Ana plays.\n" * 20)
    for index in range(20):
        embed.add_field(name=f"Seat {index}", value="7♠ 8♥ 9♦ " * 5)

    async def edit(token: str) -> None:
        editor = _Editor(session, 5, token, 0.0)  # the presenter's writes go through these
        await editor.edit(embeds=[embed], view=None)

    async def edits(count: int) -> list[asyncio.Task[None]]:
        tasks = [asyncio.create_task(edit(f"tok{n}")) for n in range(count)]
        for _ in range(10):
            await asyncio.sleep(0)
        return tasks

    first = await edits(1)  # takes the only connection and waits for its answer
    await asyncio.sleep(0.05)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        waiting = await edits(50)
        held_each = (tracemalloc.get_traced_memory()[0] - before) / 50
    finally:
        tracemalloc.stop()
        discord_api.held.set()
        await asyncio.gather(*first, *waiting)
    assert len(discord_api.calls) == 51
    # Its body once, at its size (not in orjson's buffer, not again with its head), and no
    # payload or keywords: what else it holds (its coroutines, its lock) is under 4 KB.
    body = len(orjson.dumps(message_body(embeds=[embed], view=None)[0]))
    assert held_each - body < 4096


async def test_a_paced_edit_waiting_for_a_connection_is_dropped_for_its_slot_s_newer_one(
    rest: Rest, session: aiohttp.ClientSession, discord_api: Discord
) -> None:
    discord_api.held = asyncio.Event()
    rest.pool = Pool(user_agent=USER_AGENT, limit=1)
    pacer = Pacer(limit=10)
    busy = asyncio.create_task(rest.edit_original(session, 5, "other", {"content": "busy"}))
    await asyncio.sleep(0.05)  # it has the only connection, and waits for its answer

    def edit(content: str) -> Job:
        async def job() -> bool:
            await rest.edit_original(session, 5, "tok", {"content": content})
            return True

        return job

    pacer.submit(("dm", 1), "t", edit("older"))
    await asyncio.sleep(0.05)  # it waits for the connection
    pacer.submit(("dm", 1), "t", edit("newer"))
    discord_api.held.set()
    await busy
    await pacer.idle()
    assert [call[2]["content"] for call in discord_api.calls] == ["busy", "newer"]
