"""The text formats: Markdown (to paste in Discord, forums, GitHub) and BBCode (forums).

One layout per thing (a round result, a whole duel) written once over ``Markup``, whose
two subclasses say how each format writes bold, lists, code and headings and hold the
format's one escape function (after avrae/d20's stringifiers: one result object,
interchangeable renderers). A new text format is one more subclass.

Every heading and sentence goes through the catalog (bot/i18n/context.py) in the caller's
``speaking`` scope (an export in its duel's language).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from bot.i18n.context import _
from bot.presentation.views import HistoryView, RollLine, RoundResultView, RoundRow
from bot.presentation.words import (
    VERIFY_HINT,
    capital,
    follows_undo_note,
    one_line,
    round_label,
    rules_in_force,
    ruleset_title,
    ruleset_words,
    status_text,
    undone_note,
)

_ZWSP = "\u200b"
_MD_SPECIAL = re.compile(r"([\\`*_~|<\[\]])")
_MENTION = re.compile(r"@(everyone|here)", re.IGNORECASE)


class Markup:
    """How a text format writes things. Subclasses set the primitives."""

    name = ""
    #: Whether a duel's export titles every round (else only undone and re-rolled ones).
    titles_every_round = True

    def escape(self, text: str) -> str:
        raise NotImplementedError

    def bold(self, text: str) -> str:
        raise NotImplementedError

    def italic(self, text: str) -> str:
        raise NotImplementedError

    def code(self, text: str) -> str:
        raise NotImplementedError

    def prose(self, text: str) -> str:
        """Our own text (no user input) with `code spans` in this format."""
        return text

    def heading(self, level: int, text: str) -> str:
        raise NotImplementedError

    def bullets(self, items: Iterable[str]) -> list[str]:
        raise NotImplementedError

    def detail(self, text: str) -> str:
        """A line of details under a headline (the outcome's winner, seed...)."""
        return text


class Markdown(Markup):
    name = "markdown"

    def escape(self, text: str) -> str:
        """User text safe inside Markdown: specials escaped, @everyone/@here defused."""
        escaped = _MD_SPECIAL.sub(r"\\\1", one_line(text))
        return _MENTION.sub(lambda m: "@" + _ZWSP + m.group(1), escaped)

    def bold(self, text: str) -> str:
        return f"**{text}**"

    def italic(self, text: str) -> str:
        return f"*{text}*"

    def code(self, text: str) -> str:
        return f"`{text}`"

    def heading(self, level: int, text: str) -> str:
        return f"{'#' * level} {text}"

    def bullets(self, items: Iterable[str]) -> list[str]:
        return [f"- {item}" for item in items]

    def detail(self, text: str) -> str:
        return f"- {text}"


class BBCode(Markup):
    name = "bbcode"
    titles_every_round = False

    def escape(self, text: str) -> str:
        """User text safe inside BBCode: a zero-width space after '[' stops tag parsing."""
        return one_line(text).replace("[", "[" + _ZWSP)

    def bold(self, text: str) -> str:
        return f"[b]{text}[/b]"

    def italic(self, text: str) -> str:
        return f"[i]{text}[/i]"

    def code(self, text: str) -> str:
        return text

    def prose(self, text: str) -> str:
        return text.replace("`", "")

    def heading(self, level: int, text: str) -> str:
        return self.bold(text)

    def bullets(self, items: Iterable[str]) -> list[str]:
        return ["[list]", *(f"[*]{item}" for item in items), "[/list]"]


MARKDOWN = Markdown()
BBCODE = BBCode()
MARKUPS = {m.name: m for m in (MARKDOWN, BBCODE)}


def _heading(a: str, b: str, duel_id: int | None, label: str) -> str:
    if duel_id is not None and label:
        return _("Duel {duel}, {label}: {a} vs {b}", duel=duel_id, label=label, a=a, b=b)
    if duel_id is not None:
        return _("Duel {duel}: {a} vs {b}", duel=duel_id, a=a, b=b)
    if label:
        return _("{label}: {a} vs {b}", label=label, a=a, b=b)
    return _("{a} vs {b}", a=a, b=b)


def _roll(m: Markup, roll: RollLine, names: dict[str, str]) -> str:
    zero = isinstance(roll.sides, int) and roll.sides <= 0
    who = names.get(roll.for_side, m.escape(roll.for_side))
    fields = {
        "label": m.code(roll.label),
        "sides": roll.sides,
        "value": roll.value,
        "who": who,
        "purpose": roll.purpose,
    }
    if zero:
        return _(
            "{label}: DICE{sides} = {value} (X <= 0 always yields 0) for {who} ({purpose})",
            **fields,
        )
    return _("{label}: DICE{sides} = {value} for {who} ({purpose})", **fields)


def round_result(view: RoundResultView, m: Markup, *, verify_hint: bool = True) -> str:
    """A round's result in a text format, ready to paste: the one layout of every format.
    The outcome first (issue 26), then the duellists and their moves, the rolls and the
    rule-cited log; the ruleset's own facts (``view.facts``) and the fairness data in full
    close it."""
    names = {f.side: m.escape(f.name) for f in (view.a, view.b)}
    head = _heading(names["a"], names["b"], view.duel_id, view.label)
    sentence = m.escape(view.sentence)
    lines = [
        f"{m.bold(head)} ({ruleset_title(view.ruleset)})",
        "",
        m.bold(_("Outcome: {sentence}", sentence=sentence)),
    ]
    duellists = [
        f"{m.bold(f'{f.side.upper()}: {names[f.side]}')}: "
        f"{m.escape(', '.join(f'{label} {value}' for label, value in f.summary))}; "
        f"{view.move_noun}: {m.bold(f.move)}"
        for f in (view.a, view.b)
    ]
    if view.house_rules:
        duellists.append(_("House rules: {rules}", rules=m.escape(view.house_rules)))
    lines += m.bullets(duellists)
    lines += ["", m.bold(_("Rolls"))]
    lines += m.bullets([_roll(m, r, names) for r in view.rolls] or [_("no dice were rolled")])
    lines += ["", m.bold(_("Adjudication"))]
    lines += m.bullets(m.escape(line) for line in view.log)
    winner = m.escape(view.winner) if view.winner is not None else _("none")
    lines += [
        "",
        m.detail(_("Winner: {winner}", winner=winner)),
        *(m.detail(f"{m.escape(label)}: {m.escape(value)}") for label, value in view.facts),
    ]
    if view.seed is not None:
        lines.append(m.detail(_("Seed (revealed): {seed}", seed=m.code(view.seed))))
    if view.commitment is not None:
        lines.append(
            m.detail(
                _(
                    "Commitment (SHA-256 of the seed): {commitment}",
                    commitment=m.code(view.commitment),
                )
            )
        )
    if verify_hint:
        lines += ["", m.italic(m.prose(_(VERIFY_HINT)))]
    return "\n".join(lines) + "\n"


def _round_name(row: RoundRow, noun: str) -> str:
    """A round's name in a heading: its label as the close fixed it ("Round 1, forfeit
    choice", "Step 4"), else the ruleset's noun and the number."""
    if row.result is not None and row.result.label:
        return capital(row.result.label)
    return capital(round_label(noun, row.number))


def _round_title(row: RoundRow, m: Markup, noun: str) -> str:
    undone = ""
    if row.status == "undone":
        by = _("user {id}", id=row.undone_by) if row.undone_by is not None else None
        undone = undone_note(by, m.escape(row.undo_reason) if row.undo_reason else None)
    return f"{_round_name(row, noun)}{undone}{follows_undo_note(row.follows_undo_of)}"


def duel_export(history: HistoryView, m: Markup) -> str:
    """A whole duel in a text format. Rounds still open stay sealed: only their number,
    commitment and deadline appear."""
    d = history.duel
    shown = status_text(d.status)
    status = (
        _("Status: {status}, winner {winner}", status=shown, winner=m.escape(d.winner_name))
        if d.winner_name
        else _("Status: {status}", status=shown)
    )
    a, b = m.escape(d.a.name), m.escape(d.b.name)
    parts = [
        m.heading(1, _("Duel {duel}: {a} vs {b}", duel=d.id, a=a, b=b)),
        status,
        "",
        _("Rules fixed for this duel:"),
        *m.bullets(
            _("{name}: {meaning}", name=name, meaning=m.escape(meaning))
            for name, meaning in rules_in_force(d.ruleset, d.options)
        ),
        "",
    ]
    noun = ruleset_words(d.ruleset).round.one
    for row in history.rounds:
        name = _round_name(row, noun)
        if row.result is None:
            sealed = (
                _("{name}: open (commitment {commitment})", name=name, commitment=row.commitment)
                if row.status == "open"
                else f"{name}: {status_text(row.status)}"
            )
            parts.append(m.heading(2, sealed) + "\n")
            continue
        title = _round_title(row, m, noun)
        if m.titles_every_round or title != name:
            parts.append(m.heading(2, title))
        parts.append(round_result(row.result, m, verify_hint=False))
    return "\n".join(parts)
