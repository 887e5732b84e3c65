"""`/houserules` through the sandbox: moderators change, everyone looks, bad values are refused."""

from __future__ import annotations

import pytest

from bot.guild_settings import GuildSettings
from bot.storage import Storage
from sandbox.driver import ControlError, Driver
from tests.bot.commands_bot import bot, driver, sandbox, storage

__all__ = ["bot", "driver", "sandbox", "storage"]


def _guild(driver: Driver) -> int:
    return int(driver.state()["guilds"][0]["id"])


async def test_a_moderator_sets_a_preset_and_options(driver: Driver, storage: Storage) -> None:
    result = await driver.command("mod", "general", "houserules preset", {"name": "scheisskopf"})
    assert result["status"] == "answered"
    assert "changed the house rules" in result["response"]["content"]
    assert not result["response"]["ephemeral"]
    await driver.command("mod", "general", "houserules set", {"option": "decks", "value": "3"})
    await driver.command(
        "mod", "general", "houserules set", {"option": "turn_seconds", "value": "30"}
    )
    result = await driver.command(
        "mod", "general", "houserules set", {"option": "powers", "value": "2 none"}
    )
    description = result["response"]["embeds"][0]["description"]
    assert "**decks**: `3`" in description and "**turn_seconds**: `30`" in description
    assert await storage.guild_settings(_guild(driver)) == GuildSettings(
        preset="schwechat", overrides={"decks": 3}, turn_seconds=30
    )  # schwechat's 2 has no power already: no override


async def test_bad_values_are_refused_naming_the_allowed(driver: Driver, storage: Storage) -> None:
    result = await driver.command(
        "mod", "general", "houserules set", {"option": "deal", "value": "fast"}
    )
    assert result["response"]["ephemeral"]
    assert (
        result["response"]["content"]
        == "'fast' is not a value for deal: give one of classic, choose."
    )
    result = await driver.command(
        "mod", "general", "houserules set", {"option": "colour", "value": "red"}
    )
    assert "Unknown option 'colour'. Options are: decks, jokers" in result["response"]["content"]
    result = await driver.command("mod", "general", "houserules preset", {"name": "poker"})
    assert "Presets are: classic, dutch" in result["response"]["content"]
    assert await storage.guild_settings(_guild(driver)) == GuildSettings()


async def test_a_non_moderator_is_refused_by_discord_and_by_the_handler(
    driver: Driver, storage: Storage
) -> None:
    with pytest.raises(ControlError) as refused:
        await driver.command("ann", "general", "houserules set", {"option": "decks", "value": "2"})
    assert refused.value.status == 403
    # A server may open the command to everyone in its integration settings; the handler holds.
    command = driver.world.find_command("houserules", _guild(driver))
    assert command is not None
    command.payload["default_member_permissions"] = None
    for name, options in [
        ("houserules set", {"option": "decks", "value": "2"}),
        ("houserules preset", {"name": "dutch"}),
        ("houserules reset", {}),
    ]:
        result = await driver.command("ann", "general", name, options)
        assert result["response"]["ephemeral"]
        assert result["response"]["content"] == (
            "Only members with Manage Server may change the house rules."
        )
    shown = await driver.command("ann", "general", "houserules show")
    assert shown["response"]["embeds"][0]["title"].startswith("House rules of")
    assert await storage.guild_settings(_guild(driver)) == GuildSettings()


async def test_everyone_may_view_under_the_root_command(driver: Driver, storage: Storage) -> None:
    await storage.update_guild_settings(
        _guild(driver), lambda _: GuildSettings(preset="dutch", idle_turns=5)
    )
    result = await driver.command("ann", "general", "shithead houserules")
    embed = result["response"]["embeds"][0]
    assert result["response"]["ephemeral"]
    assert "jokers: `2`" in embed["description"] and "**idle_turns**: `5`" in embed["description"]
    assert embed["footer"]["text"].startswith("Preset: dutch.")


async def test_reset_one_option_or_all(driver: Driver, storage: Storage) -> None:
    guild = _guild(driver)
    await storage.update_guild_settings(
        guild, lambda _: GuildSettings(preset="dutch", overrides={"runs": True}, idle_turns=5)
    )
    await driver.command("mod", "general", "houserules reset", {"option": "runs"})
    assert await storage.guild_settings(guild) == GuildSettings(preset="dutch", idle_turns=5)
    await driver.command("mod", "general", "houserules reset")
    assert await storage.guild_settings(guild) == GuildSettings()


async def test_autocomplete_offers_names_and_values(driver: Driver) -> None:
    async def choices(focused: str, options: dict[str, str]) -> list[str]:
        result = await driver.autocomplete(
            "mod", "general", "houserules set", focused=focused, options=options
        )
        return [c["value"] for c in result["response"]["choices"]]

    assert await choices("option", {"option": "turn"}) == [
        "burn_turn",
        "pickup_turn",
        "turn_seconds",
        "idle_turns",
    ]
    assert await choices("value", {"option": "face_up_pickup", "value": ""}) == ["add_one", "keep"]
    assert await choices("value", {"option": "powers", "value": "10"}) == ["10 anywhere+burn"]
    result = await driver.autocomplete(
        "mod", "general", "houserules preset", focused="name", options={"name": "sch"}
    )
    assert [c["value"] for c in result["response"]["choices"]] == ["schwechat", "scheisskopf"]
