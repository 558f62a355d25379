"""A pre-duel challenge, for any ruleset that declares the step (the ``PreDuel``
capability; each ruleset's docs are under docs/rules/): the step's inputs validated as it
declares them, settled by the ruleset with fair dice, its penalties remembered in the
penalised member's profile sheets under the ruleset, and a duel started in the same
transaction when one is fought. This module names no ruleset and none of a ruleset's
concepts: the step's words, inputs, outcome sentence and penalties are the ruleset's."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bot.db import queries
from bot.db.models import DuellistProfile
from bot.i18n.choice import server_language
from bot.i18n.context import _, speaking
from bot.rules import registry
from bot.rules.base import Fighter, Ruleset, Side
from bot.rules.capabilities import PreDuel, capability
from bot.rules.dice import FairDice, commitment, new_seed
from bot.rules.errors import RulesError
from bot.rules.terms import PreDuelInput, PreDuelOutcome
from bot.services.duel_support import DuelUseCases, enqueue, no_sheet, profile_sheet
from bot.services.errors import InvalidInput
from bot.services.lifecycle import NewDuel, create_duel
from bot.services.messages import ChallengePost, Party
from bot.services.pre_duel_inputs import step_of, union_of_inputs, validated_inputs
from bot.services.profiles import clean_name
from bot.services.settings import load_settings_row
from bot.services.unit import transaction
from bot.services.views import ChallengeOutcome, MemberRef

#: The pre-duel step a challenge settles: every ruleset declaring a step with this id
#: takes part (``registry.with_pre_duel_step``).
CHALLENGE_STEP_ID = "challenge"

#: The options of the challenge command that are not the step's inputs: a declared input
#: cannot take one of these keys.
CHALLENGE_OWN_OPTIONS = ("challenger", "challenged", "ruleset")


def challenge_rulesets() -> tuple[Ruleset, ...]:
    """The registered rulesets that declare a challenge step."""
    return registry.with_pre_duel_step(CHALLENGE_STEP_ID)


def challenge_inputs() -> tuple[PreDuelInput, ...]:
    """The inputs a challenge may be given, over every ruleset that declares the step
    (``union_of_inputs``): the options of a front end fixed in advance. A ValueError when
    two rulesets declare one key differently."""
    steps = [(rules, step_of(rules, CHALLENGE_STEP_ID)) for rules in challenge_rulesets()]
    return union_of_inputs(steps, CHALLENGE_OWN_OPTIONS)


def penalty_entry(rules: Ruleset, key: str) -> str:
    """The profile ``sheets`` entry remembering penalty ``key`` of ``rules``'s steps."""
    return f"{rules.id}:{key}"


def remembered_penalties(profile: DuellistProfile, rules: Ruleset) -> frozenset[str]:
    """The keys of the penalties ``rules``'s steps cost this member before."""
    prefix = penalty_entry(rules, "")
    return frozenset(
        key.removeprefix(prefix) for key in (profile.sheets or {}) if key.startswith(prefix)
    )


def _named(rulesets: tuple[Ruleset, ...]) -> str:
    return ", ".join(f"{rules.id} ({rules.title})" for rules in rulesets)


