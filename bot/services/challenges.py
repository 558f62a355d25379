"""The pre-duel challenge of the ruleset that declares one (its docs are under docs/rules/):
settled by the ruleset, remembered in the challenged member's profile sheets, and a duel
started in the same transaction when one is fought. This module names no ruleset: it asks
the registry which ruleset has a challenge step."""

from __future__ import annotations

from bot.db import queries
from bot.rules import registry
from bot.rules.base import Fighter, Ruleset
from bot.rules.dice import FairDice, commitment, new_seed
from bot.rules.errors import RulesError
from bot.services.duel_support import DuelUseCases, enqueue, no_sheet, profile_sheet
from bot.services.errors import InvalidInput
from bot.services.lifecycle import NewDuel, create_duel
from bot.services.messages import ChallengePost, Party
from bot.services.profiles import clean_name
from bot.services.unit import transaction
from bot.services.views import ChallengeOutcome, MemberRef

# The pre-duel step /duel challenge settles (the ruleset that declares it runs it).
CHALLENGE_STEP = "challenge"


def refusals_key(rules: Ruleset) -> str:
    """The profile ``sheets`` entry remembering a pre-duel penalty (a leader's first refused
    challenge) for ``rules``."""
    return f"{rules.id}:refusals"


def challenge_ruleset() -> Ruleset:
    """The ruleset whose duels begin with a challenge (it declares the pre-duel step)."""
    for rules in registry.all_rulesets():
        if any(step.id == CHALLENGE_STEP for step in rules.pre_duel_steps()):
            return rules
    raise InvalidInput("No duel system with a challenge step is installed.")


class Challenges(DuelUseCases):
    async def challenge(
        self,
        *,
        guild_id: int,
        channel_id: int,
        actor_id: int,
        challenger: MemberRef,
        challenged: MemberRef,
        accepted: bool,
        units_in_contact: bool,
    ) -> ChallengeOutcome:
        """Settle a challenge. A refusal may be overturned by the force roll (d6 1-3, units
        in contact); a leader's first refusal costs his leadership for the turn and is
        remembered, later refusals are free. When a duel is fought, it starts in the same
        transaction. Announced through the outbox; the force roll uses a fresh seed,
        revealed in the post, label duel:0:round:0:roll:0."""
        if challenger.user_id == challenged.user_id:
            raise InvalidInput("A member cannot challenge themselves.")
        rules = challenge_ruleset()
        async with transaction(self._db) as session:
            fighters = {}
            profiles = {}
            for side, member in (("a", challenger), ("b", challenged)):
                profile = await queries.profile(session, guild_id, member.user_id)
                sheet = profile_sheet(profile, rules)
                if profile is None or sheet is None:
                    raise no_sheet(member.name, rules)
                profiles[side] = profile
                fighters[side] = Fighter(clean_name(member.name), sheet)
            key = refusals_key(rules)
            record = dict((profiles["b"].sheets or {}).get(key) or {})
            seed = new_seed()
            try:
                result = rules.run_pre_duel_step(
                    CHALLENGE_STEP,
                    fighters["a"],
                    fighters["b"],
                    {
                        "accepted": accepted,
                        "units_in_contact": units_in_contact,
                        "leader_first_refusal": not record.get("refused_before", False),
                    },
                    FairDice(seed, 0, 0),
                )
            except RulesError as exc:
                raise InvalidInput(exc.message, ruleset=rules.id) from None
            if result.leadership_lost:  # a leader's first refusal: later ones are free
                record["refused_before"] = True
                profiles["b"].sheets = {**(profiles["b"].sheets or {}), key: record}
            duel = None
            if result.duel:
                new = NewDuel(guild_id, channel_id, actor_id, challenger, challenged)
                duel = await create_duel(session, self._defaults, rules, new)
            settled = result.to_dict()
            message = ChallengePost(
                duel_id=None if duel is None else duel.id,
                outcome=str(settled["outcome"]),
                challenger=Party(challenger.user_id, fighters["a"].name),
                challenged=Party(challenged.user_id, fighters["b"].name),
                log=tuple(settled["log"]),
                leadership_lost=bool(settled["leadership_lost"]),
                roll=settled["roll"],
                seed=seed if result.roll is not None else None,
                commitment=commitment(seed) if result.roll is not None else None,
                fought=bool(settled["duel"]),
                declined=bool(settled["declined"]),
            )
            published = message.to_json()
            enqueue(
                session,
                message,
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
                details=published,
            )
            return ChallengeOutcome(
                outcome=result.outcome,
                duel=duel,
                leadership_lost=result.leadership_lost,
                log=tuple(str(e) for e in result.log),
            )
