"""Every package imports, and the engine stays pure."""

from __future__ import annotations

import ast
import importlib
import pkgutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FORBIDDEN_IN_ENGINE = {"discord", "aiosqlite", "aiohttp", "bot", "sandbox", "sqlite3"}


def _modules(package: str) -> list[str]:
    pkg = importlib.import_module(package)
    names = [package]
    for info in pkgutil.walk_packages(pkg.__path__, prefix=f"{package}."):
        names.append(info.name)
    return names


@pytest.mark.parametrize("package", ["engine", "bot", "sandbox"])
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


def test_engine_imports_no_shell() -> None:
    files = sorted((ROOT / "engine").rglob("*.py"))
    assert files
    offenders = {
        str(path.relative_to(ROOT)): sorted(_imported_roots(path) & FORBIDDEN_IN_ENGINE)
        for path in files
    }
    assert {k: v for k, v in offenders.items() if v} == {}


def test_boundary_check_catches_a_forbidden_import(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("import discord\nfrom bot.settings import get_settings\n")
    assert _imported_roots(bad) & FORBIDDEN_IN_ENGINE == {"discord", "bot"}
