"""Edits through an interaction's token that read nothing back.

discord.py turns what Discord returns for an edit into a `Message` (its embeds, components
and attachments) and files the view of every edit in its view store; the presenter needs
neither: our components are dispatched by their custom_id (`bot.dispatch`) and the
presenter keeps what it showed. These edits send the same requests through `bot.rest`
(discord.py's rate-limit handling and errors, without its webhook adapter) on the bot's
own session and drop the reply.
"""

from __future__ import annotations

from collections.abc import Coroutine
from typing import Any

import aiohttp
import discord

from bot.rest import UPDATE_MESSAGE, message_body, rest


def edit_original(
    session: aiohttp.ClientSession, application_id: int, token: str, **kwargs: Any
) -> Coroutine[Any, Any, None]:
    """Edit a token's `@original` message (embeds, view, attachments)."""
    # Returned unawaited, as `Rest.request`: no frame here holds the parts while it waits.
    return rest.edit_original(session, application_id, token, *message_body(**kwargs))


async def update_message(interaction: discord.Interaction, **kwargs: Any) -> None:
    """Answer a click by editing the message it is on, without asking for that message back."""
    await rest.callback(
        interaction._session,
        interaction.id,
        interaction.token,
        UPDATE_MESSAGE,
        *message_body(**kwargs),
    )
    # The interaction is answered: a later write goes through its token.
    interaction.response._response_type = discord.InteractionResponseType.message_update
