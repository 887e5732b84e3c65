"""The translation functions every user-facing string goes through, with its locale."""

from __future__ import annotations

DEFAULT_LOCALE = "en"

# Catalogs map the English source text to its translation, per locale. English needs none;
# German, Danish, Polish and Dutch (the seeds' languages) are added here later. A plural
# message is keyed by its singular form and holds one text per plural form of the language.
CATALOGS: dict[str, dict[str, str]] = {"en": {}}
PLURALS: dict[str, dict[str, tuple[str, ...]]] = {"en": {}}


def t(message: str, /, locale: str, **values: object) -> str:
    """Translate `message` into `locale` (English when unknown) and fill in `{values}`."""
    catalog = CATALOGS.get(locale) or CATALOGS[DEFAULT_LOCALE]
    text = catalog.get(message, message)
    return text.format(**values) if values else text


def tn(singular: str, plural: str, count: int, /, locale: str, **values: object) -> str:
    """Translate a message whose form depends on `count` ("1 card", "3 cards")."""
    forms = (PLURALS.get(locale) or {}).get(singular)
    if forms:
        text = forms[min(plural_form(count, locale), len(forms) - 1)]
    else:
        text = singular if count == 1 else plural
    return text.format(count=count, **values)


def plural_form(count: int, locale: str) -> int:
    """Say which plural form a language uses for `count` (English: one, other)."""
    return 0 if count == 1 else 1
