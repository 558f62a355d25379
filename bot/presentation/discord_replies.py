"""Pure rendering of service views into interaction replies (text and embeds). No I/O.

Every text goes through the catalog (bot/i18n/context.py) in the caller's ``speaking``
scope: an interaction's reply in the member's language, a DM in theirs.

Nothing here ever shows a move of a round that is still open: views of open rounds carry
only who has moved.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from datetime import datetime
from decimal import Decimal

import discord
from babel import Locale

from bot.i18n.context import _, _n, current_language
from bot.presentation.discord_posts import fighter_text, rules_text

# The settings reply (bot/presentation/discord_settings.py), named here too for the cogs.
from bot.presentation.discord_settings import LATER_DUELS_ONLY as LATER_DUELS_ONLY
from bot.presentation.discord_settings import later_duels_only as later_duels_only
from bot.presentation.discord_settings import settings_embed as settings_embed
from bot.presentation.discord_text import COLOUR_REPLY, ELLIPSIS, safe, timestamp, truncate
from bot.presentation.views import history_view
from bot.presentation.words import (
    capital,
    closes_text,
    round_label,
    ruleset_words,
    status_text,
    step_words_of,
    undone_note,
)
from bot.rules import registry
from bot.rules.terms import StepWords
from bot.services.views import (
    ChallengeOutcome,
    DuelHistory,
    DuelOdds,
    DuelView,
    OpenDuelForUser,
    ProfileView,
    RoundClosed,
    RoundOpened,
    RoundStatus,
    SubmissionReceipt,
)

COLOUR = COLOUR_REPLY
REPLY_MAX = 1900  # characters of a text reply (Discord allows 2,000; room for a notice)
LINE_MAX = 400  # one line of a listing; a longer one is cut


def earlier_note(count: int, *, at_least: bool = False) -> str:
    """Said where a listing leaves out its oldest entries."""
    if at_least:
        return _("{ellipsis} {count} or more earlier: /duel export", ellipsis=ELLIPSIS, count=count)
    return _("{ellipsis} {count} earlier: /duel export", ellipsis=ELLIPSIS, count=count)


def more_note(count: int, *, at_least: bool = False) -> str:
    if at_least:
        return _("{ellipsis} and {count}+ more", ellipsis=ELLIPSIS, count=count)
    return _("{ellipsis} and {count} more", ellipsis=ELLIPSIS, count=count)


def fit_lines(
    head: list[str],
    lines: list[str],
    *,
    keep: str,
    note: Callable[..., str],
    tail: list[str] | None = None,
    hidden: int = 0,
    limit: int = REPLY_MAX,
) -> str:
    """``head``, as many of ``lines`` as fit and ``tail``, within ``limit`` characters.

    ``keep="last"`` keeps the last lines (a history oldest first: the newest stay) and puts
    ``note(left_out)`` before them; ``keep="first"`` keeps the first ones and puts the note
    after them. ``hidden``: entries left out before (the count becomes "N or more").
    Nothing is ever cut in the middle of a line except a single overlong line."""
    head = [truncate(line, LINE_MAX) for line in head]
    tail = [truncate(line, limit // 2) for line in tail or []]
    body = [truncate(line, LINE_MAX) for line in lines]
    fixed = sum(len(line) + 1 for line in head + tail)

    def noted(left_out: int) -> str:
        return note(left_out + hidden, at_least=True) if hidden else note(left_out)

    def size(kept: list[str], left_out: int) -> int:
        notes = len(noted(left_out)) + 1 if left_out or hidden else 0
        return fixed + sum(len(line) + 1 for line in kept) + notes

    ordered = body if keep == "first" else body[::-1]
    kept: list[str] = []
    for line in ordered:
        if size([*kept, line], len(body) - len(kept) - 1) > limit:
            break
        kept.append(line)
    left_out = len(body) - len(kept)
    notes = [noted(left_out)] if left_out or hidden else []
    middle = kept + notes if keep == "first" else notes + kept[::-1]
    return "\n".join(head + middle + tail)[:limit]


def deadline_text(when: datetime | None, words: StepWords | None = None) -> str:
    if when is None:
        if words is not None and words.closes == "itself":
            return _("no deadline ({closes})", closes=closes_text(words))
        return _(
            "no deadline (the commander closes the {round})",
            round=words.round if words else _("round"),
        )
    return timestamp(when)


def receipt_text(receipt: SubmissionReceipt) -> str:
    words = receipt.words or step_words_of(None, receipt.round_no, None)
    noun = capital(words.move)
    if receipt.changed_from is not None:
        before = receipt.changed_from_label or receipt.changed_from
        head = _(
            "{Move} changed from **{before}** to **{after}** for duel #{duel}, {label}.",
            Move=noun,
            before=before,
            after=receipt.move_label,
            duel=receipt.duel_id,
            label=words.label,
        )
    else:
        head = _(
            "{Move} received: **{chosen}** for duel #{duel}, {label}.",
            Move=noun,
            chosen=receipt.move_label,
            duel=receipt.duel_id,
            label=words.label,
        )
    lines = [head, _("Deadline: {deadline}.", deadline=deadline_text(receipt.deadline, words))]
    if receipt.closed is not None:
        lines.append(
            _(
                "All awaited {move}s are in: the {round} has closed and the result is being "
                "posted.",
                move=words.move,
                round=words.round,
            )
            if words.closes == "itself"
            else _(
                "All {move}s are in: the {round} has closed and the result is being posted.",
                move=words.move,
                round=words.round,
            )
        )
    else:
        lines.append(
            _(
                "Your {move} stays secret until the {round} closes.",
                move=words.move,
                round=words.round,
            )
        )
    return "\n".join(lines)


def round_opened_text(opened: RoundOpened) -> str:
    """The `/round open` reply: the round (step) in its ruleset's words, its deadline and
    commitment, and what the awaited duellists are sent: move buttons only to those whose
    prompt has them."""
    duel = opened.duel
    words = step_words_of(duel.ruleset, opened.round_no, opened.words)
    names = {side: safe(duel.duellist(side).name) for side in ("a", "b")}

    def sent_buttons(sides: tuple[str, ...]) -> str:
        if len(sides) == 2:
            return _("Both duellists are being sent their {move} buttons by DM.", move=words.move)
        return _(
            "{name} is being sent their {move} buttons by DM.",
            name=names[sides[0]],
            move=words.move,
        )

    def sent_prompt(sides: tuple[str, ...]) -> str:
        if len(sides) == 2:
            return _(
                "Both duellists are being sent a prompt by DM, to answer with the {move} as "
                "text.",
                move=words.move,
            )
        return _(
            "{name} is being sent a prompt by DM, to answer with the {move} as text.",
            name=names[sides[0]],
            move=words.move,
        )

    buttons = tuple(s for s in opened.awaiting if s in opened.with_buttons)
    typed = tuple(s for s in opened.awaiting if s not in opened.with_buttons)
    sent = []
    if buttons:
        sent.append(sent_buttons(buttons))
    if typed:
        sent.append(sent_prompt(typed))
    if not opened.awaiting:
        sent.append(_("Nobody is asked to choose."))
    return (
        _(
            "{label} of duel #{duel} is open. Deadline: {deadline}.",
            label=capital(words.label),
            duel=duel.id,
            deadline=deadline_text(opened.deadline, words),
        )
        + "\n"
        + _("Commitment: `{commitment}`", commitment=opened.commitment)
        + "\n"
        + " ".join(sent)
    )


def round_closed_text(closed: RoundClosed) -> str:
    """The `/round close` reply, in the ruleset's words."""
    duel = closed.duel
    noun = ruleset_words(duel.ruleset).round.one
    label = closed.result.label or round_label(noun, closed.round_no)
    closed_text = _(
        "{label} of duel #{duel} is closed; the result is being posted in {channel}.",
        label=capital(label),
        duel=duel.id,
        channel=f"<#{duel.post_channel_id}>",
    )
    # Said when the result ended the duel: no next round to open (the sandbox's guide
    # moves on to the export on these words).
    if duel.status == "ended":
        return closed_text + " " + _(
            "The duel is over: no {round} opens after this one.", round=noun
        )
    return closed_text


