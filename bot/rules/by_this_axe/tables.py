"""By This Axe: the seed's tables, outcome ids, roll purposes, log clauses and the dice tests."""

from __future__ import annotations

from typing import Final, Literal

from bot.rules.by_this_axe.text import N_, _

RULESET_ID = "by-this-axe"
TITLE = N_("By This Axe duels")

# -- characters ---------------------------------------------------------------------------

#: Dice pool by character type (the seed's table).
POOLS: dict[str, int] = {
    "hero": 4,
    "superhero": 8,
    "champion": 12,
    "priest": 3,
    "mage": 3,
    "high_priest": 6,
    "wizard": 6,
}
CHARACTERS: tuple[str, ...] = tuple(POOLS)
MAX_POOL = max(POOLS.values())

#: duelbot's default armor save by type (the seed says only "as normal"): the d6 result
#: needed to save a hit, 0 = no save. Base saves, the Heroic +1 is never applied in a duel.
DEFAULT_ARMOR_SAVE: dict[str, int] = {
    "hero": 5,
    "superhero": 5,
    "champion": 5,
    "priest": 6,
    "high_priest": 6,
    "mage": 0,
    "wizard": 0,
}
NO_SAVE = 0
ARMOR_MIN = 0
ARMOR_MAX = 7  # 7 is accepted as "no save" and stored as 0
DEFAULT_WOUNDS = 1
WOUNDS_MAX = 99

# -- choices and outcomes -----------------------------------------------------------------

FLEE: Final = "flee"
FLEE_FROM_ROUND = 2

A_WINS, B_WINS, BOTH_DEFEATED = "a_wins", "b_wins", "both_defeated"
A_FLEES, B_FLEES, BOTH_FLEE, CONTINUE = "a_flees", "b_flees", "both_flee", "continue"
#: A round halted after its dirty tricks until the victims choose their forfeited dice
#: (house rule ``forfeit = victim-chooses``); the next step finishes the round.
FORFEIT_CHOICE = "forfeit_choice"
OUTCOMES: tuple[str, ...] = (
    A_WINS, B_WINS, BOTH_DEFEATED, A_FLEES, B_FLEES, BOTH_FLEE, CONTINUE, FORFEIT_CHOICE,
)

#: Each outcome in plain words (``RulesetWords.ending``: templates over ``{a}``, ``{b}``).
#: (English here, read in the reader's language through the ruleset's words.)
ENDINGS: dict[str, str] = {
    A_WINS: N_("{b} is defeated: {a} wins the duel"),
    B_WINS: N_("{a} is defeated: {b} wins the duel"),
    BOTH_DEFEATED: N_("Both characters are defeated; the duel ends with no winner"),
    A_FLEES: N_("{a} runs away; the duel ends with no winner"),
    B_FLEES: N_("{b} runs away; the duel ends with no winner"),
    BOTH_FLEE: N_("Both characters run away; the duel ends with no winner"),
    CONTINUE: N_("Nobody is defeated and nobody ran away; the duel goes on"),
    FORFEIT_CHOICE: N_(
        "A dirty trick worked: the round waits for the victim to choose which two dice to "
        "forfeit"
    ),
}


def describe_outcome(outcome: str, a_name: str, b_name: str) -> str:
    """One sentence for an outcome id, with the duellists' names (for posts)."""
    template = ENDINGS.get(outcome)
    return outcome if template is None else _(template, a=a_name, b=b_name)


TrickTakes = Literal["parry_first", "attack_first"]
TRICK_TAKES: tuple[str, ...] = ("parry_first", "attack_first")
TRICK_FORFEIT = 2

MissingMovePolicy = Literal["none", "forfeit"]
MISSING_MOVE_POLICIES: tuple[str, ...] = ("none", "forfeit")

# Roll purposes, in the fixed order of a round (A before B within each step).
DIRTY_TRICK, ATTACK, PARRY, COUNTERATTACK, ARMOR_SAVE, FLEE_ROLL = (
    "dirty_trick",
    "attack",
    "parry",
    "counterattack",
    "armor_save",
    "flee",
)
FORCE_DUEL = "force_duel"

# -- clauses cited in the log -------------------------------------------------------------

# Each marked, and translated where a line cites it (``_(C_ATTACKS)``): the log is written
# in the scope's language (the duel's, bot/services/rounds.py). "By This Axe, " stays first
# in every language: a post shows the clause without the ruleset's name.
C_CHALLENGE = N_("By This Axe, Duels (challenge)")
C_REFUSAL = N_("By This Axe, Duels (refusal)")
C_FORCE = N_("By This Axe, Duels (forcing a duel)")
C_REVEAL = N_("By This Axe, Reveal")
C_TRICKS = N_("By This Axe, Dirty tricks")
C_ATTACKS = N_("By This Axe, Attacks")
C_PARRIES = N_("By This Axe, Parries")
C_COUNTER = N_("By This Axe, Counterattack")
C_ARMOR = N_("By This Axe, Armor saves")
C_FLIGHT = N_("By This Axe, Duels (flight)")
C_ROUNDS = N_("By This Axe, Duels (rounds)")
C_WOUNDS = N_("duelbot wounds")
C_MISSING = N_("duelbot missing allotment")
C_FORFEIT = N_("duelbot missing_move = forfeit")
C_FORFEIT_CHOICE = N_("duelbot forfeit = victim-chooses")

#: Each roll purpose as a member reads it (``ByThisAxe.roll_purpose_label``); the English
#: is the id read as words, as every result showed it before.
PURPOSE_LABELS: dict[str, str] = {
    DIRTY_TRICK: N_("Dirty Trick"),
    ATTACK: N_("Attack"),
    PARRY: N_("Parry"),
    COUNTERATTACK: N_("Counterattack"),
    ARMOR_SAVE: N_("Armor Save"),
    FLEE_ROLL: N_("Flee"),
    FORCE_DUEL: N_("Force Duel"),
}

#: Each character type as a member reads it, lower case as a sentence has it ("You have 4
#: dice (hero)"); a card capitalises it ("Hero").
CHARACTER_NAMES: dict[str, str] = {
    "hero": N_("hero"),
    "superhero": N_("superhero"),
    "champion": N_("champion"),
    "priest": N_("priest"),
    "mage": N_("mage"),
    "high_priest": N_("high priest"),
    "wizard": N_("wizard"),
}


def character_name(character: str) -> str:
    """A character type in the reader's language ("high priest"); an unknown one as its
    id read as words."""
    known = CHARACTER_NAMES.get(character)
    return _(known) if known is not None else character.replace("_", " ")


def _hit(value: int) -> bool:
    """Attack, parry, counterattack and flee dice all succeed on 1-3."""
    return 1 <= value <= 3


def _trick_works(value: int) -> bool:
    return 1 <= value <= 2


def _saves(value: int, armor_save: int) -> bool:
    return armor_save != NO_SAVE and value >= armor_save


def _save_text(armor_save: int) -> str:
    """The armor save as the adjudication log states it (English)."""
    if armor_save == NO_SAVE:
        return "no save"
    return "6" if armor_save == 6 else f"{armor_save}-6"


def save_shown(armor_save: int) -> str:
    """The armor save as a member reads it, in their language."""
    return _("no save") if armor_save == NO_SAVE else _save_text(armor_save)



