"""Use cases. Each public method owns one transaction and returns plain data.

No wiring here (issue 25): importing a module of this package must not load every service
and the database driver. ``Services`` (all of them over one database) is in
bot/services/container.py; bot/bootstrap.py builds it at start-up.
"""
