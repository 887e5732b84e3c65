"""A lean keep-alive HTTP/1.1 client for the bot's own REST writes (issue #18).

aiohttp's client builds a request object, a response object, a parser, a timeout handle and
a stream for every call: most of what an interaction write costs the bot. This one keeps a
few persistent connections per (scheme, host, port), writes each request as one buffer and
reads its answer whole with aiohttp's C parser (llhttp), kept for the life of a connection:
Content-Length, chunked and read-until-close answers. A connection that drops, errs, times
out or is closed by its answer (`Connection: close`) is closed and not reused; a request on a
reused connection that drops before any answer byte (the server closed it while idle) is
sent once more on a fresh one. Failures are aiohttp's errors, so callers catching
`aiohttp.ClientError` and `OSError` see what they saw: `ClientOSError` (with the socket's
errno), `ServerDisconnectedError`, `ClientPayloadError`, `ServerTimeoutError`.
"""

from __future__ import annotations

import asyncio
import ssl
from collections import deque
from collections.abc import Callable
from typing import NamedTuple, cast
from urllib.parse import urlsplit

import aiohttp
from aiohttp.base_protocol import BaseProtocol
from aiohttp.http_parser import HttpResponseParser, RawResponseMessage
from aiohttp.streams import StreamReader
from multidict import CIMultiDictProxy

# Open connections per origin at most (aiohttp's default); more calls at once wait for one.
LIMIT = 100
# An idle connection is closed after this long (aiohttp's keep-alive default).
IDLE_SECONDS = 15.0
# A call's answer must be whole within this long (aiohttp's default total timeout); the
# pool looks each second (or each quarter of a shorter timeout), so a late call fails up to
# that much later.
TIMEOUT = 300.0
# Answers are read whole; a bigger one is refused rather than held in memory.
_MAX_ANSWER = 2**24


class Origin(NamedTuple):
    """Where connections go: scheme, host, port, and the `Host` header naming them."""

    scheme: str
    host: str
    port: int
    netloc: str


def split_url(url: str) -> tuple[Origin, str]:
    """Split an absolute URL into its origin and the request target (path and query)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or parts.hostname is None:
        raise ValueError(f"not an http(s) URL: {url}")
    port = parts.port or (443 if parts.scheme == "https" else 80)
    target = parts.path or "/"
    if parts.query:
        target += "?" + parts.query
    netloc = parts.netloc.rpartition("@")[2]
    return Origin(parts.scheme, parts.hostname, port, netloc), target


class Answer:
    """A whole answer: status, reason, headers (case-insensitive) and body."""

    __slots__ = ("body", "headers", "reason", "status")

    def __init__(self, status: int, reason: str, headers: CIMultiDictProxy[str], body: bytes):
        self.status = status
        self.reason = reason
        self.headers = headers
        self.body = body

    @property
    def content_type(self) -> str:
        """Say the body's media type without its parameters, lowercased (as aiohttp does)."""
        return self.headers.get("Content-Type", "").partition(";")[0].strip().lower()


