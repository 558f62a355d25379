"""Move intake: DM text, /move (DM or server, ephemeral), and the DM prompts' move buttons
(their class lives in intake_buttons, which the poster also uses; this cog registers it).

Secrecy: a move is only ever echoed back to its author. Nothing here logs message text.
"""

from __future__ import annotations

import logging
import re
from contextlib import nullcontext

import discord
from discord import app_commands
from discord.ext import commands

from bot.discord import flood
from bot.discord.checks import answer_privately
from bot.discord.client import DuelBot, services_of
from bot.discord.cogs.commander import DuelId, own_duel_autocomplete
from bot.discord.errors import UNEXPECTED, user_message
from bot.discord.intake_buttons import move_click
from bot.discord.languages import answering, dm_reply_language
from bot.i18n.choice import dm_language, language_for
from bot.i18n.context import _, speaking
from bot.presentation.discord_replies import (
    moves_help,
    open_rounds_text,
    receipt_text,
)
from bot.rules import registry
from bot.rules.base import MoveSpec
from bot.services.errors import DomainError
from bot.services.scope import DuelScope

log = logging.getLogger(__name__)

MAX_DM_LENGTH = 200
# Any number of digits: a number too large to be a duel is answered as an unknown duel (the
# services check the range), not read as part of the move.
_DUEL_PREFIX = re.compile(r"^\s*#\s*(\d+)\s*[:,.\-]?\s*(.*)$", re.DOTALL)
_HELP_WORDS = {"help", "?", "moves", "status", "duels"}


def dm_move_of(content: str) -> tuple[int | None, str] | None:
    """A DM's duel number (None: not given) and move, or None when the DM is no move:
    empty, too long, a word asking for help, or a duel number alone."""
    text = content.strip()
    if not text or len(text) > MAX_DM_LENGTH:
        return None
    duel_id, move = split_duel_prefix(text)
    if not move or (duel_id is None and move.casefold() in _HELP_WORDS):
        return None
    return duel_id, move


def split_duel_prefix(text: str) -> tuple[int | None, str]:
    """'#12 evade' -> (12, 'evade'); 'evade' -> (None, 'evade')."""
    match = _DUEL_PREFIX.match(text)
    if match is None:
        return None, text.strip()
    return int(match.group(1)), match.group(2).strip()


async def move_autocomplete(
    interaction: discord.Interaction[DuelBot], current: str
) -> list[app_commands.Choice[str]]:
    """The legal moves of the duel named in the `duel` option (the default ruleset's
    otherwise). A duel that is not the caller's gives the default, as an unknown number
    does."""
    duel_id = getattr(interaction.namespace, "duel", None)
    default_moves = registry.get(registry.DEFAULT_RULESET_ID).moves()
    moves: tuple[MoveSpec, ...] = default_moves
    if isinstance(duel_id, int):
        user_id, guild_id = interaction.user.id, interaction.guild_id
        try:
            duels = services_of(interaction.client).duels
            # What this duellist may choose now (a FoEQ step's phase), else the ruleset's.
            legal = await duels.choices_for(duel_id, user_id, guild_id)
            if legal:
                moves = tuple(MoveSpec(m["id"], m["label"], "move") for m in legal)
            else:
                scope = DuelScope.of_duellist(user_id, guild_id)
                duel = await duels.get_duel(duel_id, scope=scope)
                moves = registry.get(duel.ruleset).moves()
        except Exception:  # autocomplete is a hint: fall back to the default ruleset's moves
            moves = default_moves
    wanted = current.strip().casefold()
    return [
        app_commands.Choice(name=m.label[:100], value=m.id)
        for m in moves
        if not wanted or wanted in m.label.casefold() or wanted in m.id
    ][:25]


