"""`/houserules`: moderators keep a server's rules; everyone may look at them."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.app_commands import locale_str
from discord.ext import commands

from bot.answers import locale_of, say
from bot.guild_settings import (
    GuildSettings,
    SettingError,
    suggest_names,
    suggest_values,
    summary,
    with_preset,
    with_value,
    without,
)
from bot.i18n import t
from bot.rulebook import setting_choice, setting_words
from bot.storage import Storage
from bot.words import plain
from engine.rules import PRESET_ALIASES, preset_names

if TYPE_CHECKING:
    from bot.client import ShitheadBot

Choices = list[app_commands.Choice[str]]


def rules_embed(guild_name: str, settings: GuildSettings, locale: str) -> discord.Embed:
    """Show every option and table setting, marking those that differ."""
    lines = [
        f"{'**' if changed else ''}{name}{'**' if changed else ''}: `{value}` "
        f"({setting_words(name, locale)})"
        for name, value, changed in summary(settings)
    ]
    embed = discord.Embed(
        # A server's name is its owner's choice: shown as plain text.
        title=t("House rules of {guild}", locale, guild=plain(guild_name)),
        description="\n".join(lines),
    )
    hosts = (
        t("Table hosts may pick another preset.", locale)
        if settings.host_may_pick_preset
        else t("Table hosts play these rules.", locale)
    )
    embed.set_footer(
        text=t(
            "Preset: {preset}. Bold options differ from the preset or the default. {hosts}",
            locale,
            preset=settings.preset,
            hosts=hosts,
        )
    )
    return embed


def setting_choices(interaction: discord.Interaction, current: str) -> Choices:
    """Offer the settings whose names contain what was typed, each with what it means."""
    locale = locale_of(interaction)
    return [
        app_commands.Choice(name=setting_choice(name, locale), value=name)
        for name in suggest_names(current)
    ]


async def show_house_rules(interaction: discord.Interaction, storage: Storage) -> None:
    """Show a server's house rules to whoever asks, only to them."""
    locale = locale_of(interaction)
    if interaction.guild is None:
        await say(interaction, t("House rules belong to a server; use this in one.", locale))
        return
    settings = await storage.guild_settings(interaction.guild.id)
    await interaction.response.send_message(
        embed=rules_embed(interaction.guild.name, settings, locale), ephemeral=True
    )


@app_commands.guild_only()
@app_commands.default_permissions(manage_guild=True)
class HouseRules(
    commands.GroupCog,
    group_name="houserules",
    group_description=locale_str("See or change this server's house rules"),
):
    """The `/houserules` group; changing needs Manage Server, here and in Discord's settings."""

    def __init__(self, storage: Storage) -> None:
        super().__init__()
        self.storage = storage

    async def _change(
        self, interaction: discord.Interaction, change: Callable[[GuildSettings], GuildSettings]
    ) -> None:
        """Apply a change for a moderator, or refuse it kindly."""
        locale = locale_of(interaction)
        guild = interaction.guild
        if guild is None or not interaction.permissions.manage_guild:
            await say(
                interaction,
                t("Only members with Manage Server may change the house rules.", locale),
            )
            return
        try:
            updated = await self.storage.update_guild_settings(guild.id, change)
        except SettingError as exc:
            await say(interaction, exc.words(locale))
            return
        await interaction.response.send_message(
            t(
                "{member} changed the house rules. Tables already running keep their rules.",
                locale,
                member=interaction.user.mention,
            ),
            embed=rules_embed(guild.name, updated, locale),
            allowed_mentions=discord.AllowedMentions.none(),
        )

    @app_commands.command(name="show", description=locale_str("Show this server's house rules"))
    async def show(self, interaction: discord.Interaction) -> None:
        """Show the rules to anyone who can run the command."""
        await show_house_rules(interaction, self.storage)

    @app_commands.command(name="preset", description=locale_str("Base the house rules on a preset"))
    @app_commands.describe(name=locale_str("The preset, e.g. classic or dutch"))
    async def preset(self, interaction: discord.Interaction, name: str) -> None:
        """Switch the server's preset, keeping its changed options."""
        await self._change(interaction, lambda settings: with_preset(settings, name))

    @preset.autocomplete("name")
    async def _preset_names(self, interaction: discord.Interaction, current: str) -> Choices:
        names = [*preset_names(), *PRESET_ALIASES]
        return [app_commands.Choice(name=n, value=n) for n in names if current.lower() in n][:25]

    @app_commands.command(name="set", description=locale_str("Change one option or table setting"))
    @app_commands.describe(
        option=locale_str("The option, e.g. decks or turn_seconds"),
        value=locale_str("Its new value"),
    )
    async def set_(self, interaction: discord.Interaction, option: str, value: str) -> None:
        """Change one option or table setting."""
        await self._change(interaction, lambda settings: with_value(settings, option, value))

    @set_.autocomplete("option")
    async def _set_names(self, interaction: discord.Interaction, current: str) -> Choices:
        return setting_choices(interaction, current)

    @set_.autocomplete("value")
    async def _set_values(self, interaction: discord.Interaction, current: str) -> Choices:
        option = str(getattr(interaction.namespace, "option", "") or "")
        if interaction.guild_id is None:
            return []
        settings = await self.storage.guild_settings(interaction.guild_id)
        return [
            app_commands.Choice(name=v[:100], value=v[:100])
            for v in suggest_values(settings, option, current)
        ]

    @app_commands.command(name="reset", description=locale_str("Go back to the default rules"))
    @app_commands.describe(option=locale_str("Reset only this option (all when left out)"))
    async def reset(self, interaction: discord.Interaction, option: str | None = None) -> None:
        """Reset one option, or every setting."""
        await self._change(interaction, lambda settings: without(settings, option))

    @reset.autocomplete("option")
    async def _reset_names(self, interaction: discord.Interaction, current: str) -> Choices:
        return setting_choices(interaction, current)


async def setup(bot: ShitheadBot) -> None:
    """Add `/houserules`, wired to the bot's storage."""
    await bot.add_cog(HouseRules(bot.require_storage()))
