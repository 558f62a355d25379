"""What no text a player reads may hold (issue 24): another ruleset's noun, the engine's
"round" in a game that plays steps, an outcome code. Shared by the render-every-kind test
and the fake-Discord duels of By This Axe and FoEQ."""

from __future__ import annotations

import re

from bot.rules import registry

#: Every outcome code a built-in ruleset words (the snake_case ones: "a_wins",
#: "forfeit_choice", "stare_a"; a one-word code such as "continue" reads as a word).
OUTCOME_CODES = sorted(
    {code for rules in registry.all_rulesets() for code in rules.words.ending if "_" in code}
)
_CODES = re.compile(r"\b(" + "|".join(map(re.escape, OUTCOME_CODES)) + r")\b")
#: The engine naming a round where a step-based game must say step: "Duel #1, round 2",
#: "round 2 of duel #1", "the round closes", "Round 3 was closed", "## Round 3".
_ENGINE_ROUND = re.compile(
    r"(?i)(duel #?\d+, round \d+|round \d+ of duel|the round (closes|has closed)"
    r"|closes the round|round \d+ was closed|^#+ round \d+|\[b\]round \d+)",
    re.MULTILINE,
)
#: Numbering a round-based game's rounds as steps (By This Axe's forfeit choice once did).
_STEP_NUMBER = re.compile(r"(?i)\bstep \d+")
#: Internal key=value codes of per-duel settings, and a Markdown escape shown as text.
_SETTING_CODES = re.compile(r"[a-z]+_[a-z_]+=|\\_")


def faults(text: str, ruleset_id: str) -> list[str]:
    """Every way ``text`` (shown to a player of ``ruleset_id``) speaks another language."""
    own = registry.get(ruleset_id).words
    found = [f"outcome code {m.group(0)!r}" for m in _CODES.finditer(text)]
    for other in registry.all_rulesets():
        noun = other.words.move.one
        if noun not in (own.move.one, "move") and re.search(rf"(?i)\b{noun}s?\b", text):
            found.append(f"{other.id}'s noun {noun!r}")
    if own.round.one == "step":
        found += [f"the engine's round: {m.group(0)!r}" for m in _ENGINE_ROUND.finditer(text)]
    else:
        found += [f"a step number: {m.group(0)!r}" for m in _STEP_NUMBER.finditer(text)]
    if "Locked in combat" in text and ruleset_id != "rule-2.14":
        found.append("rule 2.14's 'Locked in combat'")
    found += [f"a setting code {m.group(0)!r}" for m in _SETTING_CODES.finditer(text)]
    return found


def assert_speaks_its_own(texts: dict[str, str], ruleset_id: str) -> None:
    """Fails naming each text (by its key) that speaks another language, and how."""
    bad = {where: faults(text, ruleset_id) for where, text in texts.items()}
    bad = {where: found for where, found in bad.items() if found}
    assert not bad, {where: (found, texts[where][:400]) for where, found in bad.items()}
