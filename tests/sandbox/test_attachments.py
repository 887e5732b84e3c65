"""Attachments: stored with their bytes, served at their URL, limited as Discord limits them."""

from __future__ import annotations

import io
import json
from typing import Any

import aiohttp
import discord
import pytest
from PIL import Image

from sandbox.driver import Driver
from sandbox.rules import MAX_ATTACHMENT_SIZE, MAX_ATTACHMENTS
from sandbox.server import Sandbox
from tests.sandbox.contract_bot import ContractBot, png, png_file


async def fetch(url: str) -> tuple[int, str, bytes]:
    """GET a URL as anyone would: no token."""
    async with aiohttp.ClientSession() as session, session.get(url) as response:
        return response.status, response.headers.get("Content-Type", ""), await response.read()


def general(bot: ContractBot) -> discord.TextChannel:
    channel = bot.guilds[0].text_channels[0]
    assert channel.name == "general"
    return channel


async def test_a_sent_png_is_served_at_its_url(
    sandbox: Sandbox, bot: ContractBot, driver: Driver
) -> None:
    sent = await general(bot).send("look", file=png_file(4, 3))
    [attachment] = sent.attachments
    assert attachment.filename == "table.png"
    assert attachment.content_type == "image/png"
    assert (attachment.size, attachment.width, attachment.height) == (len(png(4, 3)), 4, 3)
    assert attachment.url.startswith(f"{sandbox.url}/_sandbox/attachments/{attachment.id}/")
    assert await fetch(attachment.url) == (200, "image/png", png(4, 3))
    assert await attachment.read() == png(4, 3)
    [viewed] = driver.messages("general")
    assert viewed["attachments"] == ["table.png"]
    assert viewed["attachment_urls"] == [attachment.url]


async def test_an_edit_that_replaces_the_file_forgets_the_old_one(
    sandbox: Sandbox, bot: ContractBot
) -> None:
    sent = await general(bot).send(file=png_file(4, 3))
    old = sent.attachments[0].url
    edited = await sent.edit(attachments=[png_file(2, 2, shade=9, name="new.png")])
    [new] = edited.attachments
    assert new.filename == "new.png" and new.url != old
    assert await fetch(new.url) == (200, "image/png", png(2, 2, shade=9))
    assert (await fetch(old))[0] == 404
    assert set(sandbox.world.files) == {str(new.id)}


async def test_an_edit_without_attachments_keeps_them(sandbox: Sandbox, bot: ContractBot) -> None:
    sent = await general(bot).send("v1", file=png_file(4, 3))
    edited = await sent.edit(content="v2")
    assert [a.url for a in edited.attachments] == [a.url for a in sent.attachments]
    assert await fetch(edited.attachments[0].url) == (200, "image/png", png(4, 3))


async def test_a_deleted_message_forgets_its_files(sandbox: Sandbox, bot: ContractBot) -> None:
    sent = await general(bot).send(file=png_file(4, 3))
    await sent.delete()
    assert (await fetch(sent.attachments[0].url))[0] == 404
    assert sandbox.world.files == {}


async def test_a_wrong_filename_or_id_is_404(sandbox: Sandbox, bot: ContractBot) -> None:
    sent = await general(bot).send(file=png_file(4, 3))
    attachment_id = sent.attachments[0].id
    base = f"{sandbox.url}/_sandbox/attachments"
    assert (await fetch(f"{base}/{attachment_id}/other.png"))[0] == 404
    assert (await fetch(f"{base}/1/table.png"))[0] == 404


async def test_interaction_answers_store_their_files(
    sandbox: Sandbox, bot: ContractBot, driver: Driver
) -> None:
    await driver.create_user("alice")
    result = await driver.command("alice", "general", "shithead picture")
    assert result["status"] == "answered"
    message = result["response"]
    assert message["attachments"] == ["table.png"]
    [first] = message["attachment_urls"]
    assert await fetch(first) == (200, "image/png", png(4, 3))

    clicked = await driver.click("alice", message["id"], "redraw")
    assert clicked["status"] == "answered"
    updated = clicked["response"]
    assert (updated["content"], updated["attachments"]) == ("redrawn", ["redrawn.png"])
    [second] = updated["attachment_urls"]
    assert await fetch(second) == (200, "image/png", png(3, 2, shade=200))
    assert (await fetch(first))[0] == 404
    stored = sandbox.world.messages[int(message["id"])].attachments[0]
    assert (stored["width"], stored["height"], stored["size"]) == (3, 2, len(png(3, 2, 200)))


