"""Every package imports; the engine stays pure and the table core Discord-free and wordless."""

from __future__ import annotations

import ast
import importlib
import pkgutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FORBIDDEN_IN_ENGINE = {"discord", "aiosqlite", "aiohttp", "bot", "sandbox", "sqlite3", "tables"}
# The table core knows no Discord, no database driver and no words: `bot` (the shell, with
# the translation function `bot.i18n.t`) is off limits as a whole.
FORBIDDEN_IN_CORE = {"discord", "aiosqlite", "aiohttp", "bot", "sandbox", "sqlite3", "gettext"}


def _modules(package: str) -> list[str]:
    pkg = importlib.import_module(package)
    names = [package]
    for info in pkgutil.walk_packages(pkg.__path__, prefix=f"{package}."):
        names.append(info.name)
    return names


@pytest.mark.parametrize("package", ["engine", "tables", "bot", "sandbox"])
def test_every_module_imports(package: str) -> None:
    for name in _modules(package):
        importlib.import_module(name)


def _imported_roots(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    roots: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            roots.add(node.module.split(".")[0])
    return roots


def _offenders(package: str, forbidden: set[str]) -> dict[str, list[str]]:
    files = sorted((ROOT / package).rglob("*.py"))
    assert files
    found = {
        str(path.relative_to(ROOT)): sorted(_imported_roots(path) & forbidden) for path in files
    }
    return {k: v for k, v in found.items() if v}


def _names_imported(path: Path) -> set[str]:
    """Every name a file imports, as `module.name` (and every module it imports)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def test_engine_imports_no_shell() -> None:
    assert _offenders("engine", FORBIDDEN_IN_ENGINE) == {}


def test_the_table_core_imports_neither_discord_nor_the_translation_function() -> None:
    assert _offenders("tables", FORBIDDEN_IN_CORE) == {}
    for path in sorted((ROOT / "tables").rglob("*.py")):
        assert not any(name.endswith((".i18n.t", ".t")) for name in _names_imported(path)), path


def test_the_core_boundary_check_catches_discord_and_the_translation_function(
    tmp_path: Path,
) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("import discord.ui\nfrom bot.i18n import t\n")
    assert _imported_roots(bad) & FORBIDDEN_IN_CORE == {"discord", "bot"}
    assert "bot.i18n.t" in _names_imported(bad)


def test_boundary_check_catches_a_forbidden_import(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("import discord\nfrom bot.settings import get_settings\n")
    assert _imported_roots(bad) & FORBIDDEN_IN_ENGINE == {"discord", "bot"}
