"""docs/sandbox.md's examples work as written: its curl walk-through and its Python test.

Every ```sh block of the doc is read as the shell would read it (quotes, `$VAR`, `\\`
line ends, `VAR=$(curl ... | jq -r 'FILTER')`), and each curl is sent over HTTP to a
sandbox with the real bot in this process. Nothing shells out: curl and jq need not be
installed.
"""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import aiohttp
import pytest

from bot.client import ShitheadBot
from sandbox.control import CONTENT_TYPE
from sandbox.server import Sandbox
from tests.bot.test_play_e2e import bot, log_lines, sandbox

__all__ = ["bot", "sandbox"]

DOC = Path(__file__).resolve().parents[2] / "docs" / "sandbox.md"
# The address `make run` listens on, as the doc writes it.
DOC_HOSTS = ("localhost:8765", "127.0.0.1:8765")
ASSIGNMENT = re.compile(r"^([A-Z][A-Z0-9_]*)=\$\((.*)\)$", re.DOTALL)
COMMAND_START = re.compile(r"^(curl\s|[A-Z][A-Z0-9_]*=)")
VARIABLE = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")
QUIET_SECONDS = 0.2


# ---------------------------------------------------------------- reading the doc


def fenced(text: str, language: str) -> list[str]:
    """Return the bodies of the doc's fenced blocks in one language."""
    return re.findall(rf"^```{language}\n(.*?)^```$", text, re.MULTILINE | re.DOTALL)


def commands(block: str) -> list[str]:
    """Split a block into commands: each starts a line; `\\` ends and open quotes go on."""
    found: list[str] = []
    for line in block.replace("\\\n", " ").splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if COMMAND_START.match(line):
            found.append(line)
        else:
            assert found and line[0].isspace(), f"not a curl command: {line!r}"
            found[-1] += "\n" + line
    return found


def words(text: str, env: dict[str, str]) -> list[str]:
    """Split like the shell: quotes, `$VAR` outside single quotes, `#` comments, `|`."""
    out: list[str] = []
    word: str | None = None
    quote = ""
    i = 0

    def expand(at: int) -> tuple[str, int]:
        found = VARIABLE.match(text, at)
        assert found is not None, f"a bare $ in {text!r}"
        name = found[1] or found[2]
        assert name in env, f"${name} is used before the doc sets it"
        return env[name], found.end()

    while i < len(text):
        char = text[i]
        if quote == "'":
            if char == "'":
                quote = ""
            else:
                word = (word or "") + char
            i += 1
        elif char == "$":
            value, i = expand(i)
            word = (word or "") + value
        elif quote == '"':
            if char == '"':
                quote = ""
            else:
                word = (word or "") + char
            i += 1
        elif char in "'\"":
            quote, word = char, word or ""
            i += 1
        elif char.isspace():
            if word is not None:
                out.append(word)
            word = None
            i += 1
        elif char == "#" and word is None:
            i = text.find("\n", i) if "\n" in text[i:] else len(text)
        elif char == "|" and word is None:
            out.append("|")
            i += 1
        else:
            assert char not in ";&<>`()", f"unsupported shell in {text!r}"
            word = (word or "") + char
            i += 1
    assert not quote, f"unclosed quote in {text!r}"
    if word is not None:
        out.append(word)
    return out


@dataclass(frozen=True)
class Request:
    """One curl: method, path with query, JSON body."""

    method: str
    path: str
    body: Any


def curl(args: list[str]) -> Request:
    """Read the curl options the doc uses."""
    assert args[0] == "curl", args
    method, data, url = None, None, None
    rest = iter(args[1:])
    for arg in rest:
        if arg in ("-s", "-sS", "--silent"):
            continue
        if arg.startswith("-X") and len(arg) > 2:
            method = arg[2:]
        elif arg in ("-X", "--request"):
            method = next(rest)
        elif arg in ("-d", "--data", "--data-raw"):
            data = next(rest)
        else:
            assert not arg.startswith("-"), f"curl option {arg} is not understood here"
            assert url is None, f"two URLs: {url}, {arg}"
            url = arg
    assert url is not None, args
    parts = urlsplit(url if "://" in url else f"http://{url}")
    assert parts.netloc in DOC_HOSTS, f"{url}: use the address `make run` listens on"
    path = parts.path + (f"?{parts.query}" if parts.query else "")
    body = json.loads(data) if data is not None else None
    return Request(method or ("POST" if data is not None else "GET"), path, body)


def jq(expression: str, value: Any) -> Any:
    """Evaluate the jq the doc uses: paths (`.a[0].b`, `.[-1]`) and `split(s)[i]`, piped."""
    for stage in expression.split("|"):
        stage = stage.strip()
        at = 0
        while at < len(stage):
            if stage.startswith("split(", at):
                found = re.compile(r'split\("([^"]*)"\)').match(stage, at)
                assert found is not None, stage
                value, at = value.split(found[1]), found.end()
            elif found := re.compile(r"\.?\[(-?\d+)\]").match(stage, at):
                value, at = value[int(found[1])], found.end()
            elif found := re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)").match(stage, at):
                value, at = value[found[1]], found.end()
            elif stage == ".":
                at = 1
            else:
                raise AssertionError(f"jq {expression!r} is beyond this test")
    return value


