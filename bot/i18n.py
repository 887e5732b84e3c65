"""The translation functions every user-facing string goes through, with its locale.

The English source text is the message id. The catalogs are gettext `.po` files in
`bot/locale/<lang>/LC_MESSAGES/bot.po` (`make messages` extracts and updates them), read
once at import; a message a catalog lacks (or marks fuzzy) is said in English. Plural forms
follow each catalog's Plural-Forms, which Babel writes from its plural rules.
"""

from __future__ import annotations

import gettext
import logging
from collections.abc import Callable
from importlib import resources

from babel.messages.catalog import Catalog
from babel.messages.plurals import get_plural
from babel.messages.pofile import read_po

log = logging.getLogger(__name__)

DEFAULT_LOCALE = "en"
LANGUAGES = ("en", "de", "da", "pl", "nl")
DOMAIN = "bot"
# The msgctxt of command, group and option names (a name may be a message's word too).
COMMAND_NAME = "command name"
# gettext's separator of a message's context and id.
_CONTEXT_SEPARATOR = "\x04"

# Catalogs map the English source text to its translation, per locale (a message with a
# context is keyed "context\x04text"). A plural message is keyed by its singular form and
# holds one text per plural form of the language.
CATALOGS: dict[str, dict[str, str]] = {DEFAULT_LOCALE: {}}
PLURALS: dict[str, dict[str, tuple[str, ...]]] = {DEFAULT_LOCALE: {}}
# Which plural form a language uses for a count: the index into a plural message's texts.
PLURAL_RULES: dict[str, Callable[[int], int]] = {
    DEFAULT_LOCALE: gettext.c2py(get_plural(DEFAULT_LOCALE).plural_expr)
}


def key(message: str, context: str | None = None) -> str:
    """Key a message in a catalog: its text, after its context if it has one."""
    return message if context is None else f"{context}{_CONTEXT_SEPARATOR}{message}"


def read_catalog(language: str) -> Catalog | None:
    """Read a language's `.po` file from the package, or None when it is missing."""
    path = resources.files("bot.locale") / language / "LC_MESSAGES" / f"{DOMAIN}.po"
    try:
        with path.open("rb") as po:
            return read_po(po, locale=language, domain=DOMAIN)
    except FileNotFoundError:
        log.error("no catalog for %s: its messages stay in English", language)
        return None


def load(language: str, catalog: Catalog) -> None:
    """Take a catalog's finished translations (not fuzzy, no empty form) for a language."""
    texts: dict[str, str] = {}
    plurals: dict[str, tuple[str, ...]] = {}
    for message in catalog:
        if not message.id or message.fuzzy:
            continue
        if isinstance(message.id, tuple | list):
            forms = tuple(message.string or ())
            if forms and all(forms):
                plurals[message.id[0]] = forms
        elif isinstance(message.string, str) and message.string:
            texts[key(message.id, message.context)] = message.string
    CATALOGS[language] = texts
    PLURALS[language] = plurals
    PLURAL_RULES[language] = gettext.c2py(catalog.plural_expr)


def load_all() -> None:
    """Read every language's catalog from the package."""
    for language in LANGUAGES:
        if language != DEFAULT_LOCALE and (catalog := read_catalog(language)) is not None:
            load(language, catalog)


def language_of(discord_locale_value: str) -> str:
    """Name the catalog language for a Discord locale code ("de" → de, "en-GB" → en)."""
    language = discord_locale_value.replace("_", "-").split("-")[0].lower()
    return language if language in LANGUAGES else DEFAULT_LOCALE


def lookup(message: str, locale: str, context: str | None = None) -> str | None:
    """Give a message's translation into `locale`, or None when that catalog has none."""
    return (CATALOGS.get(locale) or {}).get(key(message, context))


def command_word(name: str, locale: str) -> str:
    """Name a command or option as Discord shows it to members speaking `locale`."""
    return lookup(name, locale, COMMAND_NAME) or name


def _fill(text: str, english: str, values: dict[str, object]) -> str:
    """Fill `{values}` into a translation; a translation that doesn't fit falls back to English."""
    if not values:
        return text
    try:
        return text.format(**values)
    except (KeyError, IndexError, ValueError):
        log.error("a translation of %r doesn't take its values", english)
        return english.format(**values)


def t(message: str, /, locale: str, **values: object) -> str:
    """Translate `message` into `locale` (English when unknown) and fill in `{values}`."""
    # The catalog read inline (a message without context is its own key): every line of
    # every message drawn comes through here.
    catalog = CATALOGS.get(locale)
    text = (catalog.get(message) if catalog else None) or message
    return _fill(text, message, values) if values else text


def tn(singular: str, plural: str, count: int, /, locale: str, **values: object) -> str:
    """Translate a message whose form depends on `count` ("1 card", "3 cards")."""
    english = singular if plural_form(count, DEFAULT_LOCALE) == 0 else plural
    forms = (PLURALS.get(locale) or {}).get(singular)
    text = forms[min(plural_form(count, locale), len(forms) - 1)] if forms else english
    return _fill(text, english, {"count": count, **values})


def plural_form(count: int, locale: str) -> int:
    """Say which plural form a language uses for `count` (English: 0 for one, 1 for other)."""
    rule = PLURAL_RULES.get(locale) or PLURAL_RULES[DEFAULT_LOCALE]
    return rule(count)


load_all()
