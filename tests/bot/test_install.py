"""The package installs and runs away from the source tree: the wheel, the locks, each Python.

The wheel is built from a copy of the sources and installed into fresh environments; the
installed bot then runs from a temporary directory, where no `migrations/` folder is.
"""

from __future__ import annotations

import contextlib
import glob
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import sysconfig
import time
import tomllib
import zipfile
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import Version

from bot.storage import Migration, Storage, StorageError, load_migrations

pytestmark = pytest.mark.install

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("pyproject.toml", "README.md", "engine", "tables", "bot", "sandbox", "migrations")
MIGRATIONS = sorted(
    str(path.relative_to(ROOT / "migrations")) for path in (ROOT / "migrations").rglob("*.sql")
)
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
SUPPORTED = SpecifierSet(PYPROJECT["project"]["requires-python"])
VERSION = re.search(r'__version__ = "(.+)"', (ROOT / "bot" / "version.py").read_text())


def clean_env(**extra: str) -> dict[str, str]:
    """The environment for a child process: no path into the sources, no settings."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME"}
        and not key.startswith(("DISCORD_", "DATABASE_", "SANDBOX_", "LOG_LEVEL"))
    }
    env.update(extra)
    return env


def run(*command: str | Path, cwd: Path | None = None, timeout: float = 120) -> str:
    """Run a command to its end; fail the test with its output if it fails."""
    done = subprocess.run(
        [str(part) for part in command],
        cwd=cwd,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert done.returncode == 0, f"{command} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def setuptools_is_new_enough() -> bool:
    """Say whether this environment can build the wheel without downloading setuptools."""
    try:
        return Version(metadata.version("setuptools")) >= Version("77")
    except metadata.PackageNotFoundError:
        return False


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Build the wheel from a copy of the sources (the work tree gets no build/ folder)."""
    base = tmp_path_factory.mktemp("wheel")
    source = base / "src"
    source.mkdir()
    skip = shutil.ignore_patterns("__pycache__", "*.egg-info", "*.pyc")
    for name in SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, source / name, ignore=skip)
        else:
            shutil.copy2(ROOT / name, source / name)
    isolation = ["--no-build-isolation"] if setuptools_is_new_enough() else []
    build: list[str | Path] = [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps"]
    run(*build, *isolation, "--wheel-dir", base / "dist", source)
    (built,) = (base / "dist").glob("shithead_bot-*.whl")
    return built


def site_packages(venv: Path) -> Path:
    """Find a venv's site-packages folder."""
    (found,) = venv.glob("lib/python3.*/site-packages")
    return found


@contextlib.contextmanager
def running_bot(python: Path, *args: str, cwd: Path) -> Iterator[subprocess.Popen[str]]:
    """Start `python -m bot ARGS` in `cwd`; yield it once it is connected to its sandbox."""
    log = cwd.parent / f"{cwd.name}.log"
    with log.open("w") as stderr:
        process = subprocess.Popen(
            [str(python), "-m", "bot", *args],
            cwd=cwd,
            env=clean_env(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            text=True,
        )
    try:
        deadline = time.monotonic() + 20
        while "connected as" not in log.read_text():
            assert process.poll() is None, f"the bot stopped:\n{log.read_text()}"
            assert time.monotonic() < deadline, f"the bot did not connect:\n{log.read_text()}"
            time.sleep(0.1)
        yield process
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_the_wheel_carries_the_migrations(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "migrations/__init__.py" in names
    assert {f"migrations/{name}" for name in MIGRATIONS} <= names
    assert MIGRATIONS, "no migrations in the sources"


def test_the_installed_bot_runs_from_any_directory(wheel: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    run(sys.executable, "-m", "venv", "--without-pip", venv)
    python = venv / "bin" / "python"
    pip: list[str | Path] = [sys.executable, "-m", "pip", "--python", python]
    run(*pip, "install", "--quiet", "--no-deps", "--no-index", wheel)
    # The dependencies come from this environment (offline): a path line, whose own .pth
    # files are not read, so an editable install of the sources here is not seen there.
    paths = sysconfig.get_paths()
    (site_packages(venv) / "_deps.pth").write_text(f"{paths['purelib']}\n{paths['platlib']}\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    where = run(python, "-c", "import bot, migrations; print(bot.__file__)", cwd=elsewhere)
    assert Path(where.strip()).is_relative_to(venv)
    assert VERSION is not None
    assert run(python, "-m", "bot", "--version", cwd=elsewhere).strip().endswith(VERSION[1])
    assert VERSION[1] in run(venv / "bin" / "shithead-bot", "--version", cwd=elsewhere)
    assert list(elsewhere.iterdir()) == []

    args = ("--sandbox-port", "0", "--database", "world.sqlite3")
    with running_bot(python, *args, cwd=elsewhere) as bot:
        bot.send_signal(signal.SIGTERM)
        assert bot.wait(timeout=20) == 0
    assert sorted(path.name for path in elsewhere.iterdir()) == [
        "world.sqlite3",
        "world.sqlite3.lock",
    ]
    with contextlib.closing(sqlite3.connect(elsewhere / "world.sqlite3")) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == len(load_migrations())
        assert db.execute("SELECT COUNT(*) FROM running_tables").fetchone()[0] == 0


async def test_a_failed_start_leaves_no_empty_database_behind(tmp_path: Path) -> None:
    path = tmp_path / "bot.sqlite3"
    broken = [Migration(1, "broken", "CREATE TABLE t (x);\nINSERT INTO nowhere VALUES (1);")]
    with pytest.raises(StorageError, match="0001_broken failed"):
        await Storage.open(path, migrations=broken)
    assert list(tmp_path.iterdir()) == []
    # A file that was there already is left exactly as it was.
    path.write_bytes(b"precious, and not a database")
    with pytest.raises(StorageError, match="is not a database this bot can use"):
        await Storage.open(path)
    assert path.read_bytes() == b"precious, and not a database"
    assert list(tmp_path.iterdir()) == [path]


def test_a_package_without_its_migrations_says_so(tmp_path: Path) -> None:
    with pytest.raises(StorageError, match=r"There are no migration files in .*: reinstall"):
        load_migrations(tmp_path)


def interpreters() -> dict[tuple[int, int], Path]:
    """Find the installed Pythons this project supports, one per minor version."""
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv"))
    candidates = [sys.executable]
    candidates += [shutil.which(f"python3.{minor}") or "" for minor in range(11, 30)]
    candidates += sorted(glob.glob(str(pyenv / "versions" / "3.*" / "bin" / "python3.*[0-9]")))
    found: dict[tuple[int, int], Path] = {}
    for candidate in filter(None, candidates):
        try:
            done = subprocess.run(
                [candidate, "-c", "import sys; print(*sys.version_info[:3])"],
                capture_output=True,
                text=True,
                timeout=10,
                check=False,
            )
        except OSError:
            continue
        if done.returncode != 0:
            continue
        major, minor, micro = map(int, done.stdout.split())
        if f"{major}.{minor}.{micro}" in SUPPORTED:
            found.setdefault((major, minor), Path(candidate))
    return found


INTERPRETERS = interpreters()
# The lowest and the newest supported Python on this machine, but the one running the tests:
# the suite itself runs on it, in the environment `make` installed from the lock.
RUNNING = (sys.version_info.major, sys.version_info.minor)
EDGES = sorted({min(INTERPRETERS), max(INTERPRETERS)} - {RUNNING}) if INTERPRETERS else []


@pytest.mark.parametrize("version", EDGES, ids=lambda version: "py{}.{}".format(*version))
def test_each_supported_python_installs_the_lock_and_the_wheel(
    wheel: Path, tmp_path: Path, version: tuple[int, int]
) -> None:
    venv = tmp_path / "venv"
    run(INTERPRETERS[version], "-m", "venv", venv)
    python = venv / "bin" / "python"
    run(
        python,
        "-m",
        "pip",
        "install",
        "--quiet",
        "--require-hashes",
        "-r",
        ROOT / "requirements.txt",
    )
    run(python, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", wheel)
    check = (
        "import sys, bot.client, bot.cli, sandbox.server, tables.service\n"
        "from bot.storage import load_migrations\n"
        "print(*sys.version_info[:2], len(load_migrations()))\n"
    )
    major, minor, migrations = run(python, "-c", check, cwd=tmp_path).split()
    assert (int(major), int(minor)) == version
    assert int(migrations) == len(load_migrations())
    assert "shithead-bot" in run(python, "-m", "bot", "--version", cwd=tmp_path)


def locked(lock: Path) -> dict[str, tuple[Version, str]]:
    """Read a lock file: each package's pinned version and its marker."""
    pins: dict[str, tuple[Version, str]] = {}
    text = lock.read_text(encoding="utf-8")
    for entry in re.split(r"\n(?=\S)", text):
        head = entry.split("\\")[0].strip()
        if not head or head.startswith("#"):
            continue
        name, _, rest = head.partition("==")
        version, _, marker = rest.partition(";")
        assert "--hash=sha256:" in entry, f"{lock.name}: {name} has no hash"
        pins[canonicalize_name(name)] = (Version(version.strip()), marker.strip())
    return pins


def test_the_locks_pin_every_dependency_within_its_range() -> None:
    run_pins = locked(ROOT / "requirements.txt")
    dev_pins = locked(ROOT / "requirements-dev.txt")
    project = PYPROJECT["project"]
    for lock, pins, wanted in [
        ("requirements.txt", run_pins, project["dependencies"]),
        ("requirements-dev.txt", dev_pins, project["optional-dependencies"]["dev"]),
    ]:
        for text in wanted:
            requirement = Requirement(text)
            name = canonicalize_name(requirement.name)
            assert name in pins, f"{lock} lacks {name}: run make lock"
            assert pins[name][0] in requirement.specifier, f"{lock}: {name} out of range"
    # The development environment runs exactly what production runs.
    assert {name: dev_pins[name] for name in run_pins} == run_pins