class _Connection(BaseProtocol):
    """One persistent connection: one call at a time, its answer parsed as it comes."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(loop)
        self.parser = HttpResponseParser(
            self, loop, 2**16, read_until_eof=True, auto_decompress=False
        )
        self.waiter: asyncio.Future[Answer] | None = None
        self.message: RawResponseMessage | None = None
        self.payload: StreamReader | None = None
        self.received = False
        # Whether the connection may carry another call once this answer is whole.
        self.reusable = True
        self.idle_since = 0.0
        # When the call in flight times out (the pool's clock checks, not a timer per call).
        self.deadline = 0.0

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # A stream transport (any loop's: uvloop's are not asyncio.Transport subclasses).
        self.transport = cast(asyncio.Transport, transport)

    def pause_reading(self) -> None:
        """Keep reading: the answer is taken whole, nothing waits to drain its payload."""

    def resume_reading(self, resume_parser: bool = True) -> None:
        """Nothing to resume (reading is never paused)."""

    def exchange(self, request: bytes, deadline: float) -> asyncio.Future[Answer]:
        """Send a request, to be answered by `deadline`; the future holds its answer."""
        assert self.transport is not None
        self.waiter = waiter = self._loop.create_future()
        self.received = False
        self.message = self.payload = None
        self.deadline = deadline
        self.transport.write(request)
        return waiter

    def data_received(self, data: bytes) -> None:
        if self.waiter is None:
            # Bytes nobody asked for: the connection can't be trusted any more.
            self._fail(aiohttp.ServerDisconnectedError("data without a request"))
            return
        self.received = True
        try:
            messages, _, _ = self.parser.feed_data(data)
        except Exception as error:
            self._fail(aiohttp.ClientPayloadError(f"bad answer: {error!r}"))
            return
        if messages:
            if len(messages) > 1 or self.message is not None:
                self._fail(aiohttp.ClientPayloadError("more than one answer to a request"))
                return
            self.message, self.payload = messages[0]
        payload = self.payload
        if payload is None:
            return
        if payload.is_eof():
            self._finish()
        elif payload.total_bytes > _MAX_ANSWER:
            self._fail(aiohttp.ClientPayloadError("answer too big"))

    def eof_received(self) -> bool:
        # A body read until the connection ends is whole now.
        if self.payload is not None and not self.payload.is_eof():
            try:
                self.parser.feed_eof()
            except Exception as error:
                self._fail(aiohttp.ClientPayloadError(f"answer cut short: {error!r}"))
                return False
            if self.payload.is_eof():
                self._finish()
        self.reusable = False
        return False

    def connection_lost(self, exc: BaseException | None) -> None:
        super().connection_lost(exc)
        self.reusable = False
        if self.waiter is not None:
            if isinstance(exc, OSError):
                error: Exception = aiohttp.ClientOSError(exc.errno, str(exc))
            else:
                error = aiohttp.ServerDisconnectedError()
            self._fail(error)

    def _finish(self) -> None:
        """Hand the whole answer to the waiting call."""
        waiter, self.waiter = self.waiter, None
        message, payload = self.message, self.payload
        assert message is not None and payload is not None
        self.message = self.payload = None
        if message.should_close:
            self.reusable = False
        # aiohttp 3.14.5's StreamReader holds the body as the bytes it was fed, none read yet
        # (`tests/bot/test_http1.py` reads one-part and chunked bodies): joined here, not
        # through `read_nowait`'s five calls, whose checks are for a reader awaited or read
        # in part (this one never is). A bad body made its parser raise (`data_received`
        # failed the call then), so it holds no error here.
        chunks = payload._buffer
        body = chunks[0] if len(chunks) == 1 else b"".join(chunks)
        if waiter is not None and not waiter.done():
            waiter.set_result(Answer(message.code, message.reason, message.headers, body))

    def _fail(self, error: Exception) -> None:
        """Fail the waiting call and close the connection."""
        self.reusable = False
        waiter, self.waiter = self.waiter, None
        if waiter is not None and not waiter.done():
            waiter.set_exception(error)
        self.close()

    def time_out(self) -> None:
        """Fail the call in flight: its answer is late."""
        self._fail(aiohttp.ServerTimeoutError("no whole answer in time"))

    def close(self) -> None:
        """Close the connection (its `connection_lost` follows)."""
        self.reusable = False
        if self.transport is not None:
            self.transport.close()


class Turns:
    """A first-come-first-served semaphore whose free place is taken without awaiting.

    asyncio's `Semaphore` and `Lock` run two coroutines to enter and one to leave even when
    a place is free: per write, that was most of what waiting one's turn cost.
    """

    __slots__ = ("free", "waiting")

    def __init__(self, places: int) -> None:
        self.free = places
        self.waiting: deque[asyncio.Future[None]] = deque()

    def take(self) -> bool:
        """Take a free place if nobody waits for one; say whether it was taken."""
        if self.free > 0 and not self.waiting:
            self.free -= 1
            return True
        return False

    async def wait(self) -> None:
        """Wait for a place, after those who came before."""
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.waiting.append(turn)
        try:
            await turn
        except asyncio.CancelledError:
            if not turn.cancelled():
                self.give()  # handed a place just as it was cancelled: the next one gets it
            elif turn in self.waiting:
                self.waiting.remove(turn)
            raise

    def give(self) -> None:
        """Give a place back, to the first one waiting if any."""
        waiting = self.waiting
        while waiting:
            turn = waiting.popleft()
            if not turn.done():
                turn.set_result(None)
                return
        self.free += 1


class _Host:
    """An origin's connections: idle ones (newest last) and the calls they may carry."""

    __slots__ = ("idle", "slots")

    def __init__(self, limit: int) -> None:
        self.idle: deque[_Connection] = deque()
        self.slots = Turns(limit)


