"""Slash commands in each member's language: discord.py asks, the catalogs answer.

At sync, discord.py asks the translator about every name and text of a command in every
Discord locale: its name, description, options' names and descriptions, and choices (with
`auto_locale_strings`, its default, a plain `str` is asked about as well). Names come from
the catalogs' "command name" context, texts from their messages; English, and a language
without catalogs, keep the source text. The root command's name is the `COMMAND_NAME`
setting: its group name is never extracted, so no catalog translates it.
"""

from __future__ import annotations

import logging
import re

import discord
from discord import app_commands

from bot.i18n import COMMAND_NAME, DEFAULT_LOCALE, language_of, lookup

log = logging.getLogger(__name__)

Location = app_commands.TranslationContextLocation
NAMES = frozenset({Location.command_name, Location.group_name, Location.parameter_name})
# Discord's limits: a name is 1 to 32 lowercase letters (any script), digits, - or _;
# descriptions and choice names have at most 100 characters. (Python's \w is Discord's
# \p{L}\p{N} and the underscore, which is all the catalogs' languages need.)
TEXT_LIMIT = 100
_NAME = re.compile(r"[-\w]{1,32}")


def valid_name(name: str) -> bool:
    """Say whether Discord takes a command, group or option name: lowercase, no spaces, ≤ 32."""
    return bool(_NAME.fullmatch(name)) and name == name.lower()


def fits(text: str, location: app_commands.TranslationContextLocation) -> bool:
    """Say whether Discord takes a translated text at its place."""
    return valid_name(text) if location in NAMES else 0 < len(text) <= TEXT_LIMIT


class CatalogTranslator(app_commands.Translator):
    """Translate command names, descriptions and choices at sync time from the catalogs."""

    async def translate(
        self,
        string: app_commands.locale_str,
        locale: discord.Locale,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        """Give the catalog's text for `locale`, or None so Discord keeps the English."""
        language = language_of(locale.value)
        if language == DEFAULT_LOCALE:
            return None
        name = context.location in NAMES
        text = lookup(string.message, language, COMMAND_NAME if name else None)
        if text is None:
            return None
        if not fits(text, context.location):
            log.error("the %s translation of %r doesn't fit Discord", language, string.message)
            return None
        return text
