"""The FoEQ spell duel (FoEQ p20): stakes, styles, the Stare, the Shot, the Score.

Interpretation and every choice made: docs/rules/foeq-spell-duel.md.

The duel is a state machine driven as a sequence of *steps*. Each step is one round of the
generic machinery: the state says which sides must choose (``state.awaiting``), whether
their choice is secret (``state.public`` false: chosen by DM, never shown) or public, and
``moves(state, side)`` lists the legal choices. ``resolve(state, choices, dice, options)``
applies the step, then plays every part of the duel that needs only dice, and stops at the
next step that needs a choice (or at the end of the duel). Phases:

==================  =================  ========  ==========================================
phase               awaiting           public    choice ids
==================  =================  ========  ==========================================
``setup``           both               no        ``stake=<stake>;style=<style>;slot=<0-9>``
``stare_first``     lower initiative   yes       a Move id, e.g. ``bluff``
``stare_second``    higher initiative  yes       a Move id
``stare_style``     the Move's winner  no        ``keep`` or ``style=<style>``
``shot_twist``      the side to twist  yes       ``none`` or ``reroll:<trick|fault>:<n>``
``score_choice``    the victor         yes       ``hit_die``, a school, ``first_blood``,
                                                 ``death``
``over``            nobody             yes       (none: the duel has ended)
==================  =================  ========  ==========================================

Information only one duellist may learn (their own secret choices confirmed, the
opponent's Style learnt by Tactical Analysis or Sage Advice, their own Style change) is put
in ``state.notes`` and read with ``private_notes(result)``; it never appears in the public
log, the rolls or ``result.choices`` (masked as ``"secret"`` for a secret step). The state
itself holds the secrets (true stakes, styles): the service stores it but must never
publish it while the duel runs.

Modules: tables, sheet, state, parsing, phases (what the state asks next), step (one
step's resolution: ``play_step``) over step_base (its working memory), shot (the Shot and
the Score) and stare (the setup and the Stare), ruleset (the Ruleset). Nothing is
re-exported here: import a name from its module."""
