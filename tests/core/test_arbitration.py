"""Leases, objections and idempotency: the pure arbitration state."""

from __future__ import annotations

from bridge.core.idempotency import IdempotencyTable
from bridge.core.leases import Blocked, Granted, LeaseBook
from bridge.core.objections import AnswerProblem, Approved, Objection, ObjectionBook, Rejected


def test_exclusive_lease_blocks_others_until_idle_takeover() -> None:
    book = LeaseBook(takeover_after_ms=1000)
    assert book.may_act("b", 0) is None  # nobody holds it: any controller may act
    first = book.acquire("a", "agent-a", "exclusive", 0)
    assert isinstance(first, Granted) and first.change == "acquired"
    blocked = book.acquire("b", "agent-b", "exclusive", 500)
    assert isinstance(blocked, Blocked)
    assert blocked.holder_names == ("agent-a",) and blocked.idle_ms == 500
    assert "agent-a" in blocked.message() and "500 ms" in blocked.message()
    assert isinstance(book.may_act("b", 500), Blocked)
    assert book.may_act("a", 500) is None
    book.touch("a", 900)  # activity resets the idle clock
    assert isinstance(book.acquire("b", "agent-b", "exclusive", 1800), Blocked)
    taken = book.acquire("b", "agent-b", "exclusive", 1900)
    assert isinstance(taken, Granted) and taken.change == "taken_over"
    assert taken.previous_holders == ("a",)
    assert isinstance(book.may_act("a", 1900), Blocked)


def test_shared_lease_lets_several_act_and_release_frees_it() -> None:
    book = LeaseBook()
    assert isinstance(book.acquire("a", "A", "shared", 0), Granted)
    joined = book.acquire("b", "B", "shared", 10)
    assert isinstance(joined, Granted) and joined.change == "joined"
    assert book.may_act("a", 20) is None and book.may_act("b", 20) is None
    assert isinstance(book.may_act("c", 20), Blocked)
    assert isinstance(book.acquire("c", "C", "exclusive", 30), Blocked)
    assert book.release("a") and book.release("b")
    assert book.lease is None
    assert not book.release("a")
    assert book.may_act("c", 40) is None


def _objection(oid: str, session: str = "s1", answerable: bool = True) -> Objection:
    return Objection(id=oid, session=session, subject="subj", reason="why", answerable=answerable)


def test_objections_are_answered_by_id_only_with_a_real_answer() -> None:
    book = ObjectionBook()
    book.raise_objection(_objection("o1"))
    book.raise_objection(_objection("o2", answerable=False))
    assert isinstance(book.answer("o1", "  ", "s1", "subj"), AnswerProblem)  # blank: stays open
    assert "o1" in book.open
    assert isinstance(book.answer("nope", "approve", "s1", "subj"), AnswerProblem)
    assert isinstance(book.answer("o1", "approve", "other", "subj"), AnswerProblem)
    assert isinstance(book.answer("o1", "approve", "s1", "different action"), AnswerProblem)
    assert isinstance(book.answer("o2", "approve", "s1", "subj"), AnswerProblem)
    assert isinstance(book.answer("o1", "maybe", "s1", "subj"), AnswerProblem)
    assert isinstance(book.answer("o1", "Approve", "s1", "subj"), Approved)
    assert isinstance(book.answer("o1", "approve", "s1", "subj"), AnswerProblem)  # used once
    book.raise_objection(_objection("o3"))
    assert isinstance(book.answer("o3", "reject", "s1", "subj"), Rejected)
    book.raise_objection(_objection("o4"))
    book.drop_session("s1")
    assert "o4" not in book.open


def test_idempotency_window_and_capacity() -> None:
    table: IdempotencyTable[str] = IdempotencyTable(window_ms=100, capacity=2)
    table.put("dev", "k1", "first", 0)
    assert table.get("dev", "k1", 50) == "first"
    assert table.get("other", "k1", 50) is None
    assert table.get("dev", "k1", 100) is None  # expired
    table.put("dev", "a", "A", 200)
    table.put("dev", "b", "B", 201)
    table.put("dev", "c", "C", 202)
    assert table.get("dev", "a", 203) is None  # evicted, oldest first
    assert table.get("dev", "c", 203) == "C"


def test_objection_answers_tell_the_client_exactly_what_went_wrong() -> None:
    book = ObjectionBook()
    raised = book.raise_objection(_objection("o1"))
    locked = book.raise_objection(_objection("o2", answerable=False))
    assert book.answer("zz", "approve", "s1", "subj") == AnswerProblem(
        "objection 'zz' was not raised for this session"
    )
    assert book.answer("o1", " ", "s1", "subj") == AnswerProblem(
        "a blank answer leaves objection 'o1' open"
    )
    assert book.answer("o2", "approve", "s1", "subj") == AnswerProblem(
        "objection 'o2' cannot be answered: why"
    )
    assert book.answer("o1", "approve", "s1", "other") == AnswerProblem(
        "objection 'o1' was raised for a different action; answer it with the same request"
    )
    assert book.answer("o1", "Maybe ", "s1", "subj") == AnswerProblem(
        "answer must be 'approve' or 'reject', not 'Maybe '"
    )
    assert book.answer("o1", " APPROVE ", "s1", "subj") == Approved(raised)
    assert "o1" not in book.open and book.open == {"o2": locked}
    book.raise_objection(_objection("o3"))
    assert book.answer("o3", "reject", "s1", "subj") == Rejected(_objection("o3"))
    assert "o3" not in book.open


def test_open_objections_are_bounded_oldest_dropped_first() -> None:
    book = ObjectionBook(max_open=2)
    for oid in ("o1", "o2"):
        book.raise_objection(_objection(oid))
    assert list(book.open) == ["o1", "o2"]
    book.raise_objection(_objection("o3"))
    assert list(book.open) == ["o2", "o3"]
    book.drop_session("other")
    assert list(book.open) == ["o2", "o3"]


def test_idempotency_capacity_is_exact() -> None:
    table: IdempotencyTable[str] = IdempotencyTable(window_ms=1000, capacity=2)
    table.put("dev", "a", "A", 0)
    table.put("dev", "b", "B", 1)
    assert (table.get("dev", "a", 2), table.get("dev", "b", 2)) == ("A", "B")
    table.put("dev", "c", "C", 3)
    assert table.get("dev", "a", 4) is None and table.get("dev", "b", 4) == "B"
    table.forget("dev", "b")
    assert table.get("dev", "b", 5) is None and table.get("dev", "c", 5) == "C"
