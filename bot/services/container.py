"""Every service over one database, built once at start-up (bot/bootstrap.py)."""

from __future__ import annotations

from dataclasses import dataclass

from bot.config import DuelSettings
from bot.db.engine import Database
from bot.services.duels import DuelService
from bot.services.exports import ExportService
from bot.services.languages import LanguageService
from bot.services.outbox import OutboxService
from bot.services.profiles import ProfileService
from bot.services.ratings import RatingService
from bot.services.scheduler import SchedulerService
from bot.services.settings import SettingsService


@dataclass(frozen=True)
class Services:
    duels: DuelService
    profiles: ProfileService
    settings: SettingsService
    outbox: OutboxService
    scheduler: SchedulerService
    exports: ExportService
    ratings: RatingService
    # The language each member last used (issue 28): the Discord layer calls
    # ``languages.remember(user_id, interaction.locale)`` on every interaction.
    languages: LanguageService

    @classmethod
    def create(cls, db: Database, defaults: DuelSettings | None = None) -> Services:
        defaults = defaults or DuelSettings()
        return cls(
            duels=DuelService(db, defaults),
            profiles=ProfileService(db),
            settings=SettingsService(db, defaults),
            outbox=OutboxService(db),
            scheduler=SchedulerService(db),
            exports=ExportService(db),
            ratings=RatingService(db, defaults),
            languages=LanguageService(db),
        )


__all__ = ["Services"]