def undone_reply(duel: DuelView) -> str:
    """The `/round undo` reply: the duel as it now stands, in its ruleset's words."""
    played = ruleset_words(duel.ruleset).round.count(duel.rounds_played)
    return _(
        "The last result of duel #{duel} was undone; the duel is {state} with {played} played.",
        duel=duel.id,
        state=duel.live_text,
        played=played,
    )


def moves_help() -> str:
    """How to answer, in each ruleset's words (DM help)."""
    return " ".join(rules.help_text() for rules in registry.all_rulesets())


def profile_text(profile: ProfileView) -> str:
    """Every sheet of the member, as each ruleset summarises it."""
    parts = []
    for ruleset_id, sheet in sorted(profile.sheets.items()):
        rules = registry.get_or_none(ruleset_id)
        if rules is None:
            continue
        summary = ", ".join(
            f"{safe(label, 30)} {safe(value, 40)}" for label, value in rules.fighter_summary(sheet)
        )
        parts.append(f"{safe(rules.title, 40)} ({rules.id}): {summary or '—'}")
    return f"**{safe(profile.display_name)}**: " + ("; ".join(parts) or _("no stats yet"))


def duel_title(duel: DuelView) -> str:
    return _(
        "Duel #{duel}: {a} vs {b}", duel=duel.id, a=safe(duel.a.name), b=safe(duel.b.name)
    )


