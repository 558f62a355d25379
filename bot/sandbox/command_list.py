"""The slash commands as the sandbox page lists them (one entry per runnable path), and the
stand-in's refusals in plain words."""

from __future__ import annotations

import re

from bot.standin.models import JSON

# Application command option types (Discord API docs, "Application Command Option Type").
SUB_COMMAND, SUB_COMMAND_GROUP = 1, 2

#: A Python list of names in a stand-in message: ['duel', 'member'].
PY_LIST = re.compile(r"\[('[^']*'(?:, '[^']*')*)\]")


def plain_words(message: str) -> str:
    """The stand-in's refusal as a person reads it: no "fakediscord:" prefix, no Python list
    ("/round needs required option(s) ['duel']" -> "/round needs these required options:
    duel")."""
    text = message.removeprefix("fakediscord: ")
    text = text.replace("needs required option(s)", "needs these required options:")
    return PY_LIST.sub(lambda m: ", ".join(n.strip("'") for n in m.group(1).split(", ")), text)


def flatten_command(cmd: JSON, base: JSON) -> list[JSON]:
    """One entry per runnable command path ("round open"), each with its options."""
    top = list(cmd.get("options") or [])
    entries: list[JSON] = []

    def leaf(group: str | None, sub: str | None, node: JSON) -> JSON:
        parts = [cmd["name"], group, sub]
        return {
            **base,
            "path": " ".join(p for p in parts if p),
            "group": group,
            "subcommand": sub,
            "description": node.get("description", ""),
            "options": [_option(o) for o in node.get("options") or []],
        }

    subs = [o for o in top if int(o.get("type", 0)) in (SUB_COMMAND, SUB_COMMAND_GROUP)]
    if not subs:
        return [leaf(None, None, cmd)]
    for opt in subs:
        if int(opt["type"]) == SUB_COMMAND:
            entries.append(leaf(None, opt["name"], opt))
        else:
            entries += [leaf(opt["name"], s["name"], s) for s in opt.get("options") or []]
    return entries


def _option(spec: JSON) -> JSON:
    keys = ("name", "description", "type", "required", "choices", "autocomplete",
            "min_value", "max_value", "min_length", "max_length", "channel_types")
    return {k: spec.get(k) for k in keys if k in spec} | {
        "required": bool(spec.get("required")),
        "autocomplete": bool(spec.get("autocomplete")),
    }
