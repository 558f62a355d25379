"""The archive page's own texts (issue 28), in the current language (the duel's: the page's
builder, bot/archive/page.py, opens the scope): the HTML template's (``html_texts``) and
the dictionary its script reads (``script_texts``, the ``duel-texts`` element; keys are
the script's, docs/archive.md). See bot/archive/texts.py for how they travel."""

from __future__ import annotations

from typing import Any

from bot.archive.texts import (
    iso_moment,
    kept,
    markup,
    plural_forms,
    reader_time,
    slot,
    text,
)
from bot.i18n.context import _, _n, _p

#: The command the page names, filled in by its script with the duel's file name.
_VERIFY_COMMAND = '<code id="verify-command">duelbot verify duel-N.json</code>'  # i18n: not shown
#: Where the export holds moments the page shows (a round's and the duel's).
_DUEL_MOMENTS = ("created_at", "ended_at", "exported_at")
_ROUND_MOMENTS = ("opened_at", "closed_at", "undone_at", "deadline")


def html_texts() -> dict[str, str]:
    """The template's texts (page.html's ``{{t_...}}``), escaped for HTML."""
    return {
        "t_kicker": text(_("duelbot archive")),
        "t_noscript": markup(
            _(
                "This page shows the duel and checks its dice with JavaScript. Without it, "
                "the whole duel is still here as JSON, in the {element} script element of "
                "the page source.",
                element=slot("element"),
            ),
            element="<code>duel-data</code>",
        ),
        "t_verify_heading": text(_("Provably fair dice")),
        "t_verify_intro": markup(
            _(
                "Every die of this duel was derived from a secret seed fixed, and committed "
                "to, before the round opened. Your browser can re-derive every roll and "
                "every commitment itself, with no server involved (SHA-256 and "
                "HMAC-SHA256, as {document} of duelbot describes).",
                document=slot("document"),
            ),
            document="<em>docs/fairness.md</em>",
        ),
        "t_verify_button": text(_("Verify every roll")),
        "t_download_button": text(_("Download the JSON")),
        "t_not_checked_yet": text(_("Not checked yet.")),
        "t_verify_scope": markup(
            _(
                "Verify checks each seed against its commitment, re-derives every roll, "
                "and checks that the rolls are numbered 0, 1, 2, … in order, that each "
                "die is one of the ruleset's dice, and that each round's log states "
                "exactly its recorded rolls. {warning} (who won each round, and the duel): "
                "that needs the ruleset's rules, which duelbot runs. Download the JSON, "
                "then run {command} (duelbot's command line): it re-adjudicates every "
                "round and compares the outcome, winner and state.",
                warning=slot("warning"),
                command=slot("command"),
            ),
            warning="<strong>" + text(_("It does not check the outcome")) + "</strong>",
            command=_VERIFY_COMMAND,
        ),
        "t_overview_heading": text(_("The duel")),
        "t_duellists_label": text(_("The duellists")),
        "t_rules_heading": text(_("Rules in force")),
        "t_rounds_label": text(_p("archive page: a region's label", "Rounds")),
        "t_footer": markup(
            _(
                "Made by duelbot. This file is self-contained: it loads nothing from the "
                "network, and it is also the machine-readable archive of the duel (the "
                "JSON export, in the {element} element).",
                element=slot("element"),
            ),
            element="<code>duel-data</code>",
        ),
    }


def page_title(duel_id: object, a: str, b: str) -> str:
    """The page's title (unescaped): the duel and its duellists."""
    return _("Duel #{duel}: {a} vs {b}", duel=duel_id, a=a, b=b)


def default_name(side: str) -> str:
    """A duellist the export does not name."""
    return _("Duellist {side}", side=side.upper())


def moments(export: dict[str, Any]) -> dict[str, str]:
    """Every moment the page shows, by its ISO text, as the reader reads it (Babel)."""
    found: list[object] = [export.get(key) for key in _DUEL_MOMENTS]
    rounds = export.get("rounds")
    for r in rounds if isinstance(rounds, list) else []:
        if isinstance(r, dict):
            found.extend(r.get(key) for key in _ROUND_MOMENTS)
    shown: dict[str, str] = {}
    for value in found:
        moment = iso_moment(value)
        if moment is not None and isinstance(value, str):
            shown[value] = reader_time(moment)
    return shown