def duel_state_text(duel: DuelView) -> str:
    if duel.status == "ended":
        if duel.winner is not None:
            return _("ended: **{name}** won", name=safe(duel.duellist(duel.winner).name))
        return _("ended: {reason}", reason=safe(duel.end_reason or _("no winner"), 300))
    return duel.live_text


def duel_embed(duel: DuelView) -> discord.Embed:
    embed = discord.Embed(title=duel_title(duel), colour=COLOUR)
    rules = registry.get_or_none(duel.ruleset)
    for d in (duel.a, duel.b):
        embed.add_field(
            name=f"{d.side.upper()}: {safe(d.name)}",
            value=f"<@{d.user_id}>\n{fighter_text(rules, d.sheet)}",
        )
    embed.add_field(name=_("State"), value=duel_state_text(duel), inline=False)
    played = capital(ruleset_words(duel.ruleset).round.many)
    embed.add_field(name=_("{rounds} played", rounds=played), value=str(duel.rounds_played))
    embed.add_field(name=_("Channel"), value=f"<#{duel.post_channel_id}>")
    embed.add_field(
        name=_("Rules fixed for this duel"),
        value=rules_text(duel.ruleset, duel.options),
        inline=False,
    )
    if duel.open_round is not None:
        r = duel.open_round
        words = step_words_of(duel.ruleset, r.number, r.words)
        moved = [
            _("{name}: moved", name=safe(duel.duellist(s).name))
            if r.submitted[s]
            else _("{name}: waiting", name=safe(duel.duellist(s).name))
            for s in ("a", "b")
        ]
        embed.add_field(
            name=_("{label} (open)", label=capital(words.label)),
            value=_("Deadline: {deadline}", deadline=deadline_text(r.deadline, words))
            + "\n"
            + "\n".join(moved)
            + "\n"
            + _("Commitment: `{commitment}`", commitment=r.commitment),
            inline=False,
        )
    return embed


def round_status_text(status: RoundStatus) -> str:
    duel = status.duel
    words = step_words_of(duel.ruleset, status.round_no or 0, status.words)
    if not status.is_open:
        if status.round_no:
            return _(
                "{title}: no {round} is open ({label} was the last); the duel is {state}.",
                title=duel_title(duel),
                round=words.round,
                label=words.label,
                state=duel_state_text(duel),
            )
        return _(
            "{title}: no {round} is open (no {round} yet); the duel is {state}.",
            title=duel_title(duel),
            round=words.round,
            state=duel_state_text(duel),
        )
    lines = [_("{title}, {label}: open.", title=duel_title(duel), label=words.label)]
    lines.append(_("Deadline: {deadline}.", deadline=deadline_text(status.deadline, words)))
    for side in ("a", "b"):
        who = safe(duel.duellist(side).name)
        lines.append(
            _("- {name} has sent a {move}", name=who, move=words.move)
            if status.submitted.get(side)
            else _("- {name} has not moved yet", name=who)
        )
    return "\n".join(lines)


def duel_list_text(duels: list[DuelView], *, complete: bool = True) -> str:
    """The duels, newest first (as the service lists them); when they do not fit, the oldest
    are left out and counted ("N earlier: /duel export"). ``complete=False``: the service had
    more than it returned, so the count is a lower bound."""
    if not duels:
        return _("No live duels in this server. A commander starts one with `/duel start`.")
    lines = []
    for d in duels:
        extra = ""
        if d.open_round is not None:
            label = step_words_of(d.ruleset, d.open_round.number, d.open_round.words).label
            deadline = timestamp(d.open_round.deadline)
            extra = _(", {label} open ({deadline})", label=label, deadline=deadline)
        lines.append(
            _(
                "**#{duel}** {a} vs {b}: {state}",
                duel=d.id,
                a=safe(d.a.name),
                b=safe(d.b.name),
                state=duel_state_text(d),
            )
            + extra
        )
    return fit_lines([], lines, keep="first", note=earlier_note, hidden=0 if complete else 1)


