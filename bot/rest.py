"""Interaction writes (callbacks and token edits) sent leanly, over `bot.http1`'s connections.

discord.py sends them through its webhook adapter: a `Route` (its URL quoted piece by
piece), a deferred lock per token, a multipart form even without files, the answer parsed
as JSON, all on aiohttp's general client. A click's answer and the redraws through tokens
are most of the bot's writes, so these send the same requests on keep-alive connections of
their own (`bot.http1`; the bot's aiohttp session only when it goes through a proxy) and
read back nothing, with discord.py's handling:
429s wait as Discord says (globally or for the bucket), a bucket that says it is used up
(`X-RateLimit-Remaining: 0`) waits its `Reset-After` before the next call, 5xx answers and
dropped connections are retried with backoff, and refusals raise discord.py's errors with
Discord's JSON code (`HTTPException.code`: 40060, 10062, 10008, ...).
"""

from __future__ import annotations

import asyncio
import errno
import logging
import re
import secrets
import sys
import time
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from typing import Any, Protocol, cast
from urllib.parse import quote

import aiohttp
import discord
import orjson
import yarl

from bot.http1 import Answer, Origin, Pool, Turns, split_url
from bot.pacing import check_current

log = logging.getLogger(__name__)

# Discord's interaction callback type that edits the message a component is on.
UPDATE_MESSAGE = 7
# Tries of one call, as discord.py: 5xx answers and dropped connections are tried again.
ATTEMPTS = 5
# Connection resets tried again: discord.py's (BSD's and Windows' errno) and this system's
# own (Linux's is 104).
_RESET = frozenset((54, 10054, errno.ECONNRESET))
# Past this many waits kept, those already over are dropped (tokens end after 15 minutes).
_PRUNE_AT = 1024
_UNSET: Any = object()
# Discord's interaction tokens are URL-safe as they come; anything else is quoted.
_URL_SAFE = re.compile(r"[A-Za-z0-9._~-]+")
# As discord.py's `HTTPClient.user_agent` (Discord asks bots to say what they are).
USER_AGENT = (
    f"DiscordBot (https://github.com/Rapptz/discord.py {discord.__version__}) "
    f"Python/{sys.version_info[0]}.{sys.version_info[1]} aiohttp/{aiohttp.__version__}"
)
JSON = "application/json"


class HasComponents(Protocol):
    """What a message's components are read from: a `discord.ui.View`, or our `Components`."""

    def to_components(self) -> list[dict[str, Any]]:
        """Return the rows as Discord's payload."""
        ...


def message_body(
    *,
    content: str | None = _UNSET,
    embeds: Sequence[discord.Embed | dict[str, Any]] = _UNSET,
    view: HasComponents | None = _UNSET,
    attachments: Sequence[discord.File] = _UNSET,
) -> tuple[dict[str, Any], list[discord.File]]:
    """Say a message's new parts as Discord's JSON, and the files to upload with it.

    Only the parts given change; `view=None` removes the components and `attachments`
    replaces the message's files with the ones given (none: no files). An embed may come as
    Discord's JSON already (`Rendered.embed_payloads`).
    """
    payload: dict[str, Any] = {"tts": False}
    files: list[discord.File] = []
    if content is not _UNSET:
        payload["content"] = content
    if embeds is not _UNSET:
        payload["embeds"] = [e if isinstance(e, dict) else e.to_dict() for e in embeds]
    if view is not _UNSET:
        payload["components"] = [] if view is None else view.to_components()
    if attachments is not _UNSET:
        files = list(attachments)
        payload["attachments"] = [file.to_dict(index) for index, file in enumerate(files)]
    return payload, files


