"""`bot.http1`: keep-alive reuse, answer framings, dropped connections, timeouts, concurrency."""

from __future__ import annotations

import asyncio
import random
import re
import shutil
import ssl
import subprocess
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp
import pytest
import uvloop
from aiohttp import web
from aiohttp.test_utils import TestServer

from bot.http1 import Origin, Pool, Turns, split_url


@dataclass
class Step:
    """What the scripted server does with one request: answer bytes, then maybe hang up."""

    answer: bytes = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
    close: bool = False
    hang: bool = False


OK = Step()


@dataclass
class Scripted:
    """A raw HTTP server doing the next step for each request (then answering 200 ok)."""

    steps: list[Step] = field(default_factory=list)
    requests: list[bytes] = field(default_factory=list)
    connections: int = 0
    closed: int = 0

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Read requests on a connection and do each one's step."""
        self.connections += 1
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                found = re.search(rb"Content-Length: (\d+)", head)
                body = await reader.readexactly(int(found.group(1)) if found else 0)
                self.requests.append(head + body)
                step = self.steps.pop(0) if self.steps else OK
                if step.hang:
                    # No answer: the connection stays until the client leaves it.
                    await reader.read()
                    break
                writer.write(step.answer)
                await writer.drain()
                if step.close:
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            self.closed += 1
            writer.close()


