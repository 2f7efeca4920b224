"""``SecretHold``: pictures wait from the typing of a secret until a capture numbered after the
dispatch ended, on the same link; a new link's first capture ends it too."""

from __future__ import annotations

from bridge.core.pixel_mask import CLEAR, HOLD, MaskPlan
from bridge.core.secret_hold import SecretHold


def test_a_hold_lasts_from_typing_until_a_capture_taken_after_it() -> None:
    hold, link = SecretHold(), object()
    assert not hold.holding(link, 7)
    hold.begin()
    assert hold.holding(link, 9)  # typing: whatever the capture
    hold.end(link, received=9)
    assert hold.holding(link, 8) and hold.holding(link, 9)  # taken before the reply
    assert not hold.holding(link, 10)  # numbered after it: the masker saw the secret
    assert not hold.holding(link, 9)  # and the hold is over
    assert hold.holds == 1


def test_overlapping_dispatches_hold_until_the_last_one_ends() -> None:
    hold, link = SecretHold(), object()
    hold.begin()
    hold.begin()
    hold.end(link, received=3)
    assert hold.holding(link, 4)  # one still being typed
    hold.end(link, received=5)
    assert hold.holding(link, 5) and not hold.holding(link, 6)


def test_offline_or_a_new_link() -> None:
    hold, old, new = SecretHold(), object(), object()
    hold.begin()
    hold.end(old, received=50)
    assert hold.holding(None, 60)  # offline: nothing says where the secret went
    assert hold.holding(new, None)  # relinked, no capture yet
    assert not hold.holding(new, 1)  # the new link's first capture was taken after


def test_plans_union() -> None:
    a = MaskPlan(False, ((0, 0, 10, 10),), (0, 0, 100, 100))
    b = MaskPlan(False, ((0, 0, 10, 10), (5, 5, 20, 20)), (0, 0, 100, 100))
    assert a.union(b).regions == ((0, 0, 10, 10), (5, 5, 20, 20))
    assert a.union(HOLD).hold and HOLD.union(CLEAR).hold
    assert CLEAR.union(a) == a and a.union(CLEAR) == a and CLEAR.clear