class Rest:
    """Send interaction writes, waiting out Discord's rate limits; one per process.

    `lean=False` sends every call on the aiohttp session given instead of `bot.http1`'s
    connections (the bench compares the two).
    """

    def __init__(
        self,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        lean: bool = True,
    ) -> None:
        self.clock = clock
        self.sleep = sleep
        self.lean = lean
        # The session last sent through, and whether it goes through a proxy (fixed when a
        # session is made): asked once per session rather than at each call.
        self._session: aiohttp.ClientSession | None = None
        self._proxied = False
        # The event loop's connections, made at the first call (`close` ends them).
        self.pool: Pool | None = None
        # `Route.BASE` as last split (the sandbox and the benches point it elsewhere).
        self._base: tuple[str, Origin, str] = ("", Origin("", "", 0, ""), "")
        # Discord's bucket of each route, as its answers named it (`X-RateLimit-Bucket`).
        self._buckets: dict[str, str] = {}
        # When each (bucket, token) may be called again, after it was used up or refused.
        self._open_at: dict[tuple[str, str], float] = {}
        self._global_open_at = 0.0
        # Writes through one token go one at a time, in order (a later edit wins); a token's
        # turns are kept while a write through it is sent or waits.
        self._lines: dict[str, Turns] = {}

    def callback(
        self,
        session: aiohttp.ClientSession,
        interaction_id: int,
        token: str,
        kind: int,
        data: dict[str, Any] | None = None,
        files: Sequence[discord.File] = (),
    ) -> Coroutine[Any, Any, None]:
        """Answer an interaction (POST its callback) with a response of `kind`."""
        body: dict[str, Any] = {"type": kind}
        if data is not None:
            body["data"] = data
        path = f"/interactions/{interaction_id}/{_in_path(token)}/callback"
        return self.request(
            session, "POST", path, "POST /interactions/{id}/{token}/callback", token, body, files
        )

    def edit_original(
        self,
        session: aiohttp.ClientSession,
        application_id: int,
        token: str,
        data: dict[str, Any],
        files: Sequence[discord.File] = (),
    ) -> Coroutine[Any, Any, None]:
        """Edit a token's first answer (`@original`: the message a click's token stands for)."""
        path = f"/webhooks/{application_id}/{_in_path(token)}/messages/@original"
        if data.get("components"):
            # As discord.py: a webhook's components are kept only when this is asked.
            path += "?with_components=true"
        return self.request(
            session,
            "PATCH",
            path,
            "PATCH /webhooks/{id}/{token}/messages/@original",
            token,
            data,
            files,
        )

    def request(
        self,
        session: aiohttp.ClientSession,
        method: str,
        path: str,
        route: str,
        token: str,
        body: dict[str, Any],
        files: Sequence[discord.File] = (),
    ) -> Coroutine[Any, Any, None]:
        """Send one call, as often as Discord's answers allow; raise its refusal.

        The body is encoded before the call is awaited, and these functions return without
        waiting: a call waiting (for its token's turn, a rate limit, a connection)
        holds its bytes only, not the payload's dicts too (hundreds wait at 500 tables).
        """
        # Bytes go up as they are (orjson's), with no str in between; copied to their size,
        # as orjson leaves them in its buffer of 4 KB or more (10 times a view's body).
        encoded = bytes(memoryview(orjson.dumps(body)))
        return self._request(session, method, path, route, token, encoded, files)

    async def _request(
        self,
        session: aiohttp.ClientSession,
        method: str,
        path: str,
        route: str,
        token: str,
        encoded: bytes,
        files: Sequence[discord.File],
    ) -> None:
        """Send one encoded call, one at a time through its token, up to `ATTEMPTS` times.

        The tries are made here, not in a coroutine of their own: each call's answer would
        pass through one more frame.
        """
        lines = self._lines
        line = lines.get(token)
        if line is None:
            line = lines[token] = Turns(1)
        try:
            if not line.take():
                await line.wait()
            try:
                for attempt in range(ATTEMPTS):
                    # Waited only while the global limit or the call's bucket holds calls back.
                    delay = self._delay((self._buckets.get(route, route), token))
                    if delay > 0:
                        await self.sleep(delay)
                    content, content_type = (
                        _multipart(encoded, files, attempt) if files else (encoded, JSON)
                    )
                    try:
                        response = await self._deliver(session, method, path, content, content_type)
                    except OSError as error:
                        if attempt < ATTEMPTS - 1 and error.errno in _RESET:
                            await self.sleep(1 + attempt * 2)
                            continue
                        raise
                    status = response.status
                    if 200 <= status < 300:
                        self._learn(route, token, response.headers)
                        return
                    answer = _decode(response.body, response.content_type)
                    # discord.py's errors read only the answer's `status` and `reason`.
                    shown = cast(aiohttp.ClientResponse, response)
                    if status == 429:
                        if not response.headers.get("Via"):
                            # Not Discord's API but Cloudflare's ban: waiting won't help.
                            raise discord.HTTPException(shown, answer)
                        self._limited(route, token, response.headers, answer)
                        continue
                    self._learn(route, token, response.headers)
                    if status >= 500:
                        if attempt == ATTEMPTS - 1:
                            raise discord.DiscordServerError(shown, answer)
                        log.warning("%s answered %d; trying again", route, status)
                        await self.sleep(1 + attempt * 2)
                        continue
                    if status == 403:
                        raise discord.Forbidden(shown, answer)
                    if status == 404:
                        raise discord.NotFound(shown, answer)
                    raise discord.HTTPException(shown, answer)
                raise discord.HTTPException(shown, answer)
            finally:
                line.give()
        finally:
            if line.free and lines.get(token) is line:
                del lines[token]  # nobody sends or waits through it now
            for file in files:
                file.close()

    async def close(self) -> None:
        """Close the connections (the next call opens new ones)."""
        pool, self.pool = self.pool, None
        if pool is not None and pool.loop is asyncio.get_running_loop():
            await pool.close()

    def _deliver(
        self,
        session: aiohttp.ClientSession,
        method: str,
        path: str,
        content: bytes,
        content_type: str,
    ) -> Awaitable[Answer]:
        """Send a request once; the awaitable holds its whole answer.

        The pool's own call is returned as it is, not awaited here: one coroutine less
        for every call to pass its answer through.
        """
        base = discord.http.Route.BASE
        if session is not self._session:
            self._session, self._proxied = session, _proxied(session)
        if not self.lean or self._proxied:
            return _through(
                session, method, yarl.URL(base + path, encoded=True), content, content_type
            )
        if base != self._base[0]:
            self._base = (base, *split_url(base))
        _, origin, prefix = self._base
        pool = self.pool
        if pool is None or pool.closed or pool.loop is not asyncio.get_running_loop():
            pool = self.pool = Pool(user_agent=USER_AGENT)
        # A paced write whose slot got a newer one while it waited for a connection is dropped.
        return pool.request(
            method, origin, prefix + path, content, content_type, ready=check_current
        )

    def _delay(self, key: tuple[str, str]) -> float:
        """Say how long the global limit or a call's bucket holds calls back (if positive)."""
        return max(self._global_open_at, self._open_at.get(key, 0.0)) - self.clock()

    def _learn(self, route: str, token: str, headers: Any) -> None:
        """Note the route's bucket and, if the answer says it is used up, when it opens."""
        bucket = headers.get("X-RateLimit-Bucket")
        if bucket is None:
            return
        self._buckets[route] = bucket
        key = (bucket, token)
        if headers.get("X-RateLimit-Remaining") == "0":
            reset_after = float(headers.get("X-RateLimit-Reset-After", 0.0))
            self._hold(key, self.clock() + reset_after)
        else:
            self._open_at.pop(key, None)

    def _limited(self, route: str, token: str, headers: Any, answer: Any) -> None:
        """Hold calls back as a 429 says: all of them if it is global, else its bucket's."""
        retry_after = float(answer.get("retry_after", 1.0)) if isinstance(answer, dict) else 1.0
        log.warning("%s is rate limited; trying again in %.2f s", route, retry_after)
        open_at = self.clock() + retry_after
        if (isinstance(answer, dict) and answer.get("global")) or headers.get("X-RateLimit-Global"):
            self._global_open_at = max(self._global_open_at, open_at)
            return
        bucket = headers.get("X-RateLimit-Bucket")
        if bucket is not None:
            self._buckets[route] = bucket
        self._hold((self._buckets.get(route, route), token), open_at)

    def _hold(self, key: tuple[str, str], open_at: float) -> None:
        """Keep a bucket closed until `open_at`, dropping waits already over when many."""
        if len(self._open_at) >= _PRUNE_AT:
            now = self.clock()
            self._open_at = {k: at for k, at in self._open_at.items() if at > now}
        self._open_at[key] = open_at