def history_text(history: DuelHistory) -> str:
    view = history_view(history)
    duel = view.duel
    noun = ruleset_words(duel.ruleset).round
    head = [f"**{duel_title(duel)}**: {duel_state_text(duel)}"]
    if not view.rounds:
        head.append(_("No {rounds} yet.", rounds=noun.many))
    lines: list[str] = []
    for r in view.rounds:
        if r.status == "open":
            opened = duel.open_round
            words = step_words_of(
                duel.ruleset,
                r.number,
                opened.words if opened is not None and opened.number == r.number else None,
            )
            lines.append(
                _(
                    "{label}: open, deadline {deadline}",
                    label=capital(words.label),
                    deadline=deadline_text(r.deadline, words),
                )
                + "\n  "
                + _("commitment `{commitment}`", commitment=r.commitment)
            )
        elif r.status == "cancelled":
            lines.append(
                _(
                    "{label}: cancelled when the duel was ended",
                    label=capital(round_label(noun.one, r.number)),
                )
            )
        elif r.result is not None:
            result = r.result
            moves = _("{a} vs {b}", a=result.a.move, b=result.b.move)
            text = safe(result.sentence, 300)
            undone = ""
            if r.status == "undone":
                by = f"<@{r.undone_by}>" if r.undone_by is not None else None
                undone = undone_note(by, safe(r.undo_reason, 200) if r.undo_reason else None)
            after = (
                ""
                if r.follows_undo_of is None
                else " "
                + _(
                    "[after the undo of {label}]",
                    label=round_label(noun.one, r.follows_undo_of),
                )
            )
            # The seed and commitment in full: a result post shows them shortened.
            fairness = (
                _("seed `{seed}`", seed=result.seed) + " · " if result.seed else ""
            ) + _("commitment `{commitment}`", commitment=r.commitment)
            # The round's line is cut, never its fairness line (LINE_MAX for both).
            name = capital(result.label or round_label(noun.one, r.number))
            said = truncate(
                f"{name}{undone}{after}: {moves}: {text}",
                LINE_MAX - len(fairness) - 3,
            )
            lines.append(f"{said}\n  {fairness}")
        else:
            lines.append(f"{capital(round_label(noun.one, r.number))}: {status_text(r.status)}")
    # Oldest first; when the rounds do not fit, the newest stay and the oldest are counted.
    return fit_lines(head, lines, keep="last", note=earlier_note)


def open_rounds_text(rounds: Sequence[OpenDuelForUser]) -> str:
    """A duellist's open rounds (the DM "status" answer), capped to fit one message:
    past that, "... and N more"."""
    lines = [
        _(
            "- duel #{duel} vs {opponent}, round {round}, deadline {deadline}",
            duel=r.duel_id,
            opponent=safe(r.opponent_name),
            round=r.round_no,
            deadline=deadline_text(r.deadline),
        )
        for r in rounds
    ]
    tail = _(
        "Send your move, or `#{duel} <move>` to name the duel.", duel=rounds[0].duel_id
    ) + (" " + moves_help())
    head = _n("Your open rounds ({count}):", "Your open rounds ({count}):", len(rounds))
    return fit_lines([head], lines, keep="first", note=more_note, tail=[tail])


def short_outcome(outcome: str, a_name: str, b_name: str) -> str:
    """An outcome id in a few words for a table cell ("a_wins" -> "Ann wins", "both_retreat"
    -> "both retreat", "forfeit_choice" -> "forfeit choice"): the ids name sides as a_/b_ in
    every ruleset; no code is shown as it is stored. (Not the ruleset's sentence: a cell is
    short, and a sentence such as "Both duellists retreat" would read as a move.)"""
    words = outcome.split("_")
    if words and words[0] in ("a", "b"):
        words[0] = a_name if words[0] == "a" else b_name
    return " ".join(words)


def odds_text(odds: DuelOdds) -> str:
    """A compact odds table for Discord (percentages; exact fractions are in the CLI)."""
    duel = odds.duel
    a, b = safe(duel.a.name, 30), safe(duel.b.name, 30)
    lines = []
    for a_label, b_label, dist in odds.rows:
        cells = ", ".join(f"{short_outcome(o, a, b)} {percent(float(p))}" for o, p in dist.items())
        lines.append(
            _("{a} vs {b}: {odds}", a=safe(a_label, 40), b=safe(b_label, 40), odds=cells)
        )
    return "\n".join(lines)


def percent(share: float) -> str:
    """A share (0.125) as a percentage with one decimal ("12.5%"; German "12,5 %")."""
    # Rounded as before (Python's one decimal), then written the language's way: its own
    # percent pattern with one decimal.
    shown = Decimal(f"{share * 100:.1f}") / 100
    locale = Locale.parse(current_language())
    pattern = copy.copy(locale.percent_formats[None])
    pattern.frac_prec = (1, 1)
    return str(pattern.apply(shown, locale))


def challenge_reply(outcome: ChallengeOutcome) -> str:
    """The commander's answer to /duel challenge, in the ruleset's words: the outcome
    sentence, each penalty, the duel it started."""
    text = " ".join(f"{safe(s, 300)}." for s in (outcome.sentence, *outcome.penalties))
    if outcome.duel is not None:
        text += " " + _(
            "Duel #{duel} started: open round 1 with `/round open duel:{duel}`.",
            duel=outcome.duel.id,
        )
    return text
