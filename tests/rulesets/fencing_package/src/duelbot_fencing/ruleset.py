"""Fencing bout: thrust beats feint, feint beats parry, parry beats thrust.

Each round both fencers choose in secret. The winner of the triangle scores a touch; when
both choose the same action, each rolls a d6 plus their ``skill`` and the higher total
scores (equal totals: no touch). Two touches win the bout. Missing a move concedes the
touch to the other fencer (both missing: no touch).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from bot.rules.base import SIDES, Fighter, MoveSpec, RoundResult, Ruleset, Side
from bot.rules.capabilities import ExactOdds, HouseRulesFromDeclarations
from bot.rules.command_line import OddsArguments, OddsFlag, OddsReport
from bot.rules.dice import DiceSource, Roll, enumerate_outcomes, every_face
from bot.rules.errors import InvalidChoice, InvalidRoundInput, InvalidStats
from bot.rules.params import HouseRule
from bot.rules.terms import LogEvent, SheetField, other_side

RULESET_ID = "fencing-bout"
SKILL_MAX = 3
MOVES = (
    MoveSpec("thrust", "Thrust", "attack", ("t",)),
    MoveSpec("feint", "Feint", "attack", ("f",)),
    MoveSpec("parry", "Parry", "defence", ("p",)),
)
BEATS = {"thrust": "feint", "feint": "parry", "parry": "thrust"}


@dataclass(frozen=True, slots=True)
class Fencer:
    name: str
    skill: int
    touches: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "skill": self.skill, "touches": self.touches}


@dataclass(frozen=True, slots=True)
class BoutState:
    a: Fencer
    b: Fencer
    touches_to_win: int
    winner: Side | None = None

    def fencer(self, side: Side) -> Fencer:
        return self.a if side == "a" else self.b

    def to_dict(self) -> dict[str, Any]:
        return {
            "a": self.a.to_dict(),
            "b": self.b.to_dict(),
            "touches_to_win": self.touches_to_win,
            "winner": self.winner,
            "locked": False,
        }


@dataclass(frozen=True, slots=True)
class BoutOptions:
    missing_move: str = "concede"


class Fencing(Ruleset, HouseRulesFromDeclarations, ExactOdds):
    """The core, house rules (touches to win) and exact odds; none of the other
    capabilities (one step a round, no pre-duel step, dice not declared)."""

    id = RULESET_ID
    title = "Fencing Bout"
    sheet_fields = (SheetField("skill", "int", "Skill (added to tie-break d6)", 0, SKILL_MAX),)

    def moves(self, state: Any = None, side: Side | None = None) -> tuple[MoveSpec, ...]:
        return MOVES

    def parse_choice(self, text: str, state: Any = None, side: Side | None = None) -> str:
        wanted = " ".join(str(text).split()).casefold()
        for move in MOVES:
            if wanted in (move.id, move.label.casefold(), *move.aliases):
                return move.id
        raise InvalidChoice(f"{text!r} is not a fencing action. Allowed: thrust, feint, parry.")

    def validate_sheet(self, sheet: Mapping[str, Any]) -> dict[str, Any]:
        skill = sheet.get("skill")
        if isinstance(skill, str) and skill.strip().isdigit():
            skill = int(skill.strip())
        if isinstance(skill, bool) or not isinstance(skill, int) or not 0 <= skill <= SKILL_MAX:
            raise InvalidStats(f"skill must be a whole number from 0 to {SKILL_MAX}.")
        return {"skill": skill}

    def house_rules(self) -> tuple[HouseRule, ...]:
        return (HouseRule("touches", ("1", "2", "3"), "2", "touches needed to win the bout"),)

    def initial_state(self, a: Fighter, b: Fighter, params: Mapping[str, Any]) -> BoutState:
        rules = self.parse_house_rules(params)
        return BoutState(
            a=Fencer(a.name, self.validate_sheet(a.sheet)["skill"]),
            b=Fencer(b.name, self.validate_sheet(b.sheet)["skill"]),
            touches_to_win=int(rules["touches"]),
        )

    def state_from_dict(self, data: Mapping[str, Any]) -> BoutState:
        try:
            return BoutState(
                a=Fencer(
                    str(data["a"]["name"]), int(data["a"]["skill"]), int(data["a"]["touches"])
                ),
                b=Fencer(
                    str(data["b"]["name"]), int(data["b"]["skill"]), int(data["b"]["touches"])
                ),
                touches_to_win=int(data["touches_to_win"]),
                winner=data.get("winner"),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidRoundInput(f"not a fencing bout state: {exc}") from None

    def make_options(self, settings: Mapping[str, Any]) -> BoutOptions:
        return BoutOptions()

    def outcome_sentence(self, outcome: str, a_name: str, b_name: str) -> str:
        return {
            "a_touch": f"{a_name} scores a touch",
            "b_touch": f"{b_name} scores a touch",
            "no_touch": "No touch",
            "a_wins": f"{a_name} wins the bout",
            "b_wins": f"{b_name} wins the bout",
        }.get(outcome, outcome)

    def fighter_summary(self, side_state: Mapping[str, Any]) -> list[tuple[str, str]]:
        return [
            ("Skill", str(side_state.get("skill", "?"))),
            ("Touches", str(side_state.get("touches", 0))),
        ]

    def outcome_distribution(
        self, state: Any, choices: Mapping[Side, str | None], options: Any
    ) -> dict[str, Fraction]:
        return enumerate_outcomes(
            lambda dice: self.resolve(state, choices, dice, options).outcome, every_face
        )

    def odds_arguments(self) -> OddsArguments:
        def side_flags(side: str) -> tuple[OddsFlag, ...]:
            return (
                OddsFlag(f"{side}_skill", "skill (0-3)", "int", "N", required=True),
                OddsFlag(f"{side}_action", "thrust, feint or parry", metavar="ACTION",
                         required=True),
            )

        return OddsArguments(
            summary="the outcome of one exchange for two actions",
            flags=(*side_flags("a"), *side_flags("b")),
            example="--a-skill 1 --a-action feint --b-skill 0 --b-action feint",
        )

    def odds_from_arguments(
        self, values: Mapping[str, Any], house_rules: Mapping[str, str]
    ) -> OddsReport:
        a = Fighter(values["a_name"], {"skill": values["a_skill"]})
        b = Fighter(values["b_name"], {"skill": values["b_skill"]})
        state = self.initial_state(a, b, house_rules)
        choices: dict[Side, str | None] = {
            side: self.parse_choice(values[f"{side}_action"]) for side in SIDES
        }
        odds = self.outcome_distribution(state, choices, self.make_options(house_rules))
        shown = {outcome: str(p) for outcome, p in sorted(odds.items()) if p}
        text = "".join(f"{outcome}  {p}\n" for outcome, p in shown.items())
        return OddsReport({"ruleset": self.id, "outcomes": shown}, text)

    def resolve(
        self,
        state: BoutState,
        choices: Mapping[Side, str | None],
        dice: DiceSource,
        options: Any = None,
    ) -> RoundResult:
        if state.winner is not None:
            raise InvalidRoundInput("This bout has already been won.")
        log: list[LogEvent] = []
        rolls: list[Roll] = []
        moves = {side: choices.get(side) for side in SIDES}
        for move in moves.values():
            if move is not None and move not in BEATS:
                raise InvalidChoice(f"{move!r} is not a fencing action.")
        scorer: Side | None = None
        missing = [side for side in SIDES if moves[side] is None]
        if missing:
            for side in missing:
                log.append(LogEvent("bout.missing", f"{state.fencer(side).name} made no action"))
            if len(missing) == 1:
                scorer = other_side(missing[0])
        elif moves["a"] == moves["b"]:
            totals = {}
            for side in SIDES:
                roll = dice.roll(6, side=side, purpose="tie-break")
                rolls.append(roll)
                totals[side] = roll.value + state.fencer(side).skill
                log.append(
                    LogEvent(
                        "bout.tie",
                        f"{state.fencer(side).name} rolls d6 {roll.value} + skill "
                        f"{state.fencer(side).skill} = {totals[side]}",
                    )
                )
            if totals["a"] != totals["b"]:
                scorer = "a" if totals["a"] > totals["b"] else "b"
        else:
            scorer = "a" if BEATS[str(moves["a"])] == moves["b"] else "b"
            log.append(
                LogEvent("bout.triangle", f"{moves[scorer]} beats {moves[other_side(scorer)]}")
            )
        fencers = {side: state.fencer(side) for side in SIDES}
        winner: Side | None = None
        if scorer is None:
            outcome = "no_touch"
        else:
            scored = fencers[scorer]
            fencers[scorer] = Fencer(scored.name, scored.skill, scored.touches + 1)
            outcome = f"{scorer}_touch"
            if fencers[scorer].touches >= state.touches_to_win:
                winner, outcome = scorer, f"{scorer}_wins"
        log.append(
            LogEvent("bout.score", self.outcome_sentence(outcome, state.a.name, state.b.name))
        )
        after = BoutState(fencers["a"], fencers["b"], state.touches_to_win, winner)
        return RoundResult(
            ruleset=self.id,
            outcome=outcome,
            winner=winner,
            ended=winner is not None,
            choices=moves,
            rolls=tuple(rolls),
            log=tuple(log),
            state=after,
        )


FENCING = Fencing()
