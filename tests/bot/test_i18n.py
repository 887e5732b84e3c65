"""The translation function fills values and falls back to English."""

from __future__ import annotations

import pytest

from bot import i18n
from bot.i18n import t


def test_english_fills_values() -> None:
    assert t("{name} burned the pile", name="Ana") == "Ana burned the pile"


def test_known_locale_translates(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(i18n.CATALOGS, "de", {"{name} burned the pile": "{name} räumt ab"})
    assert t("{name} burned the pile", locale="de", name="Ana") == "Ana räumt ab"
    assert t("Pick up", locale="de") == "Pick up"


def test_unknown_locale_falls_back() -> None:
    assert t("Your turn", locale="xx") == "Your turn"