async def _through(
    session: aiohttp.ClientSession, method: str, url: yarl.URL, content: bytes, content_type: str
) -> Answer:
    """Send a request once through an aiohttp session (a proxy's) and return its answer."""
    check_current()
    headers = {"Content-Type": content_type}
    async with session.request(method, url, data=content, headers=headers) as response:
        body = await response.read()
        return Answer(response.status, response.reason or "", response.headers, body)


def _in_path(token: str) -> str:
    """Put a token in a URL's path, quoted unless it is URL-safe already."""
    return token if _URL_SAFE.fullmatch(token) else quote(token, safe="")


def _proxied(session: aiohttp.ClientSession) -> bool:
    """Say whether a session's calls go through a proxy (`bot.http1` knows none)."""
    return session.trust_env or getattr(session, "_default_proxy", None) is not None


def _multipart(payload: bytes, files: Sequence[discord.File], attempt: int) -> tuple[bytes, str]:
    """Put the JSON and the files (from their start) in a multipart form, as discord.py does."""
    boundary = secrets.token_hex(16)
    parts = [
        f'--{boundary}\r\nContent-Disposition: form-data; name="payload_json"\r\n'
        f"Content-Type: {JSON}\r\n\r\n".encode(),
        payload,
        b"\r\n",
    ]
    for index, file in enumerate(files):
        # A file sent before is read again from its start.
        file.reset(seek=attempt)
        parts.append(
            f'--{boundary}\r\nContent-Disposition: form-data; name="files[{index}]"; '
            f'filename="{_form_quoted(file.filename)}"\r\n'
            "Content-Type: application/octet-stream\r\n\r\n".encode()
        )
        parts.append(file.fp.read())
        parts.append(b"\r\n")
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


def _form_quoted(name: str) -> str:
    """Quote a file name in a form part's header as browsers do (quote, CR, LF escaped)."""
    return name.replace('"', "%22").replace("\r", "%0D").replace("\n", "%0A")


def _decode(raw: bytes, content_type: str) -> Any:
    """Read an error answer as discord.py does: JSON when typed so, else text."""
    if content_type == "application/json":
        try:
            return orjson.loads(raw)
        except orjson.JSONDecodeError:
            pass
    return raw.decode("utf-8", errors="replace")


# The process's writer: rate limits are Discord's per bot, whichever session sends.
rest = Rest()