@dataclass(frozen=True)
class Step:
    """A command of the doc: a curl, maybe kept in a variable through jq -r."""

    variable: str | None
    args: list[str]
    filter: str | None


def step(command: str, env: dict[str, str]) -> Step:
    """Read one command, filling in the variables set so far."""
    assigned = ASSIGNMENT.match(command)
    if assigned is None:
        args = words(command, env)
        assert "|" not in args, f"pipe only into an assignment: {command}"
        return Step(None, args, None)
    args = words(assigned[2], env)
    assert args.count("|") == 1, command
    pipe = args.index("|")
    assert args[pipe + 1 : pipe + 3] == ["jq", "-r"] and len(args) == pipe + 4, command
    return Step(assigned[1], args[:pipe], args[pipe + 3])


# ---------------------------------------------------------------- running it


async def quiet(sandbox: Sandbox) -> None:
    """Wait until nothing changed in the sandbox for a moment, as a person would."""
    async with asyncio.timeout(10):
        while True:
            changed = sandbox.world.changed
            try:
                await asyncio.wait_for(changed.wait(), QUIET_SECONDS)
            except TimeoutError:
                return


async def send(http: aiohttp.ClientSession, request: Request) -> tuple[int, str, Any]:
    async with http.request(
        request.method,
        request.path,
        data=None if request.body is None else json.dumps(request.body),
        headers={"Content-Type": "application/x-www-form-urlencoded"},  # what curl -d sends
    ) as response:
        return response.status, response.headers["Content-Type"], await response.json()


def test_the_doc_is_read_as_the_shell_reads_it() -> None:
    env = {"MESSAGE": "12", "TABLE": "ab"}
    line = """curl -s -XPOST localhost:8765/x -d '{"m": "'$MESSAGE'", "s": "a b"}' # note"""
    assert words(line, env) == [
        "curl",
        "-s",
        "-XPOST",
        "localhost:8765/x",
        "-d",
        '{"m": "12", "s": "a b"}',
    ]
    assert words(""""x/$TABLE" '$TABLE' ${TABLE}c""", env) == ["x/ab", "$TABLE", "abc"]
    block = "# c\ncurl a -d '{\n  \"b\": 1}' \\\n  -s\nX=$(curl c | jq -r .d)\n"
    first, second = commands(block)
    assert words(first, env) == ["curl", "a", "-d", '{\n  "b": 1}', "-s"]
    assert second == "X=$(curl c | jq -r .d)"
    with pytest.raises(AssertionError, match="before the doc sets it"):
        words("curl $NOPE", env)
    with pytest.raises(AssertionError, match="unsupported shell"):
        words("curl a; rm b", env)
    answer = [{"e": [{"f": {"t": "table ab · view 4"}}], "c": "sh:ab:0:join"}]
    assert jq('.[0].e[0].f.t | split(" view ")[1]', answer) == "4"
    assert jq('.[-1].c | split(":")[1]', answer) == "ab"
    parsed = step("""T=$(curl -s 'localhost:8765/_sandbox/x?as=bob' | jq -r '.[0].id')""", env)
    assert (parsed.variable, parsed.filter) == ("T", ".[0].id")
    assert curl(parsed.args) == Request("GET", "/_sandbox/x?as=bob", None)
    with pytest.raises(AssertionError, match="make run"):
        curl(["curl", "example.com/_sandbox/state"])


async def test_every_curl_example_answers_and_the_walk_through_starts_a_game(
    sandbox: Sandbox, bot: ShitheadBot
) -> None:
    blocks = fenced(DOC.read_text(encoding="utf-8"), "sh")
    assert len(blocks) >= 10
    env: dict[str, str] = {}
    ran: list[str] = []
    async with aiohttp.ClientSession(base_url=sandbox.url) as http:
        for block in blocks:
            for command in commands(block):
                await quiet(sandbox)
                current = step(command, env)
                request = curl(current.args)
                status, content_type, answer = await send(http, request)
                assert 200 <= status < 300, (command, answer)
                assert content_type == CONTENT_TYPE, command
                if isinstance(answer, dict) and "status" in answer:
                    assert answer["status"] == "answered", (command, answer)
                if current.variable is not None:
                    value = jq(current.filter or ".", answer)
                    assert isinstance(value, str) and value, (command, value)
                    env[current.variable] = value
                ran.append(request.path)
    table = bot.tables.find(env["TABLE"])
    assert table is not None and table.game is not None
    lines = log_lines(table)
    assert table.phase == "play" and lines[-1].startswith(f"{env['TURN']} played ")
    assert env["TURN"] in ("alice", "bob")
    assert {"/_sandbox/time", "/_sandbox/reconnect", "/_sandbox/state"} <= set(ran)


async def test_the_python_example_runs(tmp_path: Path) -> None:
    [example] = [b for b in fenced(DOC.read_text(encoding="utf-8"), "python") if "def test_" in b]
    namespace: dict[str, Any] = {}
    exec(compile(example, str(DOC), "exec"), namespace)
    tests = [value for name, value in namespace.items() if name.startswith("test_")]
    assert len(tests) == 1
    await tests[0](tmp_path)
