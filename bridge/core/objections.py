"""Objections: refusals pending a user's answer (USER_CONFIRMATION_REQUIRED / POLICY_BLOCKED).

Rules (product brief, policy answers):
- every objection has an id; it is answered by id, never by position;
- a blank answer closes nothing (the objection stays open and the answer is reported);
- an answer to an id that was not raised (or belongs to another session) is itself reported;
- some objections are unanswerable (e.g. DISPATCH_ONLY on a destructive action);
- an approval is bound to the exact action it was raised for (``subject``) and is used once.
Ids are minted by the caller (the core has no randomness).
"""

from __future__ import annotations

from dataclasses import dataclass, field

APPROVE = "approve"
REJECT = "reject"


@dataclass(frozen=True, slots=True)
class Objection:
    id: str
    session: str
    subject: str
    """A digest of the action it guards (device, verb, target fingerprint, value presence)."""
    reason: str
    answerable: bool


@dataclass(frozen=True, slots=True)
class Approved:
    objection: Objection


@dataclass(frozen=True, slots=True)
class Rejected:
    objection: Objection


@dataclass(frozen=True, slots=True)
class AnswerProblem:
    message: str


@dataclass
class ObjectionBook:
    max_open: int = 256
    open: dict[str, Objection] = field(default_factory=dict)

    def raise_objection(self, objection: Objection) -> Objection:
        if len(self.open) >= self.max_open:
            oldest = next(iter(self.open))
            del self.open[oldest]
        self.open[objection.id] = objection
        return objection

    def answer(
        self, objection_id: str, answer: str, session: str, subject: str
    ) -> Approved | Rejected | AnswerProblem:
        word = answer.strip().lower()
        found = self.open.get(objection_id)
        if found is None or found.session != session:
            return AnswerProblem(f"objection {objection_id!r} was not raised for this session")
        if not word:
            return AnswerProblem(f"a blank answer leaves objection {objection_id!r} open")
        if not found.answerable:
            return AnswerProblem(f"objection {objection_id!r} cannot be answered: {found.reason}")
        if found.subject != subject:
            return AnswerProblem(
                f"objection {objection_id!r} was raised for a different action; "
                "answer it with the same request"
            )
        if word == APPROVE:
            del self.open[objection_id]
            return Approved(found)
        if word == REJECT:
            del self.open[objection_id]
            return Rejected(found)
        return AnswerProblem(f"answer must be {APPROVE!r} or {REJECT!r}, not {answer!r}")

    def drop_session(self, session: str) -> None:
        for oid in [o.id for o in self.open.values() if o.session == session]:
            del self.open[oid]
