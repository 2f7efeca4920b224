"""The hub's wait for a node action grows with the text it types (issue 20: a long SET_TEXT on a
phone outlasted the fixed 10 s and the agent was taken for lost)."""

from __future__ import annotations

from bridge.hub.actions import COMMAND_TIMEOUT_S, MAX_COMMAND_TIMEOUT_S, command_timeout_s


def test_the_wait_scales_with_the_text_and_the_old_value_and_is_capped() -> None:
    assert command_timeout_s(None) == COMMAND_TIMEOUT_S
    assert command_timeout_s(None, "old value") == COMMAND_TIMEOUT_S  # a tap clears nothing
    two_thousand = command_timeout_s("a" * 2000)
    assert two_thousand >= 2000 / 40 * 2  # typed twice at 40 characters a second
    assert command_timeout_s("a" * 2000, "b" * 2000) > two_thousand
    assert command_timeout_s("a" * 100_000) == MAX_COMMAND_TIMEOUT_S
