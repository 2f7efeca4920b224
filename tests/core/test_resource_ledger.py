"""The resource ledger (bridge/core/resource_ledger.py): per-session and per-hub bounds, the
refusal a client reads, and the counts /v1/stats shows."""

from __future__ import annotations

from bridge.core.resource_ledger import Bound, ResourceLedger


def _ledger() -> ResourceLedger:
    return ResourceLedger({"recordings": Bound(per_session=2, per_hub=3), "uploads": Bound(1, 1)})


def test_a_session_is_refused_past_its_own_bound_with_the_reason() -> None:
    ledger = _ledger()
    assert ledger.take("recordings", "s1") is None
    assert ledger.take("recordings", "s1") is None
    assert ledger.take("recordings", "s1") == (
        "this session holds 2 recordings (at most 2 a session); end one first"
    )
    assert ledger.held("recordings", "s1") == 2 and ledger.held("recordings") == 2


def test_the_hub_refuses_past_its_bound_for_all_sessions() -> None:
    ledger = _ledger()
    for session in ("s1", "s1", "s2"):
        assert ledger.take("recordings", session) is None
    assert ledger.take("recordings", "s3") == (
        "the hub holds 3 recordings (at most 3 for all sessions); retry when one ends"
    )
    ledger.give("recordings", "s2")
    assert ledger.take("recordings", "s3") is None


def test_give_counts_down_never_below_zero_and_drop_forgets_a_session() -> None:
    ledger = _ledger()
    ledger.take("recordings", "s1")
    ledger.take("recordings", "s1")
    ledger.take("uploads", "s1")
    assert ledger.of_session("s1") == {"recordings": 2, "uploads": 1}
    ledger.give("recordings", "s1")
    assert ledger.held("recordings", "s1") == 1
    ledger.give("recordings", "s1")
    ledger.give("recordings", "s1")  # not held: a no-op
    assert ledger.held("recordings", "s1") == 0 and ledger.of_session("s1") == {"uploads": 1}
    ledger.take("recordings", "s2")
    ledger.drop_session("s1")
    assert ledger.of_session("s1") == {} and ledger.held("recordings") == 1


def test_statistics_show_held_sessions_peak_refusals_and_bounds() -> None:
    ledger = _ledger()
    ledger.take("recordings", "s1")
    ledger.take("recordings", "s2")
    ledger.take("recordings", "s2")
    ledger.take("recordings", "s2")  # refused: s2's bound
    ledger.give("recordings", "s1")
    assert ledger.statistics() == {
        "recordings": {
            "held": 2, "sessions": 1, "peak": 3, "refused": 1, "per_session": 2, "per_hub": 3,
        },
        "uploads": {
            "held": 0, "sessions": 0, "peak": 0, "refused": 0, "per_session": 1, "per_hub": 1,
        },
    }  # fmt: skip
