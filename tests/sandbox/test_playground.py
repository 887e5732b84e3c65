"""The playground's page, files and live socket: served on loopback, refused to other origins."""

from __future__ import annotations

import asyncio
import re
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import aiohttp
import pytest

from sandbox.playground import is_loopback
from sandbox.server import Sandbox
from tests.bot.test_lifecycle import child_env
from tests.sandbox.contract_bot import ContractBot

PAGES = ["/", "/playground/app.js", "/playground/style.css", "/playground/commands"]


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.8.9.10", True),
        ("localhost", True),
        ("[::1]", True),
        ("app.localhost", True),
        ("0.0.0.0", False),
        ("192.168.1.20", False),
        ("evil.example", False),
        ("localhost.evil.example", False),
        ("", False),
    ],
)
def test_loopback_names(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


@pytest.mark.parametrize("path", PAGES)
async def test_pages_are_served_on_loopback(sandbox: Sandbox, path: str) -> None:
    async with aiohttp.ClientSession() as session, session.get(sandbox.url + path) as response:
        assert response.status == 200
        assert response.charset == "utf-8"
        assert await response.text()


async def test_the_page_names_its_script_and_style(sandbox: Sandbox) -> None:
    async with aiohttp.ClientSession() as session, session.get(sandbox.url) as response:
        page = await response.text()
    assert '<script src="/playground/app.js"' in page
    assert '<link rel="stylesheet" href="/playground/style.css">' in page


@pytest.mark.parametrize("path", [*PAGES, "/playground/live"])
@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": "http://evil.example"},
        {"Origin": "http://192.168.1.20:8765"},
        {"Host": "evil.example:8765"},
        {"Host": "evil.example", "Origin": "http://evil.example"},
    ],
)
async def test_other_origins_and_hosts_are_refused(
    sandbox: Sandbox, path: str, headers: dict[str, str]
) -> None:
    async with (
        aiohttp.ClientSession() as session,
        session.get(sandbox.url + path, headers=headers) as response,
    ):
        assert response.status == 403
        assert "loopback" in await response.text()


async def test_the_live_socket_refuses_another_origin(sandbox: Sandbox) -> None:
    async with aiohttp.ClientSession() as session:
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await session.ws_connect(f"{sandbox.url}/playground/live", origin="http://evil.example")
    assert refused.value.status == 403


async def test_the_control_api_refuses_a_page_of_another_origin(sandbox: Sandbox) -> None:
    body = '{"name": "mallory"}'
    async with aiohttp.ClientSession() as session:
        async with session.post(
            f"{sandbox.url}/_sandbox/users", data=body, headers={"Origin": "http://evil.example"}
        ) as response:
            assert response.status == 403
        assert all(u["name"] != "mallory" for u in sandbox.driver.state()["users"])
        # curl sends no Origin, and the playground's own page sends a loopback one.
        async with session.post(
            f"{sandbox.url}/_sandbox/users", data=body, headers={"Origin": sandbox.url}
        ) as response:
            assert response.status == 201


async def test_a_loopback_origin_gets_a_notice_on_every_change(sandbox: Sandbox) -> None:
    async with (
        aiohttp.ClientSession() as session,
        session.ws_connect(f"{sandbox.url}/playground/live", origin=sandbox.url) as socket,
    ):
        assert await socket.receive_json(timeout=2) == {"changed": 0}
        await sandbox.driver.create_user("alice")
        assert await socket.receive_json(timeout=2) == {"changed": 1}
        with pytest.raises(asyncio.TimeoutError):
            await socket.receive_json(timeout=0.5)  # nothing changed, nothing said


async def test_commands_give_their_option_schemas(sandbox: Sandbox, bot: ContractBot) -> None:
    async with (
        aiohttp.ClientSession() as session,
        session.get(f"{sandbox.url}/playground/commands") as response,
    ):
        commands = await response.json()
    synced = sandbox.driver.state()["commands"]
    assert sorted(c["name"] for c in commands) == sorted(
        name for names in synced.values() for name in names
    )
    assert all("options" in c and c["type"] == 1 for c in commands)


def test_the_sandbox_run_prints_the_playground_first(tmp_path: Path) -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "bot", "--sandbox-port", "0"],
        cwd=tmp_path,
        env=child_env(TMPDIR=str(tmp_path)),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stdout is not None
        first = process.stdout.readline()
        found = re.fullmatch(r"Play in your browser: (http://127\.0\.0\.1:\d+/)\n", first)
        assert found, first
        with urllib.request.urlopen(found[1], timeout=10) as page:
            assert "<title>Shithead playground</title>" in page.read().decode()
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0
