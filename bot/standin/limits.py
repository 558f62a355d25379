"""Discord's limits on what a message may carry, checked the way Discord checks them: one
400 / 50035 "Invalid Form Body" whose ``errors`` tree names every field over its limit
(``{"embeds": {"0": {"title": {"_errors": [{"code": "BASE_TYPE_MAX_LENGTH", ...}]}}}}``).

Sources (docs/discord.md links each to its test):
- message content: 2,000 characters; at most 10 embeds
  (developers/resources/message#create-message);
- embeds: title 256, description 4,096, 25 fields, field name 256 and value 1,024, footer
  text 2,048, author name 256, 6,000 characters over every embed of a message
  (developers/resources/message#embed-object-embed-limits);
- components: 5 action rows, 5 buttons per row, a button label at most 80 characters,
  custom_id 1 to 100 characters and unique within the message
  (developers/components/reference);
- webhook names (create) and usernames (execute): 1 to 80 characters, without "discord" or
  "clyde" in any case, not "everyone"/"here" (developers/resources/webhook#create-webhook);
- 15 webhooks per channel: 400 / 30007 (developers/topics/opcodes-and-status-codes);
- autocomplete answers: at most 25 choices, names 1 to 100 characters, string values at
  most 100 (developers/interactions/application-commands#application-command-object-
  application-command-option-choice-structure).
"""

from __future__ import annotations

from typing import Any

from .errors import ApiError
from .models import JSON

CONTENT_MAX = 2000
EMBEDS_MAX = 10
EMBED_TOTAL_MAX = 6000
EMBED_FIELDS_MAX = 25
EMBED_LIMITS = {"title": 256, "description": 4096}
FIELD_LIMITS = {"name": 256, "value": 1024}
FOOTER_TEXT_MAX = 2048
AUTHOR_NAME_MAX = 256
ACTION_ROWS_MAX = 5
ROW_ITEMS_MAX = 5
LABEL_MAX = 80
CUSTOM_ID_MAX = 100
WEBHOOK_NAME_MAX = 80
WEBHOOKS_PER_CHANNEL = 15
MAX_WEBHOOKS = 30007
INVALID_FORM_BODY = 50035
COMPONENTS_V2 = 1 << 15  # message flag IS_COMPONENTS_V2: other component rules apply
ACTION_ROW = 1
BUTTON = 2
FORBIDDEN_IN_NAMES = ("discord", "clyde")
RESERVED_NAMES = ("everyone", "here")


class LimitRefused(ApiError):
    """Discord's refusal of an over-limit payload. The fake records each one
    (``fake.limit_refusals``) and ``fake.check()`` fails on them unless the test expects them
    (``fake.expect_limit_refusals``): no suite may make the bot send what Discord refuses."""


class FormErrors:
    """Collects field errors into Discord's nested ``errors`` tree."""

    def __init__(self) -> None:
        self.tree: JSON = {}

    def add(self, path: tuple[str | int, ...], code: str, message: str) -> None:
        node = self.tree
        for key in path:
            node = node.setdefault(str(key), {})
        node.setdefault("_errors", []).append({"code": code, "message": message})

    def too_long(self, path: tuple[str | int, ...], limit: int) -> None:
        self.add(path, "BASE_TYPE_MAX_LENGTH", f"Must be {limit} or fewer in length.")

    def raise_any(self) -> None:
        if self.tree:
            raise LimitRefused(400, INVALID_FORM_BODY, "Invalid Form Body", self.tree)


def _text(value: Any) -> str:
    # Discord trims leading and trailing whitespace before measuring.
    return "" if value is None else str(value).strip()


def embed_chars(embed: JSON) -> int:
    """The characters of an embed that count toward the 6,000 of a message."""
    total = len(_text(embed.get("title"))) + len(_text(embed.get("description")))
    total += len(_text((embed.get("footer") or {}).get("text")))
    total += len(_text((embed.get("author") or {}).get("name")))
    for f in embed.get("fields") or []:
        total += len(_text(f.get("name"))) + len(_text(f.get("value")))
    return total


