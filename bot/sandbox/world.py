"""The rehearsal server the sandbox starts with: who is in it and what they may do."""

from __future__ import annotations

from dataclasses import dataclass

from bot.standin import ADMINISTRATOR, MANAGE_GUILD, FakeDiscord
from bot.standin.models import FakeUser

GUILD_NAME = "Sandbox Duel Hall"
DUEL_CHANNEL = "duels"
#: (username, display name): the duellists. The commander is never one of them (a duellist
#: never commands their own duel).
DUELLISTS = (("ann", "Ann"), ("bob", "Bob"), ("cyd", "Cyd"))


@dataclass(frozen=True)
class Person:
    user: FakeUser
    #: "commander", "admin" or "duellist": what the page shows next to the name.
    role: str


@dataclass(frozen=True)
class Cast:
    guild_id: int
    duel_channel_id: int
    people: tuple[Person, ...]

    def person(self, user_id: int) -> Person | None:
        return next((p for p in self.people if p.user.id == user_id), None)


def populate(fake: FakeDiscord) -> Cast:
    """One server with a duel channel, a commander (the Referee role: Manage Server), an admin
    (Administrator) and a few duellists; each has a DM channel with the bot."""
    guild = fake.add_guild(GUILD_NAME, channel_name=DUEL_CHANNEL)
    fake.add_text_channel(guild.id, "general")
    referee = fake.add_role(guild.id, "Referee", permissions=MANAGE_GUILD)
    admins = fake.add_role(guild.id, "Admin", permissions=ADMINISTRATOR)
    commander = fake.add_user("morgan", global_name="Morgan")
    fake.add_member(guild.id, commander, roles=[referee])
    admin = fake.add_user("avery", global_name="Avery")
    fake.add_member(guild.id, admin, roles=[admins])
    people = [Person(commander, "commander"), Person(admin, "admin")]
    for username, display in DUELLISTS:
        user = fake.add_user(username, global_name=display)
        fake.add_member(guild.id, user)
        people.append(Person(user, "duellist"))
    for person in people:
        fake.dm_channel(person.user.id)
    return Cast(guild_id=guild.id, duel_channel_id=guild.channel_ids[0], people=tuple(people))
