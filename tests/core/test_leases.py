"""The lease book's rules, one by one (bridge/core/leases.py's docstring lists them).

What a caller sees is asserted whole: the change a grant reports (it becomes the lease event
every subscriber receives), the holders a preemption displaced, and a refusal's holder names,
idle time, wait before takeover and the message that reaches the refused client.
"""

from __future__ import annotations

from bridge.core.leases import Blocked, Granted, Lease, LeaseBook


def _granted(result: Granted | Blocked) -> Granted:
    assert isinstance(result, Granted), result
    return result


def _blocked(result: Granted | Blocked | None) -> Blocked:
    assert isinstance(result, Blocked), result
    return result


def test_a_first_acquire_creates_the_lease_with_its_mode_holder_time_and_priority() -> None:
    book = LeaseBook(takeover_after_ms=1000)
    granted = _granted(book.acquire("s1", "agent", "shared", 70, priority=2))
    assert granted.change == "acquired" and granted.previous_holders == ()
    assert granted.lease is book.lease
    assert granted.lease == Lease("shared", {"s1": "agent"}, 70, {"s1": 2})


def test_a_holder_acquiring_again_renews_mode_clock_and_priority() -> None:
    book = LeaseBook(takeover_after_ms=1000)
    _granted(book.acquire("s1", "agent", "exclusive", 0))
    renewed = _granted(book.acquire("s1", "agent", "shared", 400, priority=3))
    assert renewed.change == "renewed" and renewed.previous_holders == ()
    assert renewed.lease is book.lease
    assert renewed.lease == Lease("shared", {"s1": "agent"}, 400, {"s1": 3})
    # the renewal reset the idle clock: another session waits the whole takeover time again
    refused = _blocked(book.acquire("s2", "other", "exclusive", 1300))
    assert (refused.idle_ms, refused.takeover_in_ms) == (900, 100)
    # and a renewed priority is the one later requests are compared with
    assert isinstance(book.acquire("s2", "other", "exclusive", 1300, priority=3), Blocked)
    assert _granted(book.acquire("s2", "other", "exclusive", 1300, priority=4)).change == (
        "preempted"
    )


def test_an_exclusive_refusal_names_the_holder_idle_time_and_wait() -> None:
    book = LeaseBook(takeover_after_ms=1000)
    _granted(book.acquire("s1", "dashboard", "exclusive", 100))
    refused = _blocked(book.acquire("s2", "script", "exclusive", 350))
    assert refused == Blocked(("dashboard",), 250, 750)
    assert refused.message() == (
        "the device is leased by dashboard, idle for 250 ms; takeover possible in 750 ms"
    )
    assert book.lease is not None and book.lease.holders == {"s1": "dashboard"}


def test_a_refusal_without_holder_names_says_another_session() -> None:
    assert Blocked((), 5, 10).message() == (
        "the device is leased by another session, idle for 5 ms; takeover possible in 10 ms"
    )
    assert Blocked(("a", "b"), 0, 1).message().startswith("the device is leased by a, b, idle")


def test_takeover_happens_exactly_at_the_idle_limit_and_names_who_lost_it() -> None:
    book = LeaseBook(takeover_after_ms=1000)
    _granted(book.acquire("s1", "one", "shared", 0))
    _granted(book.acquire("s2", "two", "shared", 0))
    refused = _blocked(book.acquire("s3", "three", "exclusive", 999))
    assert refused == Blocked(("one", "two"), 999, 1)
    taken = _granted(book.acquire("s3", "three", "exclusive", 1000))
    assert taken.change == "taken_over" and taken.previous_holders == ("s1", "s2")
    assert taken.lease is book.lease
    assert taken.lease == Lease("exclusive", {"s3": "three"}, 1000, {"s3": 0})


def test_a_higher_priority_preempts_at_once_and_equal_priority_does_not() -> None:
    book = LeaseBook(takeover_after_ms=1000)
    _granted(book.acquire("agent", "claude", "exclusive", 0, priority=1))
    assert isinstance(book.acquire("script", "ci", "exclusive", 10, priority=1), Blocked)
    preempted = _granted(book.acquire("person", "dashboard", "shared", 20, priority=2))
    assert preempted.change == "preempted" and preempted.previous_holders == ("agent",)
    assert preempted.lease is book.lease
    assert preempted.lease == Lease("shared", {"person": "dashboard"}, 20, {"person": 2})