async def start_scripted() -> tuple[Scripted, Origin, asyncio.Server]:
    """Start a scripted server on a free local port."""
    served = Scripted()
    server = await asyncio.start_server(served.handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    return served, Origin("http", "127.0.0.1", port, f"127.0.0.1:{port}"), server


@pytest.fixture
async def scripted() -> AsyncIterator[tuple[Scripted, Origin]]:
    served, origin, server = await start_scripted()
    yield served, origin
    server.close()


@pytest.fixture
async def pool() -> AsyncIterator[Pool]:
    pool = Pool(user_agent="DiscordBot (test)")
    yield pool
    await pool.close()


async def post(pool: Pool, origin: Origin, body: bytes = b"{}") -> bytes:
    """Post a body to /x; return the answer's body (asserting a 2xx)."""
    answer = await pool.request("POST", origin, "/x", body, "application/json")
    assert 200 <= answer.status < 300
    return answer.body


async def until(condition: object, *, seconds: float = 2.0) -> None:
    """Wait (polling) until a callable says yes."""
    assert callable(condition)
    for _ in range(int(seconds / 0.01)):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("condition never held")


def test_a_url_splits_into_its_origin_and_target() -> None:
    assert split_url("https://discord.com/api/v10") == (
        Origin("https", "discord.com", 443, "discord.com"),
        "/api/v10",
    )
    assert split_url("http://127.0.0.1:8080/a?b=1") == (
        Origin("http", "127.0.0.1", 8080, "127.0.0.1:8080"),
        "/a?b=1",
    )
    with pytest.raises(ValueError):
        split_url("ws://example.com/")


async def test_many_calls_share_one_connection_and_say_what_they_are(
    pool: Pool, scripted: tuple[Scripted, Origin]
) -> None:
    served, origin = scripted
    for _ in range(20):
        assert await post(pool, origin, b'{"a":1}') == b"ok"
    assert served.connections == 1 and pool.connects == 1
    request = served.requests[0]
    assert request.startswith(b"POST /x HTTP/1.1\r\n")
    assert f"Host: {origin.netloc}\r\n".encode() in request
    assert b"User-Agent: DiscordBot (test)\r\n" in request
    assert b"Content-Type: application/json\r\n" in request
    assert b"Accept-Encoding" not in request
    assert request.endswith(b'Content-Length: 7\r\n\r\n{"a":1}')


async def test_an_answer_s_status_reason_headers_and_chunked_body_are_read(
    pool: Pool, scripted: tuple[Scripted, Origin]
) -> None:
    served, origin = scripted
    served.steps = [
        Step(
            b"HTTP/1.1 404 Not Found\r\nContent-Type: application/json; charset=utf-8\r\n"
            b"x-ratelimit-bucket: abc\r\nTransfer-Encoding: chunked\r\n\r\n"
            b'5\r\n{"a":\r\n3\r\n 1}\r\n0\r\n\r\n'
        )
    ]
    answer = await pool.request("PATCH", origin, "/x", b"", "application/json")
    assert (answer.status, answer.reason, answer.body) == (404, "Not Found", b'{"a": 1}')
    assert answer.headers["X-RateLimit-Bucket"] == "abc"
    assert answer.content_type == "application/json"
    # The connection carries on after a chunked answer.
    assert await post(pool, origin) == b"ok"
    assert served.connections == 1


async def test_an_answer_read_until_the_connection_ends(
    pool: Pool, scripted: tuple[Scripted, Origin]
) -> None:
    served, origin = scripted
    served.steps = [Step(b"HTTP/1.1 200 OK\r\n\r\nall of it", close=True)]
    assert await post(pool, origin) == b"all of it"
    assert await post(pool, origin) == b"ok"
    assert served.connections == 2


async def test_a_connection_close_answer_is_not_reused(
    pool: Pool, scripted: tuple[Scripted, Origin]
) -> None:
    served, origin = scripted
    # The server keeps the connection open: the header alone makes the client leave it.
    served.steps = [Step(b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 3\r\n\r\nbye")]
    assert await post(pool, origin) == b"bye"
    assert await post(pool, origin) == b"ok"
    assert served.connections == 2 and pool.connects == 2


async def test_a_connection_the_server_closed_while_idle_is_not_used_again(
    pool: Pool, scripted: tuple[Scripted, Origin]
) -> None:
    served, origin = scripted
    served.steps = [Step(close=True)]
    assert await post(pool, origin) == b"ok"
    await until(lambda: served.closed == 1)
    await asyncio.sleep(0.05)  # the close reaches the client
    assert await post(pool, origin) == b"ok"
    assert served.connections == 2 and len(served.requests) == 2


async def test_a_reused_connection_dropped_before_any_answer_is_tried_once_afresh(
    pool: Pool, scripted: tuple[Scripted, Origin]
) -> None:
    served, origin = scripted
    # The second request finds its keep-alive connection closed as it arrives.
    served.steps = [OK, Step(answer=b"", close=True)]
    assert await post(pool, origin) == b"ok"
    assert await post(pool, origin, b"again") == b"ok"
    assert served.connections == 2
    assert [request.endswith(b"again") for request in served.requests] == [False, True, True]


async def test_a_fresh_connection_dropped_before_any_answer_raises(
    pool: Pool, scripted: tuple[Scripted, Origin]
) -> None:
    served, origin = scripted
    served.steps = [Step(answer=b"", close=True)]
    with pytest.raises(aiohttp.ServerDisconnectedError):
        await post(pool, origin)
    assert len(served.requests) == 1


async def test_a_connection_dropped_mid_answer_raises_and_is_not_tried_again(
    pool: Pool, scripted: tuple[Scripted, Origin]
) -> None:
    served, origin = scripted
    cut = Step(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nabc", close=True)
    served.steps = [OK, cut]
    await post(pool, origin)
    with pytest.raises(aiohttp.ClientPayloadError):
        await post(pool, origin)
    assert len(served.requests) == 2
    # The next call gets a fresh connection.
    assert await post(pool, origin) == b"ok"
    assert served.connections == 2


async def test_a_call_without_a_whole_answer_in_time_times_out(
    scripted: tuple[Scripted, Origin],
) -> None:
    served, origin = scripted
    pool = Pool(user_agent="test", timeout=0.2)
    served.steps = [Step(hang=True)]
    with pytest.raises(aiohttp.ServerTimeoutError):
        await post(pool, origin)
    assert isinstance(aiohttp.ServerTimeoutError(), TimeoutError)
    # The late connection is left; the next call opens another.
    assert await post(pool, origin) == b"ok"
    assert pool.connects == 2
    await pool.close()


async def test_a_refused_connection_raises_an_os_error(pool: Pool) -> None:
    probe = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
    port = probe.sockets[0].getsockname()[1]
    probe.close()
    await probe.wait_closed()
    with pytest.raises(aiohttp.ClientOSError) as raised:
        await post(pool, Origin("http", "127.0.0.1", port, f"127.0.0.1:{port}"))
    assert raised.value.errno is not None


async def test_idle_connections_are_closed_after_a_while(
    scripted: tuple[Scripted, Origin],
) -> None:
    served, origin = scripted
    pool = Pool(user_agent="test", idle_seconds=0.1)
    await post(pool, origin)
    await until(lambda: served.closed == 1)
    assert await post(pool, origin) == b"ok"
    assert pool.connects == 2
    await pool.close()


async def test_closing_the_pool_closes_its_connections(
    scripted: tuple[Scripted, Origin],
) -> None:
    served, origin = scripted
    pool = Pool(user_agent="test")
    await post(pool, origin)
    await pool.close()
    await until(lambda: served.closed == 1)
    with pytest.raises(RuntimeError):
        await post(pool, origin)


@pytest.fixture
async def echo() -> AsyncIterator[Origin]:
    """An aiohttp server that answers each body with itself, after a random short pause."""

    async def handle(request: web.Request) -> web.Response:
        body = await request.read()
        await asyncio.sleep(random.random() / 100)
        return web.Response(body=body)

    app = web.Application()
    app.router.add_post("/x", handle)
    server = TestServer(app)
    await server.start_server()
    origin, _ = split_url(str(server.make_url("/")))
    yield origin
    await server.close()


async def test_an_answer_of_many_reads_is_read_whole(
    pool: Pool, scripted: tuple[Scripted, Origin]
) -> None:
    served, origin = scripted
    # Each read is parsed as it comes: an answer longer than a read (asyncio reads 256 KiB
    # at most at a time), chunked then by length, comes whole and in order.
    body = random.Random(7).randbytes(3 * 2**18 + 5)
    chunked = b"".join(
        b"%x\r\n%s\r\n" % (len(part), part)
        for part in (body[i : i + 40_000] for i in range(0, len(body), 40_000))
    )
    served.steps = [
        Step(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked + b"0\r\n\r\n"),
        Step(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)),
    ]
    assert await post(pool, origin) == body
    assert await post(pool, origin) == body
    assert await post(pool, origin) == b"ok"
    assert served.connections == 1


async def test_calls_at_once_use_several_connections_and_get_their_own_answers(
    echo: Origin,
) -> None:
    pool = Pool(user_agent="test", limit=4)
    bodies = [f"call {n}".encode() for n in range(60)]
    answers = await asyncio.gather(*(post(pool, echo, body) for body in bodies))
    assert answers == bodies
    assert 1 < pool.connects <= 4
    await pool.close()


async def test_turns_are_taken_first_come_first_served_and_cancelled_ones_are_passed_on() -> None:
    turns = Turns(1)
    assert turns.take() and not turns.take()
    order: list[str] = []

    async def waiter(name: str) -> None:
        await turns.wait()
        order.append(name)

    first, cancelled, handed, last = (
        asyncio.create_task(waiter(name)) for name in ("first", "cancelled", "handed", "last")
    )
    await asyncio.sleep(0)
    cancelled.cancel()  # while it waits: it takes no place
    turns.give()  # to `first`
    await asyncio.sleep(0)
    turns.give()  # to `handed`, cancelled before it runs: the place goes on to `last`
    handed.cancel()
    await asyncio.gather(first, cancelled, handed, last, return_exceptions=True)
    assert order == ["first", "last"]
    assert (turns.free, len(turns.waiting)) == (0, 0)
    turns.give()
    assert turns.free == 1 and turns.take()


@pytest.mark.skipif(shutil.which("openssl") is None, reason="makes its certificate with openssl")
async def test_https_checks_the_server_s_certificate_and_keeps_the_connection(
    tmp_path: Path,
) -> None:
    await https_round(tmp_path)


async def https_round(tmp_path: Path) -> None:
    """Refuse a certificate nobody vouches for; carry calls on one connection when trusted."""
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    made = "-x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1"
    named = "-subj /CN=localhost -addext subjectAltName=DNS:localhost"
    subprocess.run(
        ["openssl", "req", *made.split(), *named.split(), "-keyout", key, "-out", cert],
        check=True,
        capture_output=True,
    )
    served = Scripted()
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    server = await asyncio.start_server(served.handle, "localhost", 0, ssl=context)
    port = server.sockets[0].getsockname()[1]
    origin = Origin("https", "localhost", port, f"localhost:{port}")
    # A certificate nobody vouches for is refused...
    untrusting = Pool(user_agent="test")
    with pytest.raises(aiohttp.ClientOSError):
        await post(untrusting, origin)
    await untrusting.close()
    # ...and one the context trusts carries calls on one connection.
    pool = Pool(user_agent="test", ssl_context=ssl.create_default_context(cafile=cert))
    assert [await post(pool, origin) for _ in range(3)] == [b"ok"] * 3
    assert pool.connects == 1
    await pool.close()
    server.close()


async def plain_rounds() -> None:
    """Carry answers of every kind on one pool: sized, chunked, and read until the end."""
    served, origin, server = await start_scripted()
    served.steps = [
        OK,
        Step(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nch\r\n0\r\n\r\n"),
        Step(b"HTTP/1.1 200 OK\r\n\r\nall of it", close=True),
    ]
    pool = Pool(user_agent="test")
    assert [await post(pool, origin) for _ in range(4)] == [b"ok", b"ch", b"all of it", b"ok"]
    assert pool.connects == 2
    await pool.close()
    server.close()


@pytest.mark.skipif(shutil.which("openssl") is None, reason="makes its certificate with openssl")
def test_the_pool_works_on_uvloop_the_loop_the_bot_runs_on(tmp_path: Path) -> None:
    # The bot runs on uvloop, whose transports are its own; the rest of this file runs on
    # asyncio's loop.
    async def rounds() -> type[asyncio.AbstractEventLoop]:
        async with asyncio.timeout(10):
            await plain_rounds()
            await https_round(tmp_path)
        return type(asyncio.get_running_loop())

    assert uvloop.run(rounds()) is uvloop.Loop
