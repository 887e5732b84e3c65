"""The one translation function every user-facing string goes through, with its locale."""

from __future__ import annotations

DEFAULT_LOCALE = "en"

# Catalogs map the English source text to its translation, per locale. English needs none;
# German, Danish, Polish and Dutch (the seeds' languages) are added here later.
CATALOGS: dict[str, dict[str, str]] = {"en": {}}


def t(message: str, /, locale: str, **values: object) -> str:
    """Translate `message` into `locale` (English when unknown) and fill in `{values}`."""
    catalog = CATALOGS.get(locale) or CATALOGS[DEFAULT_LOCALE]
    text = catalog.get(message, message)
    return text.format(**values) if values else text
