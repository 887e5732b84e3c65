"""The benches' bot process imports the bot's modules and none of the sandbox's."""

from __future__ import annotations

import asyncio
import pstats
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from bench import harness


def imported_after(code: str) -> set[str]:
    """Name the top-level packages a fresh interpreter has imported after running `code`."""
    show = "import sys; print('\\n'.join(sorted({m.split('.')[0] for m in sys.modules})))"
    done = subprocess.run(
        [sys.executable, "-c", f"{code}\n{show}"],
        cwd=harness.ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return set(done.stdout.split())


def test_the_bench_starts_the_bot_child_module(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    started: list[tuple[Any, ...]] = []

    async def spawn(*argv: Any, **_: Any) -> Any:
        started.append(argv)
        return SimpleNamespace(stdin=None, wait=lambda: asyncio.sleep(0))

    async def start() -> None:
        sandbox: Any = SimpleNamespace(api_base="http://a", gateway_url="ws://g", token="t")
        async with harness.bot_process(sandbox, tmp_path / "db", 1, tmp_path / "log"):
            pass

    monkeypatch.setattr(asyncio, "create_subprocess_exec", spawn)
    asyncio.run(start())
    assert started[0][1:4] == ("-m", "bench.botchild", "--run-bot")


def test_the_bot_child_imports_no_sandbox_module() -> None:
    child = imported_after("import bench.botchild, bot.client, bot.settings")
    assert "sandbox" not in child
    assert "bot" in child and "discord" in child


def measured_run(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], env: str, path: Path
) -> None:
    """Play one quick table with the bot child measuring itself as `env` asks, into `path`."""
    from bench.load import main

    monkeypatch.setenv(env, str(path))
    argv = ["--tables", "1", "--seed", "3", "--think", "0", "0.005", "--burst", "0.1"]
    assert main([*argv, "--pictures", "off", "--quick", "--quiet", "0.3"]) == 0
    capsys.readouterr()


def test_a_profiled_bot_child_writes_its_profile_when_the_bench_lets_go(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    written = tmp_path / "bot.prof"
    measured_run(monkeypatch, capsys, "BENCH_PROFILE", written)
    profiled = {path for path, _, _ in pstats.Stats(str(written)).stats}  # type: ignore[attr-defined]
    # The bot's own answering ran under the profiler, in the child (not the bench's process).
    assert any(path.endswith(str(Path("bot", "answers.py"))) for path in profiled)
    assert not any(path.endswith(str(Path("sandbox", "server.py"))) for path in profiled)


def test_a_sampled_bot_child_writes_its_stacks_when_the_bench_lets_go(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from bench.samples import read_stacks

    written = tmp_path / "bot.samples"
    measured_run(monkeypatch, capsys, "BENCH_SAMPLE", written)
    stacks = read_stacks(written.read_text(encoding="utf-8"))
    frames = {frame for stack in stacks for frame in stack}
    # The bot's own answering was sampled, in the child (not the bench's process), its
    # frames named from the project's root.
    assert any(frame.startswith("bot/answers.py:") for frame in frames)
    assert not any("sandbox/" in frame for frame in frames)
    assert all(stack[0].startswith("<frozen runpy>") for stack in stacks)
