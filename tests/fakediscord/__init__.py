"""The tests' name for the Discord stand-in, which lives in the product as ``bot.standin``
(docs/standin.md). ``tests.fakediscord.<module>`` is the very module ``bot.standin.<module>``
(aliased in sys.modules), so monkeypatching either name patches the one stand-in; the pytest
fixture stays here (pytest_plugin.py)."""

from __future__ import annotations

import sys

from bot.standin import *  # noqa: F403
from bot.standin import __all__ as __all__
from bot.standin import (
    errors,
    forum,
    gateway,
    interactions,
    limits,
    models,
    options,
    payloads,
    ratelimits,
    runner,
    server,
)

for _module in (
    errors,
    forum,
    gateway,
    interactions,
    limits,
    models,
    options,
    payloads,
    ratelimits,
    runner,
    server,
):
    sys.modules[f"{__name__}.{_module.__name__.rsplit('.', 1)[1]}"] = _module