async def test_a_sent_jpeg_is_typed_and_measured_as_discord_does(bot: ContractBot) -> None:
    buffer = io.BytesIO()
    Image.new("RGB", (7, 5), (200, 30, 40)).save(buffer, "JPEG", quality=90, subsampling=0)
    data = buffer.getvalue()
    sent = await general(bot).send("look", file=discord.File(io.BytesIO(data), "hand.jpg"))
    [attachment] = sent.attachments
    assert (attachment.content_type, attachment.width, attachment.height) == ("image/jpeg", 7, 5)
    assert await fetch(attachment.url) == (200, "image/jpeg", data)


async def test_a_file_that_only_starts_like_a_jpeg_gets_no_size(bot: ContractBot) -> None:
    broken = discord.File(io.BytesIO(b"\xff\xd8\xff\xc0\x00"), "broken.jpg")
    sent = await general(bot).send("look", file=broken)
    [attachment] = sent.attachments
    assert (attachment.width, attachment.height) == (None, None)


async def post_files(sandbox: Sandbox, count: int, size: int) -> tuple[int, dict[str, Any]]:
    """Send a message with `count` files of `size` bytes straight to the REST API."""
    channel_id = sandbox.driver.guild.channel_ids[0]
    form = aiohttp.FormData()
    form.add_field("payload_json", json.dumps({"content": "files"}))
    for n in range(count):
        form.add_field(f"files[{n}]", io.BytesIO(b"x" * size), filename=f"f{n}.bin")
    url = f"{sandbox.api_base}/channels/{channel_id}/messages"
    headers = {"Authorization": f"Bot {sandbox.token}"}
    async with (
        aiohttp.ClientSession() as session,
        session.post(url, data=form, headers=headers) as response,
    ):
        return response.status, await response.json()


async def test_ten_files_pass_and_eleven_are_refused(sandbox: Sandbox) -> None:
    status, body = await post_files(sandbox, MAX_ATTACHMENTS, 10)
    assert status == 200 and len(body["attachments"]) == MAX_ATTACHMENTS
    status, body = await post_files(sandbox, MAX_ATTACHMENTS + 1, 10)
    assert (status, body["code"], body["message"]) == (400, 50035, "Invalid Form Body")
    assert body["errors"] == {
        "attachments": {
            "_errors": [
                {"code": "BASE_TYPE_MAX_LENGTH", "message": "Must be 10 or fewer in length."}
            ]
        }
    }
    assert len(sandbox.world.files) == MAX_ATTACHMENTS
    assert len(sandbox.driver.messages("general")) == 1


async def test_a_file_over_the_size_limit_is_refused(
    sandbox: Sandbox, bot: ContractBot, driver: Driver
) -> None:
    big = discord.File(io.BytesIO(b"x" * (MAX_ATTACHMENT_SIZE + 1)), filename="big.bin")
    with pytest.raises(discord.HTTPException) as refused:
        await general(bot).send(file=big)
    assert (refused.value.status, refused.value.code) == (413, 40005)
    assert refused.value.text == "Request entity too large"
    assert driver.messages("general") == [] and sandbox.world.files == {}
    status, body = await post_files(sandbox, 2, MAX_ATTACHMENT_SIZE // 2 + 1)
    assert (status, body["code"]) == (413, 40005)


async def test_an_edit_to_eleven_attachments_is_refused(
    sandbox: Sandbox, bot: ContractBot, driver: Driver
) -> None:
    sent = await general(bot).send(file=png_file(4, 3))
    too_many = [png_file(1, 1, name=f"{n}.png") for n in range(MAX_ATTACHMENTS + 1)]
    with pytest.raises(discord.HTTPException) as refused:
        await sent.edit(attachments=[*sent.attachments, *too_many[:MAX_ATTACHMENTS]])
    assert (refused.value.status, refused.value.code) == (400, 50035)
    assert await fetch(sent.attachments[0].url) == (200, "image/png", png(4, 3))
    assert len(sandbox.world.files) == 1
