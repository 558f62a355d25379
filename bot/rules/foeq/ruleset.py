"""The FoEQ spell duel ruleset: the step machine behind the generic Ruleset hooks."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from bot.rules.base import Ruleset
from bot.rules.capabilities import (
    DiceByPattern,
    HouseRulesFromDeclarations,
    MultiStep,
    SheetProgress,
)
from bot.rules.dice import DiceSource
from bot.rules.errors import InvalidChoice, InvalidRoundInput
from bot.rules.foeq.parsing import (
    _KEEP_WORDS,
    _key,
    _shown,
    parse_consequence,
    parse_move,
    parse_setup,
    parse_style_change,
    parse_twist,
    setup_choice,
)
from bot.rules.foeq.phases import (
    _PUBLIC_CORNER_KEYS,
    _as_state,
    awaiting_sides,
    consequence_options,
    is_secret,
    private_notes,
    step_prompt,
    twist_pool,
)
from bot.rules.foeq.sheet import (
    Duellist,
    sheet_fields,
)
from bot.rules.foeq.state import (
    HOUSE_RULES,
    FoeqState,
    Options,
    _side,
)
from bot.rules.foeq.step import play_step
from bot.rules.foeq.tables import (
    CONSEQUENCE_LABELS,
    FAULT,
    KEEP,
    NO_TWIST,
    OVER,
    PRIDE,
    RULESET_ID,
    SCHOOL_LABELS,
    SCORE_CHOICE,
    SECRET_CHOICE,
    SECRET_PHASES,
    SETUP,
    SHOT_TWIST,
    SKILL_LABELS,
    STAKE_LABELS,
    STAKES,
    STARE,
    STARE_FIRST,
    STARE_MOVES,
    STARE_SECOND,
    STARE_STYLE,
    STEADFAST,
    STYLE_LABELS,
    STYLES,
    TRICK,
    WEIRD,
)
from bot.rules.foeq.text import N_, _
from bot.rules.params import DuelParam, HouseRule
from bot.rules.terms import (
    SIDES,
    Fighter,
    MoveSpec,
    Noun,
    RoundResult,
    RulesetWords,
    Side,
    Withholdable,
)
from bot.rules.text import Localized

#: The export's name for a side's withheld choice.
_CHOICE_OF: dict[Side, Withholdable] = {"a": "choices.a", "b": "choices.b"}

# -- the ruleset ---------------------------------------------------------------------------

#: FoEQ's per-duel settings besides its house rules (typed: normalize_params).
PUBLIC_STAKE = DuelParam(
    "public_stake",
    "choice",
    PRIDE,
    N_("what the duel is fought for"),
    values=STAKES,
    aliases=(("fb", STAKES[1]), ("firstblood", STAKES[1]), ("kill", STAKES[2])),
)
CHALLENGER = DuelParam(
    "challenger", "choice", "a", N_("who issued the challenge"), values=("a", "b")
)


#: FoEQ plays steps (the Stakes, each Declaration of the Stare, the Shot, the Score), each
#: closing itself once the awaited duellists have chosen; a choice is a declaration.
#: (English here; ``words`` gives them in the reader's language: ``translated()``.)
WORDS = RulesetWords(
    round=Noun(N_("step"), N_("steps")),
    move=Noun(N_("declaration"), N_("declarations")),
    closes="itself",
    ending={
        "setup": N_("Stakes, Styles and spell slots chosen in secret; the Stare begins"),
        "declared": N_("A Move is declared"),
        "stare_a": N_("{a} wins this round of the Stare"),
        "stare_b": N_("{b} wins this round of the Stare"),
        "stare_none": N_("Nobody declared a Move this round of the Stare"),
        "style_decided": N_("A Style decision was made in secret"),
        "twist": N_("A Strategic Twist is resolved"),
        "shot_a": N_("{a} wins the Shot; the Score awaits the choice of the consequence"),
        "shot_b": N_("{b} wins the Shot; the Score awaits the choice of the consequence"),
        "a_wins": N_("{a} wins the duel"),
        "b_wins": N_("{b} wins the duel"),
        "tie": N_("The Shot is a tie: both duellists suffer the stakes"),
        "no_winner": N_("Both duellists forfeited; the duel ends with no winner"),
    },
    text=_,
)


class FoeqSpellDuel(
    Ruleset, MultiStep, HouseRulesFromDeclarations, DiceByPattern, SheetProgress
):
    """FoEQ and its capabilities: a duel of steps, house rules, verifiable dice, and the
    sheets the duel changes (no exact odds: its steps depend on secret choices)."""

    id = RULESET_ID
    # Read in the reader's language at each access (bot/rules/text.py).
    title = Localized(lambda: _("FoEQ spell duel"))
    words = Localized(WORDS.translated)
    # The bot runs it end to end: one round per step, opened automatically (advances_at_once),
    # secret steps by DM, private notes by DM: see docs/rules/foeq-spell-duel.md.
    playable = True
    dice: tuple[int, ...] = (20, 6)
    # The log in every language it is written in (the duel's), and every log published
    # before it was translated: "rolls d20 7 +1 = 8", "d20 4 and 17 with advantage, keeps
    # 17" (German "d20 4 und 17 mit Vorteil, behält 17"), "rolls 2 dice of Trick: 3, 5 (+8)"
    # ("würfelt 2 Trickwürfel: 3, 5 (+8)", "Patzerwürfel: 4"), "rerolls Ann's Trick die #1
    # (3): it is now 6" ("... neu: er zeigt jetzt 6"). Python and JavaScript syntax alike
    # (no named groups, no lookbehind; \u00fc is "ü"); a new language adds its words here.
    log_dice_pattern: str | None = (
        r"d20 ([0-9]+)(?:(?: and | und )([0-9]+) (?:with advantage|mit Vorteil))?"
        r"|(?:dic?e of [A-Z][a-z]+|(?:Trick|Patzer)w\u00fcrfel): ([0-9]+(?:, [0-9]+)*)"
        r"|(?:it is now|zeigt jetzt) ([0-9]+)"
    )

    sheet_fields = Localized(sheet_fields)

    # -- the step machine (the MultiStep capability the services use) -------------------

    def awaiting_sides(self, state: Any) -> tuple[Side, ...]:
        return awaiting_sides(_as_state(state))

    def advances_at_once(self, state: Any) -> bool:
        """Every step: the services open the next one as soon as one closes, and close it
        as soon as every awaited side has chosen."""
        return True

    def is_secret(self, state: Any) -> bool:
        return is_secret(_as_state(state))

    def private_notes(self, result: RoundResult) -> dict[Side, list[str]]:
        return private_notes(result)

    def public_result(self, result: dict[str, Any]) -> dict[str, Any]:
        """While the duel runs, the stored/published result's state keeps only what is
        public (``public_state``). The result that ends the duel is published whole
        (everything is revealed)."""
        if result.get("ended"):
            return result
        state = result.get("state")
        if not isinstance(state, Mapping):
            return result
        return {**result, "state": self.public_state(state)}

    def public_state(self, state: Mapping[str, Any]) -> dict[str, Any]:
        """The duellists' sheets (no secrets), the phase and who is awaited, and each
        corner's dice and declared Move; never the true stakes, Styles, slots or notes. A
        state whose duel has ended is public whole."""
        if state.get("ended"):
            return dict(state)
        raw = state.get("corners")
        corners: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
        shown: dict[str, Any] = {
            key: state[key]
            for key in (
                "a", "b", "public_stake", "challenger", "phase", "awaiting", "public",
                "stare_round", "step", "ended", "winner", "house_rules",
            )
            if key in state
        }
        shown["corners"] = {}
        for side in SIDES:
            corner = corners.get(side)
            # (a pasted state may hold anything: `duelbot verify` compares public parts)
            items = corner.items() if isinstance(corner, Mapping) else ()
            shown["corners"][side] = {k: v for k, v in items if k in _PUBLIC_CORNER_KEYS}
        return shown

    def withholdable(self, state_before: Mapping[str, Any]) -> frozenset[Withholdable]:
        """While the duel runs: always the whole state (only ``public_state`` is shown:
        the true stakes, Styles and slots are chosen at the setup, the private notes go by
        DM); and the choice of each awaited side in a secret step (the setup, a Style
        decision), which its result shows as "secret" until the duel ends. The choices of
        the open steps (the Stare's declarations, the Twist, the Score) are never withheld."""
        allowed: set[Withholdable] = {"state_before"}
        phase, awaiting = state_before.get("phase"), state_before.get("awaiting")
        if isinstance(phase, str) and phase in SECRET_PHASES and isinstance(awaiting, list):
            allowed |= {_CHOICE_OF[side] for side in SIDES if side in awaiting}
        return frozenset(allowed)

    def prompt(self, state: Any, side: Side) -> str | None:
        return step_prompt(_as_state(state), side)

    def sheet_updates(self, final_state: Any) -> dict[Side, dict[str, Any]]:
        """The resources the duel changed (HP, Hit Dice, spell slots), once it has ended."""
        state = _as_state(final_state)
        if not state.ended:
            return {}
        return {
            side: {
                "hp": state.duellist(side).hp,
                "hit_dice": state.duellist(side).hit_dice,
                "spell_slots": list(state.duellist(side).spell_slots),
            }
            for side in SIDES
        }

    def setup_parts(self, state: FoeqState, side: Side) -> dict[str, tuple[MoveSpec, ...]]:
        """The setup choice in three parts (for three select menus): compose the id with
        ``setup_choice(stake, style, slot)``."""
        me = state.duellist(side)
        return {
            "stake": tuple(MoveSpec(s, _(STAKE_LABELS[s]), "stake") for s in STAKES),
            "style": tuple(
                MoveSpec(s, _(STYLE_LABELS[s]), "style", ("wierd",) if s == WEIRD else ())
                for s in STYLES
            ),
            "slot": tuple(
                MoveSpec(str(n), _("Cantrip (0)") if n == 0 else _("Level {n}", n=n), "slot")
                for n in me.slot_levels()
            ),
        }

    # -- Ruleset ----------------------------------------------------------------------------
    def moves(self, state: Any = None, side: Side | None = None) -> tuple[MoveSpec, ...]:
        if not isinstance(state, FoeqState):
            return tuple(MoveSpec(m.id, _(m.label), "move", m.aliases) for m in STARE_MOVES)
        if side is None or side not in state.awaiting:
            return ()
        if state.phase == SETUP:
            parts = self.setup_parts(state, side)
            return tuple(
                MoveSpec(
                    setup_choice(stake.id, style.id, int(slot.id)),
                    _("{stake}, {style}, {slot}", stake=stake.label, style=style.label,
                      slot=slot.label),
                    "setup",
                )
                for stake in parts["stake"]
                for style in parts["style"]
                for slot in parts["slot"]
            )
        if state.phase in (STARE_FIRST, STARE_SECOND):
            return tuple(
                MoveSpec(
                    m.id,
                    _("{move} ({skill})", move=_(m.label), skill=_(SKILL_LABELS[m.skill])),
                    "move",
                    m.aliases,
                )
                for m in STARE_MOVES
            )
        if state.phase == STARE_STYLE:
            current = state.corner(side).style
            return (
                MoveSpec(
                    KEEP, _("Keep {style}", style=_(STYLE_LABELS[current or STEADFAST])),
                    "style",
                ),
                *(
                    MoveSpec(f"style={s}", _("Change to {style}", style=_(STYLE_LABELS[s])),
                             "style")
                    for s in STYLES
                    if s != current
                ),
            )
        if state.phase == SHOT_TWIST:
            pool = twist_pool(state, side)
            specs = [MoveSpec(NO_TWIST, _("Reroll nothing"), "twist")]
            if pool is not None:
                kind, owner, values = pool
                specs += [
                    MoveSpec(
                        f"reroll:{kind}:{i}",
                        _reroll_label(kind, i, value, None if owner == side
                                      else state.duellist(owner).name),
                        "twist",
                    )
                    for i, value in enumerate(values, start=1)
                ]
            return tuple(specs)
        if state.phase == SCORE_CHOICE:
            return tuple(
                MoveSpec(c, _(CONSEQUENCE_LABELS[c]), "consequence")
                for c in consequence_options(state, state.shot_winner or side)
            )
        return ()

    def parse_choice(self, text: str, state: Any = None, side: Side | None = None) -> str:
        if not isinstance(state, FoeqState):
            return self._parse_stateless(text)
        if side is None or side not in state.awaiting:
            raise InvalidChoice(
                _("No choice is expected from you now (awaiting: {who}).",
                  who=", ".join(state.awaiting) or _("nobody"))
            )
        if state.phase == SETUP:
            stake, style, slot = parse_setup(text)
            allowed = state.duellist(side).slot_levels()
            if slot not in allowed:
                raise InvalidChoice(
                    _(
                        "You cannot use a level {slot} spell slot: you can declare "
                        "{allowed} (0 = cantrip).",
                        slot=slot,
                        allowed=", ".join(str(n) for n in allowed),
                    )
                )
            return setup_choice(stake, style, slot)
        if state.phase in (STARE_FIRST, STARE_SECOND):
            return parse_move(text)
        if state.phase == STARE_STYLE:
            return parse_style_change(text)
        if state.phase == SHOT_TWIST:
            parsed = parse_twist(text)
            if parsed is None:
                return NO_TWIST
            pool = twist_pool(state, side)
            legal = [m.id for m in self.moves(state, side)]
            if pool is None:
                raise InvalidChoice(_("Your Style grants no reroll: say 'none'."))
            kind, _owner, values = pool
            wanted, index = parsed
            if (wanted is not None and wanted != kind) or not 1 <= index <= len(values):
                raise InvalidChoice(
                    _("{text} is not a die you may reroll. Allowed: {allowed}.",
                      text=repr(_shown(text)), allowed=", ".join(legal))
                )
            return f"reroll:{kind}:{index}"
        if state.phase == SCORE_CHOICE:
            found = parse_consequence(text)
            options = consequence_options(state, state.shot_winner or side)
            if found not in options:
                raise InvalidChoice(
                    _("{consequence} is not open to you. Allowed: {allowed}.",
                      consequence=_(CONSEQUENCE_LABELS[found]), allowed=", ".join(options))
                )
            return found
        raise InvalidChoice(_("The duel is over: no more choices."))

    def _parse_stateless(self, text: str) -> str:
        for parse in (parse_move, parse_consequence):
            try:
                return parse(text)
            except InvalidChoice:
                pass
        key = _key(text)
        if key in _KEEP_WORDS:
            return KEEP if key == KEEP else NO_TWIST
        if key.startswith("style"):
            return parse_style_change(text)
        if key.startswith("reroll"):
            parsed = parse_twist(text)
            if parsed is not None and parsed[0] is not None:
                return f"reroll:{parsed[0]}:{parsed[1]}"
        try:
            return setup_choice(*parse_setup(text))
        except InvalidChoice:
            pass
        raise InvalidChoice(
            _(
                "{text} is not a FoEQ choice: a Move, a setup ('death quick 3'), 'keep' or "
                "'style=...', 'none' or 'reroll:trick:1', or a consequence.",
                text=repr(_shown(text)),
            )
        )

    def choice_label(self, choice: str | None) -> str:
        if choice is None:
            return _("no choice")
        if choice == SECRET_CHOICE:
            return _("(secret)")
        if choice in STARE:
            return _(STARE[choice].label)
        if choice in CONSEQUENCE_LABELS:
            return _(CONSEQUENCE_LABELS[choice])
        if choice == KEEP:
            return _("Keep the Style")
        if choice == NO_TWIST:
            return _("Reroll nothing")
        if choice.startswith("style="):
            shown = STYLE_LABELS.get(choice[6:])
            return _("Change Style to {style}", style=choice[6:] if shown is None else _(shown))
        if choice.startswith("reroll:"):
            kind, index = [*choice.split(":"), "", ""][1:3]
            if kind == TRICK:
                return _("Reroll Trick die #{index}", index=index)
            if kind == FAULT:
                return _("Reroll Fault die #{index}", index=index)
            return _("Reroll {kind} die #{index}", kind=kind.capitalize(), index=index)
        if choice.startswith("stake="):
            try:
                stake, style, slot = parse_setup(choice)
            except InvalidChoice:
                return choice
            return _("{stake}, {style}, slot {slot}", stake=_(STAKE_LABELS[stake]),
                     style=_(STYLE_LABELS[style]), slot=slot)
        return choice

    def validate_sheet(self, sheet: Mapping[str, Any]) -> dict[str, Any]:
        return Duellist.from_sheet("", sheet).sheet()

    def initial_state(self, a: Fighter, b: Fighter, params: Mapping[str, Any]) -> FoeqState:
        """``params``: ``public_stake`` (pride, first_blood, death; default pride),
        ``challenger`` ("a" or "b", default "a") and the house rules ``strong-against``,
        ``disruptive``, ``shot-tie`` (recorded in the state: the duel keeps them)."""
        given = self.normalize_params(params)  # the one normalisation: typed, keys as declared
        house = self.parse_house_rules(given, ignore_unknown=True)
        stake = given.get(PUBLIC_STAKE.key, PUBLIC_STAKE.default)
        challenger = _side(given.get(CHALLENGER.key, CHALLENGER.default))
        if challenger is None:  # pragma: no cover - normalize_params allows a and b only
            raise InvalidRoundInput("challenger must be 'a' or 'b'.")
        return FoeqState(
            a=Duellist.from_sheet(a.name, a.sheet),
            b=Duellist.from_sheet(b.name, b.sheet),
            public_stake=stake,
            challenger=challenger,
            house_rules=house,
        )

    def duel_params(self) -> tuple[DuelParam, ...]:
        return tuple(replace(param, help=_(param.help)) for param in (PUBLIC_STAKE, CHALLENGER))

    def state_from_dict(self, data: Mapping[str, Any]) -> FoeqState:
        return FoeqState.from_dict(data)

    def make_options(self, settings: Mapping[str, Any]) -> Options:
        """``settings``: ``missing_move`` (none, forfeit) and any house rule, which then
        overrides the duel's own; other keys are ignored."""
        policy = settings.get("missing_move", "none")
        return Options(
            missing_move="forfeit" if policy == "forfeit" else "none",
            house_rules=self.explicit_house_rules(settings),
        )

    def house_rules(self) -> tuple[HouseRule, ...]:
        return tuple(replace(rule, help=_(rule.help)) for rule in HOUSE_RULES)

    # -- text ---------------------------------------------------------------------------

    def roll_purpose_label(self, purpose: str) -> str:
        """A roll's purpose (``stare2_check``, ``shot_trick``) as the step it is rolled in:
        "Stare 2, Check", "Shot, Trick Die"; an unknown id read as words."""
        if purpose.startswith("stare"):
            number, _sep, what = purpose[5:].partition("_")
            if number.isdecimal() and what == "initiative":
                return _("Stare {round}, Initiative", round=int(number))
            if number.isdecimal() and what == "check":
                return _("Stare {round}, Check", round=int(number))
        known = _SHOT_PURPOSES.get(purpose)
        return _(known) if known is not None else super().roll_purpose_label(purpose)

    def short_name(self) -> str:
        return "FoEQ p20"

    def help_text(self, state: Any = None, side: Side | None = None) -> str:
        if isinstance(state, FoeqState) and side in SIDES:
            asked = step_prompt(state, side)
            if asked is not None:
                return asked
        return _(
            "FoEQ spell duel: answer the step the bot's prompt asks for. Setup: your true "
            "stake, Style and spell slot level, e.g. `death quick 3`; the Stare: a Move such "
            "as `bluff`, `eye` or `sage`; a Style decision: `keep` or a Style; the Shot: "
            "`none` or a die to reroll, e.g. `reroll trick 1`; the Score: a consequence such "
            "as `hit_die` or `first_blood`."
        )


    def fighter_summary(self, side_state: Mapping[str, Any]) -> list[tuple[str, str]]:
        """HP, Hit Dice, spell attack, initiative, spell slots (what a card shows)."""

        def signed(key: str) -> str:
            value = side_state.get(key, 0)
            return f"{value:+d}" if isinstance(value, int) else str(value)

        hp_max = side_state.get("hp_max", "?")
        slots = side_state.get("spell_slots") or []
        slot_text = ", ".join(
            _("L{level}×{count}", level=level, count=count)
            for level, count in enumerate(slots if isinstance(slots, list) else [], start=1)
            if count
        )
        shown = [
            (_("HP"), f"{side_state.get('hp', hp_max)}/{hp_max}"),
            (_("Hit Dice"), str(side_state.get("hit_dice", 1))),
            (_("Spell attack"), signed("spell_attack")),
            (_("Initiative"), signed("initiative")),
            (_("Spell slots"), slot_text or _("none (cantrips)")),
        ]
        schools = side_state.get("schools")
        if schools:
            shown.append((_("Schools"), ", ".join(_school(x) for x in schools)))
        return shown

    def resolve(
        self,
        state: FoeqState,
        choices: Mapping[Side, str | None],
        dice: DiceSource,
        options: Options | None = None,
    ) -> RoundResult:
        options = options or Options()
        if not isinstance(state, FoeqState):
            raise InvalidRoundInput("resolve needs a FoeqState.")
        if state.ended or state.phase == OVER:
            raise InvalidRoundInput(_("This duel has already ended; no more steps resolve."))
        canonical: dict[Side, str | None] = {}
        for side in SIDES:
            choice = choices.get(side)
            if choice is not None and side not in state.awaiting:
                raise InvalidRoundInput(
                    _("Side {side} has no choice to make in phase {phase}.",
                      side=side, phase=state.phase)
                )
            canonical[side] = None if choice is None else self.parse_choice(choice, state, side)
        return play_step(state, canonical, dice, options)


#: The Shot's rolls by purpose (the Stare's are numbered: ``roll_purpose_label``).
_SHOT_PURPOSES = {
    "shot_initiative": N_("Shot, Initiative"),
    "shot_attack": N_("Shot, Attack"),
    "shot_trick": N_("Shot, Trick Die"),
    "shot_fault": N_("Shot, Fault Die"),
    "shot_twist": N_("Shot, Strategic Twist"),
}


def _reroll_label(kind: str, index: int, value: int, owner: str | None) -> str:
    """A reroll's label: of the chooser's own die (``owner`` None) or the named owner's."""
    if owner is None:
        if kind == TRICK:
            return _("Reroll your Trick die #{index} ({value})", index=index, value=value)
        return _("Reroll your Fault die #{index} ({value})", index=index, value=value)
    if kind == TRICK:
        return _("Reroll {owner}'s Trick die #{index} ({value})",
                 owner=owner, index=index, value=value)
    return _("Reroll {owner}'s Fault die #{index} ({value})",
             owner=owner, index=index, value=value)


def _school(school: object) -> str:
    """A school of magic by its name in the reader's language (as stored when unknown)."""
    return _(SCHOOL_LABELS[school]) if school in SCHOOL_LABELS else str(school)


FOEQ = FoeqSpellDuel()


