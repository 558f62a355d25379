"""Service-suite fixtures. ``database`` (and ``make_db``, ``db_backend``) come from
tests/conftest.py: a migrated database on a fresh SQLite file and on a fresh PostgreSQL
schema, so every test here runs on both backends."""

from __future__ import annotations

import pytest

from bot.config import DuelSettings
from bot.db.engine import Database
from bot.services.container import Services


@pytest.fixture
def services(database: Database) -> Services:
    return Services.create(database, DuelSettings())
