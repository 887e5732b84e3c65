"""What Discord refuses, with Discord's error codes and shapes, and its rate limits."""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from sandbox.world import JSON, Clock

MAX_CONTENT = 2000
MAX_EMBEDS = 10
MAX_EMBED_TOTAL = 6000
MAX_ROWS = 5
MAX_ROW_BUTTONS = 5
MAX_SELECT_OPTIONS = 25
MAX_CUSTOM_ID = 100
MAX_LABEL = 80
EMBED_TEXT_LIMITS = {"title": 256, "description": 4096}
EMBED_NESTED_LIMITS = {("author", "name"): 256, ("footer", "text"): 2048}
MAX_EMBED_FIELDS = 25
FIELD_LIMITS = {"name": 256, "value": 1024}
# Attachments: files on one message; bytes per file (the `attachment_size_limit` of an
# unboosted guild); bytes of all the files of one request (Discord limits the request).
MAX_ATTACHMENTS = 10
MAX_ATTACHMENT_SIZE = 10 * 1024 * 1024
MAX_UPLOAD_SIZE = 10 * 1024 * 1024

ACTION_ROW, BUTTON, STRING_SELECT = 1, 2, 3
SELECTS = {3, 5, 6, 7, 8}
LINK_STYLE, PREMIUM_STYLE = 5, 6


class DiscordError(Exception):
    """An answer Discord would give instead of success: HTTP status, code, message, errors."""

    def __init__(self, status: int, code: int, message: str, errors: JSON | None = None) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.errors = errors

    def body(self) -> JSON:
        """Return the JSON body Discord sends."""
        body: JSON = {"message": self.message, "code": self.code}
        if self.errors is not None:
            body["errors"] = self.errors
        return body


def not_found(code: int, what: str) -> DiscordError:
    """Return Discord's 404 for an unknown object (10003 channel, 10008 message, ...)."""
    return DiscordError(404, code, f"Unknown {what}")


def _nest(path: list[str | int], code: str, message: str) -> JSON:
    """Wrap one field error in Discord's nested `errors` object."""
    errors: JSON = {"_errors": [{"code": code, "message": message}]}
    for key in reversed(path):
        errors = {str(key): errors}
    return errors


def invalid_form(path: list[str | int], code: str, message: str) -> DiscordError:
    """Return Discord's 50035 Invalid Form Body naming one field."""
    return DiscordError(400, 50035, "Invalid Form Body", _nest(path, code, message))


def too_long(path: list[str | int], limit: int) -> DiscordError:
    """Return Discord's 50035 for a field over its length or count limit."""
    return invalid_form(path, "BASE_TYPE_MAX_LENGTH", f"Must be {limit} or fewer in length.")


def validate_message(body: JSON, *, partial: bool = False) -> None:
    """Refuse a message body that Discord would refuse; `partial` for edits."""
    content = body.get("content")
    if content is not None and len(str(content)) > MAX_CONTENT:
        raise too_long(["content"], MAX_CONTENT)
    embeds = body.get("embeds")
    if embeds is not None:
        _validate_embeds(embeds)
    components = body.get("components")
    if components is not None:
        _validate_components(components)
    attachments = body.get("attachments")
    if attachments is not None and len(attachments) > MAX_ATTACHMENTS:
        raise too_long(["attachments"], MAX_ATTACHMENTS)
    if not partial and not (content or embeds or components or attachments):
        raise DiscordError(400, 50006, "Cannot send an empty message")


def entity_too_large() -> DiscordError:
    """Return Discord's 413 for an upload over its size limit."""
    return DiscordError(413, 40005, "Request entity too large")


def validate_files(files: list[JSON]) -> None:
    """Refuse uploads Discord would refuse: too many, one too big, or too big together."""
    if len(files) > MAX_ATTACHMENTS:
        raise too_long(["attachments"], MAX_ATTACHMENTS)
    sizes = [len(f["data"]) for f in files]
    if any(size > MAX_ATTACHMENT_SIZE for size in sizes) or sum(sizes) > MAX_UPLOAD_SIZE:
        raise entity_too_large()


def _validate_embeds(embeds: list[JSON]) -> None:
    if len(embeds) > MAX_EMBEDS:
        raise too_long(["embeds"], MAX_EMBEDS)
    total = 0
    for index, embed in enumerate(embeds):
        for key, limit in EMBED_TEXT_LIMITS.items():
            text = str(embed.get(key) or "")
            if len(text) > limit:
                raise too_long(["embeds", index, key], limit)
            total += len(text)
        for (outer, inner), limit in EMBED_NESTED_LIMITS.items():
            text = str((embed.get(outer) or {}).get(inner) or "")
            if len(text) > limit:
                raise too_long(["embeds", index, outer, inner], limit)
            total += len(text)
        fields = embed.get("fields") or []
        if len(fields) > MAX_EMBED_FIELDS:
            raise too_long(["embeds", index, "fields"], MAX_EMBED_FIELDS)
        for number, embed_field in enumerate(fields):
            for key, limit in FIELD_LIMITS.items():
                text = str(embed_field.get(key) or "")
                if len(text) > limit:
                    raise too_long(["embeds", index, "fields", number, key], limit)
                total += len(text)
    if total > MAX_EMBED_TOTAL:
        raise invalid_form(
            ["embeds"],
            "MAX_EMBED_SIZE_EXCEEDED",
            f"Embed size exceeds maximum size of {MAX_EMBED_TOTAL}",
        )