def script_texts(export: dict[str, Any]) -> dict[str, Any]:
    """What page.js writes, by key: templates whose ``{fields}`` the script fills, plural
    texts as ``{category: template}``, and ``dates`` (ISO text: as shown)."""
    return {
        "duel_title": _("Duel #{duel}: {a} vs {b}", **kept("duel", "a", "b")),
        "duellist": _("Duellist {side}", **kept("side")),
        "yes": _("yes"),
        "no": _("no"),
        "none": _("none"),
        "unknown_ruleset": _("unknown ruleset"),
        "won_by": _("won by {name}", **kept("name")),
        "status_live": _p("a duel's status", "live"),
        "status_ended": _p("a duel's status", "ended"),
        "status_how": _("{status} ({how})", **kept("status", "how")),
        "end_kind_result": _("by its result"),
        "end_kind_commander": _("ended by a commander"),
        "fact_duel": _p("archive page: a fact's name", "Duel"),
        "fact_ruleset": _p("archive page: a fact's name", "Ruleset"),
        "fact_status": _p("archive page: a fact's name", "Status"),
        "fact_winner": _p("archive page: a fact's name", "Winner"),
        "fact_how_it_ended": _p("archive page: a fact's name", "How it ended"),
        "fact_started": _p("archive page: a fact's name", "Started"),
        "fact_ended": _p("archive page: a fact's name", "Ended"),
        "fact_rounds": _p("archive page: a fact's name", "Rounds"),
        "fact_rolls": _p("archive page: a fact's name", "Rolls"),
        "fact_export_format": _p("archive page: a fact's name", "Export format"),
        "fact_exported": _p("archive page: a fact's name", "Exported"),
        "rounds_undone": plural_forms(
            lambda n: _n(
                "{rounds} ({count} undone)",
                "{rounds} ({count} undone)",
                n,
                **kept("rounds", "count"),
            )
        ),
        "sheet_snapshot": _("Sheet as snapshotted when the duel started"),
        "sheet_before": _("Sheet before round {number}", **kept("number")),
        "sheet_after": _(
            "Sheet after round {number} (this export has no snapshot of the start)",
            **kept("number"),
        ),
        "sheet_exported": _("Sheet as exported"),
        "sheet_missing": _("Sheet not in this export"),
        "winner": _p("archive page: a badge by the winner's name", "winner"),
        "house_rule": _("{name} (house rule)", **kept("name")),
        "no_options": _("This export lists no options."),
        "roll_one": _("roll #{index}", **kept("index")),
        "roll_range": _("rolls #{first}–#{last}", **kept("first", "last")),
        "round": _("Round {number}", **kept("number")),
        "badge_undone": _p("archive page: a round's badge", "undone"),
        "badge_open": _p("archive page: a round's badge", "open"),
        "badge_not_checked": _p("archive page: a round's badge", "not checked"),
        "badge_sealed": _p("archive page: a round's badge", "sealed"),
        "badge_verified": _p("archive page: a round's badge", "verified"),
        "badge_mismatch": _p("archive page: a round's badge", "mismatch"),
        "user": _("user {id}", **kept("id")),
        "undone": _("Undone"),
        "undone_by": _("Undone by {who}", **kept("who")),
        "undone_on": _("Undone on {when}", **kept("when")),
        "undone_by_on": _("Undone by {who} on {when}", **kept("who", "when")),
        "undone_reason": _("{undone}: {reason}", **kept("undone", "reason")),
        "undone_kept": _(
            "{undone}. Kept in the ledger; its rolls still come from its committed seed.",
            **kept("undone"),
        ),
        "follows_undo": _("This result follows the undo of round {number}.", **kept("number")),
        "still_open": _(
            "This round is still open: its moves and its seed stay secret until it closes."
        ),
        "no_move": _("no move"),
        "no_outcome": _("no outcome"),
        "outcome_winner": _("{outcome}: {name} wins", **kept("outcome", "name")),
        "outcome_ends": _("{outcome} (the duel ends)", **kept("outcome")),
        "outcome_line": _("Outcome: {outcome}", **kept("outcome")),
        "closed": _("Closed {when}", **kept("when")),
        "closed_why": _("Closed {when} ({reason})", **kept("when", "reason")),
        "closed_why_only": _("Closed ({reason})", **kept("reason")),
        # how a round came to close, as the page shows it in brackets after "Closed"
        "close_reasons": {
            "deadline": _p("close reason", "deadline"),
            "commander": _p("close reason", "commander"),
            "all_submitted": _p("close reason", "all submitted"),
        },
        "rolls_heading": _("Rolls ({count})", **kept("count")),
        "no_dice": _("No dice were rolled in this round."),
        "log_step": _("log step {step}", **kept("step")),
        "log_heading": _("Log, with the rules cited"),
        # Translators: the word a round's log uses before the values of dice ("Ann rolls
        # DICE3 ... rolled 2"), lowercase: the page finds which log line a roll fed by it.
        "log_roll_word": _p("archive page: a word in a round's log", "roll"),
        "state_before": _("State before the round"),
        "state_after": _("State after the round"),
        "state_duel": _p("archive page: the duel's own part of a state", "Duel"),
        "options_used": _("Options used: {options}", **kept("options")),
        "proof_commitment": _p("archive page: a fact's name", "Commitment"),
        "proof_seed": _p("archive page: a fact's name", "Seed"),
        "proof_check": _p("archive page: a fact's name", "Check"),
        "seed_secret": _("secret until the round closes"),
        "check_not_yet": _("not checked yet"),
        "check_nothing": _("nothing to check yet"),
        "checking": _("Checking…"),
        "checking_so_far": plural_forms(
            lambda n: _n("Checking… {count} roll so far", "Checking… {count} rolls so far", n,
                         **kept("count"))
        ),
        "seed_not_hex": _("the seed is not 64 hexadecimal characters"),
        "seed_digest": _(
            "SHA-256 of the seed is {digest}, not the published commitment", **kept("digest")
        ),
        "seed_without_result": _("a seed without a published result"),
        "commitment_ok": _(
            "SHA-256(seed) is the commitment: the seed was fixed before the round opened"
        ),
        "no_roll_number": _("it has no roll number"),
        "out_of_order": _(
            "it is roll #{index} in place {place}: the rolls are out of order",
            **kept("index", "place"),
        ),
        "missing_before": _(
            "it is roll #{index} in place {place}: a roll before it is missing or moved",
            **kept("index", "place"),
        ),
        "label_should_be": _("its label should be {label}", **kept("label")),
        "foreign_die": _(
            "a {die} is not one of this duel's dice ({dice})", **kept("die", "dice")
        ),
        "log_lacks_roll": _("the log does not state this roll"),
        "log_states_other": _(
            "the log states {stated} here, not {value}", **kept("stated", "value")
        ),
        "die_not_whole": _("its die is not a whole number of sides"),
        "die_too_big": _("a die of more than 2^64 sides cannot be derived"),
        "published_derived": _(
            "published {value}, re-derived {derived}", **kept("value", "derived")
        ),
        "round_seed_bad": _("its round's seed does not match the commitment"),
        "rederived": _("re-derived {value}", **kept("value")),
        "misnumbered": _(
            "its rolls are not numbered 0 to {last} in order: a roll is missing or moved",
            **kept("last"),
        ),
        "foreign_die_round": _("a roll uses a die this duel never rolls"),
        "log_states_more": plural_forms(
            lambda n: _n(
                "its log states {count} die but {recorded} are recorded: a roll the log "
                "cites is not recorded",
                "its log states {count} dice but {recorded} are recorded: a roll the log "
                "cites is not recorded",
                n,
                **kept("count", "recorded"),
            )
        ),
        "log_not_exact": _("its log does not state exactly its recorded rolls"),
        "rolls_differ": plural_forms(
            lambda n: _n(
                "{bad} of its {count} roll does not match (marked below)",
                "{bad} of its {count} rolls do not match (marked below)",
                n,
                **kept("bad", "count"),
            )
        ),
        "summary_rolls": plural_forms(
            lambda n: _n(
                "{ok} of {count} roll matches;",
                "{ok} of {count} rolls match;",
                n,
                **kept("ok", "count"),
            )
        ),
        "summary_rounds": plural_forms(
            lambda n: _n(
                "{ok} of {count} round verified ({checks}).",
                "{ok} of {count} rounds verified ({checks}).",
                n,
                **kept("ok", "count", "checks"),
            )
        ),
        "checks_basic": _(
            "seed matches its commitment, every roll re-derived, numbered in order"
        ),
        "checks_dice": _(
            "seed matches its commitment, every roll re-derived, numbered in order and one "
            "of the duel's dice"
        ),
        "checks_log": _(
            "seed matches its commitment, every roll re-derived, numbered in order, stated "
            "by the log"
        ),
        "checks_dice_log": _(
            "seed matches its commitment, every roll re-derived, numbered in order and one "
            "of the duel's dice, stated by the log"
        ),
        "dice_unchecked": _(
            "The dice were not checked against the ruleset's: it does not say which it rolls."
        ),
        "log_unchecked": _(
            "The log was not checked against the rolls: the ruleset does not say how its log "
            "states them."
        ),
        "outcome_unchecked": _(
            "Not checked here: the outcome (who won); run {command} for that.",
            **kept("command"),
        ),
        "own_sha": _(
            "Computed with the page's own SHA-256: this browser withholds WebCrypto here."
        ),
        "check_failed": _("The check could not run: {error}", **kept("error")),
        "dates": moments(export),
    }