class Challenges(DuelUseCases):
    async def challenge(
        self,
        *,
        guild_id: int,
        channel_id: int,
        actor_id: int,
        challenger: MemberRef,
        challenged: MemberRef,
        inputs: Mapping[str, object],
        ruleset: str | None = None,
        guild_locale: str | None = None,
    ) -> ChallengeOutcome:
        """Settle a challenge under ``ruleset`` (None: the one ruleset declaring the step,
        or, when several do, the one both members have a sheet of). ``inputs``: the step's
        inputs by key (None or absent: not given), validated as the step declares them.
        Penalties are remembered in the penalised member's profile; when a duel is fought
        it starts in the same transaction. Announced through the outbox; a roll uses a
        fresh seed, revealed in the post, label duel:0:round:0:roll:0. ``guild_locale``: the
        server's preferred locale (``interaction.guild_locale``): the post, and the duel a
        fight starts, speak the server's language (/config language, else this locale).
        The outcome's sentences (returned and posted) are in that language too."""
        if challenger.user_id == challenged.user_id:
            raise InvalidInput(_("A member cannot challenge themselves."))
        candidates = challenge_rulesets()
        if not candidates:
            raise InvalidInput(_("No duel system with a challenge step is installed."))
        async with transaction(self._db) as session:
            profiles: dict[Side, DuellistProfile | None] = {
                "a": await queries.profile(session, guild_id, challenger.user_id),
                "b": await queries.profile(session, guild_id, challenged.user_id),
            }
            rules = self._challenge_ruleset(ruleset, candidates, profiles)
            step = step_of(rules, CHALLENGE_STEP_ID)
            values = validated_inputs(rules, step, inputs)
            fighters: dict[Side, Fighter] = {}
            held: dict[Side, DuellistProfile] = {}
            members: tuple[tuple[Side, MemberRef], ...] = (("a", challenger), ("b", challenged))
            for side, member in members:
                profile = profiles[side]
                sheet = profile_sheet(profile, rules)
                if profile is None or sheet is None:
                    raise no_sheet(member.name, rules)
                held[side] = profile
                fighters[side] = Fighter(clean_name(member.name), sheet)
            seed = new_seed()
            pre_duel = capability(rules, PreDuel)
            if pre_duel is None:  # step_of found the step: the ruleset declares it
                raise InvalidInput(
                    _("{ruleset} has no pre-duel step.", ruleset=rules.title), ruleset=rules.id
                )
            settings = await load_settings_row(session, guild_id, self._defaults)
            # The step's sentences are posted (and remembered): the server's language.
            language = server_language(settings.language, guild_locale)
            try:
                with speaking(language):
                    result = pre_duel.run_pre_duel_step(
                        step.id,
                        fighters["a"],
                        fighters["b"],
                        values,
                        FairDice(seed, 0, 0),
                        remembered={s: remembered_penalties(p, rules) for s, p in held.items()},
                    )
            except RulesError as exc:
                raise InvalidInput(exc.message, ruleset=rules.id) from None
            self._remember(rules, step.id, result, held)
            duel = None
            if result.fought:
                new = NewDuel(
                    guild_id,
                    channel_id,
                    actor_id,
                    challenger,
                    challenged,
                    guild_locale=guild_locale,
                )
                duel = await create_duel(session, self._defaults, rules, new)
            rolled = result.roll is not None
            with speaking(language):
                headline = step.headline_for(fighters["a"].name, fighters["b"].name)
            message = ChallengePost(
                duel_id=None if duel is None else duel.id,
                ruleset=rules.id,
                headline=headline,
                outcome=result.outcome,
                sentence=result.sentence,
                challenger=Party(challenger.user_id, fighters["a"].name),
                challenged=Party(challenged.user_id, fighters["b"].name),
                penalties=tuple(p.sentence for p in result.penalties),
                log=tuple(str(e) for e in result.log),
                roll=None if result.roll is None else dict(result.roll.to_dict()),
                seed=seed if rolled else None,
                commitment=commitment(seed) if rolled else None,
                fought=result.fought,
            )
            published = message.to_json()
            enqueue(
                session,
                message,
                language=language if duel is None else duel.language,
                dedupe_key=f"challenge:{guild_id}:{seed[:32]}",
                guild_id=guild_id,
                duel_id=None if duel is None else duel.id,
                target="channel",
                target_id=channel_id,
                on_behalf_of=actor_id,
            )
            queries.audit(
                session,
                guild_id=guild_id,
                actor_id=actor_id,
                action="challenge",
                duel_id=None if duel is None else duel.id,
                details={**published, "inputs": values},
            )
            return ChallengeOutcome(
                ruleset=rules.id,
                outcome=result.outcome,
                sentence=result.sentence,
                duel=duel,
                penalties=tuple(p.sentence for p in result.penalties),
                log=tuple(str(e) for e in result.log),
                language=language,
            )

    @staticmethod
    def _challenge_ruleset(
        ruleset: str | None,
        candidates: tuple[Ruleset, ...],
        profiles: Mapping[Side, DuellistProfile | None],
    ) -> Ruleset:
        """The ruleset that settles this challenge: the one named (it must declare the
        step), the only one declaring it, or the only one both members have a sheet of."""
        if ruleset is not None:
            try:
                rules = registry.get(ruleset)
            except RulesError as exc:
                raise InvalidInput(exc.message) from None
            if rules not in candidates:
                raise InvalidInput(
                    _(
                        "{ruleset} has no challenge step. These do: {rulesets}.",
                        ruleset=rules.title,
                        rulesets=_named(candidates),
                    ),
                    allowed=tuple(r.id for r in candidates),
                )
            return rules
        if len(candidates) == 1:
            return candidates[0]
        sheeted = tuple(
            rules
            for rules in candidates
            if all(profile_sheet(p, rules) is not None for p in profiles.values())
        )
        if len(sheeted) == 1:
            return sheeted[0]
        among = sheeted or candidates
        if sheeted:
            several = _(
                "Several duel systems have a challenge step and both members have a sheet of "
                "each: name the ruleset, one of {rulesets}.",
                rulesets=_named(among),
            )
        else:
            several = _(
                "Several duel systems have a challenge step: name the ruleset, one of "
                "{rulesets}.",
                rulesets=_named(among),
            )
        raise InvalidInput(several, allowed=tuple(r.id for r in among))

    @staticmethod
    def _remember(
        rules: Ruleset,
        step_id: str,
        result: PreDuelOutcome,
        profiles: Mapping[Side, DuellistProfile],
    ) -> None:
        """Record each penalty in the penalised member's profile sheets (how many times,
        the last sentence); the step learns of it next time through ``remembered``."""
        for penalty in result.penalties:
            profile = profiles[penalty.side]
            entry = penalty_entry(rules, penalty.key)
            before: Any = (profile.sheets or {}).get(entry)
            times = int(before.get("times", 1)) if isinstance(before, dict) else 0
            record = {"step": step_id, "times": times + 1, "sentence": penalty.sentence}
            # A new dict: SQLAlchemy sees the JSON column change.
            profile.sheets = {**(profile.sheets or {}), entry: record}
