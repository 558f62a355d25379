"""Pure rules engine: no Discord, no database, no I/O.

Modules: base (the core ``Ruleset`` contract), capabilities (what only some games have,
asked with ``capability(ruleset, MultiStep)``), terms (the contract's plain data), params
(house rules and per-duel settings), dice, errors, command_line (what a ruleset gives
`duelbot`), registry (the rulesets and the one lookup, ``registry.get``), plugins (the
entry-point group ``duelbot.rulesets`` the registry loads), adjudication (the services' one
call per move and per close), and one package per ruleset. This
``__init__`` imports nothing: importing one module loads only what it needs.
"""
