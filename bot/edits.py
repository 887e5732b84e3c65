"""Edits through an interaction's token that read nothing back.

discord.py turns what Discord returns for an edit into a `Message` (its embeds, components
and attachments) and files the view of every edit in its view store; the presenter needs
neither: our components are dispatched by their custom_id (`bot.dispatch`) and the
presenter keeps what it showed. These edits send the same request through discord.py's
webhook adapter (its rate-limit handling and errors included) and drop the reply.
"""

from __future__ import annotations

from typing import Any

import discord
from discord.http import handle_message_parameters
from discord.webhook.async_ import async_context, interaction_message_response_params

# Where an interaction's token edits its first answer (or the message its component is on).
ORIGINAL = "@original"
_CALLBACK = "/interactions/{webhook_id}/{webhook_token}/callback"


async def edit_original(webhook: discord.Webhook, **kwargs: Any) -> None:
    """Edit a token's `@original` message (embeds, view, attachments)."""
    assert webhook.token is not None
    view = kwargs.get("view")
    with handle_message_parameters(**kwargs) as params:
        await async_context.get().edit_webhook_message(
            webhook.id,
            webhook.token,
            ORIGINAL,  # type: ignore[arg-type]
            session=webhook.session,
            proxy=webhook.proxy,
            proxy_auth=webhook.proxy_auth,
            payload=params.payload,
            multipart=params.multipart,
            files=params.files,
            with_components=bool(view),
        )


async def update_message(interaction: discord.Interaction, **kwargs: Any) -> None:
    """Answer a click by editing the message it is on, without asking for that message back."""
    params = interaction_message_response_params(
        type=discord.InteractionResponseType.message_update.value, **kwargs
    )
    http = interaction._state.http
    route = discord.http.Route(
        "POST", _CALLBACK, webhook_id=interaction.id, webhook_token=interaction.token
    )
    await async_context.get().request(
        route,
        session=interaction._session,
        proxy=http.proxy,
        proxy_auth=http.proxy_auth,
        payload=params.payload,
        multipart=params.multipart,
        files=params.files,
    )
    # The interaction is answered: a later write goes through its token.
    interaction.response._response_type = discord.InteractionResponseType.message_update
