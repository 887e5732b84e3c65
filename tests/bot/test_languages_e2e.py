"""Languages through the sandbox: rules and house rules in each member's, tables in the server's."""

from __future__ import annotations

import json

from bot.client import ShitheadBot
from bot.i18n import t
from bot.rulebook import SENTENCES, setting_choice, setting_words
from sandbox.driver import Driver
from tests.bot.commands_bot import bot, driver, sandbox, storage

__all__ = ["bot", "driver", "sandbox", "storage"]


def said(result: dict[str, object]) -> str:
    """Everything an answer's embeds say, as text."""
    response = result["response"]
    assert isinstance(response, dict)
    return json.dumps(response["embeds"], ensure_ascii=False)


async def test_each_member_reads_the_rules_in_their_own_language(driver: Driver) -> None:
    await driver.create_user("jonas", locale="de")
    await driver.create_user("ola", locale="pl")
    await driver.command("mod", "general", "houserules preset", {"name": "dutch"})
    for user, language in (("jonas", "de"), ("ola", "pl"), ("ann", "en")):
        answer = await driver.command(user, "general", "shithead rules")
        assert answer["response"]["ephemeral"]
        text = said(answer)
        assert answer["response"]["embeds"][0]["title"] == t(
            "Rules: {preset}", language, preset="dutch"
        )
        assert t(SENTENCES[("voluntary_pickup", False)], language) in text
        assert t(SENTENCES[("face_up_pickup", "keep")], language) in text
        if language != "en":
            assert SENTENCES[("voluntary_pickup", False)] not in text


async def test_house_rules_are_explained_in_the_members_language(driver: Driver) -> None:
    await driver.create_user("freja", locale="da")
    await driver.create_user("daan", locale="nl", moderator=True)
    shown = await driver.command("freja", "general", "shithead houserules")
    description = shown["response"]["embeds"][0]["description"]
    assert f"four_of_a_kind: `pile` ({setting_words('four_of_a_kind', 'da')})" in description
    assert setting_words("four_of_a_kind", "da") != setting_words("four_of_a_kind", "en")
    typed = await driver.autocomplete(
        "daan", "general", "houserules set", focused="option", options={"option": "pickup"}
    )
    choices = typed["response"]["choices"]
    assert [c["value"] for c in choices] == ["voluntary_pickup", "pickup_turn", "face_up_pickup"]
    assert [c["name"] for c in choices] == [setting_choice(c["value"], "nl") for c in choices]


async def test_switching_the_language_house_rule_by_command_changes_the_next_table(
    bot: ShitheadBot, driver: Driver
) -> None:
    driver.guild.locale = "da"
    await driver.create_channel("second")
    first = await driver.command("ann", "general", "shithead create")
    fields = [f["name"] for f in first["response"]["embeds"][0]["fields"]]
    assert t("Seats", "da") in fields  # `auto`: the server's own language
    changed = await driver.command(
        "mod", "general", "houserules set", {"option": "language", "value": "de"}
    )
    assert "changed the house rules" in changed["response"]["content"]
    second = await driver.command("ann", "second", "shithead create")
    fields = [f["name"] for f in second["response"]["embeds"][0]["fields"]]
    assert t("Seats", "de") in fields and t("Seats", "de") != "Seats"
    # The table already open keeps the language it started with, also when it is redrawn.
    await driver.command("mod", "general", "shithead join")
    await bot.presenter.pacer.idle()
    shown = next(m for m in driver.messages("general") if m["id"] == first["response"]["id"])
    seats = {f["name"]: f["value"] for f in shown["embeds"][0]["fields"]}[t("Seats", "da")]
    assert seats == "1. ann\n2. mod"