class Intake(commands.Cog):
    def __init__(self, bot: DuelBot) -> None:
        self.bot = bot

    @commands.Cog.listener()
    async def on_interaction(self, interaction: discord.Interaction[DuelBot]) -> None:
        # The DM prompts' move buttons work across restarts: their custom_id says it all,
        # read once here (bot/discord/intake_buttons.py says why not as a dynamic item).
        click = move_click(interaction)
        if click is not None:
            # This listener's own task: the click is answered in the member's language.
            with answering(interaction, self.bot.member_languages):
                await click.clicked(interaction)

    async def cog_load(self) -> None:
        self.bot.message_intake = self.on_message  # called by DuelBot.on_message

    async def cog_unload(self) -> None:
        if self.bot.message_intake == self.on_message:
            self.bot.message_intake = None

    async def on_message(self, message: discord.Message) -> None:
        if message.guild is not None or message.author.bot:
            return
        if message.author.id == (self.bot.user.id if self.bot.user else 0):
            return
        if await self._over_flood_limit(message):
            return
        user_id = message.author.id
        languages = self.bot.member_languages
        known = languages.known(user_id)
        language, reply = await self.answer_dm(user_id, message.content, known)
        if known is None:
            languages.sent_dm(user_id, language)  # their next DM asks the services nothing
        try:
            await message.channel.send(reply, allowed_mentions=discord.AllowedMentions.none())
        except discord.HTTPException:
            log.warning("Could not answer a DM from user %s", message.author.id)

    async def _over_flood_limit(self, message: discord.Message) -> bool:
        """Over the per-user limit: one notice, then silence (no reply, no database work)."""
        limiter = self.bot.flood
        decision = limiter.check(message.author.id)
        if decision.verdict is flood.Verdict.NOTICE:
            # No database work over the limit: the language this process knows them by.
            heard = self.bot.member_languages.known(message.author.id)
            with speaking(dm_language(heard, None, None)):
                notice = limiter.notice(decision)
            try:
                await message.channel.send(
                    notice, allowed_mentions=discord.AllowedMentions.none()
                )
            except discord.HTTPException:
                log.warning("Could not send the flood notice to user %s", message.author.id)
        return not decision.allowed

    async def answer_dm(
        self, user_id: int, content: str, language: str | None
    ) -> tuple[str, str]:
        """The answer to a DM and the language it speaks: ``language``, the one this
        process knows the member by (bot/discord/languages.py), else theirs as the services
        have it. A move from a member not known here finds it in the move's own pass (a
        DM move is on the hot path: no read before it); anything else asks first."""
        parsed = dm_move_of(content)
        if parsed is not None and language is None:
            chosen, answer = await self._dm_move(user_id, *parsed, find_language=True)
            return language_for(chosen), answer
        if language is None:
            language = await dm_reply_language(self.bot.services, None, user_id)
        with speaking(language):
            if parsed is None:
                return language, await self._not_a_move(user_id, content.strip())
            return language, (await self._dm_move(user_id, *parsed))[1]

    async def handle_dm(self, user_id: int, content: str) -> str:
        """The answer to a DM, in the language of the caller's scope."""
        parsed = dm_move_of(content)
        if parsed is None:
            return await self._not_a_move(user_id, content.strip())
        return (await self._dm_move(user_id, *parsed))[1]

    async def _dm_move(
        self, user_id: int, duel_id: int | None, move: str, *, find_language: bool = False
    ) -> tuple[str | None, str]:
        """The answer to a DM move, and the language the services took it in (None: the
        caller's scope; with ``find_language`` always one)."""
        try:
            receipt = await services_of(self.bot).duels.submit_move(
                user_id=user_id,
                move=move,
                via="dm_text",
                duel_id=duel_id,
                find_language=find_language,
            )
        except Exception as exc:
            chosen = exc.language if isinstance(exc, DomainError) else None
            if chosen is None and find_language:  # refused before the move's pass
                chosen = await dm_reply_language(self.bot.services, None, user_id)
            with speaking(chosen) if chosen is not None else nullcontext():
                return chosen, self._refusal(exc, user_id)
        with speaking(receipt.language) if receipt.language is not None else nullcontext():
            return receipt.language, receipt_text(receipt)

    @staticmethod
    def _refusal(exc: Exception, user_id: int) -> str:
        message = user_message(exc)
        if message is None:
            log.exception("Unexpected error while taking a DM move from user %s", user_id)
            return _(UNEXPECTED)
        return message

    async def _not_a_move(self, user_id: int, text: str) -> str:
        """Help, status, or what was wrong with a DM that is no move."""
        if not text:
            return self._help(_("Send your move as text."))
        if len(text) > MAX_DM_LENGTH:
            too_long = _(
                "That message is too long ({count} characters) to be a move. Send just the "
                "move.",
                count=len(text),
            )
            return f"{too_long} {moves_help()}"
        duel_id, move = split_duel_prefix(text)
        if not move and duel_id is not None:
            which = _("Which move for duel #{duel}?", duel=duel_id)
            return f"{which} {moves_help()}"
        return await self._status(user_id)

    async def _status(self, user_id: int) -> str:
        rounds = await services_of(self.bot).duels.open_rounds_for_user(user_id)
        if not rounds:
            return self._help(_("You have no open round right now."))
        return open_rounds_text(rounds)

    @staticmethod
    def _help(first: str) -> str:
        several = _("If you are in several duels, put the duel number first: `#12 <move>`.")
        return f"{first}\n{moves_help()}\n{several}"

    @app_commands.command(name="move", description="Send your secret move for a duel's round")
    @app_commands.describe(
        duel="Duel number",
        move="Your move, e.g. evade or ffs (only you will see this)",
    )
    @app_commands.autocomplete(duel=own_duel_autocomplete)
    @app_commands.autocomplete(move=move_autocomplete)
    @app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)
    async def move(
        self,
        interaction: discord.Interaction[DuelBot],
        duel: DuelId,
        move: app_commands.Range[str, 1, 100],
    ) -> None:
        if await flood.refuse_interaction(interaction, self.bot.flood):
            return
        await answer_privately(interaction)
        receipt = await services_of(self.bot).duels.submit_move(
            user_id=interaction.user.id,
            move=move,
            via="slash",
            duel_id=duel,
            guild_id=interaction.guild_id,
        )
        await interaction.followup.send(receipt_text(receipt), ephemeral=True)


async def setup(bot: DuelBot) -> None:
    await bot.add_cog(Intake(bot))
