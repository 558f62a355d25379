"""The tables of FoEQ p20 (stakes, Styles, Moves, schools), phases, choice and outcome ids,
log clauses, and the text normalisation every parser uses."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Literal

from bot.rules.foeq.text import N_

RULESET_ID = "foeq-spell-duel"

# -- the tables of FoEQ p20 -------------------------------------------------------------

PRIDE = "pride"
FIRST_BLOOD = "first_blood"
DEATH = "death"
STAKES: tuple[str, ...] = (PRIDE, FIRST_BLOOD, DEATH)
#: The labels of this module are English (the adjudication log's, which stays English);
#: a member reads them through the package's ``_`` (``_(STAKE_LABELS[stake])``).
STAKE_LABELS = {PRIDE: N_("Pride"), FIRST_BLOOD: N_("First Blood"), DEATH: N_("Death")}
STAKE_RANK = {PRIDE: 0, FIRST_BLOOD: 1, DEATH: 2}

STEADFAST = "steadfast"
QUICK = "quick"
OVERWHELMING = "overwhelming"
WEIRD = "weird"
DISRUPTIVE = "disruptive"
STYLES: tuple[str, ...] = (STEADFAST, QUICK, OVERWHELMING, WEIRD, DISRUPTIVE)
STYLE_LABELS = {
    STEADFAST: N_("Steadfast"),
    QUICK: N_("Quick"),
    OVERWHELMING: N_("Overwhelming"),
    WEIRD: N_("Weird"),
    DISRUPTIVE: N_("Disruptive"),
}

#: "You sometimes get...": advantage on the Shot's attack when the opponent's Style is one of
ADVANTAGE_AGAINST: dict[str, frozenset[str]] = {
    STEADFAST: frozenset({QUICK, DISRUPTIVE}),
    QUICK: frozenset({OVERWHELMING, WEIRD}),
    OVERWHELMING: frozenset({STEADFAST, DISRUPTIVE}),
    WEIRD: frozenset({OVERWHELMING, STEADFAST}),
    DISRUPTIVE: frozenset({QUICK, WEIRD}),
}

TRICK = "trick"
FAULT = "fault"
#: "You always get...": the die a Style may reroll in the Shot, as (kind, whose: own/opponent)
REROLL: dict[str, tuple[str, Literal["own", "opponent"]]] = {
    STEADFAST: (FAULT, "own"),
    QUICK: (TRICK, "opponent"),
    OVERWHELMING: (TRICK, "own"),
    WEIRD: (FAULT, "opponent"),
}

SKILLS: tuple[str, ...] = (
    "sleight_of_hand",
    "performance",
    "deception",
    "intimidation",
    "perception",
    "insight",
    "arcana",
    "investigation",
)
SKILL_LABELS = {
    "sleight_of_hand": N_("Dex (Sleight of Hand)"),
    "performance": N_("Cha (Performance)"),
    "deception": N_("Cha (Deception)"),
    "intimidation": N_("Cha (Intimidation)"),
    "perception": N_("Wis (Perception)"),
    "insight": N_("Wis (Insight)"),
    "arcana": N_("Int (Arcana)"),
    "investigation": N_("Int (Investigation)"),
}

SCHOOLS: tuple[str, ...] = (
    "abjuration",
    "conjuration",
    "divination",
    "enchantment",
    "evocation",
    "illusion",
    "necromancy",
    "transmutation",
)
#: The schools as members read them (the ids, lowercase, in English).
SCHOOL_LABELS = {
    "abjuration": N_("abjuration"),
    "conjuration": N_("conjuration"),
    "divination": N_("divination"),
    "enchantment": N_("enchantment"),
    "evocation": N_("evocation"),
    "illusion": N_("illusion"),
    "necromancy": N_("necromancy"),
    "transmutation": N_("transmutation"),
}
#: The Pride alternatives, in the seed's order.
PRIDE_SCHOOLS: tuple[str, ...] = (
    "necromancy",
    "abjuration",
    "divination",
    "enchantment",
    "illusion",
)

TWITCH = "twitch"
SHOW_OFF = "show_off"
BLUFF = "bluff"
THE_LOOK = "the_look"
EYE_OF_THE_BEHOLDER = "eye_of_the_beholder"
SEE_THROUGH_THEM = "see_through_them"
SAGE_ADVICE = "sage_advice"
TACTICAL_ANALYSIS = "tactical_analysis"


@dataclass(frozen=True, slots=True)
class StareMove:
    id: str
    label: str
    skill: str
    strong_against: str
    aliases: tuple[str, ...]


STARE_MOVES: tuple[StareMove, ...] = (
    StareMove(TWITCH, N_("Twitch"), "sleight_of_hand", EYE_OF_THE_BEHOLDER, ("tw",)),
    StareMove(SHOW_OFF, N_("Show Off"), "performance", THE_LOOK, ("so", "showoff")),
    StareMove(BLUFF, N_("Bluff"), "deception", SAGE_ADVICE, ("bl",)),
    StareMove(THE_LOOK, N_("The Look"), "intimidation", SEE_THROUGH_THEM, ("look", "tl")),
    StareMove(
        EYE_OF_THE_BEHOLDER, N_("Eye of the Beholder"), "perception", BLUFF, ("eye", "eotb")
    ),
    StareMove(
        SEE_THROUGH_THEM, N_("See Through Them"), "insight", TWITCH, ("see_through", "stt")
    ),
    StareMove(SAGE_ADVICE, N_("Sage Advice"), "arcana", SHOW_OFF, ("sage", "sa")),
    StareMove(
        TACTICAL_ANALYSIS, N_("Tactical Analysis"), "investigation", TACTICAL_ANALYSIS,
        ("tactical", "ta"),
    ),
)
STARE: dict[str, StareMove] = {m.id: m for m in STARE_MOVES}
STARE_MOVE_IDS: tuple[str, ...] = tuple(STARE)

STARE_ROUNDS = 3
BIG_WIN = 5  # "If you win the check by 5 or more"
#: Consecutive ties (initiative, Stare checks) after which the dice are taken to be broken.
MAX_TIES = 100

# -- phases and choice ids -------------------------------------------------------------

SETUP = "setup"
STARE_FIRST = "stare_first"
STARE_SECOND = "stare_second"
STARE_STYLE = "stare_style"
SHOT_TWIST = "shot_twist"
SCORE_CHOICE = "score_choice"
OVER = "over"
PHASES: tuple[str, ...] = (
    SETUP, STARE_FIRST, STARE_SECOND, STARE_STYLE, SHOT_TWIST, SCORE_CHOICE, OVER,
)
SECRET_PHASES = frozenset({SETUP, STARE_STYLE})

KEEP = "keep"
NO_TWIST = "none"
HIT_DIE = "hit_die"
CONSEQUENCES: tuple[str, ...] = (HIT_DIE, *PRIDE_SCHOOLS, FIRST_BLOOD, DEATH)
CONSEQUENCE_LABELS = {
    HIT_DIE: N_("Pride: lose one Hit Die"),
    "necromancy": N_("Pride (Necromancy): Poisoned for 1 minute"),
    "abjuration": N_("Pride (Abjuration): one random spell or magical effect ends"),
    "divination": N_("Pride (Divination): the winner learns their surface thoughts"),
    "enchantment": N_("Pride (Enchantment): Charmed by the winner for 10 minutes"),
    "illusion": N_("Pride (Illusion): Frightened of the winner for 10 minutes"),
    FIRST_BLOOD: N_("First Blood: HP to half the maximum (or 1)"),
    DEATH: N_("Death: HP to 0"),
}
SECRET_CHOICE = "secret"

#: Outcomes of a step (RoundResult.outcome).
OUTCOMES: tuple[str, ...] = (
    "setup",  # both set their stakes, Styles and slots; the Stare begins
    "declared",  # the first declaration of a Stare round
    "stare_a",  # A won this Stare round's check
    "stare_b",
    "stare_none",  # nobody declared a Move this Stare round
    "style_decided",  # a secret Style change decision was made
    "twist",  # a Strategic Twist was taken or declined
    "shot_a",  # A won the Shot; the Score waits for A's choice
    "shot_b",
    "a_wins",  # the duel has ended (a forfeit too)
    "b_wins",
    "tie",  # the Shot was a tie: both suffered the stakes
    "no_winner",  # both forfeited (missing_move = forfeit)
)

MissingMovePolicy = Literal["none", "forfeit"]
MISSING_MOVE_POLICIES: tuple[str, ...] = ("none", "forfeit")

#: Every log line cites the heading of FoEQ p20 it applies after the game's name (the posts
#: show it without the name, under "Adjudication (FoEQ p20)"): the heading in the duel's
#: language, ``_(C_STAKES)``, the name as it is (``StepBase.note``).
CLAUSE = "FoEQ p20"
C_STAKES = N_("Setting The Stakes")
C_STYLE = N_("The Style")
C_STARE_INIT = N_("The Stare, Roll for Initiative")
C_STARE_FIRST = N_("The Stare, First Declaration")
C_STARE_SECOND = N_("The Stare, Second Declaration")
C_STARE_ROLL = N_("The Stare, Roll the Stare")
C_STARE_RESOLVE = N_("The Stare, Resolve")
C_SHOT_INIT = N_("The Shot, Roll Initiative")
C_SHOT_REVEAL = N_("The Shot, Reveal Style and Power")
C_SHOT_CAST = N_("The Shot, Cast!")
C_SHOT_TRICKS = N_("The Shot, Tricks")
C_SHOT_FAULTS = N_("The Shot, Faults")
C_SHOT_TWIST = N_("The Shot, Strategic Twist")
C_SHOT_RESULT = N_("The Shot, Determine the Result")
C_SCORE = N_("The Score")
#: The bot's own settings, cited as they are set (never translated).
C_FORFEIT = "duelbot missing_move = forfeit"
C_MISSING = "duelbot missing_move = none"


def _normalise(text: str) -> str:
    folded = unicodedata.normalize("NFKC", text)
    folded = "".join(c for c in folded if unicodedata.category(c) != "Cf")
    return re.sub(r"[\s_\-]+", "_", folded.strip().casefold()).strip("_")
