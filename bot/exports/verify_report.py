"""What a whole-duel verification found (bot/exports/verify.py): per round and for the
duel, as the command line prints it (English) and as its JSON report."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True)
class RoundCheck:
    number: int
    status: str
    mismatches: list[str] = field(default_factory=list)
    # Why the round was not re-adjudicated (open, cancelled, secrets withheld), or None.
    skipped: str | None = None
    checked: list[str] = field(default_factory=list)

    @property
    def verified(self) -> bool:
        return not self.mismatches

    def line(self) -> str:
        head = f"round {self.number} ({self.status})"
        if self.mismatches:
            return f"{head}: NOT VERIFIED: {self.mismatches[0]}"
        done = "; ".join(self.checked)
        if self.skipped is not None:
            return f"{head}: not re-adjudicated: {self.skipped}" + (f"; {done}" if done else "")
        return f"{head}: OK: {done}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "status": self.status,
            "verified": self.verified,
            "re_adjudicated": self.skipped is None,
            "not_re_adjudicated_because": self.skipped,
            "checked": list(self.checked),
            "mismatches": list(self.mismatches),
        }


@dataclass(slots=True)
class DuelCheck:
    duel_id: int
    ruleset: str
    rounds: list[RoundCheck]
    duel_mismatches: list[str] = field(default_factory=list)

    @property
    def verified(self) -> bool:
        return not self.duel_mismatches and all(r.verified for r in self.rounds)

    @property
    def first_mismatch(self) -> str | None:
        for r in self.rounds:
            if r.mismatches:
                return f"round {r.number}: {r.mismatches[0]}"
        return f"duel: {self.duel_mismatches[0]}" if self.duel_mismatches else None

    def lines(self) -> list[str]:
        out = [r.line() for r in self.rounds]
        out += [f"duel: NOT VERIFIED: {m}" for m in self.duel_mismatches]
        return out

    def summary(self) -> str:
        if not self.verified:
            return f"NOT VERIFIED: {self.first_mismatch}"
        done = sum(1 for r in self.rounds if r.skipped is None)
        skipped = len(self.rounds) - done
        text = (
            f"OK: duel {self.duel_id} ({self.ruleset}): {done} round(s) re-adjudicated, "
            "all hold"
        )
        if skipped:
            text += f"; {skipped} round(s) not re-adjudicated (open, cancelled or still secret)"
        return text

    def to_dict(self) -> dict[str, Any]:
        return {
            "verified": self.verified,
            "duel_id": self.duel_id,
            "ruleset": self.ruleset,
            "first_mismatch": self.first_mismatch,
            "rounds": [r.to_dict() for r in self.rounds],
            "duel_mismatches": list(self.duel_mismatches),
            "summary": self.summary(),
        }