def test_a_holder_without_a_recorded_priority_counts_as_zero() -> None:
    book = LeaseBook(lease=Lease("exclusive", {"old": "legacy"}, 0))
    assert _granted(book.acquire("new", "agent", "exclusive", 1, priority=1)).change == (
        "preempted"
    )
    book = LeaseBook(lease=Lease("exclusive", {"old": "legacy"}, 0))
    assert isinstance(book.acquire("new", "agent", "exclusive", 1), Blocked)


def test_preemption_compares_with_the_highest_other_holder() -> None:
    book = LeaseBook()
    _granted(book.acquire("a", "A", "shared", 0, priority=3))
    _granted(book.acquire("b", "B", "shared", 0, priority=1))
    assert isinstance(book.acquire("c", "C", "exclusive", 0, priority=2), Blocked)
    assert _granted(book.acquire("c", "C", "exclusive", 0, priority=4)).previous_holders == (
        "a",
        "b",
    )


def test_joining_a_shared_lease_adds_the_holder_and_refreshes_the_clock() -> None:
    book = LeaseBook(takeover_after_ms=1000)
    _granted(book.acquire("s1", "one", "shared", 0))
    joined = _granted(book.acquire("s2", "two", "shared", 600, priority=0))
    assert joined.change == "joined" and joined.lease is book.lease
    assert joined.lease == Lease("shared", {"s1": "one", "s2": "two"}, 600, {"s1": 0, "s2": 0})
    # the join counts as activity for the takeover clock
    refused = _blocked(book.acquire("s3", "three", "exclusive", 1500))
    assert refused == Blocked(("one", "two"), 900, 100)


def test_a_shared_request_is_refused_by_an_exclusive_lease() -> None:
    book = LeaseBook(takeover_after_ms=1000)
    _granted(book.acquire("s1", "one", "exclusive", 0))
    assert _blocked(book.acquire("s2", "two", "shared", 10)) == Blocked(("one",), 10, 990)


def test_may_act_names_every_holder_and_never_a_negative_wait() -> None:
    book = LeaseBook(takeover_after_ms=1000)
    assert book.may_act("anyone", 0) is None
    _granted(book.acquire("s1", "one", "shared", 100))
    _granted(book.acquire("s2", "two", "shared", 200))
    assert book.may_act("s1", 300) is None
    assert book.may_act("s3", 300) == Blocked(("one", "two"), 100, 900)
    assert book.may_act("s3", 5000) == Blocked(("one", "two"), 4800, 0)
    book = LeaseBook(takeover_after_ms=1000)
    _granted(book.acquire("s1", "one", "exclusive", 100))
    assert book.may_act("s1", 300) is None
    assert book.may_act("s2", 300) == Blocked(("one",), 200, 800)
    assert book.may_act("s2", 5000) == Blocked(("one",), 4900, 0)


def test_idle_time_never_goes_negative_when_the_clock_is_behind() -> None:
    lease = Lease("exclusive", {"s": "c"}, 500)
    assert lease.idle_ms(400) == 0
    assert lease.idle_ms(500) == 0
    assert lease.idle_ms(501) == 1


def test_touch_counts_only_for_holders() -> None:
    book = LeaseBook(takeover_after_ms=1000)
    _granted(book.acquire("s1", "one", "exclusive", 0))
    book.touch("stranger", 800)
    assert book.lease is not None and book.lease.last_active_ms == 0
    book.touch("s1", 800)
    assert book.lease.last_active_ms == 800
    LeaseBook().touch("s1", 5)  # no lease: nothing to touch, no error


def test_release_forgets_the_holder_and_its_priority() -> None:
    book = LeaseBook()
    _granted(book.acquire("s1", "one", "shared", 0, priority=5))
    _granted(book.acquire("s2", "two", "shared", 0, priority=1))
    assert book.release("s1") is True
    assert book.lease is not None
    assert book.lease.holders == {"s2": "two"} and book.lease.priorities == {"s2": 1}
    assert book.release("s1") is False
    # s1's old priority no longer protects anything: priority 2 now preempts s2 (priority 1)
    assert _granted(book.acquire("s3", "three", "exclusive", 0, priority=2)).change == ("preempted")
    assert book.drop_session("s3") is True and book.lease is None