def check_embeds(embeds: list[JSON], errors: FormErrors) -> None:
    if len(embeds) > EMBEDS_MAX:
        errors.too_long(("embeds",), EMBEDS_MAX)
    for i, embed in enumerate(embeds):
        where: tuple[str | int, ...] = ("embeds", i)
        for key, limit in EMBED_LIMITS.items():
            if len(_text(embed.get(key))) > limit:
                errors.too_long((*where, key), limit)
        fields = list(embed.get("fields") or [])
        if len(fields) > EMBED_FIELDS_MAX:
            errors.too_long((*where, "fields"), EMBED_FIELDS_MAX)
        for j, f in enumerate(fields):
            for key, limit in FIELD_LIMITS.items():
                text = _text(f.get(key))
                if not text:
                    errors.add(
                        (*where, "fields", j, key), "BASE_TYPE_REQUIRED", "This field is required"
                    )
                elif len(text) > limit:
                    errors.too_long((*where, "fields", j, key), limit)
        if len(_text((embed.get("footer") or {}).get("text"))) > FOOTER_TEXT_MAX:
            errors.too_long((*where, "footer", "text"), FOOTER_TEXT_MAX)
        if len(_text((embed.get("author") or {}).get("name"))) > AUTHOR_NAME_MAX:
            errors.too_long((*where, "author", "name"), AUTHOR_NAME_MAX)
    if sum(embed_chars(e) for e in embeds) > EMBED_TOTAL_MAX:
        errors.add(
            ("embeds",),
            "MAX_EMBED_SIZE_EXCEEDED",
            f"Embed size exceeds maximum size of {EMBED_TOTAL_MAX}",
        )


def check_components(components: list[JSON], errors: FormErrors) -> None:
    if len(components) > ACTION_ROWS_MAX:
        errors.too_long(("components",), ACTION_ROWS_MAX)
    seen: set[str] = set()
    for i, row in enumerate(components):
        if int(row.get("type") or 0) != ACTION_ROW:
            continue
        items = list(row.get("components") or [])
        if len(items) > ROW_ITEMS_MAX:
            errors.too_long(("components", i, "components"), ROW_ITEMS_MAX)
        for j, item in enumerate(items):
            where: tuple[str | int, ...] = ("components", i, "components", j)
            if item.get("label") is not None and len(str(item["label"])) > LABEL_MAX:
                errors.too_long((*where, "label"), LABEL_MAX)
            custom_id = item.get("custom_id")
            if custom_id is None:
                continue
            if not 1 <= len(str(custom_id)) <= CUSTOM_ID_MAX:
                errors.add(
                    (*where, "custom_id"),
                    "BASE_TYPE_BAD_LENGTH",
                    f"Must be between 1 and {CUSTOM_ID_MAX} in length.",
                )
            elif str(custom_id) in seen:
                errors.add(
                    (*where, "custom_id"),
                    "COMPONENT_CUSTOM_ID_DUPLICATED",
                    "Component custom id cannot be duplicated",
                )
            seen.add(str(custom_id))


def check_message(body: JSON) -> None:
    """Raise 400 / 50035 when a message body (create or edit) is over any limit."""
    errors = FormErrors()
    content = body.get("content")
    if content is not None and len(str(content)) > CONTENT_MAX:
        errors.too_long(("content",), CONTENT_MAX)
    embeds = body.get("embeds")
    if embeds is None and body.get("embed") is not None:
        embeds = [body["embed"]]
    if embeds:
        check_embeds(list(embeds), errors)
    components = body.get("components")
    if components and not (int(body.get("flags") or 0) & COMPONENTS_V2):
        check_components(list(components), errors)
    errors.raise_any()


AUTOCOMPLETE_CHOICES_MAX = 25
CHOICE_NAME_MAX = 100
CHOICE_VALUE_MAX = 100


def check_autocomplete(data: JSON) -> None:
    """An autocomplete answer: at most 25 choices, each name 1-100 characters and a string
    value at most 100 (developers/interactions/application-commands, option choice)."""
    errors = FormErrors()
    choices = list(data.get("choices") or [])
    if len(choices) > AUTOCOMPLETE_CHOICES_MAX:
        errors.too_long(("data", "choices"), AUTOCOMPLETE_CHOICES_MAX)
    for i, choice in enumerate(choices):
        name = str(choice.get("name") or "")
        if not 1 <= len(name) <= CHOICE_NAME_MAX:
            errors.add(
                ("data", "choices", i, "name"),
                "BASE_TYPE_BAD_LENGTH",
                f"Must be between 1 and {CHOICE_NAME_MAX} in length.",
            )
        value = choice.get("value")
        if isinstance(value, str) and len(value) > CHOICE_VALUE_MAX:
            errors.too_long(("data", "choices", i, "value"), CHOICE_VALUE_MAX)
    errors.raise_any()


