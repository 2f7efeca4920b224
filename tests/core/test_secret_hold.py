"""``SecretHold``: pictures wait from the typing of a secret until a capture numbered after the
dispatch ended, on the same link; a new link's first capture ends it too."""

from __future__ import annotations

from bridge.core.pixel_mask import CLEAR, HOLD, MaskPlan
from bridge.core.secret_hold import MOTION_HOLD_MAX_MS, MotionHold, SecretHold


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


def test_a_motion_hold_lasts_until_a_stable_capture_taken_after_the_action() -> None:
    link = object()
    hold = MotionHold()
    assert not hold.holding(link, 5, True, 0)
    hold.begin()
    assert hold.holding(link, 5, True, 10), "while the command runs"
    hold.end(link, 6, 100)  # the agent had sent capture 6 when the command ended
    assert hold.holding(link, 6, True, 110), "capture 6 may predate the motion"
    assert hold.holding(link, 7, False, 120), "capture 7 is moving still"
    assert not hold.holding(link, 7, True, 130), "capture 7, stable: where everything went"
    assert not hold.holding(link, 7, False, 140), "the hold is over once lifted"
    assert hold.holds == 1


def test_a_motion_hold_ends_at_its_cap_and_on_a_new_link() -> None:
    link, other = object(), object()
    hold = MotionHold()
    hold.begin()
    hold.end(link, 3, 1_000)
    assert hold.holding(link, 4, False, 1_000 + MOTION_HOLD_MAX_MS - 1)
    assert not hold.holding(link, 4, False, 1_000 + MOTION_HOLD_MAX_MS), "never settles"
    hold.begin()
    hold.begin()
    hold.end(link, 3, 5_000)
    assert hold.holding(link, 9, True, 5_001), "one command of two still runs"
    hold.end(link, 4, 5_002)
    assert hold.holding(link, 4, True, 5_003)
    assert hold.holding(None, None, True, 5_003), "offline: nothing says where things are"
    assert not hold.holding(other, 1, True, 5_004), "the agent reconnected after the motion"


def test_a_hold_is_counted_once_however_many_dispatches_it_spans() -> None:
    hold, link = SecretHold(), object()
    hold.begin()
    hold.end(link, received=3)
    hold.begin()  # while the first hold waits for its capture: the same hold
    hold.end(link, received=4)
    assert hold.holds == 1
    assert not hold.holding(link, 5)
    hold.begin()  # after it ended: a new one
    assert hold.holds == 2


def test_the_highest_capture_number_on_one_link_is_kept_and_a_new_link_starts_again() -> None:
    hold, link, other = SecretHold(), object(), object()
    hold.begin()
    hold.begin()
    hold.end(link, received=10)
    hold.end(link, received=5)  # its reply came later but named an older capture
    assert hold.holding(link, 8), "capture 8 predates the first end"
    assert hold.holding(link, None), "no capture yet: nothing says where the secret went"
    assert not hold.holding(link, 11)
    hold.begin()
    hold.end(link, received=20)
    hold.begin()
    hold.end(other, received=2)  # the agent reconnected: its numbers start again
    assert hold.holding(other, 2) and not hold.holding(other, 3)


def test_a_motion_hold_keeps_the_highest_capture_number_and_counts_holds_once() -> None:
    link = object()
    hold = MotionHold()
    hold.begin()
    hold.begin()
    hold.end(link, 10, 1)
    hold.end(link, 5, 2)
    assert hold.holding(link, 8, True, 3), "capture 8 predates the first command's end"
    assert hold.holding(link, 10, True, 3)
    hold.begin()  # while that hold waits
    hold.end(link, 11, 4)
    assert hold.holds == 1
    assert not hold.holding(link, 12, True, 5)
    hold.begin()
    assert hold.holds == 2
    hold.end(link, 12, 6)
    assert hold.holding(link, None, True, 7), "no capture on the link yet"
