"""The translation functions every user-facing string goes through, with its locale.

The English source text is the message id. The catalogs are gettext `.po` files in
`bot/locale/<lang>/LC_MESSAGES/bot.po` (`make messages` extracts and updates them), read
once at import, by `read_po` here (Babel's catalog classes and what they import cost the
bot 0.6 MB of memory); a message a catalog lacks (or marks fuzzy) is said in English.
Plural forms follow each catalog's Plural-Forms, which Babel writes from its plural rules.
"""

from __future__ import annotations

import functools
import gettext
import logging
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from importlib import resources

log = logging.getLogger(__name__)

DEFAULT_LOCALE = "en"
LANGUAGES = ("en", "de", "da", "pl", "nl")
DOMAIN = "bot"
# The msgctxt of command, group and option names (a name may be a message's word too).
COMMAND_NAME = "command name"
# gettext's separator of a message's context and id.
_CONTEXT_SEPARATOR = "\x04"
# English plural forms: one, other (Babel's rule for en).
_ENGLISH_PLURAL = "(n != 1)"
# A `.po` line with a keyword and its quoted text (`msgstr[N]` is a plural form's).
_KEYWORD_LINE = re.compile(r'(msgctxt|msgid_plural|msgid|msgstr(?:\[(\d+)\])?)\s+"(.*)"$')
# The escapes a `.po` text may hold, as Babel reads them (others stay as written).
_ESCAPE = re.compile(r'\\([\\trn"])')
_ESCAPED = {"\\": "\\", "t": "\t", "r": "\r", "n": "\n", '"': '"'}

# Catalogs map the English source text to its translation, per locale (a message with a
# context is keyed "context\x04text"). A plural message is keyed by its singular form and
# holds one text per plural form of the language.
CATALOGS: dict[str, dict[str, str]] = {DEFAULT_LOCALE: {}}
PLURALS: dict[str, dict[str, tuple[str, ...]]] = {DEFAULT_LOCALE: {}}
# Which plural form a language uses for a count: the index into a plural message's texts.
PLURAL_RULES: dict[str, Callable[[int], int]] = {DEFAULT_LOCALE: gettext.c2py(_ENGLISH_PLURAL)}


def key(message: str, context: str | None = None) -> str:
    """Key a message in a catalog: its text, after its context if it has one."""
    return message if context is None else f"{context}{_CONTEXT_SEPARATOR}{message}"


@dataclass
class Entry:
    """One message of a `.po` file: its context, id (and plural id), translations, flags."""

    context: str | None = None
    id: str = ""
    plural: str | None = None
    # The translation, or each plural form's by its index.
    strings: dict[int, str] = field(default_factory=dict)
    fuzzy: bool = False


@dataclass
class Catalog:
    """A `.po` file's messages, and its plural forms (how many, and the rule)."""

    entries: list[Entry]
    forms: int
    plural_expr: str


def _unescape(text: str) -> str:
    """Turn a `.po` text's escapes into the characters they stand for."""
    return _ESCAPE.sub(lambda escape: _ESCAPED[escape[1]], text)


def _entries(lines: Iterator[str]) -> Iterator[Entry]:
    """Read a `.po` file's entries, the header's included (obsolete `#~` ones are left out)."""
    entry, text = Entry(), None
    seen: set[str] = set()
    for raw in lines:
        line = raw.strip()
        if not line or line.startswith("#"):
            if "msgstr" in seen:
                yield entry
                entry, seen = Entry(), set()
            if line.startswith("#,") and "fuzzy" in (flag.strip() for flag in line[2:].split(",")):
                entry.fuzzy = True
            continue
        if line.startswith('"'):
            text = (text or "") + _unescape(line[1:-1])
        else:
            found = _KEYWORD_LINE.match(line)
            if found is None:
                raise ValueError(f"not a line of a .po file: {line!r}")
            keyword = found[1].split("[")[0]
            if keyword in ("msgctxt", "msgid") and "msgstr" in seen:
                yield entry
                entry, seen = Entry(), set()
            seen.add(keyword)
            text = _unescape(found[3])
            index = int(found[2] or 0)
        if keyword == "msgctxt":
            entry.context = text
        elif keyword == "msgid":
            entry.id = text
        elif keyword == "msgid_plural":
            entry.plural = text
        else:
            entry.strings[index] = text
    if "msgstr" in seen:
        yield entry


def read_po(lines: Iterator[str]) -> Catalog:
    """Read a `.po` file as Babel's `read_po` does, for what `load` takes of it."""
    entries, forms, expr = [], 2, _ENGLISH_PLURAL
    for entry in _entries(lines):
        if entry.id or entry.context is not None:
            entries.append(entry)
            continue
        for header in entry.strings.get(0, "").splitlines():
            name, _, value = header.partition(":")
            if name.strip().lower() == "plural-forms":
                params = dict(part.strip().partition("=")[::2] for part in value.split(";"))
                forms = int(params.get("nplurals", forms))
                expr = params.get("plural", expr)
    return Catalog(entries, forms, expr)


def read_catalog(language: str) -> Catalog | None:
    """Read a language's `.po` file from the package, or None when it is missing."""
    path = resources.files("bot.locale") / language / "LC_MESSAGES" / f"{DOMAIN}.po"
    try:
        with path.open("r", encoding="utf-8") as po:
            return read_po(po)
    except FileNotFoundError:
        log.error("no catalog for %s: its messages stay in English", language)
        return None


def load(language: str, catalog: Catalog) -> None:
    """Take a catalog's finished translations (not fuzzy, no empty form) for a language."""
    texts: dict[str, str] = {}
    plurals: dict[str, tuple[str, ...]] = {}
    for message in catalog.entries:
        if not message.id or message.fuzzy:
            continue
        if message.plural is not None:
            # As Babel: one text per plural form of the language, missing ones empty.
            forms = tuple(message.strings.get(index, "") for index in range(catalog.forms))
            if all(forms):
                plurals[message.id] = forms
        elif message.strings.get(0):
            texts[key(message.id, message.context)] = message.strings[0]
    CATALOGS[language] = texts
    PLURALS[language] = plurals
    PLURAL_RULES[language] = gettext.c2py(catalog.plural_expr)


def load_all() -> None:
    """Read every language's catalog from the package."""
    for language in LANGUAGES:
        if language != DEFAULT_LOCALE and (catalog := read_catalog(language)) is not None:
            load(language, catalog)


# Kept per Discord locale code (a few dozen exist): every click and command asks.
@functools.lru_cache(maxsize=64)
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
        return text.format_map(values)
    except (KeyError, IndexError, ValueError):
        log.error("a translation of %r doesn't take its values", english)
        return english.format_map(values)


def t(message: str, /, locale: str, **values: object) -> str:
    """Translate `message` into `locale` (English when unknown) and fill in `{values}`."""
    # The catalog read inline (a message without context is its own key): every line of
    # every message drawn comes through here.
    catalog = CATALOGS.get(locale)
    text = (catalog.get(message) if catalog else None) or message
    if not values:
        return text
    # `_fill` inline, which is called again only to log a translation that doesn't fit: a
    # third of the messages drawn take values. `format_map` reads them without copying them
    # into a new dict as `format(**values)` does.
    try:
        return text.format_map(values)
    except (KeyError, IndexError, ValueError):
        return _fill(text, message, values)


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