def name_error(name: str) -> tuple[str, str] | None:
    """Why Discord refuses a webhook name or username, as (code, message); None if it is
    fine."""
    text = name.strip()
    if not 1 <= len(text) <= WEBHOOK_NAME_MAX:
        return "BASE_TYPE_BAD_LENGTH", f"Must be between 1 and {WEBHOOK_NAME_MAX} in length."
    lowered = text.lower()
    for word in FORBIDDEN_IN_NAMES:
        if word in lowered:
            return "USERNAME_INVALID_CONTAINS", f'Username cannot contain "{word}"'
    if lowered in RESERVED_NAMES:
        return "USERNAME_INVALID", f'Username cannot be "{lowered}"'
    return None


def check_webhook_name(field_name: str, name: Any) -> None:
    """400 / 50035 for a webhook name (create: ``name``) or username (execute:
    ``username``) that Discord refuses."""
    problem = name_error("" if name is None else str(name))
    if problem is not None:
        errors = FormErrors()
        errors.add((field_name,), *problem)
        errors.raise_any()


def check_webhook_count(existing: int) -> None:
    if existing >= WEBHOOKS_PER_CHANNEL:
        raise LimitRefused(
            400, MAX_WEBHOOKS, f"Maximum number of webhooks reached ({WEBHOOKS_PER_CHANNEL})"
        )


# -- text Discord cannot carry -------------------------------------------------------------
# Discord keeps strings as UTF-8, where a lone UTF-16 surrogate (U+D800..U+DFFF without its
# pair) cannot exist: Discord refuses it (discord/discord-api-docs#6561: "not representable
# in utf8"), and a JSON reader such as orjson (discord.py[speed]) refuses the escape too.
BAD_UNICODE = "STRING_TYPE_INVALID_UNICODE"
#: Control characters a Discord client never lets a member type: C0 (but tab, line feed and
#: carriage return) and DEL.
TYPED_CONTROLS = frozenset(chr(c) for c in (*range(0x20), 0x7F)) - {"\t", "\n", "\r"}


def lone_surrogate_at(text: str) -> int | None:
    """The index of the first unpaired surrogate in ``text``, or None. Python keeps a valid
    pair as one code point, so any surrogate code point left is unpaired."""
    return next((i for i, ch in enumerate(text) if 0xD800 <= ord(ch) <= 0xDFFF), None)


JsonPath = tuple[str | int, ...]


def lone_surrogate_path(value: Any, path: JsonPath = ()) -> JsonPath | None:
    """Where in a JSON value (keys included) a string holds a lone surrogate, or None."""
    if isinstance(value, str):
        return path if lone_surrogate_at(value) is not None else None
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(key, str) and lone_surrogate_at(key) is not None:
                return (*path, key)
            found = lone_surrogate_path(item, (*path, key))
            if found is not None:
                return found
    if isinstance(value, list):
        for i, item in enumerate(value):
            found = lone_surrogate_path(item, (*path, i))
            if found is not None:
                return found
    return None


def check_unicode(body: Any) -> None:
    """400 / 50035 when any string of a request body holds a lone surrogate."""
    path = lone_surrogate_path(body)
    if path is not None:
        errors = FormErrors()
        errors.add(path or ("_root",), BAD_UNICODE, "Invalid unicode: a lone surrogate.")
        errors.raise_any()


def typed_text_problem(text: str, limit: int = CONTENT_MAX) -> str | None:
    """Why a Discord client would not send ``text`` as a member's message, or None."""
    at = lone_surrogate_at(text)
    if at is not None:
        return (f"a lone surrogate U+{ord(text[at]):04X} at character {at} "
                "(not Unicode text: Discord keeps UTF-8)")
    control = next((i for i, ch in enumerate(text) if ch in TYPED_CONTROLS), None)
    if control is not None:
        return (f"control character U+{ord(text[control]):04X} at character {control} "
                "(only tab, line feed and carriage return are allowed)")
    if len(text) > limit:
        return f"{len(text)} characters, at most {limit} (Discord's limit)"
    return None
