"""Rule 2.14 Duelling: the core ruleset (interpretation in docs/rules/rule-2.14.md).

Modules: moves (moves, outcomes, parsing), state (duellists, state, options), ruleset (the
Ruleset and its resolution), command_line (its `duelbot odds` and short round input).
Nothing is re-exported here: import a name from its module."""