def _validate_components(rows: list[JSON]) -> None:
    if len(rows) > MAX_ROWS:
        raise too_long(["components"], MAX_ROWS)
    seen: set[str] = set()
    for r, row in enumerate(rows):
        items = row.get("components") or []
        if row.get("type") != ACTION_ROW:
            raise invalid_form(
                ["components", r, "type"], "UNION_TYPE_CHOICES", "Value must be one of {1}."
            )
        if not items:
            raise invalid_form(
                ["components", r, "components"],
                "BASE_TYPE_MIN_LENGTH",
                "Must be 1 or more in length.",
            )
        if any(item.get("type") in SELECTS for item in items) and len(items) > 1:
            raise invalid_form(
                ["components", r, "components"],
                "COMPONENT_LAYOUT_WIDTH_EXCEEDED",
                "The specified component exceeds the maximum width",
            )
        if len(items) > MAX_ROW_BUTTONS:
            raise too_long(["components", r, "components"], MAX_ROW_BUTTONS)
        for c, item in enumerate(items):
            _validate_item(["components", r, "components", c], item, seen)


def _validate_item(path: list[str | int], item: JSON, seen: set[str]) -> None:
    label = item.get("label")
    if label is not None and len(str(label)) > MAX_LABEL:
        raise too_long([*path, "label"], MAX_LABEL)
    if item.get("type") == BUTTON and item.get("style") in (LINK_STYLE, PREMIUM_STYLE):
        return
    custom_id = item.get("custom_id")
    if not custom_id:
        raise invalid_form([*path, "custom_id"], "BASE_TYPE_REQUIRED", "This field is required")
    if len(custom_id) > MAX_CUSTOM_ID:
        raise too_long([*path, "custom_id"], MAX_CUSTOM_ID)
    if custom_id in seen:
        raise invalid_form(
            [*path, "custom_id"],
            "COMPONENT_CUSTOM_ID_DUPLICATED",
            "Component custom id cannot be duplicated",
        )
    seen.add(custom_id)
    if item.get("type") == STRING_SELECT:
        options = item.get("options") or []
        if len(options) > MAX_SELECT_OPTIONS:
            raise too_long([*path, "options"], MAX_SELECT_OPTIONS)
        if not options:
            raise invalid_form(
                [*path, "options"], "BASE_TYPE_MIN_LENGTH", "Must be 1 or more in length."
            )


def components_of(rows: list[JSON]) -> Iterator[JSON]:
    """Yield every interactive component in a message's rows."""
    for row in rows:
        yield from row.get("components") or []


def number_components(rows: list[JSON]) -> list[JSON]:
    """Give every component a numeric `id`, as Discord does, keeping any the bot chose."""
    counter = 0
    numbered: list[JSON] = []
    for row in rows:
        counter += 1
        items = []
        for item in row.get("components") or []:
            counter += 1
            items.append({"id": counter, **item})
        numbered.append({"id": counter - len(items), **row, "components": items})
    return numbered


@dataclass
class RateLimit:
    """A fixed window: `limit` calls per `per` seconds for each bucket."""

    limit: int
    per: float


@dataclass
class _Window:
    started: float
    used: int = 0


@dataclass
class RateLimiter:
    """Per-route buckets keyed by route and major parameter; answers with Discord's headers."""

    clock: Clock
    rules: dict[str, RateLimit]
    _windows: dict[tuple[str, str], _Window] = field(default_factory=dict)

    def take(self, route: str, major: str) -> tuple[dict[str, str], float | None]:
        """Count one call: return the headers and, when over the limit, the retry delay."""
        rule = self.rules.get(route)
        if rule is None:
            return {}, None
        now = self.clock.now()
        window = self._windows.get((route, major))
        if window is None or now - window.started >= rule.per:
            window = self._windows[(route, major)] = _Window(now)
        reset_after = max(0.001, rule.per - (now - window.started))
        headers = {
            "X-RateLimit-Limit": str(rule.limit),
            "X-RateLimit-Bucket": f"{abs(hash(route)):x}",
            "X-RateLimit-Reset-After": f"{reset_after:.3f}",
            "X-RateLimit-Reset": f"{_epoch_after(reset_after):.3f}",
        }
        if window.used >= rule.limit:
            headers["X-RateLimit-Remaining"] = "0"
            headers["X-RateLimit-Scope"] = "user"
            headers["Retry-After"] = str(math.ceil(reset_after))
            headers["Via"] = "1.1 google"
            return headers, reset_after
        window.used += 1
        headers["X-RateLimit-Remaining"] = str(rule.limit - window.used)
        return headers, None


def _epoch_after(seconds: float) -> float:
    return time.time() + seconds


def rate_limited_body(retry_after: float) -> dict[str, Any]:
    """Return the body of a 429."""
    return {"message": "You are being rate limited.", "retry_after": retry_after, "global": False}