class Pool:
    """Persistent connections per origin, at most `limit` each; one pool per event loop."""

    def __init__(
        self,
        *,
        user_agent: str,
        limit: int = LIMIT,
        idle_seconds: float = IDLE_SECONDS,
        timeout: float = TIMEOUT,
        ssl_context: ssl.SSLContext | None = None,
    ) -> None:
        self.loop = asyncio.get_running_loop()
        self.user_agent = user_agent
        self.limit = limit
        self.idle_seconds = idle_seconds
        self.timeout = timeout
        self._ssl_context = ssl_context
        self._hosts: dict[Origin, _Host] = {}
        # Connections carrying a call; the clock looks at them (and at idle ones) every tick.
        self._busy: set[_Connection] = set()
        self._tick = min(1.0, timeout / 4, idle_seconds / 4)
        self._clock: asyncio.TimerHandle | None = None
        self.closed = False
        # Connections made, for tests and the bench: reuse shows as few.
        self.connects = 0

    async def request(
        self,
        method: str,
        origin: Origin,
        target: str,
        body: bytes,
        content_type: str,
        *,
        ready: Callable[[], None] | None = None,
    ) -> Answer:
        """Send one request and return its whole answer.

        `ready` is called once a connection is free for it; it may raise to drop the request.
        """
        if self.closed:
            raise RuntimeError("the pool is closed")
        host = self._hosts.get(origin)
        if host is None:
            host = self._hosts[origin] = _Host(self.limit)
        slots = host.slots
        if not slots.take():
            await slots.wait()
        try:
            if ready is not None:
                ready()
            # Made once a connection is free: the calls waiting for one hold no copy.
            head = (
                f"{method} {target} HTTP/1.1\r\nHost: {origin.netloc}\r\n"
                f"User-Agent: {self.user_agent}\r\nContent-Type: {content_type}\r\n"
                f"Content-Length: {len(body)}\r\n\r\n"
            )
            request = head.encode("latin-1") + body
            connection = self._idle(host)
            # Tried once more on a fresh connection if a reused one drops before any answer
            # byte came (the server may have closed it while idle, as the request went).
            retry = connection is not None
            if connection is None:
                connection = await self._connect(origin)
            while True:
                # Exchanged here, not in a coroutine of its own: each call's answer would
                # pass through one more frame.
                now = self.loop.time()
                if self._clock is None:
                    self._clock = self.loop.call_at(now + self._tick, self._check)
                self._busy.add(connection)
                try:
                    answer = await connection.exchange(request, now + self.timeout)
                except (aiohttp.ClientOSError, aiohttp.ServerDisconnectedError):
                    connection.close()
                    if not retry or connection.received:
                        raise
                except BaseException:
                    connection.close()
                    raise
                else:
                    if connection.reusable and not self.closed:
                        connection.idle_since = self.loop.time()
                        host.idle.append(connection)
                    else:
                        connection.close()
                    return answer
                finally:
                    self._busy.discard(connection)
                retry = False
                connection = await self._connect(origin)
        finally:
            slots.give()

    def _idle(self, host: _Host) -> _Connection | None:
        """Take the newest idle connection that is still open."""
        idle = host.idle
        while idle:
            connection = idle.pop()
            if connection.reusable and connection.transport is not None:
                return connection
        return None

    async def _connect(self, origin: Origin) -> _Connection:
        """Open a connection (TLS for https, checked against the host's name)."""
        tls: ssl.SSLContext | None = None
        if origin.scheme == "https":
            if self._ssl_context is None:
                self._ssl_context = ssl.create_default_context()
            tls = self._ssl_context
        loop = self.loop
        try:
            async with asyncio.timeout(self.timeout):
                _, connection = await loop.create_connection(
                    lambda: _Connection(loop),
                    origin.host,
                    origin.port,
                    ssl=tls,
                    server_hostname=origin.host if tls is not None else None,
                )
        except TimeoutError as error:
            raise aiohttp.ServerTimeoutError(f"no connection to {origin.netloc} in time") from error
        except OSError as error:
            raise aiohttp.ClientOSError(error.errno, str(error)) from error
        self.connects += 1
        return connection

    def _check(self) -> None:
        """Time out late calls and close connections idle too long; tick while any is open."""
        now = self.loop.time()
        for connection in [each for each in self._busy if each.deadline <= now]:
            if connection.waiter is not None:
                connection.time_out()
        oldest = now - self.idle_seconds
        open_ = bool(self._busy)
        for host in self._hosts.values():
            idle = host.idle
            while idle and (idle[0].idle_since <= oldest or not idle[0].reusable):
                idle.popleft().close()
            open_ = open_ or bool(idle)
        self._clock = self.loop.call_at(now + self._tick, self._check) if open_ else None

    async def close(self) -> None:
        """Close idle connections now and busy ones when their answers are whole."""
        self.closed = True
        for host in self._hosts.values():
            while host.idle:
                host.idle.pop().close()
        # Let the transports tell their connections they are closed.
        await asyncio.sleep(0)
