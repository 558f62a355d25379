"""By This Axe duels: dice-pool allotment, dirty tricks, parries, counterattacks, flight.

The seed is shared/seeds/by-this-axe-duels.txt; every interpretation, default and house rule
is recorded in docs/rules/by-this-axe.md. Pure: no I/O, every die comes from a DiceSource.

Modules: tables (the seed's tables, ids, clauses), allotments (allotments and their text
forms), forfeits (the dice a dirty trick takes), sheet, state (duel state, options, house
rules), choices (what a side may choose in a state, and parsing it), resolution (one
round), odds (exact counting, ``round_odds``), challenge (the pre-duel challenge),
command_line (its `duelbot odds` report), ruleset (the Ruleset over them). Nothing is
re-exported here: import a name from its module.
"""
